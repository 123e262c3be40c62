"""Static NodePools (`staticNodes`), DRA pools and every shipped pool against the pinned CRDs: the OpenAPI schema
(jsonschema) and every CEL rule (x-kubernetes-validations, evaluated by cel-python: tests/core/crd_rules.py), on
create and on an update of the same object; and what a static pool changes beyond its manifest (chart gates, cost
floor)."""

from __future__ import annotations

import copy

import pytest

from mlplatform_core.model.addons import karpenter_gates, releases
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.cost.capacity import node_pool_capacity
from mlplatform_core.model.karpenter import manifests, release
from mlplatform_core.model.karpenter.static import StaticSupport
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config
from tests.core import crd_rules as crd_cel

from .test_karpenter_manifests import VARIANTS, _data, errors

P = "ml-platform-eks:"


def _schema(kind: str) -> dict:
    return _data()["schemas"][kind]["openAPIV3Schema"]


def _raw(stack: str = "dev-karpenter", **groups) -> dict:
    raw = stack_config(stack)
    node_groups = copy.deepcopy(raw[f"{P}nodeGroups"])
    for name, extra in groups.items():
        node_groups[name] = {**node_groups.get(name, {}), **extra}
    raw[f"{P}nodeGroups"] = node_groups
    return raw


def _layout(raw: dict, stack: str = "dev-karpenter"):
    return build_layout(parse(raw), stack)


def _problems(raw: dict, stack: str = "dev-karpenter") -> str:
    with pytest.raises(ConfigError) as exc:
        _layout(raw, stack)
    return str(exc.value)


def _objects(lay) -> list[dict]:
    out = []
    for pool in lay.node_pools:
        out.append(manifests.node_pool(pool))
        if pool.node_class_kind == "EC2NodeClass":
            out.append(manifests.ec2_node_class(pool, "karpenter-node-1234567", lay.cluster_name, {"team": "ml"}))
    return out


def _static_variants() -> dict[str, object]:
    raw = _raw(gpu={"staticNodes": 2})
    dra = _raw(gpu={"staticNodes": 1})
    return {
        "static GPU pool": _layout(raw),
        "static GPU pool, one replica": _layout(dra),
        "static pool on Auto Mode": _layout(_raw("dev-automode", gpu={"staticNodes": 2}), "dev-automode"),
    }


def _all_layouts():
    from .test_karpenter_manifests import layout

    return {**{k: layout(**v) for k, v in VARIANTS.items()}, **_static_variants()}


@pytest.fixture(scope="module")
def layouts():
    return _all_layouts()


def test_the_crd_carries_cel_rules_to_check():
    """The pinned CRDs hold the rules this proof evaluates (a regenerated CRD without them would pass silently)."""
    assert crd_cel.rule_count(_schema("NodePool")) >= 20
    assert crd_cel.rule_count(_schema("EC2NodeClass")) >= 50
    rules = [r["rule"] for r in _schema("NodePool")["properties"]["spec"]["x-kubernetes-validations"]]
    assert any("self.weight" in r for r in rules) and any("'nodes' in self.limits" in r for r in rules)


def test_every_pool_passes_the_schema_and_every_cel_rule(layouts):
    checked = 0
    for name, lay in layouts.items():
        for obj in _objects(lay):
            kind = obj["kind"]
            assert errors(obj) == [], (name, obj["metadata"]["name"])
            assert crd_cel.violations(_schema(kind), obj) == [], (name, obj["metadata"]["name"])
            # The same object applied again (an update that changes nothing): the transition rules hold too.
            assert crd_cel.violations(_schema(kind), obj, copy.deepcopy(obj)) == [], (name, obj["metadata"]["name"])
            checked += 1
    assert checked >= 20


def test_a_static_pool_is_the_crd_static_form():
    lay = _layout(_raw(gpu={"staticNodes": 2}))
    pool = next(p for p in lay.node_pools if p.name == "gpu")
    spec = manifests.node_pool(pool)["spec"]
    assert spec["replicas"] == 2
    assert "weight" not in spec
    assert spec["limits"] == {"nodes": str(lay.group("gpu").max_size)}
    others = [manifests.node_pool(p)["spec"] for p in lay.node_pools if p.name != "gpu"]
    assert all("replicas" not in s and "weight" in s for s in others)


def test_the_cel_check_refuses_what_the_api_server_refuses():
    lay = _layout(_raw(gpu={"staticNodes": 2}))
    static = manifests.node_pool(next(p for p in lay.node_pools if p.name == "gpu"))
    dynamic = manifests.node_pool(next(p for p in lay.node_pools if p.name == "jobs"))
    schema = _schema("NodePool")
    weighted = copy.deepcopy(static)
    weighted["spec"]["weight"] = 10
    assert any("weight" in v for v in crd_cel.violations(schema, weighted))
    limited = copy.deepcopy(static)
    limited["spec"]["limits"]["nvidia.com/gpu"] = "4"
    assert any("limits.nodes" in v for v in crd_cel.violations(schema, limited))
    # Turning an existing dynamic pool static (or back) is refused on update: a user must replace the pool.
    assert any("static" in v for v in crd_cel.violations(schema, static, dynamic))
    assert any("static" in v for v in crd_cel.violations(schema, dynamic, static))
    label = copy.deepcopy(dynamic)
    label["spec"]["template"]["metadata"]["labels"]["karpenter.sh/nodepool"] = "x"
    assert crd_cel.violations(schema, label)


