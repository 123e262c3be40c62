"""Reading PodSpecs: malformed fields name their path; what the API server's validation rejects is `invalid`."""

from __future__ import annotations

import pytest

from mlplatform_core.placement.pods import Pod, PodSpecError
from tests.core.placement.conftest import container, expr, pod, required

# --- reading PodSpecs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, path",
    [
        ({"containers": []}, "spec.containers"),
        ({}, "spec"),
        ({"containers": "c"}, "spec.containers"),
        ({"containers": [container()], "nodeSelector": ["a"]}, "spec.nodeSelector"),
        ({"containers": [container()], "nodeSelector": {"gpu": True}}, "spec.nodeSelector.gpu"),
        ({"containers": [container(requests={"cpu": "lots"})]}, "spec.containers[0].resources.requests.cpu"),
        ({"containers": [container(requests={"memory": "-1Gi"})]}, "spec.containers[0].resources.requests.memory"),
        ({"containers": [container()], "tolerations": {"key": "a"}}, "spec.tolerations"),
        (
            {"containers": [container()], "affinity": required({"matchExpressions": [expr("a", "Gt", 3)]})},
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0].values[0]",
        ),
    ],
)
def test_malformed_specs_name_the_field(spec, path):
    with pytest.raises(PodSpecError) as exc:
        Pod.from_spec(spec)
    assert exc.value.path == path


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ({"tolerations": [{"operator": "Equal", "value": "x"}]}, "empty key needs operator Exists"),
        ({"tolerations": [{"key": "a", "operator": "Exists", "value": "x"}]}, "value must be empty"),
        ({"tolerations": [{"key": "a", "effect": "NoScheduled"}]}, "is not one of"),
        ({"tolerations": [{"key": "a", "operator": "In"}]}, "'In' is not one of Equal, Exists"),
        ({"tolerations": [{"key": "a b", "operator": "Exists"}]}, ".key: 'a b'"),
        ({"tolerations": [{"key": "a", "value": "x y"}]}, ".value: 'x y'"),
        ({"tolerations": [{"key": "a", "operator": "Exists", "tolerationSeconds": 5}]}, "NoExecute when"),
        ({"affinity": required({"matchExpressions": [expr("a", "In")]})}, "values: must be given when operator is In"),
        ({"affinity": required({"matchExpressions": [expr("a", "Gt", "1", "2")]})}, "Gt takes exactly one integer"),
        ({"affinity": required({"matchExpressions": [expr("", "Exists")]})}, ".key: ''"),
        ({"affinity": required()}, "must have at least one node selector term"),
    ],
)
def test_specs_the_api_server_validation_refuses_are_invalid(spec, fragment):
    p = pod(**spec)
    assert any(fragment in w for w in p.invalid), p.invalid
