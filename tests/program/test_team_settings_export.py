"""The program exports each team's settings (queue and cost labels) only for a stack with teams."""

from __future__ import annotations

from tests.program.test_teams_program import plan
from tests.runs import shipped_run


def test_the_program_exports_team_settings():
    exported = plan().run.exports["teamSettings"]
    assert list(exported) == ["vision", "nlp", "analytics"]
    assert exported["nlp"]["queueLabel"] == {"kueue.x-k8s.io/queue-name": "nlp"}


def test_no_team_settings_without_teams():
    assert "teamSettings" not in shipped_run("dev").exports


def test_the_plans_teams_section_prices_each_team():
    from mlplatform.reports.plan_document import plan_document

    doc = plan_document(plan())
    cost = {t["name"]: t["cost"] for t in doc["teams"]["teams"]}
    assert list(cost) == ["vision", "nlp", "analytics"]
    for name, c in cost.items():
        assert c["costKey"] == {"mlplatform.io/team": name} and c["ceilingUsdPerMonth"] > 0
    # analytics keeps a share of the jobs group's one idle node; nlp's gpu group scales to zero.
    assert cost["analytics"]["idleFloorUsdPerMonth"] > 0 and cost["nlp"]["idleFloorUsdPerMonth"] == 0
    assert cost["analytics"]["upperBound"]  # its spot flavor is priced on demand
