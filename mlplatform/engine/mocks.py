"""Provider stand-ins for the offline engine: echo the inputs and add the outputs programs read."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pulumi

from mlplatform_core.model.regions import partition_of
from mlplatform_core.model.resource_types import CLOUDWATCH_LOG_GROUP, IAM_POLICY, IAM_ROLE, LAUNCH_TEMPLATE, NODE_GROUP

from . import remote
from .pulumi_internals import Registration
from .recording import Invoke, Recorded, clean
from .urn import make_urn

ACCOUNT = "123456789012"
STACK_REFERENCE = "pulumi:pulumi:StackReference"


def _suffix(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:7]


def physical_name(typ: str, name: str) -> str:
    """The stand-in for the name Pulumi's auto-naming gives a resource at deploy (`<name>-<7 random hex>`)."""
    return f"{name}-{_suffix(typ + name)}"


def _dependencies(registration: Registration) -> dict[str, Any]:
    """What the resource waits for in a real `pulumi up` (the engine keeps it in the state): its explicit
    depends_on and the resources behind its input Outputs, and the latter per input property."""
    return {
        "dependencies": list(registration.dependencies),
        "property_dependencies": {k: list(v) for k, v in registration.property_dependencies.items()},
    }


def _urn(registration: Registration) -> str:
    return make_urn(pulumi.get_stack(), pulumi.get_project(), registration.parent, registration.type, registration.name)


