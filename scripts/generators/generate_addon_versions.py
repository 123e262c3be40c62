#!/usr/bin/env python3
"""Generate the add-on versions of each Kubernetes minor (mlplatform_core/data/addon_versions.json).

For every minor of the EKS calendar (mlplatform_core/data/eks_versions.json) whose extended support has not
ended on the day of generation, the Helm charts and images the workload layer installs, read from upstream:

- cluster-autoscaler: the image is the newest patch release of the cluster's minor (release tags
  cluster-autoscaler-1.MINOR.PATCH of kubernetes/autoscaler; its scheduler simulation is version-specific).
  The chart is the newest chart tag (cluster-autoscaler-chart-*) whose Chart.yaml `appVersion` has the same
  minor, the chart's "line"; where upstream has published no chart of that line yet, the newest chart of an
  older line, marked `sameLine: false` (its RBAC is then proven sufficient for the image at plan time,
  mlplatform_core/model/charts/rbac.py). `firstOfLine` is the first chart upstream shipped for the line: its
  RBAC is what the image of that minor needs (scripts/generators/render_charts.py records it).
- nvidia-device-plugin: the newest release tag v0.X.Y of NVIDIA/k8s-device-plugin whose chart's `kubeVersion`
  constraint admits the minor (chart version = app version = image tag without the "v").
- karpenter and karpenter-crd: the release pinned in mlplatform_core/data/karpenter.json
  (scripts/generators/generate_karpenter_data.py), for the minors its compatibility matrix lists.
- aws-efa-k8s-device-plugin: the chart of aws/eks-charts at its newest repository release tag (the repository
  is tagged v0.0.N as a whole; each tag publishes the charts' Chart.yaml versions), for the minors its
  `kubeVersion` admits (none given: every minor); the image tag is its values.yaml `image.tag`.
- gpu-operator: the newest release tag vYY.M.P of NVIDIA/gpu-operator whose chart's `kubeVersion` admits the
  minor; its release publishes the chart with version = appVersion = the tag (git says v1.0.0-devel).
- dcgm-exporter: the newest release tag <dcgm>-<exporter> of NVIDIA/dcgm-exporter whose chart's `kubeVersion`
  admits the minor (chart version = the exporter's version; image tag from its values.yaml).
- nvidia-dra-driver-gpu: the newest release tag vYY.M.P of NVIDIA/k8s-dra-driver-gpu whose chart's `kubeVersion`
  admits the minor, from Kubernetes 1.34 (resource.k8s.io/v1, where the toolkit allows `gpuAllocation: dra`) on
  (chart version = appVersion = the tag without "v"; the image tag is "v" + appVersion, templates/_helpers.tpl).
  `--only-dra-driver` updates these pins (and their source) in the existing table without the other clones.
- kueue: the newest release tag vX.Y.Z of kubernetes-sigs/kueue up to the pin's, for the minors from the one its
  README requires (scripts/lib/kueue_chart.py).
- al2023Ami: the newest AMI release of awslabs/amazon-eks-ami whose release notes (CHANGELOG.md) list the
  AL2023 AMIs of the minor (x86_64 and arm64 standard, x86_64 NVIDIA): Karpenter's EC2NodeClass alias
  al2023@<release> pins the node image instead of following every new release (`latest`).

Needs git and PyYAML. Usage (from the repository root; bare mirrors work):
  scripts/generators/generate_addon_versions.py --autoscaler DIR --device-plugin DIR --eks-ami DIR
  scripts/generators/generate_addon_versions.py --fetch          blobless clones from GitHub (reads the tags pinned in
                                                      scripts/upstream.json: a newer tag is left out until the
                                                      pin's `newest` moves)
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream
import yaml
from kueue_chart import KUEUE_SOURCE, read_kueue

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "mlplatform_core" / "data"
OUTPUT = DATA / "addon_versions.json"
AUTOSCALER_CHART = ("cluster-autoscaler/charts/cluster-autoscaler", "charts/cluster-autoscaler")  # moved at 9.52.0
DEVICE_PLUGIN_CHART = "deployments/helm/nvidia-device-plugin"
EFA_CHART = "stable/aws-efa-k8s-device-plugin"
GPU_OPERATOR_CHART = "deployments/gpu-operator"
DCGM_CHART = "deployment"
DRA_DRIVER_CHART = "deployments/helm/nvidia-dra-driver-gpu"
DRA_MIN_MINOR = "1.34"  # resource.k8s.io/v1 (model/layout/allocation.py DRA_MIN_KUBERNETES)
DCGM_TAG = re.compile(r"^(\d+\.\d+\.\d+)-(\d+\.\d+\.\d+)$")  # <DCGM version>-<exporter version>
AMI_NAME = re.compile(r"amazon-eks-node-al2023-(x86_64|arm64)-(standard|nvidia)-(1\.\d+)-(v\d{8})")
AMI_VARIANTS = {("x86_64", "standard"), ("arm64", "standard"), ("x86_64", "nvidia")}


def minor_of(version: str) -> str:
    return ".".join(str(x) for x in upstream.version_key(version)[:2])


def minors_to_cover(calendar: dict[str, Any], on: datetime.date) -> list[str]:
    """The calendar's minors whose extended support has not ended on `on` (released or not)."""
    rows = calendar["versions"]
    keep = [m for m, row in rows.items() if datetime.date.fromisoformat(row["end_of_extended_support"]) > on]
    return sorted(keep, key=upstream.version_key)


