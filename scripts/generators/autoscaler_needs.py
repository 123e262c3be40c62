"""What each Cluster Autoscaler image minor needs granted, for scripts/generators/render_charts.py.

What every chart upstream shipped for the minor's line grants with its defaults (cloudProvider aws): the line's
first chart over-grants at times (9.52.0 granted create and delete on nodes, which 9.53.0 keeps for the kwok and
huaweicloud providers only), and a permission one chart of the line does without is not one the line's image
needs. For a minor without a chart line yet, the newest line's needs plus what the autoscaler's own example
manifest (cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml) added between that line's newest
release and the image's release.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import generate_addon_versions
import upstream
import yaml
from rendered_facts import Renderer, facts_of

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model.charts import rbac

EXAMPLE = "cluster-autoscaler/cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml"
Extract = Callable[[Path, str, str, Path], tuple[Path, dict[str, Any]]]


def default_rules(
    helm: Renderer, extract: Extract, repo: Path, version: str, tmp: Path
) -> tuple[set[rbac.Permission], dict]:
    """The permissions the chart grants with its own defaults (what upstream shipped for its line)."""
    chart, source = extract(repo, versions.CLUSTER_AUTOSCALER, version, tmp)
    values = {"cloudProvider": "aws", "autoDiscovery": {"clusterName": "cluster"}}
    objects = helm.template(chart, "cluster-autoscaler", "kube-system", values, "1.35")
    if objects is None:
        raise SystemExit(f"cluster-autoscaler {version}: helm refuses its defaults")
    _, grants = facts_of(objects, "kube-system")
    out: set[rbac.Permission] = set()
    for grant in grants:
        out |= rbac.permissions(grant["rules"], rbac.CLUSTER if grant["namespace"] is None else "namespace")
    return out, source


def example_rules(repo: Path, tag: str) -> set[rbac.Permission]:
    text = upstream.git_show(repo, tag, EXAMPLE)
    if text is None:
        raise SystemExit(f"{tag}: no {EXAMPLE}")
    out: set[rbac.Permission] = set()
    for doc in yaml.safe_load_all(text):
        if doc and doc.get("kind") in ("ClusterRole", "Role"):
            out |= rbac.permissions(
                doc.get("rules") or [], rbac.CLUSTER if doc["kind"] == "ClusterRole" else "namespace"
            )
    return out


def needs(helm: Renderer, extract: Extract, repo: Path, table: dict, tmp: Path) -> dict[str, Any]:
    """Image minor -> the permissions it needs, and where that comes from.

    What every chart upstream shipped for the minor's line grants with its defaults (cloudProvider aws): the
    line's first chart over-grants at times (9.52.0 granted create and delete on nodes, which 9.53.0 keeps for the
    kwok and huaweicloud providers only), and a permission one chart of the line does without is not one the
    line's image needs. For a minor without a chart line yet, the newest line's needs plus what the autoscaler's
    own example manifest added between that line's newest release and the image's release."""
    pins = upstream.manifest()
    _, charts, _ = generate_addon_versions.read_autoscaler(
        repo, pins["autoscaler-release-tags"], pins["autoscaler-charts"]
    )
    line_charts: dict[str, list[str]] = {}
    for version, app in sorted(charts.items(), key=lambda kv: upstream.version_key(kv[0])):
        line_charts.setdefault(generate_addon_versions.minor_of(app), []).append(version)
    releases_of = {t.removeprefix("cluster-autoscaler-"): t for t in upstream.git_tags(repo, "cluster-autoscaler-")}
    cache: dict[str, tuple[set[rbac.Permission], dict]] = {}
    out: dict[str, Any] = {}
    for minor, row in table.items():
        entry = row.get(versions.CLUSTER_AUTOSCALER)
        if entry is None:
            continue
        line = entry["chartLine"]
        granted = []
        for version in line_charts[line]:
            if version not in cache:
                cache[version] = default_rules(helm, extract, repo, version, tmp / f"needs-{version}")
            granted.append(cache[version][0])
        perms = set.intersection(*granted)
        first = cache[line_charts[line][0]][1]
        sources = [
            {
                **first,
                "why": f"what every chart of the {line} line grants with its defaults",
                "charts": line_charts[line],
            }
        ]
        if not entry["sameLine"]:
            line_tag = releases_of[max((v for v in releases_of if v.startswith(line + ".")), key=upstream.version_key)]
            image_tag = f"cluster-autoscaler-{entry['image'].removeprefix('v')}"
            added = example_rules(repo, image_tag) - example_rules(repo, line_tag)
            perms |= added
            sources.append(
                {
                    "repo": "kubernetes/autoscaler",
                    "path": EXAMPLE,
                    "tags": [line_tag, image_tag],
                    "why": f"what the autoscaler's own example manifest added from {line_tag} to {image_tag}",
                    "added": sorted(str(p) for p in added),
                }
            )
        out[minor] = {
            "image": entry["image"],
            "source": sources,
            "permissions": [dataclasses.asdict(p) for p in sorted(perms)],
        }
    return out
