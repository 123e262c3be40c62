"""The policy pack's rules on the shipped stacks: each rule passes on them and fails on a broken variant.

Broken variants come from a changed stack config (run through the real program,
cached per config) or from edited recorded resources where the config layer
already refuses the mistake (the pack must still catch it in hand-written code).
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import jsonschema
import pytest

from mlplatform.check import policy_resources
from mlplatform.engine import run_stack
from mlplatform_policies import BY_NAME, offline
from tests.conftest import shipped_run, stack_config

Resource = offline.Resource
NG = "aws:eks/nodeGroup:NodeGroup"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
TAG = "aws:autoscaling/tag:Tag"
EKS = "aws:eks/cluster:Cluster"  # the control plane pulumi_eks.Cluster creates; the component carries no settings
EKS_NAME = "cluster-eksCluster"
CM = "kubernetes:core/v1:ConfigMap"
LR = "kubernetes:core/v1:LimitRange"
NS = "kubernetes:core/v1:Namespace"
PC = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
SC = "kubernetes:storage.k8s.io/v1:StorageClass"
DEV_POLICY_CONFIG = {"eks-endpoint-private": "advisory"}  # policies/config/dev.json


@cache
def shipped(stack: str) -> tuple[Resource, ...]:
    return tuple(policy_resources(shipped_run(stack)))


@cache
def _configured(stack: str, edits: str) -> tuple[Resource, ...]:
    cfg = stack_config(stack)
    for key, value in json.loads(edits).items():
        cfg[f"ml-platform-eks:{key}"] = value
    return tuple(policy_resources(run_stack(stack, cfg)))


def configured(stack: str, **edits: Any) -> tuple[Resource, ...]:
    """The resources of a shipped stack with some top-level settings replaced."""
    return _configured(stack, json.dumps(edits, sort_keys=True))


def edit(
    resources, type_: str, name: str | None, change: Callable[[dict], Any] | None = None, **fields: Any
) -> list[Resource]:
    """Resources with the matching ones' props (and state) changed by `change`, or other fields replaced."""
    out, hit = [], False
    for r in resources:
        if r.type == type_ and (name is None or r.name == name):
            hit = True
            props = copy.deepcopy(dict(r.props))
            if change:
                change(props)
            r = dataclasses.replace(r, props=props, state={**(r.state or {}), **props}, **fields)
        out.append(r)
    assert hit, f"no {type_} {name}"
    return out


def drop(resources, type_: str, predicate: Callable[[Resource], bool] = lambda r: True) -> list[Resource]:
    kept = [r for r in resources if not (r.type == type_ and predicate(r))]
    assert len(kept) < len(resources)
    return kept


def add(resources, type_: str, name: str, props: dict, parent: str | None = None) -> list[Resource]:
    urn = f"urn:pulumi:test::ml-platform-eks::{type_}::{name}"
    return [*resources, Resource(type_, name, urn, props, parent=parent, state=props)]


def evaluate(resources, config=None) -> list[offline.Violation]:
    return offline.evaluate(resources, config)


def mandatory(violations) -> set[str]:
    return {v.policy for v in violations if v.mandatory}


def advisory(violations) -> set[str]:
    return {v.policy for v in violations if not v.mandatory}


def b64(value: Any) -> str:
    return base64.b64encode(json.dumps(value).encode()).decode()


# --- the shipped stacks ---------------------------------------------------------------------------


def test_shipped_stacks_have_no_mandatory_violation():
    assert mandatory(evaluate(shipped("dev"), DEV_POLICY_CONFIG)) == set()
    assert evaluate(shipped("prod")) == []


def test_a_dev_stack_opened_to_a_cidr_relies_on_the_dev_policy_config():
    # The laptop path (public endpoint from an egress CIDR) fails without policies/config/dev.json, as it should.
    public = configured("dev", endpoint=PUBLIC_ENDPOINT, kubernetesLayer="inline")
    assert mandatory(evaluate(public)) == {"eks-endpoint-private"}
    assert advisory(evaluate(public, DEV_POLICY_CONFIG)) == {"eks-endpoint-private"}
    assert mandatory(evaluate(shipped("dev"))) == set()  # the shipped dev stack is private