class Mocks(pulumi.runtime.Mocks):
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
        self.partition = partition_of(region)  # every ARN AWS returns names the region's partition
        self.local = local
        self.record = record
        self.monitor_ref = monitor_ref
        self.stack_outputs = stack_outputs or {}
        self.invokes = invokes if invokes is not None else []

    def provider_outputs(self, typ: str, name: str, inputs) -> tuple[str, dict[str, Any]]:
        """A provider's answer to a create: the id and the outputs it computes (ARN, auto-name...)."""
        physical = physical_name(typ, name)
        service = typ.split(":")[1].split("/")[0] if typ.count(":") == 2 else "x"
        kind = typ.rsplit(":", 1)[-1].lower()
        outputs: dict[str, Any] = {"arn": f"arn:{self.partition}:{service}:{self.region}:{ACCOUNT}:{kind}/{physical}"}
        if typ == NODE_GROUP:
            outputs["nodeGroupName"] = inputs.get("nodeGroupName", physical)
            outputs["resources"] = [{"autoscalingGroups": [{"name": f"eks-{physical}"}]}]
        elif typ == LAUNCH_TEMPLATE:
            outputs["latestVersion"] = 1
        elif typ == CLOUDWATCH_LOG_GROUP:
            # CloudWatch Logs' ARN shape (the provider drops the API's trailing ":*"), named from name_prefix.
            log_name = inputs.get("name") or f"{inputs.get('namePrefix', '')}{physical}"
            outputs.update(name=log_name, arn=f"arn:{self.partition}:logs:{self.region}:{ACCOUNT}:log-group:{log_name}")
        elif typ in (IAM_ROLE, IAM_POLICY):
            outputs["arn"] = f"arn:{self.partition}:iam::{ACCOUNT}:{kind}/{physical}"
        if "name" not in inputs:
            outputs["name"] = physical
        return f"{physical}-id", outputs

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        typ, name = args.typ, args.name
        if typ == STACK_REFERENCE:  # read, not registered: the id is the referenced stack
            return self._stack_reference(args)
        registration: Registration | None = getattr(self.local, "registration", None)
        registering = registration is not None and registration.name == name and registration.type == typ
        if registering and remote.modelled(typ, registration.remote):
            return self._construct(registration, args)
        id_, outputs = self.provider_outputs(typ, name, args.inputs)
        if registering:
            self.record.append(
                Recorded(
                    urn=_urn(registration),
                    type=typ,
                    name=name,
                    parent=registration.parent,
                    custom=registration.custom,
                    remote=registration.remote,
                    inputs=clean(args.inputs),
                    outputs=outputs,
                    protect=registration.protect,
                    ignore_changes=list(registration.ignore_changes),
                    replace_on_changes=list(registration.replace_on_changes),
                    delete_before_replace=registration.delete_before_replace,
                    provider=args.provider or None,
                    aliases=[dict(a) for a in registration.aliases],
                    **_dependencies(registration),
                )
            )
        return id_, {**args.inputs, **outputs}

    def _stack_reference(self, args: pulumi.runtime.MockResourceArgs):
        referenced = args.inputs.get("name", args.name)
        if referenced not in self.stack_outputs:
            raise KeyError(f"offline engine: no recorded run of stack {referenced} to answer its StackReference")
        stack_outputs, secret_names = self.stack_outputs[referenced]
        outputs = {"outputs": stack_outputs, "secretOutputNames": list(secret_names)}
        return args.resource_id or args.name, {"name": referenced, **outputs}

    def _construct(self, registration: Registration, args: pulumi.runtime.MockResourceArgs):
        """A remote component: the engine hands it to its provider's Construct; record what that creates."""
        outputs, recorded = remote.record(
            registration,
            args.inputs,
            urn=_urn(registration),
            stack=pulumi.get_stack(),
            project=pulumi.get_project(),
            region=self.region,
            new_resource=self.provider_outputs,
        )
        component, children = recorded[0], recorded[1:]
        for key, value in _dependencies(registration).items():
            setattr(component, key, value)
        self.record.extend(recorded)
        state = {**args.inputs, **outputs}
        for key, child_type in remote.reference_outputs(registration.type).items():
            # pulumi_eks.Cluster's `eksCluster` output is its aws:eks/cluster:Cluster child itself (pulumi-eks
            # nodejs/eks/cluster/cluster.ts registerOutputs `eksCluster`): a reference the SDK rebuilds the
            # child from, so `eks_cluster.name` is an Output that depends on the EKS cluster, as in a real run.
            (child,) = [c for c in children if c.type == child_type and c.parent == component.urn]
            child_state = {**child.inputs, **child.outputs}
            state[key] = self.monitor_ref[0].reference(child.urn, child_state["name"], child_state)
        return f"{args.name}-{_suffix(args.typ + args.name)}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs):
        result = self._answer(args)
        self.invokes.append(Invoke(args.token, clean(dict(args.args)), result))
        return result

    def _answer(self, args: pulumi.runtime.MockCallArgs):
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
        if args.token == "aws:ec2/getSubnet:getSubnet":
            # The AZ of a subnet the stack does not create is AWS's answer at deploy. Offline, the subnets take the
            # region's zones in the order they are looked up (a, b, c...): a stand-in, like the names.
            self.subnets_seen = getattr(self, "subnets_seen", [])
            subnet = args.args.get("id")
            if subnet not in self.subnets_seen:
                self.subnets_seen.append(subnet)
            zone = f"{self.region}{'abcdef'[self.subnets_seen.index(subnet) % 6]}"
            return {"id": subnet, "availabilityZone": zone, "vpcId": "(the subnet's VPC, looked up at deploy)"}
        if args.token == "aws:index/getRegion:getRegion":
            return {"name": self.region, "id": self.region}
        if args.token == "aws:eks/getCluster:getCluster":
            # What the discovery tags read: the security group EKS created for the cluster (the same stand-in
            # as the modelled aws.eks.Cluster's vpcConfig.clusterSecurityGroupId).
            name = str(args.args.get("name", "cluster"))
            group = remote.pulumi_eks.cluster_security_group_id(name)
            return {"id": name, "name": name, "vpcConfig": {"clusterSecurityGroupId": group}}
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            arn = f"arn:{self.partition}:iam::{ACCOUNT}:user/offline"
            return {"accountId": ACCOUNT, "arn": arn, "userId": "offline"}
        return {}
