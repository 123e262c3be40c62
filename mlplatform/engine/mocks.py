"""Provider stand-ins for the offline engine: echo the inputs and add the outputs programs read."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from pulumi.runtime import mocks as pulumi_mocks

from .recording import Recorded, clean

ACCOUNT = "123456789012"


def _suffix(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:7]


# pulumi/pulumi sdk/python/lib/pulumi/runtime/rpc.py: _special_sig_key, _special_resource_sig
_SIG_KEY, _RESOURCE_SIG = "4dabf18193072939515e22adb298388d", "5cf8f73096256a8f31e491e813e4eb8e"


def _eks_cluster_reference(monitor: pulumi_mocks.MockMonitor, component_urn: str, state: dict) -> dict:
    """The `eksCluster` output of a pulumi_eks Cluster: a reference to its aws.eks.Cluster child.

    The real component returns the child itself (pulumi-eks nodejs/eks/cluster/cluster.ts registerOutputs
    `eksCluster`); the SDK rebuilds it from its URN (a getResource invoke the mock monitor answers from its
    registrations), so `eks_cluster.name` is an Output that depends on the EKS cluster, as in a real run.
    Child URN and name as the engine forms them (research/pulumi-eks/REPORT.md section 3).
    """
    chain, component = component_urn.rsplit("::", 1)
    urn = f"{chain}$aws:eks/cluster:Cluster::{component}-eksCluster"
    monitor.resources[urn] = pulumi_mocks.MockMonitor.ResourceRegistration(urn, state["name"], state)
    return {_SIG_KEY: _RESOURCE_SIG, "urn": urn, "id": state["name"]}


class Mocks(pulumi_mocks.Mocks):
    """Provider stand-ins: echo the inputs and add the outputs programs read."""

    def __init__(self, region: str, local: threading.local, record: list[Recorded], monitor_ref: list):
        self.region = region
        self.local = local
        self.record = record
        self.monitor_ref = monitor_ref

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        typ, name = args.typ, args.name
        physical = f"{name}-{_suffix(typ + name)}"
        service = typ.split(":")[1].split("/")[0] if typ.count(":") == 2 else "x"
        outputs: dict[str, Any] = {
            "arn": f"arn:aws:{service}:{self.region}:{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}",
        }
        if typ == "eks:index:Cluster":
            cluster = args.inputs.get("name", physical)
            kubeconfig = {"apiVersion": "v1", "kind": "Config", "clusters": [{"name": cluster}]}
            issuer = f"oidc.eks.{self.region}.amazonaws.com/id/{_suffix(cluster).upper()}"
            outputs.update(
                {
                    "kubeconfigJson": json.dumps(kubeconfig),
                    "kubeconfig": {"apiVersion": "v1", "kind": "Config"},
                    "oidcProviderArn": f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer}",
                    "oidcProviderUrl": f"https://{issuer}",
                    "oidcIssuer": issuer,
                }
            )
        elif typ == "aws:eks/nodeGroup:NodeGroup":
            outputs["nodeGroupName"] = args.inputs.get("nodeGroupName", physical)
            outputs["resources"] = [{"autoscalingGroups": [{"name": f"eks-{physical}"}]}]
        elif typ == "aws:ec2/launchTemplate:LaunchTemplate":
            outputs["latestVersion"] = 1
        elif typ in ("aws:iam/role:Role", "aws:iam/policy:Policy"):
            outputs["arn"] = f"arn:aws:iam::{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}"
        if "name" not in args.inputs:
            outputs["name"] = physical
        state = {**args.inputs, **outputs}

        request = getattr(self.local, "request", None)
        if typ == "eks:index:Cluster" and request is not None:
            cluster = args.inputs.get("name", physical)
            child = {"name": cluster, "arn": f"arn:aws:eks:{self.region}:{ACCOUNT}:cluster/{cluster}"}
            urn = self.monitor_ref[0].make_urn(request.parent, typ, name)
            state["eksCluster"] = _eks_cluster_reference(self.monitor_ref[0], urn, child)
            outputs["eksCluster"] = child["name"]  # what analyzers see of a reference: the resource's ID
        if request is not None and request.name == name and request.type == typ:
            monitor = self.monitor_ref[0]
            self.record.append(
                Recorded(
                    urn=monitor.make_urn(request.parent, typ, name),
                    type=typ,
                    name=name,
                    parent=request.parent or None,
                    custom=bool(request.custom),
                    remote=bool(request.remote),
                    inputs=clean(args.inputs),
                    outputs=outputs,
                    protect=bool(request.protect),
                    ignore_changes=list(request.ignoreChanges),
                    provider=args.provider or None,
                    dependencies=sorted(request.dependencies),
                    property_dependencies={k: sorted(v.urns) for k, v in sorted(request.propertyDependencies.items())},
                )
            )
        return f"{physical}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        if args.token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            letters = "abcdef"
            return {
                "names": [f"{self.region}{c}" for c in letters],
                "zoneIds": [f"usw2-az{i + 1}" for i in range(len(letters))],
                "id": self.region,
            }
        if args.token == "aws:index/getRegion:getRegion":
            return {"name": self.region, "id": self.region}
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": ACCOUNT, "arn": f"arn:aws:iam::{ACCOUNT}:user/offline", "userId": "offline"}
        return {}