def test_static_pools_turn_on_the_controller_gate():
    lay = _layout(_raw(gpu={"staticNodes": 2}))
    assert karpenter_gates.feature_gates(lay) == {"staticCapacity": True}
    values = releases.karpenter_releases(lay, releases.DeployTimeValues())[1].values
    assert values["settings"]["featureGates"]["staticCapacity"] is True
    plain = _layout(_raw())
    assert karpenter_gates.feature_gates(plain) == {}
    # Auto Mode runs its own controller: there is no gate to set.
    auto = _layout(_raw("dev-automode", gpu={"staticNodes": 2}), "dev-automode")
    assert karpenter_gates.feature_gates(auto) == {}
    assert next(p for p in auto.node_pools if p.name == "gpu").replicas == 2


def test_the_cost_floor_counts_static_replicas():
    lay = _layout(_raw(gpu={"staticNodes": 3}))
    pool = next(p for p in lay.node_pools if p.name == "gpu")
    cap = node_pool_capacity(pool, lay.group("gpu"))
    assert (cap.min_nodes, cap.desired_nodes, cap.max_nodes) == (3, 3, lay.group("gpu").max_size)
    dynamic = next(p for p in lay.node_pools if p.name == "jobs")
    assert node_pool_capacity(dynamic, lay.group("jobs")).min_nodes == 0


def test_static_nodes_above_max_size_is_refused():
    msg = _problems(_raw(gpu={"staticNodes": 5, "maxSize": 4}))
    assert "nodeGroups.gpu.staticNodes" in msg and "maxSize 4" in msg


@pytest.mark.parametrize("value", [0, -1, 1.5, "two", True])
def test_static_nodes_must_be_a_positive_integer(value):
    assert "staticNodes" in _problems(_raw(gpu={"staticNodes": value}))


def test_node_groups_refuse_static_nodes_and_say_min_size_does_it():
    msg = _problems(_raw("dev", gpu={"staticNodes": 2}), "dev")
    assert "nodeGroups.gpu.staticNodes" in msg and "minSize" in msg


def test_the_initial_group_is_no_pool():
    msg = _problems(_raw(initial={"staticNodes": 2}))
    assert "nodeGroups.initial.staticNodes" in msg and "minSize" in msg


def test_a_static_pool_refuses_resource_limits_and_weight():
    raw = _raw(gpu={"staticNodes": 2})
    raw[f"{P}karpenter"] = {"nodePools": {"gpu": {"limits": {"nvidia.com/gpu": "8"}, "weight": 5}}}
    msg = _problems(raw)
    assert "karpenter.nodePools.gpu.limits.nvidia.com/gpu" in msg or "nvidia.com/gpu" in msg
    assert "karpenter.nodePools.gpu.weight" in msg


def test_every_provisioner_says_how_it_keeps_nodes_warm():
    from mlplatform_core.model.config.karpenter_settings import PROVISIONERS
    from mlplatform_core.model.provisioners import named

    answers = {name: named(name).static_capacity for name in PROVISIONERS}
    assert answers["karpenter"] == StaticSupport("Karpenter", "staticCapacity")  # the chart's featureGates key
    assert answers["autoMode"] == StaticSupport("EKS Auto Mode", None)  # AWS runs the controller: no gate
    assert isinstance(answers["nodeGroups"], str) and "minSize" in answers["nodeGroups"]


def test_dra_pools_make_the_controller_account_for_resource_claims():
    """A Karpenter pool whose group allocates GPUs with DRA sets the pinned release's DRA settings."""
    import dataclasses

    lay = _layout(_raw(gpu={"staticNodes": 2}))
    assert karpenter_gates.dra_settings(lay) == {}
    gpu = dataclasses.replace(lay.group("gpu"), gpu_allocation="dra")
    dra = dataclasses.replace(lay, groups=tuple(gpu if g.name == "gpu" else g for g in lay.groups))
    # The string "false": the chart's `with` drops a boolean false, leaving the controller's default (ignore).
    assert karpenter_gates.dra_settings(dra) == {"ignoreDRARequests": "false"}
    values = releases.karpenter_releases(dra, releases.DeployTimeValues())[1].values
    assert values["settings"]["ignoreDRARequests"] == "false"
    assert (
        "ignoreDRARequests" not in releases.karpenter_releases(lay, releases.DeployTimeValues())[1].values["settings"]
    )


def test_the_pinned_release_has_a_dra_row():
    """A Karpenter bump must say what its controller does with ResourceClaims (release.DRA_BY_MINOR)."""
    support = release.dra_support()
    assert release.karpenter_supports_dra() is support.dynamic
    assert release.version().startswith("1.14.")
    assert support.dynamic is False  # v1.14.1's AWS provider describes no devices per instance type
    with pytest.raises(KeyError):
        release.dra_support("9.99.0")
    assert release.dra_pool_problem(static=True) is None
    problem = release.dra_pool_problem(static=False)
    assert "devicePlugin" in problem and "staticNodes" in problem


def test_the_chart_proof_accounts_for_the_static_and_dra_settings():
    """The recorded rendering of the pinned chart probed settings.featureGates.staticCapacity and
    settings.ignoreDRARequests (scripts/lib/rendered_facts.py PROBED_NAMES): a static DRA stack's release is proven."""
    import dataclasses

    from mlplatform_core.model.addons import proof

    lay = _layout(_raw(gpu={"staticNodes": 2}))
    gpu = dataclasses.replace(lay.group("gpu"), gpu_allocation="dra")
    dra = dataclasses.replace(lay, groups=tuple(gpu if g.name == "gpu" else g for g in lay.groups))
    assert proof.prove(dra).problems == ()
