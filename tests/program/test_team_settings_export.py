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
