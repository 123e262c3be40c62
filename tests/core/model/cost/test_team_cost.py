"""Cost per team (model/cost/teams.py): the quota-based ceiling and the share of the idle nodes, from the same
estimate lines as the stack's cost, under the key the bill uses."""

from __future__ import annotations

import datetime
from fractions import Fraction

from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.cost import HOURS_PER_MONTH, estimate
from mlplatform_core.model.cost.teams import team_costs
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"
NS = "ml-platform-eks:"
ON = datetime.date(2026, 9, 1)


def costs(raw: dict | None = None):
    raw = raw or read_stack_file(EXAMPLE)
    v = validate_stack(raw, "teams")
    cost = estimate(v.config, v.layout, on=ON)
    return {c.team: c for c in team_costs(v.teams, cost)}, {line.name: line for line in cost.groups}


def test_every_team_has_a_cost_under_the_bills_key():
    found, _ = costs()
    assert list(found) == ["vision", "nlp", "analytics"]
    for name, c in found.items():
        assert c.cost_key == ("mlplatform.io/team", name)
        assert c.ceiling_usd_per_month is not None and c.ceiling_usd_per_month > 0


def test_a_quota_bounded_by_borrowing_limits_pays_its_share_of_the_group_at_max_size():
    raw = read_stack_file(EXAMPLE)
    teams = raw[NS + "teams"]
    # nlp: 3 of the 6 GPUs and half the cpu/memory, borrowing nothing: half of the gpu group at max size.
    teams["nlp"]["quotas"]["gpu"] = {
        "gpu": {"nominal": 3, "borrowingLimit": 0},
        "cpu": {"nominal": 21, "borrowingLimit": 0},
        "memory": {"nominal": "84Gi", "borrowingLimit": 0},
    }
    found, lines = costs(raw)
    (gpu,) = found["nlp"].flavors
    assert gpu.share_of_max == Fraction(1, 2)
    assert gpu.ceiling_usd_per_hour == lines["gpu"].usd_per_hour("max") / 2
    assert found["nlp"].ceiling_usd_per_month == gpu.ceiling_usd_per_hour * HOURS_PER_MONTH


def test_the_idle_floor_is_shared_by_nominal_quota_and_zero_when_the_group_scales_to_zero():
    found, lines = costs()
    # gpu and spot scale to zero; jobs keeps 1 node, shared 14 : 42 cpu between vision and analytics.
    assert all(f.floor_usd_per_hour == 0 for c in found.values() for f in c.flavors if f.flavor in ("gpu", "spot"))
    jobs_floor = lines["jobs"].usd_per_hour("min")
    vision = next(f for f in found["vision"].flavors if f.flavor == "jobs")
    analytics = next(f for f in found["analytics"].flavors if f.flavor == "jobs")
    assert (vision.nominal_share, analytics.nominal_share) == (Fraction(1, 4), Fraction(3, 4))
    assert vision.floor_usd_per_hour + analytics.floor_usd_per_hour == jobs_floor


def test_spot_is_an_upper_bound():
    found, _ = costs()
    spot = next(f for f in found["analytics"].flavors if f.flavor == "spot")
    assert spot.bound == "upper"
