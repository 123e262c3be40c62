"""The pack as the Pulumi CLI runs it: started from its own venv and driven over the Analyzer gRPC protocol.

tests/policies/analyzer.py starts `policies/` the way `pulumi preview --policy-pack policies` does and
feeds it the engine-faithful recording (pulumi-eks's children, engine URNs). Every verdict it gives
must be the one `mlplatform check` gives, resource for resource, both as `pulumi up` sees a stack and
as a `pulumi preview` of a fresh stack sees it (the values AWS computes unknown).
"""

from __future__ import annotations

import ast
import json
import sys
from functools import cache
from pathlib import Path

import pytest
from pulumi.runtime.proto import analyzer_pb2 as proto

import mlplatform_policies
from mlplatform.check import policy_resources, run_checks
from mlplatform.engine import ProgramRun, run_stack
from mlplatform_policies import PACK_NAME, POLICIES, offline
from mlplatform_policies.pulumi_policy_internals import UNKNOWN_STRING
from tests.conftest import ROOT, stack_config
from tests.policies.analyzer import PolicyPack, diagnostics_of, keys
from tests.policies.variants import DEV_POLICY_CONFIG, LT, NG, TAG, edit, set_at, shipped
from tests.runs import shipped_run

# prod's groups as NodePools: pools scale from zero, so the workload group's minSize goes.
PROD_KARPENTER_GROUPS = {
    name: {k: v for k, v in group.items() if not (name == "workload" and k == "minSize")}
    for name, group in stack_config("prod")["ml-platform-eks:nodeGroups"].items()
}
# prod on EKS Auto Mode, keeping its managed initial group (its settings stay).
PROD_AUTO_MODE = {
    "provisioner": "autoMode",
    "nodeGroups": PROD_KARPENTER_GROUPS,
    "autoMode": {"initialGroup": "managedNodeGroup"},
}
AUTO_MODE_NODE_CLASS = "kubernetes:eks.amazonaws.com/v1:NodeClass"
KARPENTER_POLICY_CONFIG = json.loads((ROOT / "policies" / "config" / "dev-karpenter.json").read_text())

EKS_CLUSTER = "aws:eks/cluster:Cluster"
IAM_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
# The dev stack's laptop variant: a public endpoint for one address, one program (its policy config relaxes
# eks-endpoint-private; without it the rule is mandatory).
LAPTOP_ENDPOINT = {
    "endpoint": {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.7/32"]},
    "kubernetesLayer": "inline",
}
OPEN_ENDPOINT = {"endpoint": {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]}}


@pytest.fixture(scope="module")
def pack():
    """One pack process per Pulumi stack (a program's project and stack), as the CLI starts one per run;
    every one must shut down cleanly."""
    started: dict[tuple[str, str], PolicyPack] = {}

    def get(stack: str, project: str = "ml-platform-eks") -> PolicyPack:
        if (stack, project) not in started:
            started[stack, project] = PolicyPack(stack, project=project).__enter__()
        return started[stack, project]

    yield get
    assert {key: p.close() for key, p in started.items()} == dict.fromkeys(started, 0)


def analyze_each_program(pack, run: ProgramRun, config, preview: bool = False):
    """Every program of the stack is its own `pulumi preview --policy-pack` run: a pack per program."""
    found = []
    for program in getattr(run, "programs", (run,)):
        p = pack(program.stack, program.project)
        p.configure(config)
        found += p.analyze(policy_resources(program, preview))
    return found


@cache
def _configured(stack: str, edits: str) -> ProgramRun:
    cfg = stack_config(stack)
    for key, value in json.loads(edits).items():
        cfg[f"ml-platform-eks:{key}"] = value
    return run_stack(stack, cfg)  # every program the stack deploys, each analyzed on its own


def recording(stack: str, **edits) -> ProgramRun:
    return _configured(stack, json.dumps(edits, sort_keys=True)) if edits else shipped_run(stack)


def resource_type(urn: str) -> str:
    return urn.split("::")[2].split("$")[-1] if urn else "(stack)"


