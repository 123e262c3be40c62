"""The pack as the Pulumi CLI runs it: the analyzer servicer, its metadata, preview-only shapes, the server.

`pulumi preview --policy-pack policies` talks to pulumi-policy's analyzer over
gRPC; these tests drive that same servicer with protobuf requests (numbers as
floats, unknown values as sentinels) and compare it with `mlplatform check`'s
offline evaluation, so the two cannot drift apart.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

import mlplatform_policies
from mlplatform_policies import PACK_NAME, POLICIES, offline
from tests.conftest import ROOT
from tests.policies.test_rules import DEV_POLICY_CONFIG, LT, NG, TAG, _set, edit, shipped

LEVEL_NAMES = {proto.ADVISORY: "advisory", proto.MANDATORY: "mandatory", proto.DISABLED: "disabled"}
EKS_CHILD = "aws:eks/cluster:Cluster"


def _struct(d) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(dict(d))
    return s


def _options(r: offline.Resource) -> proto.AnalyzerResourceOptions:
    return proto.AnalyzerResourceOptions(protect=r.protect, ignoreChanges=list(r.ignore_changes), parent=r.parent or "")


def servicer(config: dict | None = None) -> _PolicyAnalyzerServicer:
    s = _PolicyAnalyzerServicer(PACK_NAME, "0.1.0", POLICIES, EnforcementLevel.ADVISORY)
    if config:
        request = proto.ConfigureAnalyzerRequest()
        for name, setting in offline.resolve_config(config).items():
            request.policyConfig[name].enforcementLevel = s._map_enforcement_level(setting.level)
            if setting.properties:
                request.policyConfig[name].properties.update(setting.properties)
        s.Configure(request, None)
    return s


def analyze(resources, config: dict | None = None) -> set[tuple[str, str, str]]:
    """(policy, urn, level) of every diagnostic the CLI's analyzer would report for these resources."""
    s, out = servicer(config), set()
    for r in resources:
        response = s.Analyze(
            proto.AnalyzeRequest(type=r.type, properties=_struct(r.props), urn=r.urn, name=r.name, options=_options(r)),
            None,
        )
        out |= {(d.policyName, d.urn or r.urn, LEVEL_NAMES[d.enforcementLevel]) for d in response.diagnostics}
    request = proto.AnalyzeStackRequest(
        resources=[
            proto.AnalyzerResource(
                type=r.type,
                properties=_struct(r.state if r.state is not None else r.props),
                urn=r.urn,
                name=r.name,
                options=_options(r),
                parent=r.parent or "",
            )
            for r in resources
        ]
    )
    response = s.AnalyzeStack(request, None)
    return out | {(d.policyName, d.urn, LEVEL_NAMES[d.enforcementLevel]) for d in response.diagnostics}


def offline_result(resources, config: dict | None = None) -> set[tuple[str, str, str]]:
    return {(v.policy, v.urn or "", v.level) for v in offline.evaluate(resources, config)}


def _broken_dev():
    r = edit(shipped("dev"), LT, "jobs-lt", _set(["metadataOptions", "httpTokens"], "optional"))
    r = edit(r, NG, "spot", _set(["taints"], []))
    r = edit(r, NG, "jobs", ignore_changes=())
    gone = "gpu-asg-k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"
    return [x for x in r if not (x.type == TAG and x.name == gone)]


@pytest.mark.parametrize("case", ["dev", "dev-with-config", "prod", "broken-dev"])
def test_offline_check_reports_what_the_analyzer_reports(case):
    resources = _broken_dev() if case == "broken-dev" else list(shipped(case.split("-")[0]))
    config = DEV_POLICY_CONFIG if case == "dev-with-config" else None
    expected = analyze(resources, config)
    assert offline_result(resources, config) == expected
    if case == "broken-dev":
        assert {p for p, _, lvl in expected if lvl == "mandatory"} >= {
            "imdsv2-required",
            "spot-node-taint",
            "autoscaled-desired-size-ignored",
            "autoscaler-asg-tags",
        }


def test_analyzer_info_describes_every_rule():
    info = servicer().GetAnalyzerInfo(empty_pb2.Empty(), None)
    assert info.name == PACK_NAME and info.supportsConfig
    by_name = {p.name: p for p in info.policies}
    assert list(by_name) == [p.name for p in POLICIES]
    for p in info.policies:
        assert p.description and p.remediation_steps, p.name
        assert p.enforcementLevel in (proto.MANDATORY, proto.ADVISORY), p.name
        assert p.severity != proto.POLICY_SEVERITY_UNSPECIFIED, p.name
    assert by_name["prod-workload-on-demand"].enforcementLevel == proto.ADVISORY
    assert by_name["imdsv2-required"].enforcementLevel == proto.MANDATORY
    assert "minNodes" in by_name["initial-node-group"].configSchema.properties


# --- shapes only a real preview produces --------------------------------------------------------


def _eks_child(stack: str, **vpc) -> offline.Resource:
    """The aws:eks/cluster:Cluster pulumi_eks creates inside its component (not visible offline)."""
    component = next(r for r in shipped(stack) if r.type == "eks:index:Cluster")
    props = {
        "name": component.props["name"],
        "roleArn": UNKNOWN_STRING_VALUE,
        "version": "1.33",
        "enabledClusterLogTypes": list(component.props["enabledClusterLogTypes"]),
        "encryptionConfig": {"provider": {"keyArn": UNKNOWN_STRING_VALUE}, "resources": ["secrets"]},
        "vpcConfig": {
            "endpointPrivateAccess": component.props["endpointPrivateAccess"],
            "endpointPublicAccess": component.props["endpointPublicAccess"],
            "publicAccessCidrs": list(component.props.get("publicAccessCidrs", [])),
            "subnetIds": [UNKNOWN_STRING_VALUE],
            "securityGroupIds": [UNKNOWN_STRING_VALUE],
            **vpc,
        },
        "tags": dict(component.props["tags"]),
    }
    return offline.Resource(
        EKS_CHILD,
        f"{component.name}-eksCluster",
        component.urn + f"$aws:eks/cluster:Cluster::{component.name}-eksCluster",
        props,
        parent=component.urn,
        protect=component.protect,
        state=props,
    )