def autoscaler_lines(charts: dict[str, str]) -> dict[str, dict[str, str]]:
    """chart version -> appVersion, grouped by line: line minor -> {"first": version, "newest": version}."""
    lines: dict[str, dict[str, str]] = {}
    for version in sorted(charts, key=upstream.version_key):
        line = lines.setdefault(minor_of(charts[version]), {"first": version})
        line["newest"] = version
    return lines


def autoscaler_entry(minor: str, images: dict[str, str], charts: dict[str, str]) -> dict[str, Any] | None:
    """The image and chart of `minor`, or None when upstream has no release of the minor."""
    if minor not in images:
        return None
    lines = autoscaler_lines(charts)
    if minor in lines:
        line = minor
    else:  # no chart of the line yet: the newest chart of an older line
        older = [m for m in lines if upstream.version_key(m) < upstream.version_key(minor)]
        if not older:
            return None
        line = max(older, key=upstream.version_key)
    return {
        "chart": lines[line]["newest"],
        "chartLine": line,
        "sameLine": line == minor,
        "firstOfLine": lines[line]["first"],
        "image": images[minor],
    }


def constraint_admits(constraint: str, version: str) -> bool:
    """Helm's kubeVersion constraint (Masterminds semver: comparisons ANDed by comma or space, `||` ORed)
    for `version`; pre-release suffixes such as -0 are ignored, as they only widen a lower bound."""
    have = upstream.version_key(version + ".0")
    ops = {
        ">=": lambda a, b: a >= b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        "<": lambda a, b: a < b,
        "=": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
    }
    for alternative in constraint.split("||"):
        terms = re.findall(r"(>=|<=|!=|>|<|=)?\s*v?(\d+(?:\.\d+){0,2})(?:-[0-9A-Za-z.]+)?", alternative)
        if not terms:
            continue
        if all(ops[op or "="](have, tuple(upstream.version_key(v + ".0.0")[:3])) for op, v in terms):
            return True
    return False


def ami_releases(changelog: str) -> dict[str, str]:
    """minor -> the newest AMI release (vYYYYMMDD) whose notes list every AL2023 variant Karpenter may pick."""
    seen: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for arch, flavour, minor, release in AMI_NAME.findall(changelog):
        seen.setdefault((minor, release), set()).add((arch, flavour))
    newest: dict[str, str] = {}
    for (minor, release), variants in seen.items():
        if variants >= AMI_VARIANTS and release > newest.get(minor, ""):
            newest[minor] = release
    return newest


