"""The stack's settings travel from the file to the programs through validation once per `plan`, and the
charts' proof runs once, in the plan's proofs; the program run on its own (as `pulumi up` runs it) still
validates and proves the settings itself."""

from __future__ import annotations

import pulumi
import pytest

import mlplatform.plan
from mlplatform.engine import run_stack
from mlplatform_core.model import validation
from tests.conftest import stack_config
from tests.core.model.addons.test_chart_proof import regression_facts


def _count(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_plan_validates_the_stack_and_proves_its_charts_once(monkeypatch, capsys):
    from mlplatform.cli import main

    # split_keys is validate_stack's first step, whichever module imported validate_stack by name.
    validations = _count(monkeypatch, validation, "split_keys")
    proofs = _count(monkeypatch, validation, "prove")
    proofs_by_plan = _count(monkeypatch, mlplatform.plan, "prove")
    # prod deploys its Kubernetes layer separately: two programs ran, and each read the plan's validation.
    assert main(["plan", "prod", "--json"]) == 0
    assert '"kubernetes-layer"' in capsys.readouterr().out
    assert validations == [1]
    assert proofs[0] + proofs_by_plan[0] == 1


def test_the_program_run_on_its_own_refuses_charts_that_do_not_prove(monkeypatch):
    regression_facts(monkeypatch, "cluster-autoscaler", "9.50.0", "1.35")
    with pytest.raises(pulumi.RunError, match=r"kubernetesVersion[\s\S]*resource\.k8s\.io/deviceclasses"):
        run_stack("prod", stack_config("prod"))


def test_a_validated_stack_is_read_only_by_the_run_of_that_stack():
    valid = validation.validate_stack(stack_config("dev"), "dev")
    raw = stack_config("dev")
    raw["ml-platform-eks:nodeGroups"]["jobs"]["minSize"] = 50
    with validation.validated("prod", valid), pytest.raises(pulumi.RunError, match=r"nodeGroups\.jobs\.minSize"):
        run_stack("dev", raw)
    assert validation.validated_for("dev") is None  # and nothing is left over once the run ends
    with validation.validated("dev", valid):
        assert validation.validated_for("dev") is valid
    assert validation.validated_for("dev") is None
