"""The GPU capacity preflight: the EC2 instance quotas each GPU and spot group reaches at max size, summed per quota,
against the generated defaults or the values under quotas.ec2 (issue 32: a dev stack with a p5.48xlarge group of
max 4 needs 768 On-Demand P vCPUs, over the default)."""

from __future__ import annotations

import pytest

from mlplatform_core.model import ec2_quotas
from mlplatform_core.model.capacity_quotas import capacity_needs, capacity_warnings
from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.instances import catalog
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config

P = "ml-platform-eks:"
P_ON_DEMAND, P5_SPOT, G_ON_DEMAND, STANDARD_SPOT = "L-417A185B", "L-C4BD4855", "L-DB2E81BA", "L-34B43A08"
P5_BLOCKS = "L-DA6814F2"


def needs(stack: str = "dev", groups: list[dict] | None = None, ec2: dict | None = None):
    raw = stack_config(stack)
    if groups:
        raw[P + "additionalNodeGroups"] = groups
    if ec2 is not None:
        raw[P + "quotas"] = {"ec2": ec2}
    cfg = parse(raw)
    found = capacity_needs(build_layout(cfg, stack), cfg.quotas.ec2)
    return {n.quota.code: n for n in found}, capacity_warnings(found, cfg.region)


TRAIN = {"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "maxSize": 4}


def test_a_p5_group_of_max_4_needs_768_on_demand_p_vcpus_over_the_default():
    found, warnings = needs(groups=[TRAIN])
    p = found[P_ON_DEMAND]
    assert (p.needed, p.applied, p.assumed, p.over) == (768, 0, "AWS default", True)
    (warning,) = [w for w in warnings if P_ON_DEMAND in w]
    assert '768 vCPUs of the EC2 quota "Running On-Demand P instances" (L-417A185B)' in warning
    assert "train (4 x p5.48xlarge = 768)" in warning and "over the AWS default 0" in warning
    assert (
        "aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-417A185B "
        "--desired-value 768 --region us-east-1" in warning
    )
    assert "quotas.ec2.L-417A185B: 768" in warning


def test_groups_of_one_quota_add_up_and_the_largest_type_counts():
    second = {"name": "infer", "gpu": True, "instanceTypes": ["p4d.24xlarge"], "maxSize": 2}
    found, _ = needs(groups=[TRAIN, second])
    assert found[P_ON_DEMAND].needed == 4 * 192 + 2 * 96
    assert {r.source for r in found[P_ON_DEMAND].reaches} == {"train", "infer"}


def test_spot_groups_count_against_the_spot_quotas_not_the_on_demand_ones():
    spot_p5 = {**TRAIN, "capacityType": "SPOT"}
    found, warnings = needs(groups=[spot_p5])
    assert P_ON_DEMAND not in found
    assert found[P5_SPOT].needed == 768 and found[P5_SPOT].quota.name == "All P5 Spot Instance Requests"
    # the shipped dev stack's CPU spot group (10 x m5.2xlarge) is a spot group too: Standard Spot requests
    assert found[STANDARD_SPOT].needed == 80 and found[STANDARD_SPOT].applied == 5
    assert any(P5_SPOT in w for w in warnings) and any(STANDARD_SPOT in w for w in warnings)


def test_on_demand_cpu_groups_are_not_counted():
    found, _ = needs()
    assert "L-1216C47A" not in found  # jupyter, jobs and the initial group are On-Demand CPU groups
    assert found[G_ON_DEMAND].needed == 16  # the dev GPU group: 4 x g5.xlarge


def test_a_raised_value_in_quotas_silences_the_warning():
    found, warnings = needs(groups=[TRAIN], ec2={P_ON_DEMAND: 768})
    p = found[P_ON_DEMAND]
    assert (p.applied, p.assumed, p.over) == (768, "quotas.ec2", False)
    assert not any(P_ON_DEMAND in w for w in warnings)
    found, warnings = needs(groups=[TRAIN], ec2={P_ON_DEMAND: 384})  # raised, still short: named as raised
    (warning,) = [w for w in warnings if P_ON_DEMAND in w]
    assert "over the raised value 384 in quotas.ec2.L-417A185B" in warning


def test_a_live_value_wins_over_the_raised_one():
    raw = stack_config("dev")
    raw[P + "additionalNodeGroups"] = [TRAIN]
    raw[P + "quotas"] = {"ec2": {P_ON_DEMAND: 0}}
    cfg = parse(raw)
    found = capacity_needs(build_layout(cfg, "dev"), cfg.quotas.ec2, {P_ON_DEMAND: 1536})
    (p,) = [n for n in found if n.quota.code == P_ON_DEMAND]
    assert (p.applied, p.assumed, p.over) == (1536, "live", False)


def test_an_unknown_quota_code_is_refused_with_the_valid_ones():
    raw = stack_config("dev")
    raw[P + "quotas"] = {"ec2": {"L-417A185C": 768}}
    with pytest.raises(ConfigError) as info:
        parse(raw)
    text = str(info.value)
    assert "quotas.ec2" in text and "L-417A185C is not an EC2 instance quota code" in text
    assert "did you mean L-417A185B, Running On-Demand P instances?" in text
    assert "L-DB2E81BA Running On-Demand G and VT instances" in text


def test_a_karpenter_pool_counts_at_its_node_limit():
    found, _ = needs("dev-karpenter", groups=[TRAIN])
    (reach,) = found[P_ON_DEMAND].reaches
    assert (reach.source, reach.kind, reach.nodes, reach.amount) == ("train", "node pool", 4, 768)


def test_a_capacity_block_counts_against_its_family_block_quota_not_on_demand_vcpus():
    block = {
        **TRAIN,
        "availabilityZone": "us-east-1b",
        "capacityReservation": {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2},
    }
    block.pop("maxSize")
    found, warnings = needs(groups=[block])
    assert P_ON_DEMAND not in found
    b = found[P5_BLOCKS]
    assert b.quota.name == "Concurrent P5 Capacity Blocks per account" and b.needed == 1
    assert (b.reaches[0].nodes, b.reaches[0].instance_type) == (2, "p5.48xlarge")
    assert b.applied is None and not b.over and not any(P5_BLOCKS in w for w in warnings)  # no default in the data


def test_every_accelerated_family_in_the_catalog_has_an_on_demand_quota():
    """A GPU or accelerator type the preflight could not count would pass unwarned."""
    missing = sorted(
        {
            t.family
            for t in catalog().values()
            if t.accelerated and ec2_quotas.quota_for(t.name, ec2_quotas.ON_DEMAND) is None
        }
    )
    assert missing == []


def test_the_data_holds_the_issue_s_quotas_with_aws_s_names():
    q = ec2_quotas.quotas()
    assert q["L-417A185B"].name == "Running On-Demand P instances" and "p5" in q["L-417A185B"].families
    assert q["L-DB2E81BA"].name == "Running On-Demand G and VT instances" and "vt1" in q["L-DB2E81BA"].families
    assert q["L-1945791B"].name == "Running On-Demand Inf instances" and "inf2" in q["L-1945791B"].families
    assert q["L-2C3B7624"].name == "Running On-Demand Trn instances" and "trn2" in q["L-2C3B7624"].families
    # AWS's own CLI example: the Standard quota's default is 5 vCPUs; the generator refuses data that disagrees
    assert q["L-1216C47A"].default == 5 and "m5" in q["L-1216C47A"].families and "inf2" not in q["L-1216C47A"].families
    assert q["L-7212CCBC"].families == ("p2", "p3", "p3dn", "p4d", "p4de")