def read_autoscaler(repo: Path, release_pin: dict, chart_pin: dict) -> tuple[dict[str, str], dict[str, str], str]:
    """(minor -> newest image tag, chart version -> appVersion, the chart's default image repository)."""
    images: dict[str, str] = {}
    for tag in upstream.git_tags(repo, "cluster-autoscaler-", release_pin.get("newest")):
        version = tag.removeprefix("cluster-autoscaler-")
        images[minor_of(version)] = f"v{version}"  # oldest first: the newest patch wins
    charts: dict[str, str] = {}
    newest_chart = ""
    for tag in upstream.git_tags(repo, "cluster-autoscaler-chart-", chart_pin.get("newest")):
        text = upstream.git_show(repo, tag, *(f"{p}/Chart.yaml" for p in AUTOSCALER_CHART))
        if text is None and not charts:
            continue  # the oldest chart tags kept the chart elsewhere
        if text is None:
            raise SystemExit(f"{tag}: no Chart.yaml at {' or '.join(AUTOSCALER_CHART)}; the chart moved again")
        meta = yaml.safe_load(text)
        charts[str(meta["version"])] = str(meta["appVersion"])
        newest_chart = tag
    values = yaml.safe_load(upstream.git_show(repo, newest_chart, *(f"{p}/values.yaml" for p in AUTOSCALER_CHART)))
    return images, charts, values["image"]["repository"]


def read_device_plugin(repo: Path, pin: dict) -> tuple[dict[str, str], str]:
    """(chart version -> kubeVersion constraint, the default image repository)."""
    charts: dict[str, str] = {}
    newest = ""
    tags = upstream.git_tags(repo, "v", pin.get("newest"))
    for tag in tags:
        text = upstream.git_show(repo, tag, f"{DEVICE_PLUGIN_CHART}/Chart.yaml")
        if text is None:
            continue  # releases before the chart lived here
        meta = yaml.safe_load(text)
        if str(meta["version"]) != tag.removeprefix("v"):
            continue  # a few old releases kept the previous chart version: not published under this one
        charts[str(meta["version"])] = str(meta.get("kubeVersion", ">= 0.0.0"))
        newest = tag
    if pin.get("newest") in tags and newest != pin["newest"]:
        raise SystemExit(f"{pin.get('newest')}: its chart version is not the release's; the release flow changed")
    values = yaml.safe_load(upstream.git_show(repo, newest, f"{DEVICE_PLUGIN_CHART}/values.yaml"))
    return charts, values["image"]["repository"]


def read_efa_plugin(repo: Path, pin: dict) -> dict[str, Any]:
    """The chart at the pin's newest repository tag: {chart, image, kubeVersion, repository}."""
    text = upstream.git_show(repo, pin["newest"], f"{EFA_CHART}/Chart.yaml")
    values = upstream.git_show(repo, pin["newest"], f"{EFA_CHART}/values.yaml")
    if text is None or values is None:
        raise SystemExit(f"aws/eks-charts {pin['newest']}: no chart at {EFA_CHART}")
    meta, vals = yaml.safe_load(text), yaml.safe_load(values)
    return {
        "chart": str(meta["version"]),
        "image": str(vals["image"].get("tag") or meta["appVersion"]),
        "kubeVersion": str(meta.get("kubeVersion", ">= 0.0.0")),
        "repository": vals["image"]["repository"],
    }


# The GPU operator's images the toolkit's values run (the operator and the operands it enables): values.yaml keys.
GPU_OPERATOR_IMAGES = ("operator", "migManager", "gfd", "validator")


def read_gpu_operator(repo: Path, pin: dict) -> tuple[dict[str, str], str, dict[str, str]]:
    """(release version -> kubeVersion constraint, the operator's image repository, values key -> the image
    repository the newest release's values.yaml gives each image the toolkit runs) of every release tag."""
    charts: dict[str, str] = {}
    newest = ""
    for tag in upstream.git_tags(repo, "v", pin.get("newest")):
        text = upstream.git_show(repo, tag, f"{GPU_OPERATOR_CHART}/Chart.yaml")
        if text is None:
            continue
        charts[tag] = str(yaml.safe_load(text).get("kubeVersion", ">= 0.0.0"))
        newest = tag
    values = yaml.safe_load(upstream.git_show(repo, newest, f"{GPU_OPERATOR_CHART}/values.yaml"))
    repositories = {key: values[key]["repository"] for key in GPU_OPERATOR_IMAGES}
    return charts, f"{values['operator']['repository']}/{values['operator']['image']}", repositories


