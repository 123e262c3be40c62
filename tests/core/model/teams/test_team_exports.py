"""The exported team settings (model/ml_settings/teams.py): the queue label each tool sets names the LocalQueue the
stack generates in the team's namespaces, and MLRun's namespace is said when it is no team's."""

from __future__ import annotations

from mlplatform_core.model.config import read_stack_file
from mlplatform_core.model.ml_settings.teams import team_settings
from mlplatform_core.model.teams import QUEUE_LABEL, manifests
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

from .conftest import NS, valid, with_teams

EXAMPLE = ROOT / "examples" / "stacks" / "Pulumi.teams.yaml"


def test_exported_queue_labels_equal_the_generated_local_queues():
    v = validate_stack(read_stack_file(EXAMPLE), "teams")
    settings = team_settings(v.teams, v.workloads)
    queues = {
        (o["metadata"]["namespace"], o["metadata"]["name"]) for o in manifests(v.teams) if o["kind"] == "LocalQueue"
    }
    exported = set()
    for team, s in settings.items():
        for label_set in (s["queueLabel"], s["mlrun"]["functionLabels"], s["polyaxon"]["environment"]["labels"]):
            exported |= {(ns, label_set[QUEUE_LABEL]) for ns in s["namespaces"]}
        assert s["costLabel"] == {"mlplatform.io/team": team}
    assert exported == queues and len(queues) == 3


def test_mlrun_jobs_queue_only_when_mlruns_namespace_is_the_teams():
    v = validate_stack(read_stack_file(EXAMPLE), "teams")
    mlrun = team_settings(v.teams, v.workloads)["vision"]["mlrun"]
    assert not mlrun["queued"] and "namespace mlrun" in mlrun["note"]
    raw = with_teams()
    raw[NS + "teams"]["vision"]["namespaces"] = ["vision", "mlrun"]
    v = valid(raw)
    mlrun = team_settings(v.teams, v.workloads)["vision"]["mlrun"]
    assert mlrun["queued"] and "note" not in mlrun
    assert mlrun["sdk"][0] == "fn.set_label('kueue.x-k8s.io/queue-name', 'vision')"


def test_a_spot_flavor_asks_mlrun_for_the_allow_mode():
    v = validate_stack(read_stack_file(EXAMPLE), "teams")
    mlrun = team_settings(v.teams, v.workloads)["analytics"]["mlrun"]
    assert mlrun["preemptionModeByFlavor"] == {"jobs": "prevent", "spot": "allow"}
    assert mlrun["preemptionMode"] == "allow"


def test_team_namespaces_carry_the_team_key():
    v = validate_stack(read_stack_file(EXAMPLE), "teams")
    from mlplatform_core.model.workloads import manifests as workload_manifests

    labels = {
        o["metadata"]["name"]: o["metadata"]["labels"]
        for o in workload_manifests(v.workloads)
        if o["kind"] == "Namespace"
    }
    assert (
        labels["vision"]["mlplatform.io/team"] == "vision" and labels["analytics"]["mlplatform.io/team"] == "analytics"
    )
    assert "mlplatform.io/team" not in labels["mlrun"]


def test_a_namespace_label_naming_another_team_is_refused():
    raw = with_teams()
    raw[NS + "workloads"]["namespaces"]["vision"] = {"labels": {"mlplatform.io/team": "nlp"}}
    from .conftest import problems

    (msg,) = problems(raw)
    assert "workloads.namespaces.vision.labels" in msg and "names another team than vision" in msg
