"""`place` refuses the values the API server's validation refuses in the fields the placement proof reads (the
OpenAPI schema has no enums for them), as bad input: every problem of every document at once, exit 2."""

from __future__ import annotations

import pytest

from mlplatform_core.placement.validation import pod_spec_problems
from tests.core.placement.test_schema import problems, read

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: serve, namespace: mlrun}}
spec:
  selector: {{matchLabels: {{app: serve}}}}
  template:
    metadata: {{labels: {{app: serve}}}}
    spec:
      containers: [{{name: main, image: nginx, resources: {{requests: {{cpu: 500m}}, limits: {{cpu: "1"}}}}}}]
      {field}
"""
AT = "document 1 (Deployment/serve): spec.template.spec."
TERM = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"


def _affinity(*expressions: str) -> str:
    return (
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        f"{{nodeSelectorTerms: [{{matchExpressions: [{', '.join(expressions)}]}}]}}}}}}"
    )


@pytest.mark.parametrize(
    "field, expected",
    [
        (
            "tolerations: [{key: gpu, operator: Exists, effect: NoSchedul}]",
            "tolerations[0].effect: 'NoSchedul' is not one of NoSchedule, PreferNoSchedule, NoExecute, "
            "empty: every effect; did you mean NoSchedule?",
        ),
        (
            "tolerations: [{key: gpu, operator: Equals, value: 'true'}]",
            "tolerations[0].operator: 'Equals' is not one of Equal, Exists; did you mean Equal?",
        ),
        (
            "tolerations: [{key: gpu, operator: Exists, value: 'true'}]",
            "tolerations[0].value: 'true': value must be empty when operator is Exists",
        ),
        (
            "tolerations: [{operator: Equal, value: x}]",
            'tolerations[0].operator: an empty key needs operator Exists, which means "match all values and all keys"',
        ),
        (
            "tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]",
            "tolerations[0].effect: must be NoExecute when tolerationSeconds is set",
        ),
        (
            _affinity("{key: zone, operator: in, values: [a]}"),
            f"{TERM}.matchExpressions[0].operator: 'in' is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt; "
            "did you mean In?",
        ),
        (
            _affinity("{key: zone, operator: NotIn}"),
            f"{TERM}.matchExpressions[0].values: must be given when operator is NotIn",
        ),
        (
            _affinity("{key: zone, operator: Exists, values: [a]}"),
            f'{TERM}.matchExpressions[0].values: ["a"]: must be empty when operator is Exists',
        ),
        (
            _affinity("{key: cores, operator: Gt, values: ['1', '2']}"),
            f'{TERM}.matchExpressions[0].values: ["1", "2"]: operator Gt takes exactly one integer',
        ),
        (
            "topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedul}]",
            "topologySpreadConstraints[0].whenUnsatisfiable: 'DoNotSchedul' is not one of DoNotSchedule, "
            "ScheduleAnyway; did you mean DoNotSchedule?",
        ),
        (
            "topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]",
            "topologySpreadConstraints[0].maxSkew: 0 must be greater than zero",
        ),
        ("restartPolicy: Sometimes", "restartPolicy: 'Sometimes' is not one of Always"),
        ("restartPolicy: Never", "restartPolicy: 'Never': a Deployment's pods use Always"),
        (
            "priorityClassName: Igz_Workload",
            "priorityClassName: 'Igz_Workload' must be a lowercase RFC 1123 subdomain of at most 253 characters",
        ),
        ("nodeSelector: {role: 'gpu nodes'}", "nodeSelector.role: 'gpu nodes' is not a valid label value"),
        ("nodeSelector: {'r\u043ele': gpu}", "nodeSelector.r\\u043ele: the key is not a valid label key"),
        (
            "initContainers: [{name: side, image: x, restartPolicy: Never}]",
            "initContainers[0].restartPolicy: 'Never' is not one of Always (a sidecar)",
        ),
    ],
)
def test_a_value_the_api_server_refuses_is_bad_input_with_its_path(field, expected):
    found = problems(DEPLOYMENT.format(field=field))
    assert len(found) == 1 and found[0].startswith(AT + expected), found


def test_resources_of_a_template_are_validated_as_written():
    text = DEPLOYMENT.format(field="").replace("cpu: 500m", "cpu: '2', memory: 1Gx, nvidia.com/gpu: 1")
    assert problems(text) == [
        f"{AT}containers[0].resources.requests.memory: '1Gx' is not a quantity such as 500m, 2 or 4Gi",
        f"{AT}containers[0].resources.requests: 2 must be less than or equal to cpu limit 1",
        f"{AT}containers[0].resources.limits: nvidia.com/gpu: Limit must be set for non overcommitable resources",
    ]


def test_a_pods_limits_are_judged_after_its_limit_range_only_bad_quantities_before():
    # A LimitRange default can give a Pod the GPU limit it lacks (admission.py judges that), never mend '1Gx'.
    spec = {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": 1, "memory": "1Gx"}}}]}
    assert [str(p) for p in pod_spec_problems(spec, "Pod")] == [
        "containers[0].resources.requests.memory: '1Gx' is not a quantity such as 500m, 2 or 4Gi"
    ]
    assert len(pod_spec_problems(spec, "Deployment")) == 2


def test_a_jobs_pods_never_restart_always():
    job = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      restartPolicy: Always
      containers: [{name: main, image: x}]
"""
    assert problems(job) == [
        "document 1 (Job/train): spec.template.spec.restartPolicy: 'Always': a Job's pods use OnFailure or Never"
    ]
    assert problems(job.replace("      restartPolicy: Always\n", "")) == [
        "document 1 (Job/train): spec.template.spec.restartPolicy: is not set, so the API server defaults it to "
        "Always, which a Job's pods may not use; set OnFailure or Never"
    ]


def test_every_problem_of_every_document_at_once_and_valid_values_pass():
    bad = DEPLOYMENT.format(field="tolerations: [{key: a, operator: Equals, effect: NoSchedul}]")
    found = problems(bad + "---\n" + bad.replace("serve", "other"))
    assert len(found) == 4
    ok = DEPLOYMENT.format(
        field="tolerations: [{key: a, operator: Exists, effect: NoSchedule}, {key: b, value: c}]\n"
        "      topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]\n"
        "      priorityClassName: igz-workload-medium\n      nodeSelector: {role: gpu}\n"
        "      " + _affinity("{key: zone, operator: In, values: [a]}", "{key: n, operator: Gt, values: ['3']}")
    )
    pods, _ = read(ok)
    assert [p.name for p in pods] == ["Deployment/serve"]
