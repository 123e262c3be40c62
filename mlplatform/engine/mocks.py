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
        if args.token == "aws:eks/getCluster:getCluster":
            # What the Karpenter component reads: the security group EKS created for the cluster.
            name = str(args.args.get("name", "cluster"))
            return {"id": name, "name": name, "vpcConfig": {"clusterSecurityGroupId": f"sg-{_suffix(name)}"}}
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": ACCOUNT, "arn": f"arn:aws:iam::{ACCOUNT}:user/offline", "userId": "offline"}
        return {}
