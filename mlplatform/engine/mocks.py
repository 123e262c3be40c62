"""Provider stand-ins for the offline engine: echo the inputs and add the outputs programs read."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks

from . import remote
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

    def provider_outputs(self, typ: str, name: str, inputs) -> tuple[str, dict[str, Any]]:
        """A provider's answer to a create: the id and the outputs it computes (ARN, auto-name...)."""
        physical = f"{name}-{_suffix(typ + name)}"
        service = typ.split(":")[1].split("/")[0] if typ.count(":") == 2 else "x"
        outputs: dict[str, Any] = {
            "arn": f"arn:aws:{service}:{self.region}:{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}",
        }
        if typ == "aws:eks/nodeGroup:NodeGroup":
            outputs["nodeGroupName"] = inputs.get("nodeGroupName", physical)
            outputs["resources"] = [{"autoscalingGroups": [{"name": f"eks-{physical}"}]}]
        elif typ == "aws:ec2/launchTemplate:LaunchTemplate":
            outputs["latestVersion"] = 1
        elif typ in ("aws:iam/role:Role", "aws:iam/policy:Policy"):
            outputs["arn"] = f"arn:aws:iam::{ACCOUNT}:{typ.rsplit(':', 1)[-1].lower()}/{physical}"
        if "name" not in inputs:
            outputs["name"] = physical
        return f"{physical}-id", outputs

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        typ, name = args.typ, args.name
        request = getattr(self.local, "request", None)
        registering = request is not None and request.name == name and request.type == typ
        if registering and remote.modelled(typ, bool(request.remote)):
            return self._construct(request, args)
        id_, outputs = self.provider_outputs(typ, name, args.inputs)
        if registering:
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
        return id_, {**args.inputs, **outputs}

    def _construct(self, request, args: pulumi_mocks.MockResourceArgs):
        """A remote component: the engine hands it to its provider's Construct; record what that creates."""
        outputs, recorded = remote.record(
            request,
            args.inputs,
            urn=self.monitor_ref[0].make_urn(request.parent, args.typ, args.name),
            stack=pulumi.get_stack(),
            project=pulumi.get_project(),
            region=self.region,
            new_resource=self.provider_outputs,
        )
        self.record.extend(recorded)
        return f"{args.name}-{_suffix(args.typ + args.name)}-id", {**args.inputs, **outputs}

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
