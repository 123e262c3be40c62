"""The offline engine's model of pulumi_eks.Cluster: pinned to the pulumi-eks releases it was read from.

The mapping (mlplatform/engine/remote/pulumi_eks.py) is pulumi-eks's nodejs/eks/cluster/cluster.ts
for this program's inputs. A pulumi-eks bump fails here, loudly, until someone re-derives it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import inspect
import json
import re
import subprocess
import sys

import pulumi_eks
import pytest

from mlplatform.engine import run_program
from mlplatform.engine.remote import ModelError
from mlplatform.engine.remote import pulumi_eks as model
from mlplatform.engine.remote import pulumi_eks_coverage as coverage
from tests.conftest import ROOT, stack_config
from tests.runs import irsa_run, shipped_run

C = "mlplatform:cluster:Cluster$eks:index:Cluster"
ROLE_CHAIN = C + "$eks:index:ServiceRole"
SG, RULE = "aws:ec2/securityGroup:SecurityGroup", "aws:ec2/securityGroupRule:SecurityGroupRule"
# What pulumi-eks creates for this program's inputs (type chain under the component, name).
CHILDREN = {
    (f"{C}$eks:index:ServiceRole", "cluster-eksRole"),
    (f"{ROLE_CHAIN}$aws:iam/role:Role", "cluster-eksRole-role"),
    (f"{ROLE_CHAIN}$aws:iam/rolePolicyAttachment:RolePolicyAttachment", "cluster-eksRole-4b490823"),
    (f"{C}${SG}", "cluster-eksClusterSecurityGroup"),
    (f"{C}${RULE}", "cluster-eksClusterInternetEgressRule"),
    (f"{C}$aws:eks/cluster:Cluster", "cluster-eksCluster"),
    (f"{C}$aws:eks/addon:Addon", "cluster-kube-proxy"),
    (f"{C}$pulumi:providers:kubernetes", "cluster-eks-k8s"),
    (f"{C}$eks:index:VpcCniAddon", "cluster-vpc-cni"),
    (f"{C}$eks:index:VpcCniAddon$aws:eks/addon:Addon", "cluster-vpc-cni"),
    (f"{C}$aws:iam/openIdConnectProvider:OpenIdConnectProvider", "cluster-oidcProvider"),
    (f"{C}${SG}", "cluster-nodeSecurityGroup"),
    (f"{C}${RULE}", "cluster-eksNodeIngressRule"),
    (f"{C}${RULE}", "cluster-eksNodeClusterIngressRule"),
    (f"{C}${RULE}", "cluster-eksExtApiServerClusterIngressRule"),
    (f"{C}${RULE}", "cluster-eksNodeInternetEgressRule"),
    (f"{C}${RULE}", "cluster-eksClusterIngressRule"),
}


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


# --- the releases the model follows -------------------------------------------------------------


def test_the_installed_pulumi_eks_is_a_release_the_model_follows():
    version = importlib.metadata.version("pulumi-eks")
    coverage.check_version(version)
    # The SDK asks the engine for the eks plugin of its own version: that plugin's Node code is what runs.
    plugin = json.loads((importlib.resources.files("pulumi_eks") / "pulumi-plugin.json").read_text())
    assert plugin["version"] == version


def test_pyproject_allows_only_releases_the_model_follows():
    pyproject = (ROOT / "pyproject.toml").read_text()
    low, high = re.search(r'"pulumi-eks>=([\d.]+),<([\d.]+)"', pyproject).groups()
    assert (_release(low) + (0, 0))[:3] >= coverage.MODELLED_VERSIONS[0]
    assert (_release(high) + (0, 0))[:3] <= coverage.MODELLED_VERSIONS[1]


def test_eks_cluster_takes_the_inputs_the_model_was_derived_from():
    names = [p for p in inspect.signature(pulumi_eks.ClusterArgs.__init__).parameters if p != "__self__"]
    assert coverage.inputs_fingerprint(names) == coverage.CLUSTER_INPUTS_SHA256, (
        f"pulumi_eks {importlib.metadata.version('pulumi-eks')} changed eks.Cluster's inputs: re-derive "
        "mlplatform/engine/remote/pulumi_eks.py from nodejs/eks/cluster/cluster.ts of that release (createCore, "
        f"createCluster), then set CLUSTER_INPUTS_SHA256 = {coverage.inputs_fingerprint(names)!r}"
    )


@pytest.mark.parametrize("version", ["4.0.1", "4.5.0", "5.0.0"])
def test_a_release_the_model_does_not_follow_is_refused(version):
    with pytest.raises(ModelError, match=rf"pulumi-eks {version} is outside .* re-derive"):
        coverage.check_version(version)


def test_a_plan_with_an_unmodelled_release_fails_loudly():
    # In a process of its own: a failed program run leaves the Pulumi runtime's tasks behind.
    script = (
        "from mlplatform.engine.remote import pulumi_eks_coverage\n"
        "pulumi_eks_coverage.MODELLED_VERSIONS = ((9, 0, 0), (10, 0, 0))\n"
        "from mlplatform.cli import main\n"
        "raise SystemExit(main(['plan', 'dev']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "error: offline engine: pulumi-eks " in done.stderr and "re-derive" in done.stderr
    assert "Traceback" not in done.stderr


# --- inputs the model does not follow are refused, not guessed ----------------------------------

_INPUTS = {
    "name": "mlp-dev",
    "version": "1.33",
    "vpcId": "vpc-1",
    "privateSubnetIds": ["subnet-1"],
    "skipDefaultNodeGroup": True,
    "authenticationMode": "API",
    "createOidcProvider": True,
}


def _construct(without: tuple[str, ...] = (), **changes):
    inputs = {k: v for k, v in {**_INPUTS, **changes}.items() if k not in without}
    counter = iter(range(100))
    return model.construct(
        "cluster",
        inputs,
        version="4.4.0",
        region="us-west-2",
        unknown=frozenset(),
        new_resource=lambda t, n, i: (f"{n}-id{next(counter)}", {"arn": f"arn:{n}", "name": i.get("name", n)}),
    )


@pytest.mark.parametrize(
    "changes,needle",
    [
        ({"fargate": True}, "fargate is not modelled"),
        ({"skipDefaultNodeGroup": False}, "skipDefaultNodeGroup=false is not modelled"),
        ({"authenticationMode": "API_AND_CONFIG_MAP"}, "authenticationMode"),
        ({"corednsAddonOptions": {"enabled": True}}, "CoreDNS"),
        ({"subnetIds": ["subnet-1"]}, "subnetIds is not modelled"),
        ({"without": ("vpcId",)}, "vpcId is required"),
    ],
)
def test_inputs_the_model_does_not_follow_are_refused(changes, needle):
    with pytest.raises(ModelError, match=re.escape(needle)):
        _construct(**changes)


def test_public_cidrs_on_a_private_endpoint_fail_as_pulumi_eks_fails():
    with pytest.raises(ModelError, match="`publicAccessCidrs` can only be set when `endpointPublicAccess` is true"):
        _construct(endpointPublicAccess=False, publicAccessCidrs=["10.0.0.0/8"])


def test_without_an_oidc_provider_none_is_created():
    built = _construct(createOidcProvider=False)
    assert "aws:iam/openIdConnectProvider:OpenIdConnectProvider" not in {c.type for c in built.children}
    assert built.outputs["oidcProviderArn"] == ""


# --- what the recording holds ---------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_component_has_no_properties_and_pulumi_eks_creates_its_children(stack):
    run = shipped_run(stack)
    component = run.one("eks:index:Cluster", "cluster")
    assert component.inputs == {} and component.remote
    prefix = f"urn:pulumi:{stack}::ml-platform-eks::"
    created = [r for r in run.resources if r.created_by]
    assert {(r.urn.removeprefix(prefix).split("::")[0], r.name) for r in created} == CHILDREN
    assert len(created) == len(CHILDREN) and {r.created_by for r in created} == {"pulumi-eks"}
    # Node SDK children inherit protect from the component, which gets the program's protect.
    assert {r.protect for r in created} == {stack == "prod"} == {component.protect}


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_control_plane_carries_the_programs_settings(stack):
    run = shipped_run(stack)
    eks = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    role = run.one("aws:iam/role:Role", "cluster-eksRole-role")
    component = run.one("eks:index:Cluster", "cluster").outputs
    assert eks.inputs["name"] == f"mlp-{stack}" and eks.inputs["version"] == "1.35"
    assert eks.inputs["roleArn"] == role.outputs["arn"]
    assert eks.inputs["vpcConfig"]["securityGroupIds"] == [component["clusterSecurityGroupId"]]
    egress = run.one(RULE, "cluster-eksClusterInternetEgressRule").inputs
    assert egress["securityGroupId"] == component["clusterSecurityGroupId"] and egress["cidrBlocks"] == ["0.0.0.0/0"]
    assert eks.inputs["tags"] == {"Name": "cluster-eksCluster", **_program_tags(run)}
    assert eks.ignore_changes == ["accessConfig.bootstrapClusterCreatorAdminPermissions", "bootstrapSelfManagedAddons"]
    trust = json.loads(role.inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": ["eks.amazonaws.com"]}
    cni = json.loads(run.one("aws:eks/addon:Addon", "cluster-vpc-cni").inputs["configurationValues"])
    assert cni["env"]["AWS_VPC_ENI_MTU"] == "9001" and cni["init"]["env"] == {"DISABLE_TCP_EARLY_DEMUX": "false"}


def _program_tags(run) -> dict:
    return run.one("aws:kms/key:Key", "cluster-secrets").inputs["tags"]


def test_irsa_roles_trust_the_oidc_provider_pulumi_eks_creates():
    run = irsa_run("dev")  # the shipped stacks use Pod Identity; a stack without podIdentity keeps IRSA
    oidc = run.one("aws:iam/openIdConnectProvider:OpenIdConnectProvider", "cluster-oidcProvider")
    trust = json.loads(run.one("aws:iam/role:Role", "platform-autoscaler").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Federated": oidc.outputs["arn"]}
    assert oidc.inputs["url"].removeprefix("https://") in json.dumps(trust["Statement"][0]["Condition"])


def test_ids_and_arns_of_the_programs_resources_are_unknown_in_a_preview(dev_run):
    eks = dev_run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    assert {("vpcConfig", "subnetIds"), ("encryptionConfig",), ("roleArn",)} <= set(eks.unknown_in_preview)
    assert ("vpcId",) in dev_run.one(SG, "cluster-nodeSecurityGroup").unknown_in_preview
    # Settings the program passes as plain values stay known: the endpoint rules run in a preview.
    assert not [p for p in eks.unknown_in_preview if p[:1] == ("vpcConfig",) and p[1].startswith("endpoint")]


def test_an_existing_vpc_is_known_in_a_preview():
    raw = stack_config("dev")
    raw["ml-platform-eks:network"] = {
        "vpcId": "vpc-0123456789abcdef0",
        "privateSubnetIds": ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"],
    }
    run = run_program("dev", raw)
    eks = run.one("aws:eks/cluster:Cluster", "cluster-eksCluster")
    assert ("vpcConfig", "subnetIds") not in eks.unknown_in_preview and ("encryptionConfig",) in eks.unknown_in_preview
    assert ("vpcId",) not in run.one(SG, "cluster-nodeSecurityGroup").unknown_in_preview
