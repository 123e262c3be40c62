"""The cost model: every line priced from the snapshot's rows or reported unknown, and the totals it adds up to."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlplatform_core.model import eks_versions
from mlplatform_core.model.config import parse
from mlplatform_core.model.cost import HOURS_PER_MONTH, Capacity, estimate, prices
from mlplatform_core.model.layout import build_layout
from tests.conftest import ROOT, stack_config

DAY = datetime.date(2026, 11, 22)
SNAPSHOT = ROOT / "mlplatform_core" / "data" / "prices.json"


@pytest.fixture(autouse=True)
def on_day(monkeypatch):
    # The day decides the support phase (and which versions the config accepts): fixed, not the test run's.
    monkeypatch.setattr(eks_versions, "today", lambda: DAY)


def stack_cost(stack: str, on: datetime.date | None = None, **settings_: object):
    raw = stack_config(stack)
    for key, value in settings_.items():
        raw[f"ml-platform-eks:{key}"] = value
    if "region" in settings_:
        raw["aws:region"] = raw.pop("ml-platform-eks:region")
        if str(settings_["region"]).startswith("cn-"):  # China stacks name a mirror of the add-ons' images
            raw.setdefault("ml-platform-eks:imageRegistry", "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/m")
    cfg = parse(raw)
    return estimate(cfg, build_layout(cfg, stack), on=on)


def line(cost, label: str):
    return next(x for x in cost.lines if x.label == label)


def raw_rows() -> dict:
    """The snapshot's rows read as plain JSON, not through the toolkit."""
    return json.loads(SNAPSHOT.read_text())["on_demand_usd_per_hour"]


# --- prices from the snapshot ----------------------------------------------------------------------


def test_a_group_costs_its_nodes_times_the_raw_row_of_its_type():
    cost = stack_cost("dev")
    initial = line(cost, "node group initial")  # 2 x m5.xlarge, static
    per_hour = raw_rows()["m5.xlarge"]["us-east-1"]
    assert initial.quantity == (2, 2, 2)
    for size in ("min", "desired", "max"):
        assert float(initial.usd_per_hour(size) * HOURS_PER_MONTH) == pytest.approx(2 * per_hour * 730)
    jobs = line(cost, "node group jobs")  # 1..10 x m5.2xlarge
    row = raw_rows()["m5.2xlarge"]["us-east-1"]
    assert [float(jobs.usd_per_hour(s)) for s in ("min", "desired", "max")] == pytest.approx([row, row, 10 * row])


def test_the_snapshot_records_its_sources_and_has_no_hand_typed_prices():
    data = json.loads(SNAPSHOT.read_text())
    roles = {s["role"] for s in data["source"]}
    assert roles == {
        "karpenter-prices-aws",
        "karpenter-prices-aws-us-gov",
        "karpenter-prices-aws-cn",
        "eks-control-plane-pricing",
        "aws-pricing-pages",
    }
    # A price only a pricing page states is a dated fact with its page's URL.
    pages = [s for s in data["source"] if s["role"] == "aws-pricing-pages"]
    # (the EKS rows only AmazonEKS offer files price: the commercial control plane is AWS's statement)
    offer_only = {"eks_cluster_hour", "eks_extended_support_hour"}
    assert {s["charge"] for s in pages} == set(data["charges"]["units"]) - offer_only
    assert all(s["url"].startswith("https://aws.amazon.com/") and s["date"] for s in pages)
    assert set(data["ec2_on_demand"]["regions"]) == {"us-east-1", "us-gov-east-1", "us-gov-west-1"}
    counts = {
        r: sum(r in row for row in data["on_demand_usd_per_hour"].values()) for r in data["ec2_on_demand"]["regions"]
    }
    assert counts == {r: v["instance_types"] for r, v in data["ec2_on_demand"]["regions"].items()}
    # What no authoritative source prices is named, with a reason, and never appears as a number.
    assert {"ec2_spot", "nat_gateway", "public_ipv4", "ebs", "kms_key", "ec2_cny"} <= set(data["unknown"])
    assert prices.prices_date() == "2026-07-20"


# --- the control plane -----------------------------------------------------------------------------


