"""How a stack is deployed: which Pulumi programs run, where from, and what each machine must reach.

Pure data for the plan and the programs. The cluster program (project root) talks only to AWS APIs;
the Kubernetes layer talks to the cluster's API server as well. A private endpoint is reachable only
from inside the VPC or a network connected to it, on HTTPS from the CIDRs the cluster's security group
allows (EKS user guide, cluster-endpoint.adoc, awsdocs/amazon-eks-user-guide @ 4d52b4d0). Kubernetes
credentials come from `aws eks get-token` (pulumi-eks kubeconfig), so the aws CLI must be installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import addon_versions as versions
from .addons import charts as addon_charts
from .addons.gpu_agents import releases as gpu_releases
from .addons.releases import addons_of
from .addons.run_by_aws import aws_runs_nodes, needs_node_addons
from .config import PROJECT, StackConfig, kubernetes_layer_of
from .layout import Layout
from .network import DEFAULT_VPC_CIDR
from .regions import dns_suffix

KUBERNETES_PROJECT = f"{PROJECT}-kubernetes"
KUBERNETES_DIRECTORY = "kubernetes-layer"  # holds its Pulumi.yaml and __main__.py
VPC_CIDR_AT_DEPLOY = "the VPC's CIDR (looked up at deploy)"
_AWS_SERVICES = "EKS, EC2, IAM, KMS, Auto Scaling, STS"


def cluster_stack_reference(organization: str, stack: str, project: str = PROJECT) -> str:
    """The fully qualified name the Kubernetes layer reads the cluster stack by (Cloud and DIY backends alike):
    `project` is the cluster program's Pulumi project (its Pulumi.yaml `name`)."""
    return f"{organization}/{project}/{stack}"


def private_api_cidrs(cfg: StackConfig) -> list[str] | None:
    """CIDRs allowed to open HTTPS to the private endpoint; None: the existing VPC's CIDR, looked up at deploy."""
    ep = cfg.endpoint
    if not ep.private_access:
        return []
    if ep.private_access_cidrs:
        return list(ep.private_access_cidrs)
    return [cfg.network.vpc_cidr or DEFAULT_VPC_CIDR] if cfg.network.creates_vpc else None


@dataclass(frozen=True)
class Program:
    """One `pulumi up`: a Pulumi project in a folder of this repository, and what its machine needs."""

    project: str
    directory: str
    deploys: str
    kubernetes_api: bool  # talks to the cluster's API server
    reaches: tuple[str, ...]
    runs_from: str
    identity: str


@dataclass(frozen=True)
class Deployment:
    kubernetes_layer: str  # inline | separate
    endpoint: dict[str, Any]
    programs: tuple[Program, ...]
    order: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kubernetesLayer": self.kubernetes_layer,
            "endpoint": dict(self.endpoint),
            "order": self.order,
            "programs": [
                {
                    "project": p.project,
                    "directory": p.directory,
                    "deploys": p.deploys,
                    "kubernetesApi": p.kubernetes_api,
                    "reaches": list(p.reaches),
                    "runsFrom": p.runs_from,
                    "identity": p.identity,
                    "command": f"pulumi up --stack <stack> --cwd {p.directory}",
                }
                for p in self.programs
            ],
        }


def _api_sources(cfg: StackConfig) -> tuple[str, list[str]]:
    """Where the Kubernetes API can be reached from: a sentence, and the endpoint targets it names."""
    ep = cfg.endpoint
    private = private_api_cidrs(cfg)
    ways, targets = [], []
    if ep.public_access:
        ways.append(f"an egress address in publicAccessCidrs ({', '.join(ep.public_access_cidrs)})")
        targets.append("the public endpoint")
    if ep.private_access:
        where = ", ".join(private) if private else VPC_CIDR_AT_DEPLOY
        ways.append(f"inside the VPC or a network connected to it (VPN, peering, Transit Gateway), from {where}")
        targets.append("the private endpoint (resolved by the VPC's DNS)")
    return " or ".join(ways), targets


