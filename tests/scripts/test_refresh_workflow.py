"""The scheduled refresh of the upstream data: a workflow GitHub accepts (its trigger, a weekly cron, permissions
to push a branch and open a pull request) that regenerates with --fetch, runs the tests on the result and opens
the pull request after both."""

from __future__ import annotations

import re

import yaml

from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "refresh-upstream.yml"


def _workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the bare key `on` as true
    return doc


def test_it_runs_weekly_and_on_demand():
    on = _workflow()["on"]
    assert set(on) == {"schedule", "workflow_dispatch"}
    (cron,) = [entry["cron"] for entry in on["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert re.fullmatch(r"\d+", minute) and re.fullmatch(r"\d+", hour)
    assert (day, month) == ("*", "*") and re.fullmatch(r"[0-6]", weekday)  # one day a week


def test_it_may_push_a_branch_and_open_a_pull_request_and_nothing_more():
    assert _workflow()["permissions"] == {"contents": "write", "pull-requests": "write"}


def test_it_refreshes_with_fetch_then_tests_then_opens_the_pull_request():
    (job,) = _workflow()["jobs"].values()
    steps = job["steps"]
    assert all(("uses" in s) != ("run" in s) for s in steps)  # each step one action or one command
    runs = [s.get("run", "") for s in steps]
    uses = [s.get("uses", "") for s in steps]
    generate = next(i for i, r in enumerate(runs) if re.search(r"\bmake generate\b.*\bFETCH=1\b", r))
    tests = next(i for i, r in enumerate(runs) if re.fullmatch(r"make test\s*", r))
    opens = next(i for i, u in enumerate(uses) if u.startswith("peter-evans/create-pull-request@v"))
    assert uses[0].startswith("actions/checkout@") and generate < tests < opens
    assert steps[tests]["id"] in steps[opens]["with"]["draft"]  # a failed test shows on the pull request
    assert steps[tests].get("continue-on-error") is True
    assert steps[opens]["with"]["branch"] and steps[opens]["with"]["title"]


def test_the_make_targets_it_runs_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
    runs = " ".join(s.get("run", "") for job in _workflow()["jobs"].values() for s in job["steps"])
    assert set(re.findall(r"\bmake ([\w-]+)", runs)) <= targets