def test_a_version_in_extended_support_raises_the_control_plane_line():
    standard = stack_cost("dev")  # 1.35: standard support until 2027-03-27
    extended = stack_cost("dev", kubernetesVersion="1.33")  # extended support since 2026-07-29
    cp_std, cp_ext = line(standard, "EKS control plane"), line(extended, "EKS control plane")
    assert cp_std.price.usd_per_hour == Decimal("0.1") and cp_ext.price.usd_per_hour == Decimal("0.6")
    assert "extended support" in cp_ext.basis and "2027-03-27" in cp_std.basis
    raise_per_month = extended.idle_floor.usd_per_month - standard.idle_floor.usd_per_month
    cent = Decimal("0.01")  # monthly lines (EBS GiB-months, a KMS key-month) are spread over the hours
    assert raise_per_month.quantize(cent) == Decimal("0.5") * HOURS_PER_MONTH
    assert (extended.ceiling.usd_per_month - standard.ceiling.usd_per_month).quantize(cent) == raise_per_month.quantize(
        cent
    )


def test_extended_support_bills_from_the_first_day_after_standard_support():
    before = stack_cost("dev", on=datetime.date(2026, 7, 28), kubernetesVersion="1.33")
    after = stack_cost("dev", on=datetime.date(2026, 7, 29), kubernetesVersion="1.33")
    assert line(before, "EKS control plane").price.usd_per_hour == Decimal("0.1")
    assert line(after, "EKS control plane").price.usd_per_hour == Decimal("0.6")
    assert "from 2026-07-29 this minor bills extended support at 0.60" in line(before, "EKS control plane").note


def test_a_control_plane_outside_the_commercial_partition_is_unknown():
    gov = stack_cost("dev", region="us-gov-west-1")
    assert not line(gov, "EKS control plane").price.known
    assert line(gov, "node group initial").price.usd_per_hour == Decimal(str(raw_rows()["m5.xlarge"]["us-gov-west-1"]))
    assert "EKS control plane" in gov.idle_floor.unknown and gov.idle_floor.lower_bound


# --- networks, storage and what stays unknown -----------------------------------------------------


def test_a_stack_in_an_existing_vpc_creates_no_nat_gateway():
    cost = stack_cost(
        "dev", network={"vpcId": "vpc-0abc1234", "privateSubnetIds": ["subnet-0abc1234", "subnet-0abc5678"]}
    )
    assert not [x for x in cost.lines if x.kind in ("NAT gateway", "public IPv4")]


def test_root_volumes_follow_the_node_counts():
    cost = stack_cost("dev")
    ebs = line(cost, "nodes' root volumes (EBS)")
    layout = build_layout(parse(stack_config("dev")), "dev")
    assert ebs.quantity.min == sum(g.disk_size_gib * g.min_size for g in layout.groups)
    assert ebs.quantity.max == sum(g.disk_size_gib * g.max_size for g in layout.groups)
    assert ebs.price.usd_per_hour == Decimal("0.08") and ebs.per == "GiB-month"


def test_a_region_without_prices_leaves_every_instance_unknown_and_says_why():
    cost = stack_cost("dev", region="eu-west-1")
    initial = line(cost, "node group initial")
    assert not initial.price.known and "eu-west-1" in initial.price.reason and "us-east-1" in initial.price.reason
    assert line(cost, "EKS control plane").price.known  # one list price for the commercial partition
    assert cost.idle_floor.usd_per_hour == Decimal("0.1") and cost.idle_floor.lower_bound
    # A group at zero nodes costs nothing even without a price: the idle floor does not list it.
    assert "node group gpu" not in cost.idle_floor.unknown and "node group gpu" in cost.ceiling.unknown


def test_an_instance_type_without_a_price_in_the_region_is_unknown():
    assert "us-east-1" not in raw_rows().get("p5e.48xlarge", {})
    groups = stack_config("dev")["ml-platform-eks:nodeGroups"]
    groups["gpu"] = {"enabled": True, "instanceTypes": ["p5e.48xlarge"], "minSize": 1, "maxSize": 2}
    cost = stack_cost("dev", nodeGroups=groups)
    gpu = line(cost, "node group gpu")
    assert not gpu.price.known and "p5e.48xlarge" in gpu.price.reason
    assert gpu.unpriced_types == ("p5e.48xlarge",)
    assert "node group gpu" in cost.idle_floor.unknown


