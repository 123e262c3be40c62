"""Provider stand-ins for the offline engine: echo the inputs and add the outputs programs read."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks

from . import remote
from .recording import Invoke, Recorded, clean

ACCOUNT = "123456789012"
STACK_REFERENCE = "pulumi:pulumi:StackReference"


def _suffix(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:7]


def physical_name(typ: str, name: str) -> str:
    """The stand-in for the name Pulumi's auto-naming gives a resource at deploy (`<name>-<7 random hex>`)."""
    return f"{name}-{_suffix(typ + name)}"


# pulumi/pulumi sdk/python/lib/pulumi/runtime/rpc.py: _special_sig_key, _special_resource_sig
_SIG_KEY, _RESOURCE_SIG = "4dabf18193072939515e22adb298388d", "5cf8f73096256a8f31e491e813e4eb8e"


def _resource_reference(monitor: pulumi_mocks.MockMonitor, child: Recorded) -> dict:
    """A resource reference to a recorded child, as a remote component's output carries it.

    pulumi_eks.Cluster's `eksCluster` output is its aws:eks/cluster:Cluster child itself (pulumi-eks
    nodejs/eks/cluster/cluster.ts registerOutputs `eksCluster`); the SDK rebuilds it from its URN (a
    getResource invoke the mock monitor answers from its registrations), so `eks_cluster.name` is an
    Output that depends on the EKS cluster, as in a real run.
    """
    state = {**child.inputs, **child.outputs}
    monitor.resources[child.urn] = pulumi_mocks.MockMonitor.ResourceRegistration(child.urn, state["name"], state)
    return {_SIG_KEY: _RESOURCE_SIG, "urn": child.urn, "id": state["name"]}


def _dependencies(request) -> dict[str, Any]:
    """What the resource waits for in a real `pulumi up` (the engine keeps it in the state): its explicit
    depends_on and the resources behind its input Outputs, and the latter per input property."""
    return {
        "dependencies": sorted(request.dependencies),
        "property_dependencies": {k: sorted(v.urns) for k, v in sorted(request.propertyDependencies.items())},
    }


class Mocks(pulumi_mocks.Mocks):
    """Provider stand-ins: echo the inputs and add the outputs programs read."""

    def __init__(
        self,
        region: str,
        local: threading.local,
        record: list[Recorded],
        monitor_ref: list,
        stack_outputs: dict[str, tuple[dict[str, Any], list[str]]] | None = None,
        invokes: list[Invoke] | None = None,
    ):
        """`stack_outputs`: what StackReferences read, by stack name: (outputs, names of the secret ones)."""
        self.region = region
        self.local = local
        self.record = record
        self.monitor_ref = monitor_ref
        self.stack_outputs = stack_outputs or {}
        self.invokes = invokes if invokes is not None else []

    def provider_outputs(self, typ: str, name: str, inputs) -> tuple[str, dict[str, Any]]:
        """A provider's answer to a create: the id and the outputs it computes (ARN, auto-name...)."""
        physical = physical_name(typ, name)
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
        if typ == STACK_REFERENCE:  # read, not registered: the id is the referenced stack
            return self._stack_reference(args)
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
                    replace_on_changes=list(request.replaceOnChanges),
                    delete_before_replace=bool(request.deleteBeforeReplace),
                    provider=args.provider or None,
                    **_dependencies(request),
                )
            )
        return id_, {**args.inputs, **outputs}

    def _stack_reference(self, args: pulumi_mocks.MockResourceArgs):
        referenced = args.inputs.get("name", args.name)
        if referenced not in self.stack_outputs:
            raise KeyError(f"offline engine: no recorded run of stack {referenced} to answer its StackReference")
        stack_outputs, secret_names = self.stack_outputs[referenced]
        outputs = {"outputs": stack_outputs, "secretOutputNames": list(secret_names)}
        return args.resource_id or args.name, {"name": referenced, **outputs}

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
        component, children = recorded[0], recorded[1:]
        for key, value in _dependencies(request).items():
            setattr(component, key, value)
        self.record.extend(recorded)
        state = {**args.inputs, **outputs}
        for key, child_type in remote.reference_outputs(request.type).items():
            (child,) = [c for c in children if c.type == child_type and c.parent == component.urn]
            state[key] = _resource_reference(self.monitor_ref[0], child)
        return f"{args.name}-{_suffix(args.typ + args.name)}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        result = self._answer(args)
        self.invokes.append(Invoke(args.token, clean(dict(args.args)), result))
        return result

    def _answer(self, args: pulumi_mocks.MockCallArgs):
        if args.token == "aws:eks/getAddonVersion:getAddonVersion":
            # The newest build for the minor is AWS's answer at preview time; offline it is named, not guessed.
            addon, minor = args.args.get("addonName"), args.args.get("kubernetesVersion")
            return {
                "addonName": addon,
                "kubernetesVersion": minor,
                "mostRecent": args.args.get("mostRecent"),
                "version": f"(newest {addon} for Kubernetes {minor}, resolved at deploy)",
                "id": addon,
            }
        if args.token == "aws:ec2/getVpc:getVpc":
            return {"id": args.args.get("id"), "cidrBlock": "(the VPC's CIDR, looked up at deploy)"}
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