def read_dcgm_exporter(repo: Path, pin: dict) -> tuple[dict[str, dict[str, str]], str]:
    """(chart version -> {kubeVersion, image tag}, the image repository) of every release tag up to the pin's."""
    found = []
    for tag in upstream.git(repo, "tag", "--list").split():
        if m := DCGM_TAG.match(tag):
            found.append((upstream.version_key(m[2]), upstream.version_key(m[1]), tag))
    found.sort()
    tags = [t for *_, t in found]
    if pin.get("newest") in tags:
        tags = tags[: tags.index(pin["newest"]) + 1]
    charts: dict[str, dict[str, str]] = {}
    repository = ""
    for tag in tags:
        text = upstream.git_show(repo, tag, f"{DCGM_CHART}/Chart.yaml")
        values = upstream.git_show(repo, tag, f"{DCGM_CHART}/values.yaml")
        if text is None or values is None:
            continue
        meta, vals = yaml.safe_load(text), yaml.safe_load(values)
        if str(meta["version"]) != DCGM_TAG.match(tag)[2]:
            continue  # a tag that did not publish its own chart version
        charts[str(meta["version"])] = {
            "kubeVersion": str(meta.get("kubeVersion", ">= 0.0.0")),
            "image": vals["image"]["tag"],
        }
        repository = vals["image"]["repository"]
    return charts, repository


def read_dra_driver(repo: Path, pin: dict) -> tuple[dict[str, str], str]:
    """(chart version -> kubeVersion constraint, the image repository) of every release tag up to the pin's."""
    charts: dict[str, str] = {}
    newest = ""
    for tag in upstream.git_tags(repo, "v", pin.get("newest")):
        text = upstream.git_show(repo, tag, f"{DRA_DRIVER_CHART}/Chart.yaml")
        if text is None:
            continue  # releases before the chart lived here
        meta = yaml.safe_load(text)
        if str(meta["version"]) != tag.removeprefix("v"):
            continue  # a tag that did not publish its own chart version
        charts[str(meta["version"])] = str(meta.get("kubeVersion", ">= 0.0.0"))
        newest = tag
    if not newest:
        raise SystemExit(f"{pin.get('repo')}: no release tag with a chart at {DRA_DRIVER_CHART}")
    values = yaml.safe_load(upstream.git_show(repo, newest, f"{DRA_DRIVER_CHART}/values.yaml"))
    return charts, values["image"]["repository"]


def dra_row(minor: str, charts: dict[str, str]) -> dict[str, Any] | None:
    """The DRA driver's pin of a minor (None before 1.34 or where no release admits it)."""
    if upstream.version_key(minor) < upstream.version_key(DRA_MIN_MINOR):
        return None
    if release := newest_admitting(charts, minor):
        return {"chart": release, "image": f"v{release}"}
    return None


def merge_dra(table: dict[str, Any], charts: dict[str, str], image: str, source: dict) -> dict[str, Any]:
    """The existing table with the DRA driver's pins, chart repository and source (re)placed."""
    for minor, row in table["minors"].items():
        row.pop("nvidia-dra-driver-gpu", None)
        if pin := dra_row(minor, charts):
            row["nvidia-dra-driver-gpu"] = pin
    table["charts"]["nvidia-dra-driver-gpu"] = {"repo": DRA_DRIVER_REPO, "image": image}
    table["source"] = [s for s in table["source"] if s.get("role") != source["role"]] + [source]
    return table


# NVIDIA's chart repository for the driver (the install guide: helm repo add nvidia https://helm.ngc.nvidia.com/nvidia).
DRA_DRIVER_REPO = "https://helm.ngc.nvidia.com/nvidia"


def newest_admitting(constraints: dict[str, str], minor: str) -> str | None:
    admitted = [v for v, c in constraints.items() if constraint_admits(c, minor)]
    return max(admitted, key=upstream.version_key) if admitted else None


def gpu_rows(minor: str, efa: dict[str, Any], operator: dict[str, str], dcgm: dict[str, dict[str, str]]) -> dict:
    """The GPU add-ons' pins of a minor (issue 21's charts), each left out where upstream admits no release."""
    row: dict[str, Any] = {}
    if constraint_admits(efa["kubeVersion"], minor):
        row["aws-efa-k8s-device-plugin"] = {"chart": efa["chart"], "image": efa["image"]}
    if release := newest_admitting(operator, minor):
        row["gpu-operator"] = {"chart": release, "image": release}
    if chart := newest_admitting({v: d["kubeVersion"] for v, d in dcgm.items()}, minor):
        row["dcgm-exporter"] = {"chart": chart, "image": dcgm[chart]["image"]}
    return row