# --- node groups with several types ---------------------------------------------------------------


def test_an_on_demand_group_is_priced_by_the_type_it_launches_first_with_the_range():
    rows = raw_rows()
    groups = stack_config("dev")["ml-platform-eks:nodeGroups"]
    groups["jobs"]["instanceTypes"] = ["m5.2xlarge", "m5a.2xlarge"]  # one size class, two prices
    jobs = line(stack_cost("dev", nodeGroups=groups), "node group jobs")
    first, other = Decimal(str(rows["m5.2xlarge"]["us-east-1"])), Decimal(str(rows["m5a.2xlarge"]["us-east-1"]))
    assert other < first
    assert jobs.price.usd_per_hour == first and jobs.bound == "exact"
    assert jobs.price_range == (other, first)
    groups["jobs"]["instanceTypes"] = ["m5a.2xlarge", "m5.2xlarge"]
    swapped = line(stack_cost("dev", nodeGroups=groups), "node group jobs")
    assert swapped.price.usd_per_hour == other


def test_a_spot_group_is_an_upper_bound_at_its_dearest_type_on_demand():
    rows = raw_rows()
    cost = stack_cost("dev")
    spot = line(cost, "node group spot")
    dearest = max(rows[t]["us-east-1"] for t in spot.instance_types)
    assert spot.bound == "upper" and spot.price.usd_per_hour == Decimal(str(dearest))
    assert "spot" in spot.note
    assert cost.ceiling.upper_bounds == ("node group spot",)
    assert cost.idle_floor.upper_bounds == ()  # at min the spot group runs no node


def test_another_provisioner_hands_capacity_in_the_same_shape():
    # A Karpenter NodePool: instance-type candidates and a node limit, launched by price at run time.
    cfg = parse(stack_config("dev"))
    pool = Capacity("gpu-pool", "node pool", "ON_DEMAND", ("g5.xlarge", "g5.2xlarge"), 0, 0, 3, "highest", 200, True)
    cost = estimate(cfg, build_layout(cfg, "dev"), capacity=[pool])
    (priced,) = cost.groups
    assert priced.label == "node pool gpu-pool" and priced.bound == "upper"
    assert priced.usd_per_hour("max") == 3 * Decimal(str(raw_rows()["g5.2xlarge"]["us-east-1"]))
    assert line(cost, "nodes' root volumes (EBS)").quantity.max == 600


# --- totals ---------------------------------------------------------------------------------------


def test_the_shipped_stacks_idle_floor_and_ceiling():
    for stack in ("dev", "prod"):
        cost = stack_cost(stack)
        floor, ceiling = cost.idle_floor, cost.ceiling
        others = [line for line in cost.lines if line.unit != "node"]
        assert all(line.price.known for line in others), [(x.label, x.price.reason) for x in others]
        expected_floor = sum(line.usd_per_hour("min") for line in cost.lines)
        assert floor.usd_per_hour == expected_floor
        assert not floor.lower_bound  # us-east-1: control plane, NAT, public IPv4, EBS and KMS are all priced
        assert {"NAT gateways", "NAT gateways' public IPv4 addresses"} <= {line.name for line in others}
        assert 0 < floor.usd_per_month < ceiling.usd_per_month


def test_a_china_region_is_priced_in_cny_and_never_added_to_usd():
    cost = stack_cost("dev", region="cn-north-1")
    jobs = next(g for g in cost.groups if g.name == "jobs")
    assert jobs.price.usd_per_hour is None and jobs.price.other[0] == "CNY"
    assert "never added to USD" in jobs.price.reason
    assert cost.ceiling.lower_bound and jobs.label in cost.ceiling.unknown
    assert cost.other_currencies("max")["CNY"] == sum(
        g.quantity.max * g.price.other[1] for g in cost.groups if g.price.other
    )