def _deploys(layout: Layout) -> tuple[str, str]:
    """What the cluster program and the Kubernetes layer create (with Auto Mode: and what AWS runs instead)."""
    if not aws_runs_nodes(layout):
        return (
            "the VPC, KMS key, EKS cluster, node groups and access entries",
            "priority classes, namespaces, MLRun settings, the autoscaler, device plugin, CoreDNS and EBS CSI "
            "add-ons and the default StorageClass",
        )
    groups = " and the managed node groups" if layout.managed_groups else ""
    node_addons = ", the CoreDNS and EBS CSI add-ons of the managed node groups" if needs_node_addons(layout) else ""
    return (
        f"the VPC, KMS key, EKS cluster with EKS Auto Mode on (AWS runs its Karpenter, pod networking, DNS, block "
        f"storage, load balancing and GPU plugins), the Auto Mode node role{groups} and access entries",
        f"priority classes, namespaces, MLRun settings, the Auto Mode NodePools and NodeClasses{node_addons} and "
        "the default StorageClass (Auto Mode's block storage)",
    )


_TOOLS = "tools: pulumi, python 3.10+, the aws CLI (kubeconfig tokens come from `aws eks get-token`)"
_ADMIN = (
    "AWS credentials for the IAM permissions in docs/deploying.md, and Kubernetes cluster-admin: the identity "
    "that created the cluster (EKS made it admin) or a principal under access.admin"
)


def _chart_reach(layout: Layout) -> tuple[str, ...]:
    """The repositories of the charts the stack installs (the GPU add-ons' only where a group needs them).
    Auto Mode stacks install none of what AWS runs (addons_of): maybe no chart at all."""
    pinned = [n for n in addons_of(layout) if versions.pinned(n, layout.kubernetes_version)]
    repos = {addon_charts.chart(n, layout.kubernetes_version).repo for n in pinned}
    repos |= {r.chart.repo for r in gpu_releases(layout)}
    charts = "Helm chart repositories " + ", ".join(sorted(repos))
    return (charts,) if repos else ()


def deployment(cfg: StackConfig, layout: Layout) -> Deployment:
    """The programs a stack runs, in order, with what the machine running each must reach."""
    layer = kubernetes_layer_of(cfg)
    region = cfg.region
    aws = f"AWS APIs in {region} over HTTPS ({_AWS_SERVICES})"
    oidc = f"https://oidc.eks.{region}.{dns_suffix(region)} (pulumi-eks reads the OIDC issuer's TLS certificate)"
    sources, targets = _api_sources(cfg)
    api = f"the Kubernetes API of {layout.cluster_name} on HTTPS 443: {' or '.join(targets)}"
    chart_reach = _chart_reach(layout)
    cluster_deploys, kubernetes_deploys = _deploys(layout)
    tools, admin = _TOOLS, _ADMIN
    endpoint = {
        "privateAccess": cfg.endpoint.private_access,
        "publicAccess": cfg.endpoint.public_access,
        "publicAccessCidrs": list(cfg.endpoint.public_access_cidrs),
        "privateAccessCidrs": private_api_cidrs(cfg) if cfg.endpoint.private_access else [],
    }
    if layer == "inline":
        program = Program(
            PROJECT,
            ".",
            f"{cluster_deploys} and the Kubernetes layer: {kubernetes_deploys}"
            if aws_runs_nodes(layout)
            else "the VPC, KMS key, EKS cluster, node groups, access entries and the Kubernetes layer",
            True,
            (aws, oidc, api, *chart_reach, tools),
            sources,
            admin,
        )
        return Deployment(layer, endpoint, (program,), "one `pulumi up`; `pulumi destroy` removes everything")
    cluster = Program(
        PROJECT,
        ".",
        f"{cluster_deploys} (AWS APIs only)",
        False,
        (aws, oidc, tools),
        "anywhere with AWS credentials: a laptop, a GitHub-hosted runner",
        "AWS credentials for the IAM permissions in docs/deploying.md",
    )
    kubernetes = Program(
        KUBERNETES_PROJECT,
        KUBERNETES_DIRECTORY,
        f"{kubernetes_deploys}, reading the cluster stack through a StackReference",
        True,
        (api, aws, *chart_reach, tools),
        sources,
        admin,
    )
    return Deployment(
        layer,
        endpoint,
        (cluster, kubernetes),
        "the cluster program first, then kubernetes-layer/; destroy in the reverse order",
    )