def test_eks_child_cluster_passes_in_a_preview_of_the_shipped_stacks():
    for stack, config in (("prod", None), ("dev", DEV_POLICY_CONFIG)):
        resources = [*shipped(stack), _eks_child(stack)]
        assert {p for p, _, lvl in analyze(resources, config) if lvl == "mandatory"} == set(), stack


def test_eks_child_cluster_failures_are_caught_in_a_preview():
    child = _eks_child("prod", endpointPublicAccess=True, publicAccessCidrs=["0.0.0.0/0"])
    child.props["enabledClusterLogTypes"] = ["api"]
    del child.props["encryptionConfig"]
    child = offline.Resource(**{**child.__dict__, "protect": False})
    found = {p for p, urn, lvl in analyze([*shipped("prod"), child]) if urn == child.urn and lvl == "mandatory"}
    assert found == {
        "eks-endpoint-not-open",
        "eks-endpoint-private",
        "control-plane-logging",
        "secrets-kms-encryption",
        "prod-resources-protected",
    }


def test_values_unknown_during_a_preview_raise_no_false_violations():
    # During a preview the ASG name (a node-group output), the KMS key ARN and a node group's launch template
    # id are unknown. Rules must neither fail on them nor give up on the whole stack.
    unknown = edit(shipped("prod"), TAG, None, _set(["autoscalingGroupName"], UNKNOWN_STRING_VALUE))
    unknown = edit(unknown, "eks:index:Cluster", "cluster", _set(["encryptionConfigKeyArn"], UNKNOWN_STRING_VALUE))
    unknown = edit(unknown, NG, None, _set(["launchTemplate", "id"], UNKNOWN_STRING_VALUE))
    assert analyze(unknown) == set()
    assert offline_result(unknown) == set()


# --- the pack as a program ------------------------------------------------------------------------


def test_policy_pack_serves_its_rules(tmp_path):
    # What `pulumi preview --policy-pack policies` starts: the pack prints its port and serves gRPC.
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "policies" / "__main__.py")],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = int(proc.stdout.readline().strip())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            info = analyzer_pb2_grpc.AnalyzerStub(channel).GetAnalyzerInfo(empty_pb2.Empty(), timeout=20)
        assert info.name == PACK_NAME
        assert [p.name for p in info.policies] == [p.name for p in POLICIES]
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_pack_needs_only_pulumi_policy_and_the_stdlib():
    # The pack runs in its own venv (policies/requirements.txt): no toolkit, pydantic or yaml imports.
    allowed = set(sys.stdlib_module_names) | {"pulumi_policy", "__future__"}
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
    requirements = (ROOT / "policies" / "requirements.txt").read_text()
    assert "pulumi-policy" in requirements


def test_roles_with_unknown_arns_are_not_taken_for_the_node_role():
    # In a preview every new role's ARN is unknown; an IRSA role with broad rights must not be blamed on the nodes.
    irsa = next(r for r in shipped("prod") if r.name == "platform-autoscaler" and r.type == "aws:iam/role:Role")
    resources = edit(shipped("prod"), "aws:iam/role:Role", None, _set(["arn"], UNKNOWN_STRING_VALUE))
    resources = edit(resources, NG, None, _set(["nodeRoleArn"], UNKNOWN_STRING_VALUE))
    resources = [
        *resources,
        offline.Resource(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "irsa-admin",
            "urn:test:irsa-admin",
            {"role": irsa.state["name"], "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
            state={"role": irsa.state["name"], "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
        ),
    ]
    assert "node-role-no-admin-policies" not in {p for p, _, _ in analyze(resources)}


def test_pack_constants_match_the_toolkit():
    """The pack keeps its own copies (it runs in its own venv); they must not drift from the toolkit's."""
    from mlplatform_core.model import cluster, instances, layout, scheduling
    from mlplatform_core.model.config import node_groups
    from mlplatform_policies import _props

    assert _props.ROLE_LABEL == scheduling.ROLE_LABEL
    assert _props.LIFECYCLE_LABEL == scheduling.LIFECYCLE_LABEL
    assert _props.GPU_PRESENT_LABEL == scheduling.GPU_PRESENT_LABEL
    assert _props.GPU_RESOURCE == scheduling.GPU_RESOURCE
    assert _props.ENV_KEY == scheduling.ENVIRONMENT_LABEL
    assert scheduling.CRITICAL_ADDONS_TAINT.key == _props.CORE_TAINT_KEY
    assert _props.AUTOSCALER_PREFIX == layout.AUTOSCALER_PREFIX
    assert set(_props.GPU_AMI_TYPES) == set(node_groups.GPU_AMI_TYPES)
    assert tuple(_props.CONTROL_PLANE_LOG_TYPES) == tuple(cluster.CONTROL_PLANE_LOG_TYPES)
    catalog = instances.catalog().values()
    assert {t.name for t in catalog if t.nvidia_gpu} == _props.NVIDIA_GPU_TYPES
    assert {t.name for t in catalog if t.accelerated} == _props.ACCELERATED_TYPES