def build(
    minors: list[str],
    images: dict[str, str],
    autoscaler_charts: dict[str, str],
    device_plugin_charts: dict[str, str],
    karpenter: dict[str, Any],
    amis: dict[str, str],
    gpu: tuple[dict[str, Any], dict[str, str], dict[str, dict[str, str]]] | None = None,
    kueue: dict[str, str] | None = None,
) -> dict[str, dict[str, Any]]:
    """minor -> {add-on: {chart, image, ...}, al2023Ami}; an add-on upstream has nothing for is left out."""
    out: dict[str, dict[str, Any]] = {}
    low, high = karpenter["kubernetes"]["min"], karpenter["kubernetes"]["max"]
    for minor in minors:
        row: dict[str, Any] = {}
        if entry := autoscaler_entry(minor, images, autoscaler_charts):
            row["cluster-autoscaler"] = entry
        plugin = [v for v, c in device_plugin_charts.items() if constraint_admits(c, minor)]
        if plugin:
            newest = max(plugin, key=upstream.version_key)
            row["nvidia-device-plugin"] = {"chart": newest, "image": f"v{newest}"}
        if upstream.version_key(low) <= upstream.version_key(minor) <= upstream.version_key(high):
            release = karpenter["release"]
            row["karpenter"] = {"chart": release, "image": release}
            row["karpenter-crd"] = {"chart": release}
        if gpu is not None:
            row.update(gpu_rows(minor, *gpu))
        if kueue is not None and upstream.version_key(kueue["min"]) <= upstream.version_key(minor):
            row["kueue"] = {"chart": kueue["release"], "image": f"v{kueue['release']}"}
        if minor in amis:
            row["al2023Ami"] = amis[minor]
        out[minor] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    upstream.add_clone_options(
        ap, "--autoscaler", "--device-plugin", "--eks-ami", "--karpenter-repo", "--efa-charts", "--gpu-operator"
    )
    upstream.add_clone_options(ap, "--dcgm-exporter", "--dra-driver", "--kueue")
    ap.add_argument(
        "--only-dra-driver", action="store_true", help="update only the DRA driver's pins in the existing table"
    )
    ap.add_argument("--eks-ami-ref", help="read the release notes at this ref instead of the pinned commit")
    ap.add_argument("--fetch", action="store_true", help="clone what was not given from GitHub (blobless)")
    ap.add_argument("--calendar", default=str(DATA / "eks_versions.json"))
    ap.add_argument("--karpenter", default=str(DATA / "karpenter.json"), help="the Karpenter snapshot")
    ap.add_argument("--on", default=None, help="the day of generation (YYYY-MM-DD; default today)")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    on = datetime.date.fromisoformat(args.on) if args.on else datetime.date.today()
    pins = upstream.manifest()
    if args.only_dra_driver:
        with tempfile.TemporaryDirectory() as tmp:
            repo, src = upstream.git_repository("dra-driver-chart", args.dra_driver, args.fetch, Path(tmp))
            charts, image = read_dra_driver(repo, pins["dra-driver-chart"])
        table = merge_dra(json.loads(Path(args.output).read_text()), charts, image, src)
        head = {k: v for k, v in table.items() if k != "minors"}
        upstream.write_json(Path(args.output), head, "minors", table["minors"])
        print(f"nvidia-dra-driver-gpu {', '.join(sorted(charts))} -> {args.output}", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        scaler, scaler_src = upstream.git_repository("autoscaler-charts", args.autoscaler, args.fetch, Path(tmp))
        plugin_repo, plugin_src = upstream.git_repository(
            "device-plugin-charts", args.device_plugin, args.fetch, Path(tmp)
        )
        ami_repo, ami_src = upstream.git_repository("eks-ami-changelog", args.eks_ami, args.fetch, Path(tmp))
        images, scaler_charts, scaler_image = read_autoscaler(
            scaler, pins["autoscaler-release-tags"], pins["autoscaler-charts"]
        )
        plugin_charts, plugin_image = read_device_plugin(plugin_repo, pins["device-plugin-charts"])
        ami_ref = args.eks_ami_ref or pins["eks-ami-changelog"]["commit"]
        changelog = upstream.git_show(ami_repo, ami_ref, "CHANGELOG.md")
        if changelog is None:
            raise SystemExit(f"amazon-eks-ami: no CHANGELOG.md at {ami_ref}")
        karpenter_repo, karpenter_src = upstream.git_repository(
            "karpenter-chart", args.karpenter_repo, args.fetch, Path(tmp)
        )
        karpenter = json.loads(Path(args.karpenter).read_text())
        karpenter_values = upstream.git_show(karpenter_repo, f"v{karpenter['release']}", "charts/karpenter/values.yaml")
        if karpenter_values is None:
            raise SystemExit(f"aws/karpenter-provider-aws: no charts/karpenter/values.yaml at v{karpenter['release']}")
        karpenter_image = yaml.safe_load(karpenter_values)["controller"]["image"]["repository"]
        efa_repo, efa_src = upstream.git_repository("efa-plugin-chart", args.efa_charts, args.fetch, Path(tmp))
        operator_repo, operator_src = upstream.git_repository(
            "gpu-operator-chart", args.gpu_operator, args.fetch, Path(tmp)
        )
        dcgm_repo, dcgm_src = upstream.git_repository("dcgm-exporter-chart", args.dcgm_exporter, args.fetch, Path(tmp))
        efa = read_efa_plugin(efa_repo, pins["efa-plugin-chart"])
        operator, operator_image, operator_repositories = read_gpu_operator(operator_repo, pins["gpu-operator-chart"])
        dcgm, dcgm_image = read_dcgm_exporter(dcgm_repo, pins["dcgm-exporter-chart"])
        dra_repo, dra_src = upstream.git_repository("dra-driver-chart", args.dra_driver, args.fetch, Path(tmp))
        dra_charts, dra_image = read_dra_driver(dra_repo, pins["dra-driver-chart"])
        kueue_repo, kueue_src = upstream.git_repository("kueue-chart", args.kueue, args.fetch, Path(tmp))
        kueue = read_kueue(kueue_repo, pins["kueue-chart"])
    minors = minors_to_cover(json.loads(Path(args.calendar).read_text()), on)
    table = build(
        minors,
        images,
        scaler_charts,
        plugin_charts,
        karpenter,
        ami_releases(changelog),
        (efa, operator, dcgm),
        kueue,
    )
    if not any("cluster-autoscaler" in row for row in table.values()):
        raise SystemExit("no cluster-autoscaler release for any minor of the calendar: wrong input?")
    release_pin = pins["autoscaler-release-tags"]
    release_src = {
        "role": "autoscaler-release-tags",
        **{k: release_pin[k] for k in ("repo", "newest", "commit", "date")},
    }
    head = {
        "generated": on.isoformat(),
        "generator": "scripts/generators/generate_addon_versions.py",
        "source": [
            release_src,
            scaler_src,
            plugin_src,
            ami_src,
            karpenter_src,
            efa_src,
            operator_src,
            dcgm_src,
            kueue_src,
        ],
        "charts": {
            "cluster-autoscaler": {"repo": "https://kubernetes.github.io/autoscaler", "image": scaler_image},
            "nvidia-device-plugin": {"repo": "https://nvidia.github.io/k8s-device-plugin", "image": plugin_image},
            "karpenter": {"repo": karpenter["charts"]["karpenter"], "image": karpenter_image},
            "karpenter-crd": {"repo": karpenter["charts"]["karpenter-crd"]},
            "aws-efa-k8s-device-plugin": {"repo": "https://aws.github.io/eks-charts", "image": efa["repository"]},
            "gpu-operator": {
                "repo": "https://helm.ngc.nvidia.com/nvidia",
                "image": operator_image,
                "repositories": operator_repositories,
            },
            "dcgm-exporter": {"repo": "https://nvidia.github.io/dcgm-exporter/helm-charts", "image": dcgm_image},
            "kueue": KUEUE_SOURCE,
        },
    }
    head = merge_dra({**head, "minors": table}, dra_charts, dra_image, dra_src)
    table = head.pop("minors")
    upstream.write_json(Path(args.output), head, "minors", table)
    print(f"{len(table)} minors -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
