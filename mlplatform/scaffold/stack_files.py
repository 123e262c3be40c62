"""The stack files `mlplatform init` writes: the toolkit's layout defaults per environment, with comments.

Values come from the core (layout defaults, the default Kubernetes minor, the network defaults), so a new
project starts from exactly what the toolkit would build; the comments say what each group is for and what
to change. A test plans and checks the result.
"""

from __future__ import annotations

from mlplatform_core.model.config import PROJECT, REGION_KEY
from mlplatform_core.model.config.stack import DEFAULT_KUBERNETES_VERSION
from mlplatform_core.model.eks_versions import minor_key
from mlplatform_core.model.layout.allocation import DRA, DRA_MIN_KUBERNETES
from mlplatform_core.model.layout.defaults import DEFAULTS, GroupDefaults

# Distinct VPC ranges, so that the two environments' VPCs can be peered or share one VPN.
VPC_CIDRS = {"dev": "10.40.0.0/16", "prod": "10.50.0.0/16"}
NAT = {"dev": "single", "prod": "perAz"}
ENVIRONMENTS = {
    "dev": "Development cluster: Jupyter and job groups that autoscale, spot capacity for interruptible work.",
    "prod": "Production cluster: a static initial group for core services and an on-demand workload group; no Jupyter.",
}
PURPOSE = {
    "initial": "Core services only (tainted CriticalAddonsOnly): on-demand, static size (minSize = maxSize).",
    "jupyter": "Jupyter notebooks on dedicated nodes (tainted): the autoscaler keeps it between minSize and maxSize.",
    "jobs": "MLRun jobs and Nuclio functions: autoscaled between minSize and maxSize.",
    "workload": "Production workloads: on-demand, autoscaled between minSize and maxSize.",
    "spot": "Spot capacity for interruptible work (tainted; MLRun's preemption modes pick it): one size class.",
    "gpu": "A dedicated GPU group that scales from zero (tainted nvidia.com/gpu): one size class and GPU model.",
}
OFF_BY_DEFAULT = "set enabled: true to add it"
# What EKS does when the minor leaves standard support (required in prod; docs/diff.md, the upgrade policy).
SUPPORT_TYPE = {"dev": "STANDARD", "prod": "EXTENDED"}
UPGRADE_POLICY = {
    "dev": [
        "  # When the minor leaves standard support, EKS upgrades the control plane one minor (no extended-support "
        "price)."
    ],
    "prod": [
        "  # Required in prod: EXTENDED keeps the cluster on its minor up to 12 more months (no upgrade forced on",
        "  # production) at the extended-support price, which `mlplatform plan prod` shows.",
    ],
}


def _dra(d: GroupDefaults) -> bool:
    """New projects' GPU groups use DRA where the default minor has it (EKS recommends it from 1.34)."""
    return d.gpu and minor_key(DEFAULT_KUBERNETES_VERSION) >= minor_key(DRA_MIN_KUBERNETES)


def _group(name: str, d: GroupDefaults) -> list[str]:
    lines = [f"    # {PURPOSE.get(name, 'A built-in group of the layout.')}", f"    {name}:"]
    if not d.enabled:
        lines.append(f"      enabled: false   # {OFF_BY_DEFAULT}")
    lines.append(f"      instanceTypes: [{', '.join(d.instance_types)}]")
    # The Cluster Autoscaler grows a DRA group from a live node's devices only (docs/gpu.md): one node stays.
    min_size = max(d.min_size, 1) if _dra(d) else d.min_size
    lines += [f"      minSize: {min_size}", f"      maxSize: {d.max_size}"]
    if min_size == d.max_size:  # static: the size it keeps
        lines.append(f"      desiredSize: {d.desired_size}")
    if _dra(d):
        lines += [
            "      # GPUs through Dynamic Resource Allocation: pods ask with ResourceClaims (DeviceClass",
            "      # gpu.nvidia.com); the NVIDIA DRA driver runs here and the device plugin does not (docs/gpu.md).",
            f"      gpuAllocation: {DRA}",
        ]
    return lines


def stack_file(environment: str, project: str, region: str, version: str) -> str:
    """The YAML of stacks/Pulumi.<environment>.yaml for a new project."""
    ns = PROJECT
    lines = [
        f"# Stack {environment} of {project}. {ENVIRONMENTS[environment]}",
        f"# Written by `mlplatform init` (ml-platform-eks {version}) from the toolkit's {environment} layout.",
        f"# `mlplatform plan {environment}` shows what it builds; every setting is in the configuration reference.",
        f"# Settings stay under the {ns}: namespace whatever the project is called.",
        "config:",
        f"  {REGION_KEY}: {region}",
        f"  {ns}:environment: {environment}",
        "  # The Kubernetes minor, quoted; upgrade one minor at a time.",
        f'  {ns}:kubernetesVersion: "{DEFAULT_KUBERNETES_VERSION}"',
        *UPGRADE_POLICY[environment],
        f"  {ns}:upgradePolicy:",
        f"    supportType: {SUPPORT_TYPE[environment]}",
        "  # Private API endpoint: `pulumi up` here runs anywhere (AWS APIs only); kubernetes-layer/ deploys the",
        "  # Kubernetes layer from a runner inside the VPC. From a laptop without VPN instead (dev): publicAccess:",
        "  # true, publicAccessCidrs: [<your egress IP>/32] and kubernetesLayer: inline.",
        f"  {ns}:endpoint:",
        "    privateAccess: true",
        "    publicAccess: false",
        f"  {ns}:kubernetesLayer: separate",
        "  # Who else may use the cluster (the identity that creates it is already admin), e.g.:",
        f"  # {ns}:access:",
        "  #   admin: [arn:aws:iam::111122223333:role/platform-team]",
        '  #   edit: [{principal: "arn:aws:iam::111122223333:role/ml-engineers", namespaces: [mlrun]}]',
        f"  {ns}:network:",
        f"    vpcCidr: {VPC_CIDRS[environment]}",
        "    availabilityZoneCount: 3",
        f"    natGateways: {NAT[environment]}",
        f"  {ns}:nodeGroups:",
    ]
    for name, defaults in DEFAULTS[environment].items():
        lines += _group(name, defaults)
    return "\n".join(lines) + "\n"