CASES = [
    # (stack, stack config edits, policy config, views, mandatory (rule, resource type) expected)
    ("dev", {}, DEV_POLICY_CONFIG, ("update", "preview"), set()),
    ("prod", {}, None, ("update", "preview"), set()),
    ("dev", LAPTOP_ENDPOINT, None, ("update",), {("eks-endpoint-private", EKS_CLUSTER)}),
    (
        "prod",
        OPEN_ENDPOINT,
        None,
        ("update",),  # the preview: test_a_public_endpoint_fails_on_the_control_plane_pulumi_eks_creates
        {("eks-endpoint-not-open", EKS_CLUSTER), ("eks-endpoint-private", EKS_CLUSTER)},
    ),
    (
        "prod",
        {"protectResources": False},
        None,
        ("update",),
        {("prod-resources-protected", t) for t in (EKS_CLUSTER, "aws:kms/key:Key", "aws:ec2/vpc:Vpc")}
        | {("prod-resources-protected", "aws:ec2/subnet:Subnet")},
    ),
    ("prod", {"protectResources": False}, {"all": "advisory"}, ("update",), set()),
    # The Karpenter stack: NodePools and EC2NodeClasses reach the pack from kubernetes-layer/'s own preview.
    ("dev-karpenter", {}, KARPENTER_POLICY_CONFIG, ("update", "preview"), set()),
    (
        "prod",
        {"provisioner": "karpenter", "imdsHopLimit": 2, "nodeGroups": PROD_KARPENTER_GROUPS},
        None,
        ("update",),
        {("imdsv2-required", "aws:ec2/launchTemplate:LaunchTemplate")}
        | {("karpenter-node-class-imdsv2", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")},
    ),
    # The EKS Auto Mode stack: Auto Mode NodePools and NodeClasses, and the cluster with Auto Mode on.
    ("dev-automode", {}, None, ("update", "preview"), set()),
    (
        "prod",
        PROD_AUTO_MODE,
        {"auto-mode-node-class-storage-key": {"customerManagedKey": True}},
        ("update",),
        {("auto-mode-node-class-storage-key", AUTO_MODE_NODE_CLASS)},
    ),
]
IDS = [
    "dev",
    "prod",
    "dev-without-its-policy-config",
    "prod-open-endpoint",
    "prod-unprotected",
    "prod-all-advisory",
    "dev-karpenter",
    "prod-karpenter-hop-limit-2",
    "dev-automode",
    "prod-automode-customer-key-required",
]


@pytest.mark.parametrize(
    "stack,edits,config,view,mandatory",
    [(stack, edits, config, view, mandatory) for stack, edits, config, views, mandatory in CASES for view in views],
    ids=[f"{name}-{view}" for name, case in zip(IDS, CASES, strict=True) for view in case[3]],
)
def test_pack_over_the_analyzer_protocol_agrees_with_mlplatform_check(pack, stack, edits, config, view, mandatory):
    preview = view == "preview"
    run = recording(stack, **edits)
    found = analyze_each_program(pack, run, config, preview)
    assert keys(found) == diagnostics_of(run_checks(run, config, preview))
    assert {(d.policy, resource_type(d.urn)) for d in found if d.level == "mandatory"} == mandatory
    # No rule reads the remote component: in a real run it has no properties.
    assert not [d for d in found if resource_type(d.urn) == "eks:index:Cluster"]
    control_plane = run.one(EKS_CLUSTER, "cluster-eksCluster").urn
    # pulumi-eks builds encryptionConfig from the key ARN, unknown in a fresh preview: pulumi-policy's advisory.
    cant_run = ("secrets-kms-encryption", control_plane, "advisory")
    assert (cant_run in keys(found)) is preview


def test_a_public_endpoint_fails_on_the_control_plane_pulumi_eks_creates(pack):
    run = recording("prod", **OPEN_ENDPOINT)
    urn = "urn:pulumi:prod::ml-platform-eks::mlplatform:cluster:Cluster$eks:index:Cluster$aws:eks/cluster:Cluster"
    diagnostics = analyze_each_program(pack, run, None, preview=True)
    assert keys(diagnostics) == diagnostics_of(run_checks(run, preview=True))
    (found,) = [d for d in diagnostics if d.policy == "eks-endpoint-not-open"]
    assert (found.urn, found.level) == (f"{urn}::cluster-eksCluster", "mandatory")
    assert "0.0.0.0/0" in found.message


def test_edited_resources_fail_through_the_protocol_as_in_mlplatform_check(pack):
    # Mistakes the config layer refuses, made in hand-written code: the pack must still catch them.
    broken = edit(shipped("dev"), LT, "jobs-lt", set_at(["metadataOptions", "httpTokens"], "optional"))
    broken = edit(broken, NG, "spot", set_at(["taints"], []))
    broken = edit(broken, NG, "jobs", ignore_changes=())
    gone = "gpu-asg-k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"
    broken = [x for x in broken if not (x.type == TAG and x.name == gone)]
    child = {"enabledClusterLogTypes": ["api"], "vpcConfig": {"endpointPublicAccess": True}}
    broken = edit(broken, EKS_CLUSTER, "cluster-eksCluster", lambda props: props.update(child), protect=False)
    broken = edit(broken, EKS_CLUSTER, "cluster-eksCluster", set_at(["encryptionConfig"], None))
    p = pack("dev")
    p.configure(DEV_POLICY_CONFIG)
    found = keys(p.analyze(broken))
    assert found == diagnostics_of(offline.evaluate(broken, DEV_POLICY_CONFIG))
    assert {policy for policy, _, level in found if level == "mandatory"} == {
        "imdsv2-required",
        "spot-node-taint",
        "autoscaled-desired-size-ignored",
        "autoscaler-asg-tags",
        "control-plane-logging",
        "secrets-kms-encryption",
        "eks-endpoint-not-open",  # public with no CIDRs: EKS opens it to 0.0.0.0/0
    }


def test_numbers_in_the_policy_config_are_read_as_the_integers_they_are(pack):
    # The CLI sends policy config as a protobuf Struct: minNodes 5 arrives as 5.0.
    config = {"initial-node-group": {"minNodes": 5}}
    run = recording("prod")
    found = analyze_each_program(pack, run, config)
    (message,) = [d.message for d in found if d.policy == "initial-node-group"]
    assert message.endswith("needs at least 5"), message
    assert keys(found) == diagnostics_of(run_checks(run, config))


def test_the_pack_describes_every_rule(pack):
    p = pack("prod")
    assert p.info.name == PACK_NAME and p.info.supportsConfig and p.plugin_info.version
    by_name = {x.name: x for x in p.info.policies}
    assert list(by_name) == [x.name for x in POLICIES]
    for x in p.info.policies:
        assert x.description and x.remediation_steps, x.name
        assert x.enforcementLevel in (proto.MANDATORY, proto.ADVISORY), x.name
        assert x.severity != proto.POLICY_SEVERITY_UNSPECIFIED, x.name
    assert by_name["prod-workload-on-demand"].enforcementLevel == proto.ADVISORY
    assert by_name["imdsv2-required"].enforcementLevel == proto.MANDATORY
    assert "minNodes" in by_name["initial-node-group"].configSchema.properties


def test_values_unknown_during_a_preview_raise_no_false_violations(pack):
    # Unknown in a preview: an ASG name (a node-group output), a launch template's id, every role's ARN and
    # the node groups' role ARN. Rules must neither fail on them nor give up on the whole stack, and an IRSA
    # role with broad rights must not be blamed on the nodes.
    unknown = edit(shipped("prod"), TAG, None, set_at(["autoscalingGroupName"], UNKNOWN_STRING))
    unknown = edit(unknown, NG, None, set_at(["launchTemplate", "id"], UNKNOWN_STRING))
    unknown = edit(unknown, "aws:iam/role:Role", None, set_at(["arn"], UNKNOWN_STRING))
    unknown = edit(unknown, NG, None, set_at(["nodeRoleArn"], UNKNOWN_STRING))
    irsa = next(r for r in shipped("prod") if r.name == "platform-autoscaler" and r.type == "aws:iam/role:Role")
    attachment = {"role": irsa.state["name"], "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"}
    unknown.append(offline.Resource(IAM_ATTACHMENT, "irsa-admin", "urn:test:irsa-admin", attachment, state=attachment))
    p = pack("prod")
    p.configure(None)
    assert keys(p.analyze(unknown)) == set() == diagnostics_of(offline.evaluate(unknown))


def test_the_pack_builds_on_pulumi_policy_and_the_core_only():
    # The pack's venv (policies/requirements.txt) has pulumi-policy and this package: the rules import the
    # core (mlplatform_core) for quantities, taints, labels and the instance catalog, never the tooling or a
    # provider SDK. PyYAML, which reads the rule declarations, comes with pulumi.
    allowed = set(sys.stdlib_module_names) | {"pulumi_policy", "yaml", "mlplatform_core", "__future__"}
    package = Path(mlplatform_policies.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path.name} imports {roots - allowed}"
    lines = [x.strip() for x in (ROOT / "policies" / "requirements.txt").read_text().splitlines()]
    assert "-e .." in lines and any(x.startswith("pulumi-policy") for x in lines)
