"""The provisioner seam: each shipped provisioner answers for itself, and a fourth one is one module plus a
`register` call: the layout, the add-ons, the cost, the discovery tags and the programs' parts ask it, with no
edit elsewhere (the fake below stands in for that module)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from mlplatform_core.model import addon_versions as versions
from mlplatform_core.model import provisioners
from mlplatform_core.model.addons.dra_driver import driver_groups
from mlplatform_core.model.addons.karpenter_controller import discovery_tags
from mlplatform_core.model.addons.releases import addons_of, runs_karpenter, stack_releases
from mlplatform_core.model.addons.run_by_aws import aws_runs_nodes, run_by_aws
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.cost.auto_mode_fee import bills_pool_fee
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.provisioners import Kept, Part
from mlplatform_core.model.teams.flavors import flavor_of
from mlplatform_core.placement.templates import node_template
from tests.conftest import stack_config

P = "ml-platform-eks:"
FAKE = "fakePools"


@dataclass
class FakeProvisioner:
    """A minimal fourth provisioner: it launches the jobs group itself, keeps the spot group as a managed node group
    (a migration), installs no autoscaler chart and asks the programs for one part of its own kind."""

    calls: list[str] = field(default_factory=list)
    name: str = FAKE
    title: str = "fake pools"
    section: tuple[str, str] | None = None
    flavor: Any = None
    initial_group_note: str = " (the fake provisioner's agent runs there)"
    runs_cluster_autoscaler: bool = False
    run_by_aws: bool = False
    cost_kinds: tuple[str, ...] = ()
    static_capacity: str = "a fourth provisioner keeps no static NodePools ({n} asked)"
    installs_dra_driver: bool = False
    group_kind: str = "fake pool"
    pools: tuple[str, ...] = ("jobs",)  # the groups it launches (a managed node group each otherwise)
    dra_refusal: str | None = None  # what it answers for a `dra` group it launches

    def is_pool(self, cfg: Any, group: str) -> bool:
        self.calls.append(f"is_pool {group}")
        return group in self.pools

    def launches(self, group: Any) -> bool:
        return group.karpenter and group.name in self.pools

    def dra_problem(self, minor: str, min_size: int, max_size: int, settings: Any) -> str | None:
        self.calls.append(f"dra_problem {minor} {min_size} {max_size}")
        return self.dra_refusal

    def families_configured(self, cfg: Any, group: str) -> bool:
        return False

    def kept_sections(self, cfg: Any) -> frozenset[str]:
        self.calls.append("kept_sections")
        return frozenset()

    def node_pools(self, cfg: Any, groups: list[Any], add: Any) -> tuple[list[Any], tuple]:
        self.calls.append("node_pools")
        return [dataclasses.replace(g, karpenter=True) if g.name in self.pools else g for g in groups], ()

    def kept(self, cfg: Any, groups: Sequence[Any], add: Any) -> Kept:
        self.calls.append("kept")
        return Kept(groups=tuple(g for g in groups if g.name == "jobs"))

    def placement_group_only_when_asked(self, cfg: Any) -> bool:
        self.calls.append("placement_group_only_when_asked")
        return False

    def autoscaling_charts(self, layout: Any) -> tuple[str, ...]:
        return ()

    def parts(self, layout: Any) -> tuple[Part, ...]:
        return (Part("fakePart", (), "fakeNodePools"),)

    def discovery_tags(self, cluster_name: str) -> Mapping[str, str]:
        return {"fake.example.com/discovery": cluster_name}


@pytest.fixture
def fake():
    provisioner = FakeProvisioner()
    provisioners.register(provisioner)
    yield provisioner
    provisioners.unregister(FAKE)


def fake_config(raw: dict | None = None):
    """dev with provisioner: fakePools (the stack file's Literal lists the shipped names; a new provisioner adds
    its own there: config/karpenter_settings.py PROVISIONERS)."""
    return parse(raw or stack_config("dev")).model_copy(update={"provisioner": FAKE})


def test_the_registry_holds_the_three_shipped_provisioners_by_name():
    assert provisioners.names()[:3] == ("nodeGroups", "karpenter", "autoMode")
    for name in ("nodeGroups", "karpenter", "autoMode"):
        assert provisioners.named(name).name == name
    with pytest.raises(KeyError, match="registered: nodeGroups, karpenter, autoMode"):
        provisioners.named("fargate")


def test_each_shipped_provisioner_answers_what_callers_used_to_test_for():
    node_groups, karpenter, auto_mode = (provisioners.named(n) for n in ("nodeGroups", "karpenter", "autoMode"))
    assert [p.runs_cluster_autoscaler for p in (node_groups, karpenter, auto_mode)] == [True, False, False]
    assert [p.run_by_aws for p in (node_groups, karpenter, auto_mode)] == [False, False, True]
    assert [p.section for p in (node_groups, karpenter, auto_mode)] == [
        None,
        ("karpenter", "karpenter"),
        ("autoMode", "auto_mode"),
    ]
    assert node_groups.discovery_tags("c") == {}
    assert karpenter.discovery_tags("c") == auto_mode.discovery_tags("c") == {"karpenter.sh/discovery": "c"}
    assert provisioners.AUTO_MODE_FEE in auto_mode.cost_kinds and not karpenter.cost_kinds


def test_the_layout_asks_a_registered_fourth_provisioner(fake):
    layout = build_layout(fake_config(), "dev")
    assert layout.provisioner == FAKE
    # It was asked for its pools, what a migration keeps, its sections and each group's placement and pool.
    assert {"node_pools", "kept", "kept_sections", "placement_group_only_when_asked", "is_pool jobs"} <= set(fake.calls)
    jobs = layout.group("jobs")
    assert jobs.karpenter  # launched by the fake, not a managed node group ...
    # ... except the copy it keeps for a migration, which stays a managed node group next to the others.
    assert [g.name for g in layout.managed_groups].count("jobs") == 1
    assert layout.retained_groups == (next(g for g in layout.managed_groups if g.name == "jobs"),)
    assert any(name == "jobs (kept node group)" for name, _ in layout.node_sources)


def test_the_addons_cost_and_programs_ask_a_registered_fourth_provisioner(fake):
    layout = build_layout(fake_config(), "dev")
    assert not layout.runs_cluster_autoscaler
    assert versions.CLUSTER_AUTOSCALER not in addons_of(layout) and not runs_karpenter(layout)
    assert not any(r.chart.name in ("cluster-autoscaler", "karpenter") for r in stack_releases(layout))
    assert discovery_tags(layout) == {"fake.example.com/discovery": layout.cluster_name}
    assert not aws_runs_nodes(layout) and run_by_aws(layout) == {}
    assert not bills_pool_fee(layout)
    assert [p.kind for p in provisioners.of(layout).parts(layout)] == ["fakePart"]


def test_a_fourth_provisioners_refusals_use_its_words(fake):
    raw = stack_config("dev")
    raw[P + "nodeGroups"] = {**raw.get(P + "nodeGroups", {}), "initial": {"enabled": False}}
    with pytest.raises(ConfigError, match="the fake provisioner's agent runs there"):
        build_layout(fake_config(raw), "dev")
    # Another provisioner's settings section, set with this one, is refused naming the section's provisioner.
    raw = stack_config("dev")
    raw[P + "karpenter"] = {"replicas": 2}
    with pytest.raises(ConfigError, match="karpenter: is set but provisioner is fakePools; set provisioner: karpenter"):
        build_layout(fake_config(raw), "dev")


def dra_gpu_config(min_size: int = 0):
    """dev with its gpu group on `gpuAllocation: dra` (Kubernetes 1.35), launched by the fake."""
    raw = stack_config("dev")
    groups = raw[P + "nodeGroups"]
    groups["gpu"] = {**groups["gpu"], "gpuAllocation": "dra", "minSize": min_size}
    return fake_config(raw)


def test_what_dra_needs_and_who_installs_the_driver_are_a_fourth_provisioners_answers(fake):
    fake.pools = ("jobs", "gpu")
    # A managed node group would be refused scaling from zero; the fake's pool is asked instead, with its sizes.
    layout = build_layout(dra_gpu_config(min_size=0), "dev")
    assert "dra_problem 1.35 0 4" in fake.calls
    gpu = layout.group("gpu")
    assert gpu.gpu_allocation == "dra" and provisioners.launcher(gpu) is fake
    # Its nodes bring their own driver: the stack installs none; a fourth provisioner that needs one gets it.
    assert driver_groups(layout) == ()
    fake.installs_dra_driver = True
    assert [g.name for g in driver_groups(layout)] == ["gpu"]
    # Its refusal is the user's error, in its words.
    fake.dra_refusal = "the fake pools publish no devices"
    with pytest.raises(ConfigError, match="'dra': the fake pools publish no devices"):
        build_layout(dra_gpu_config(), "dev")


def test_a_group_a_fourth_provisioner_launches_is_named_and_titled_by_it(fake):
    layout = build_layout(fake_config(), "dev")
    jobs, spot = layout.group("jobs"), layout.group("spot")
    assert provisioners.launcher(jobs) is fake and provisioners.launcher(spot) is provisioners.managed_groups()
    assert node_template(jobs).provisioner == FAKE and node_template(spot).provisioner == "nodeGroups"
    assert flavor_of(layout, jobs).kind == "fake pool" and flavor_of(layout, spot).kind == "node group"


def test_a_group_that_is_not_a_pool_is_a_managed_node_group_whatever_the_provisioner():
    """The initial group of a Karpenter or Auto Mode stack is a managed node group: node groups' answers hold."""
    managed = provisioners.managed_groups()
    assert managed is provisioners.named("nodeGroups")
    for name in ("nodeGroups", "karpenter", "autoMode"):
        cfg = parse(stack_config("dev")).model_copy(update={"provisioner": name})
        assert provisioners.launching(cfg, "initial") is managed
        assert (provisioners.launching(cfg, "jobs") is managed) == (name == "nodeGroups")
    assert [p.installs_dra_driver for p in (managed, *(provisioners.named(n) for n in ("karpenter", "autoMode")))] == [
        True,
        True,
        False,
    ]