types = st.sampled_from(["m5.xlarge", "m5.2xlarge", "c6a.4xlarge", "g5.xlarge", "r6i.8xlarge"])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(types, min_size=1, max_size=3, unique=True),
            st.integers(0, 5),
            st.integers(0, 5),
            st.integers(0, 5),
            st.sampled_from(["ON_DEMAND", "SPOT"]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_totals_add_up_and_never_shrink_from_floor_to_ceiling(groups):
    cfg = parse(stack_config("dev"))
    layout = build_layout(cfg, "dev")
    caps = []
    for i, (names, a, b, c, capacity) in enumerate(groups):
        lo, want, hi = sorted((a, b, c))
        by = "highest" if capacity == "SPOT" else "first"
        caps.append(Capacity(f"g{i}", "node group", capacity, tuple(names), lo, want, hi, by, 50))
    cost = estimate(cfg, layout, capacity=caps)
    floor, desired, ceiling = cost.idle_floor, cost.total("desired"), cost.ceiling
    assert floor.usd_per_hour <= desired.usd_per_hour <= ceiling.usd_per_hour
    assert floor.usd_per_hour == sum((x.usd_per_hour("min") or 0) for x in cost.lines)
    assert all(x.price.usd_per_hour <= x.price_range[1] for x in cost.groups)


def test_capacity_without_candidate_types_is_unknown_not_an_error():
    cfg = parse(stack_config("dev"))
    pool = Capacity("any", "node pool", "ON_DEMAND", (), 0, 0, 5, "highest")
    (priced,) = estimate(cfg, build_layout(cfg, "dev"), capacity=[pool]).groups
    assert not priced.price.known and "names no instance types" in priced.price.reason
    assert priced.usd_per_hour("min") == 0 and priced.usd_per_hour("max") is None


# --- Karpenter NodePools ----------------------------------------------------------------------------


def test_karpenter_pools_idle_at_zero_and_are_bounded_by_their_dearest_type():
    rows = raw_rows()
    cost = stack_cost("dev-karpenter")
    labels = [x.label for x in cost.lines if x.unit == "node"]
    assert labels == ["node group initial", "node pool jupyter", "node pool jobs", "node pool spot", "node pool gpu"]
    jobs = line(cost, "node pool jobs")  # may launch m5.2xlarge or m5.4xlarge, whichever fits pending pods
    dearest = max(Decimal(str(rows[t]["us-east-1"])) for t in jobs.instance_types)
    assert jobs.bound == "upper" and jobs.price.usd_per_hour == dearest
    assert jobs.usd_per_hour("min") == 0 and jobs.usd_per_hour("max") == 10 * dearest
    # the floor: no pool node; the control plane, the static initial group, the network and their storage
    assert all(x.usd_per_hour("min") == 0 for x in cost.lines if x.kind == "node pool")
    assert cost.idle_floor.usd_per_hour == sum(x.usd_per_hour("min") for x in cost.lines)


def test_while_migrating_the_retained_node_groups_are_priced_next_to_the_pools():
    migrating = stack_cost("dev", provisioner="karpenter", karpenter={"keepNodeGroups": True})
    kinds = {x.label for x in migrating.lines if x.unit == "node"}
    # No autoscaler runs next to the pools: the kept groups hold the nodes they had; the initial one is static.
    assert {"node group (kept, not autoscaled) jobs", "node pool jobs", "node group initial"} <= kinds
    assert "node group jobs" not in kinds
    assert migrating.idle_floor.usd_per_month >= stack_cost("dev").idle_floor.usd_per_month


def test_standard_on_a_minor_already_in_extended_support_says_eks_will_not_switch_it():
    """disable-extended-support.adoc: a cluster in extended support cannot be switched to STANDARD."""
    from mlplatform_core.model.cost.extended_support import upgrade_policy_view
    from tests.conftest import stack_config

    day = datetime.date(2026, 11, 26)
    old = parse({**stack_config("dev"), "ml-platform-eks:kubernetesVersion": "1.32"})
    assert eks_versions.calendar()["1.32"].end_of_standard_support < day
    view = upgrade_policy_view(old, day)
    assert view["supportType"] == "STANDARD" and "does not let a cluster in extended support switch" in view["note"]
    assert "to 1.34 or set upgradePolicy.supportType: EXTENDED" in view["note"]  # 1.33 is in extended support too
    current = upgrade_policy_view(parse(stack_config("dev")), day)  # 1.35: in standard support that day
    assert "does not let" not in current["note"]