# --- every rule: a failing variant of a stack the rule passes on -----------------------------------


_DELETE = object()  # _set(path, _DELETE) removes the key


def _set(path: list, value: Any) -> Callable[[dict], None]:
    def change(props: dict) -> None:
        cur = props
        for part in path[:-1]:
            cur = cur[part]
        if value is _DELETE:
            del cur[path[-1]]
        else:
            cur[path[-1]] = value

    return change


def _mlrun_tolerations(tolerations: list) -> Callable[[dict], None]:
    return _set(["data", "MLRUN_PREEMPTIBLE_NODES__TOLERATIONS"], b64(tolerations))


def _autoscaler_policy_unscoped(props: dict) -> None:
    doc = json.loads(props["policy"])
    for st in doc["Statement"]:
        st.pop("Condition", None)
    props["policy"] = json.dumps(doc)


PROD_SPOT_WORKLOAD = {
    "nodeGroups": {
        **stack_config("prod")["ml-platform-eks:nodeGroups"],
        "workload": {"instanceTypes": ["m5.4xlarge"], "minSize": 2, "maxSize": 20, "capacityType": "SPOT"},
    }
}
PUBLIC_ENDPOINT = {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["34.120.10.0/24"]}
PROD_PUBLIC_ENDPOINT = {"endpoint": PUBLIC_ENDPOINT}
DEV_OPEN_ENDPOINT = {"endpoint": {"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["0.0.0.0/0"]}}
PREEMPTING_HIGH = {"workloads": {"priorityClasses": {"high": {"preemptionPolicy": "PreemptLowerPriority"}}}}
BURSTABLE_PROD = {
    "workloads": {
        "namespaces": {
            "mlrun": {
                "limits": {"defaultRequest": {"cpu": "500m", "memory": "2Gi"}, "default": {"cpu": "1", "memory": "4Gi"}}
            }
        }
    }
}


def _cases():
    dev, prod = "dev", "prod"
    # (rule, stack, broken resources, expected level); a function so the runs happen inside the tests.
    yield "initial-node-group", prod, lambda r: edit(r, NG, "initial", _set(["capacityType"], "SPOT")), "mandatory"
    yield (
        "node-lifecycle-label",
        dev,
        lambda r: edit(r, NG, "jobs", _set(["labels", "app.iguazio.com/lifecycle"], "preemptible")),
        "mandatory",
    )
    yield "spot-node-taint", dev, lambda r: edit(r, NG, "spot", _set(["taints"], [])), "mandatory"
    yield (
        "gpu-node-group-dedicated",
        prod,
        lambda r: edit(r, NG, "gpu", _set(["amiType"], "AL2023_x86_64_STANDARD")),
        "mandatory",
    )
    yield (
        "gpu-types-only-in-gpu-groups",
        dev,
        lambda r: edit(r, NG, "jobs", _set(["instanceTypes"], ["m5.2xlarge", "g5.2xlarge"])),
        "mandatory",
    )
    yield (
        "node-group-scaling-bounds",
        dev,
        lambda r: edit(r, NG, "jobs", _set(["scalingConfig"], {"minSize": 4, "maxSize": 3, "desiredSize": 3})),
        "mandatory",
    )
    yield "autoscaled-desired-size-ignored", prod, lambda r: edit(r, NG, "workload", ignore_changes=()), "mandatory"
    yield (
        "autoscaler-asg-tags",
        dev,
        lambda r: drop(
            r, TAG, lambda t: t.name == "gpu-asg-k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"
        ),
        "mandatory",
    )
    yield (
        "gpu-accelerator-label",
        prod,
        lambda r: edit(r, NG, "gpu", _set(["labels", "k8s.amazonaws.com/accelerator"], _DELETE)),
        "mandatory",
    )
    yield (
        "eks-addons-preserved",
        prod,
        lambda r: edit(r, "aws:eks/addon:Addon", "platform-coredns", _set(["preserve"], False)),
        "mandatory",
    )
    yield (
        "ebs-storage-classes-encrypted",
        dev,
        lambda r: edit(r, SC, None, _set(["parameters", "encrypted"], "false")),
        "mandatory",
    )
    # The config refuses development groups in prod too; the pack must still catch hand-written ones.
    yield (
        "no-dev-groups-in-prod",
        prod,
        lambda r: edit(r, NG, "workload", _set(["labels", "mlplatform.io/node-role"], "jupyter")),
        "mandatory",
    )
    yield "prod-workload-on-demand", prod, lambda r: configured(prod, **PROD_SPOT_WORKLOAD), "advisory"
    yield "priority-classes", prod, lambda r: configured(prod, **PREEMPTING_HIGH), "mandatory"
    yield (
        "workload-namespace-limit-range",
        dev,
        lambda r: drop(r, LR, lambda x: x.props["metadata"]["namespace"] == "jupyter"),
        "mandatory",
    )
    yield "prod-guaranteed-qos-defaults", prod, lambda r: configured(prod, **BURSTABLE_PROD), "mandatory"
    yield (
        "mlrun-spot-settings",
        dev,
        lambda r: edit(
            r,
            CM,
            None,
            _mlrun_tolerations(
                [{"key": "app.iguazio.com/lifecycle", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]
            ),
        ),
        "mandatory",
    )
    yield (
        "imdsv2-required",
        dev,
        lambda r: edit(r, LT, "jobs-lt", _set(["metadataOptions", "httpTokens"], "optional")),
        "mandatory",
    )
    yield (
        "encrypted-root-volumes",
        prod,
        lambda r: edit(r, LT, "workload-lt", _set(["blockDeviceMappings", 0, "ebs", "encrypted"], "false")),
        "mandatory",
    )
    yield (
        "no-ssh-remote-access",
        dev,
        lambda r: edit(r, NG, "jupyter", _set(["remoteAccess"], {"ec2SshKey": "ops"})),
        "mandatory",
    )
    yield (
        "control-plane-logging",
        prod,
        lambda r: edit(r, EKS, EKS_NAME, _set(["enabledClusterLogTypes"], ["api", "audit"])),
        "mandatory",
    )
    yield (
        "secrets-kms-encryption",
        prod,
        lambda r: edit(r, EKS, EKS_NAME, _set(["encryptionConfig"], _DELETE)),
        "mandatory",
    )
    yield "eks-endpoint-not-open", dev, lambda r: configured(dev, **DEV_OPEN_ENDPOINT), "mandatory"
    yield "eks-endpoint-private", prod, lambda r: configured(prod, **PROD_PUBLIC_ENDPOINT), "mandatory"
    yield (
        "node-role-no-admin-policies",
        prod,
        lambda r: add(
            r,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "cluster-node-admin",
            {
                "role": next(x.state["name"] for x in r if x.type == "aws:iam/role:Role" and x.name == "cluster-node"),
                "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess",
            },
        ),
        "mandatory",
    )
    yield (
        "autoscaler-iam-scoped",
        dev,
        lambda r: edit(r, "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", _autoscaler_policy_unscoped),
        "mandatory",
    )
    yield "prod-resources-protected", prod, lambda r: configured(prod, protectResources=False), "mandatory"
    yield (
        "idle-cost-ceiling",
        prod,
        lambda r: edit(r, NG, "workload", _set(["scalingConfig"], {"minSize": 6, "maxSize": 20, "desiredSize": 6})),
        "advisory",
    )
    yield (
        "dev-gpu-scale-from-zero",
        dev,
        lambda r: edit(r, NG, "gpu", _set(["scalingConfig"], {"minSize": 1, "maxSize": 4, "desiredSize": 1})),
        "advisory",
    )


CASES = list(_cases())
# Rules that only act on a setting of the policy config get it in their case (the shipped prod idles at
# about 2,035 USD/month; its broken variant keeps 4 more m5.4xlarge nodes).
CASE_CONFIG = {"idle-cost-ceiling": {"idle-cost-ceiling": {"maxIdleMonthlyUsd": {"prod": 3000}}}}


def test_every_rule_has_a_case():
    # The Karpenter rules have their cases in test_karpenter_rules.py, on the Karpenter example stack.
    assert sorted(c[0] for c in CASES) == sorted(n for n in BY_NAME if not n.startswith("karpenter-"))


@pytest.mark.parametrize("rule,stack,breaks,level", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_shipped_stack_and_fails_on_the_broken_one(rule, stack, breaks, level):
    config = {**(DEV_POLICY_CONFIG if stack == "dev" else {}), **CASE_CONFIG.get(rule, {})} or None
    assert rule not in {v.policy for v in evaluate(shipped(stack), config)}
    found = [v for v in evaluate(breaks(list(shipped(stack))), config) if v.policy == rule]
    assert found, f"{rule} did not fire"
    assert {v.level for v in found} == {level}
    assert all(v.message and v.remediation for v in found)


# --- finer points of single rules ---------------------------------------------------------------


def _messages(violations, rule: str) -> str:
    return "\n".join(v.message for v in violations if v.policy == rule)


def test_initial_group_rule_names_each_broken_property():
    broken = edit(
        shipped("prod"),
        NG,
        "initial",
        lambda p: (
            p.update(capacityType="SPOT", taints=[]),
            p["scalingConfig"].update(minSize=1, maxSize=3, desiredSize=1),
        ),
    )
    text = _messages(evaluate(broken), "initial-node-group")
    assert "must be ON_DEMAND" in text and "must be static" in text
    assert "needs at least 2" in text and "CriticalAddonsOnly" in text


def test_initial_group_minimum_follows_the_environment_and_the_policy_config():
    one_node = configured(
        "dev",
        nodeGroups={
            **stack_config("dev")["ml-platform-eks:nodeGroups"],
            "initial": {"instanceTypes": ["m5.xlarge"], "minSize": 1, "maxSize": 1, "desiredSize": 1},
        },
    )
    assert "initial-node-group" not in mandatory(evaluate(one_node, DEV_POLICY_CONFIG))  # 1 is enough in dev
    stricter = {**DEV_POLICY_CONFIG, "initial-node-group": {"minNodes": 2}}
    assert "initial-node-group" in mandatory(evaluate(one_node, stricter))


def test_missing_initial_group_is_reported():
    no_initial = edit(shipped("dev"), NG, "initial", _set(["labels", "mlplatform.io/node-role"], "core"))
    assert "no node group is labelled" in _messages(evaluate(no_initial, DEV_POLICY_CONFIG), "initial-node-group")


def test_mlrun_settings_missing_or_opening_on_demand_nodes():
    no_settings = drop(shipped("dev"), CM)
    assert "no ConfigMap carries" in _messages(evaluate(no_settings, DEV_POLICY_CONFIG), "mlrun-spot-settings")
    # Tolerating everything would let preemptible jobs onto the GPU and core-services nodes.
    everything = edit(shipped("dev"), CM, None, _mlrun_tolerations([{"operator": "Exists"}]))
    text = _messages(evaluate(everything, DEV_POLICY_CONFIG), "mlrun-spot-settings")
    assert "nvidia.com/gpu=true:NoSchedule" in text and "CriticalAddonsOnly=true:NoSchedule" in text
    selector_everywhere = edit(
        shipped("dev"),
        CM,
        None,
        _set(["data", "MLRUN_PREEMPTIBLE_NODES__NODE_SELECTOR"], b64({"mlplatform.io/environment": "dev"})),
    )
    assert "also matches on-demand group(s)" in _messages(
        evaluate(selector_everywhere, DEV_POLICY_CONFIG), "mlrun-spot-settings"
    )


def test_priority_classes_must_exist():
    no_medium = drop(shipped("prod"), PC, lambda r: r.props["metadata"]["name"] == "igz-workload-medium")
    assert "no PriorityClass for the medium tier" in _messages(evaluate(no_medium), "priority-classes")


def test_renamed_priority_classes_are_found_through_policy_config():
    renamed = configured("prod", workloads={"priorityClasses": {"high": {"name": "urgent"}}})
    assert "no PriorityClass for the high tier" in _messages(evaluate(renamed), "priority-classes")
    names = {"priority-classes": {"classNames": {"high": "urgent"}}}
    assert "priority-classes" not in {v.policy for v in evaluate(renamed, names)}


def test_node_without_launch_template_fails_imds_and_volume_rules():
    bare = edit(shipped("prod"), NG, "workload", _set(["launchTemplate"], _DELETE))
    assert {"imdsv2-required", "encrypted-root-volumes"} <= mandatory(evaluate(bare))


def test_ssh_key_in_launch_template():
    keyed = edit(shipped("prod"), LT, "initial-lt", _set(["keyName"], "ops"))
    assert "no-ssh-remote-access" in mandatory(evaluate(keyed))


def test_autoscaler_policy_listing_asg_arns_is_scoped():
    def listed(props: dict) -> None:
        doc = json.loads(props["policy"])
        for st in doc["Statement"]:
            if st.pop("Condition", None):
                st["Resource"] = [
                    "arn:aws:autoscaling:us-west-2:123456789012:autoScalingGroup:*:autoScalingGroupName/eks-jobs-1"
                ]
        props["policy"] = json.dumps(doc)

    scoped = edit(shipped("dev"), "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", listed)
    assert "autoscaler-iam-scoped" not in {v.policy for v in evaluate(scoped, DEV_POLICY_CONFIG)}


def test_autoscaler_scope_must_name_this_cluster():
    def other_cluster(props: dict) -> None:
        props["policy"] = props["policy"].replace("cluster-autoscaler/mlp-dev", "cluster-autoscaler/mlp-other")

    wrong = edit(shipped("dev"), "aws:iam/rolePolicy:RolePolicy", "platform-autoscaler", other_cluster)
    assert "autoscaler-iam-scoped" in mandatory(evaluate(wrong, DEV_POLICY_CONFIG))


def test_unscoped_inline_admin_policy_on_node_role():
    node_role = next(r for r in shipped("prod") if r.type == "aws:iam/role:Role" and r.name == "cluster-node")
    admin = add(
        shipped("prod"),
        "aws:iam/rolePolicy:RolePolicy",
        "cluster-node-star",
        {
            "role": node_role.state["name"],
            "policy": json.dumps({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}),
        },
    )
    assert "node-role-no-admin-policies" in mandatory(evaluate(admin))
    # The same document on the autoscaler's IRSA role is not the node role's business (other rules apply).
    irsa = next(r for r in shipped("prod") if r.name == "platform-autoscaler" and r.type == "aws:iam/role:Role")
    elsewhere = add(
        shipped("prod"),
        "aws:iam/rolePolicy:RolePolicy",
        "irsa-star",
        {
            "role": irsa.state["name"],
            "policy": json.dumps({"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}),
        },
    )
    assert "node-role-no-admin-policies" not in {v.policy for v in evaluate(elsewhere)}


def test_untagged_resources_get_prod_rules():
    # Only an explicit dev tag relaxes prod's rules; dropping the tag must not loosen the gate.
    untagged = edit(shipped("dev"), EKS, EKS_NAME, _set(["tags"], {}))
    assert "prod-resources-protected" in mandatory(evaluate(untagged, DEV_POLICY_CONFIG))


# --- policy config ------------------------------------------------------------------------------


def _imds_broken():
    return edit(shipped("prod"), LT, "workload-lt", _set(["metadataOptions", "httpTokens"], "optional"))


def test_policy_config_turns_a_mandatory_rule_advisory():
    broken = _imds_broken()
    assert "imdsv2-required" in mandatory(evaluate(broken))
    relaxed = evaluate(broken, {"imdsv2-required": "advisory"})
    assert mandatory(relaxed) == set() and "imdsv2-required" in advisory(relaxed)
    as_object = evaluate(broken, {"imdsv2-required": {"enforcementLevel": "advisory"}})
    assert mandatory(as_object) == set()


def test_policy_config_disables_a_rule_and_all_sets_every_level():
    broken = _imds_broken()
    assert evaluate(broken, {"imdsv2-required": "disabled"}) == []
    everything = evaluate(broken, {"all": "advisory"})
    assert mandatory(everything) == set() and advisory(everything) == {"imdsv2-required"}
    # A named policy wins over "all", as in the Pulumi CLI.
    assert mandatory(evaluate(broken, {"all": "advisory", "imdsv2-required": "mandatory"})) == {"imdsv2-required"}


def test_policy_config_can_make_an_advisory_rule_mandatory():
    spot_prod = configured("prod", **PROD_SPOT_WORKLOAD)
    assert mandatory(evaluate(spot_prod)) == set()
    assert mandatory(evaluate(spot_prod, {"prod-workload-on-demand": "mandatory"})) == {"prod-workload-on-demand"}


@pytest.mark.parametrize(
    "config,needle",
    [
        ({"no-such-rule": "advisory"}, "unknown policy name"),
        ({"imdsv2-required": "warn"}, "not an enforcement level"),
        ({"imdsv2-required": {"minNodes": 2}}, "not a setting of this policy"),
        ({"initial-node-group": {"minNodes": "two"}}, "not of type"),
        ({"initial-node-group": {"minNodes": 0}}, "below the minimum"),
        ({"no-dev-groups-in-prod": {"forbiddenRoles": "jupyter"}}, "not of type array"),
        ({"priority-classes": {"classNames": {"urgent": "x"}}}, "unknown key"),
        ({"imdsv2-required": 3}, "must be an enforcement level or an object"),
        ({"dev-gpu-scale-from-zero": {"environments": ["dve"]}}, 'not one of "dev", "prod"'),
        ({"dev-gpu-scale-from-zero": {"environments": ["dev", "dev"]}}, "given more than once"),
        ({"idle-cost-ceiling": {"maxIdleMonthlyUsd": {"prd": 5}}}, "unknown key 'prd'; valid keys: dev, prod"),
    ],
)
def test_invalid_policy_config_is_refused(config, needle):
    with pytest.raises(offline.PolicyConfigError, match=needle):
        evaluate(shipped("prod"), config)


SETTINGS_SAMPLES = [
    ["dev"],
    ["dve"],
    ["dev", "dev"],
    "dev",
    {"dev": 100, "prod": None},
    {"prd": 5},
    {"dev": -1},
    {"low": "a", "medium": "b", "high": "c"},
    {"urgent": "x"},
    None,
    3,
    2.0,
    True,
]


@pytest.mark.parametrize("policy", sorted(BY_NAME), ids=str)
def test_the_offline_config_check_agrees_with_a_json_schema_validator(policy):
    # The CLI validates a pack's config against each policy's JSON schema; `mlplatform check` reads the same
    # schemas with its own small validator. They must accept and refuse the same values.
    schema = BY_NAME[policy].config_schema
    for key, prop in ((schema.properties or {}) if schema else {}).items():
        for value in SETTINGS_SAMPLES:
            theirs = jsonschema.Draft7Validator(prop).is_valid(value)
            ours = not offline._schema_errors(value, prop, f"{policy}.{key}")
            assert ours == theirs, (policy, key, value)


def test_shipped_dev_policy_config_is_valid_and_only_relaxes():
    from mlplatform.check import default_policy_config

    path = default_policy_config("dev")
    assert path is not None and path.name == "dev.json"
    doc = offline.load_policy_config(path)
    settings = offline.resolve_config(doc)
    assert all(settings[name].level.value in ("advisory", "disabled") for name in doc)
    assert default_policy_config("prod") is None  # prod runs every rule at its own level


@pytest.mark.parametrize(
    "cidrs,open_",
    [
        (["0.0.0.0/0"], True),
        (["0.0.0.0/1", "128.0.0.0/1"], True),  # the whole space, written in two
        (["0.0.0.0/1"], True),  # half of it: the threshold
        (["0.0.0.0/2", "64.0.0.0/2", "203.0.113.0/24"], True),
        (["0.0.0.0/2", "64.0.0.0/3", "96.0.0.0/4"], False),  # 7/16
        (["0.0.0.0/2", "0.0.0.0/2", "0.0.0.0/3", "64.0.0.0/3"], False),  # overlaps count once: 3/8
        (["203.0.113.0/24", "198.51.100.0/24"], False),
        (["10.0.0.1/1", "128.0.0.0/1"], True),  # host bits set: EKS normalises, so does the rule
        (["::/1", "8000::/1"], True),
        (["not-a-cidr"], False),  # left to the provider, which refuses it
    ],
)
def test_open_to_the_world_means_half_the_address_space_or_more(cidrs, open_):
    from mlplatform_policies.security import world_open

    assert (world_open(cidrs) is not None) is open_


def test_the_endpoint_rule_sees_halves_that_make_a_whole():
    split = configured(
        "dev",
        endpoint={"privateAccess": True, "publicAccess": True, "publicAccessCidrs": ["0.0.0.0/1", "128.0.0.0/1"]},
    )
    found = [v for v in evaluate(split, DEV_POLICY_CONFIG) if v.policy == "eks-endpoint-not-open"]
    assert found and all(v.mandatory for v in found)
    assert "cover 100% of the IPv4 space" in found[0].message


def test_a_prod_hop_limit_above_one_is_mandatory_and_dev_may_use_two():
    prod = [v for v in evaluate(configured("prod", imdsHopLimit=2)) if v.policy == "imdsv2-required"]
    assert prod and all(v.mandatory for v in prod)
    assert {v.resource_type for v in prod} == {LT}
    assert "borrow the node role" in prod[0].message
    dev = evaluate(configured("dev", imdsHopLimit=2), DEV_POLICY_CONFIG)
    assert "imdsv2-required" not in {v.policy for v in dev}


@pytest.mark.parametrize("role,flagged", [("jobs", True), ("jupyter", True), ("nightly-jobs", False)])
def test_prod_refuses_the_dev_layouts_roles(role, flagged):
    relabelled = edit(shipped("prod"), NG, "workload", _set(["labels", "mlplatform.io/node-role"], role))
    assert ("no-dev-groups-in-prod" in mandatory(evaluate(relabelled))) is flagged


def test_dev_group_names_are_matched_by_word():
    def renamed(role: str):
        return edit(shipped("prod"), NG, "workload", _set(["labels", "mlplatform.io/node-role"], role))

    assert "no-dev-groups-in-prod" in mandatory(evaluate(renamed("jupyter-gpu")))
    assert "no-dev-groups-in-prod" not in mandatory(evaluate(renamed("devops")))
    # Dev clusters may have them.
    assert "no-dev-groups-in-prod" not in {v.policy for v in evaluate(shipped("dev"), DEV_POLICY_CONFIG)}


def test_guaranteed_qos_follows_kubernetes_limit_range_defaulting():
    def limits(item: dict):
        return edit(shipped("prod"), LR, None, _set(["spec", "limits"], [{"type": "Container", **item}]))

    # Only max set: default takes max and defaultRequest takes default, so pods are Guaranteed.
    assert "prod-guaranteed-qos-defaults" not in mandatory(evaluate(limits({"max": {"cpu": "2", "memory": "4Gi"}})))
    # Same amounts written differently are equal.
    same = {"defaultRequest": {"cpu": "1000m", "memory": "4096Mi"}, "default": {"cpu": "1", "memory": "4Gi"}}
    assert "prod-guaranteed-qos-defaults" not in mandatory(evaluate(limits(same)))
    # Requests without limits leave pods Burstable.
    assert "prod-guaranteed-qos-defaults" in mandatory(
        evaluate(limits({"defaultRequest": {"cpu": "1", "memory": "1Gi"}}))
    )


def test_platform_priority_classes_may_preempt():
    # igz-system-* classes (PreemptLowerPriority) are the platform's, not user tiers.
    with_system = configured("prod", workloads={"systemPriorityClasses": {"enabled": True}})
    assert any(r.type == PC and r.props["metadata"]["name"] == "igz-system-medium" for r in with_system)
    assert "priority-classes" not in {v.policy for v in evaluate(with_system)}
