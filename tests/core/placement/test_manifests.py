"""Pod specs out of manifests: every workload kind, and unusable input named by document and kind."""

from __future__ import annotations

import pytest

from mlplatform_core.placement.manifests import ManifestError, read_manifests, read_pods
from tests.conftest import MANIFEST_DATA as DATA
from tests.conftest import MANIFEST_EXAMPLES as EXAMPLES

# --- reading manifests ---------------------------------------------------------------------------


def test_every_workload_kind_yields_its_pod_spec():
    pods = read_manifests((DATA / "mixed-kinds.yaml").read_text())
    assert [(p.name, p.kind, p.document) for p in pods] == [
        ("DaemonSet/node-exporter", "DaemonSet", 1),
        ("ReplicaSet/legacy", "ReplicaSet", 2),
        ("Pod/worker-", "Pod", 2),
        ("podspec-4", "PodSpec", 4),
    ]


def test_examples_cover_pod_deployment_statefulset_job_cronjob_and_bare_specs():
    kinds = {m.kind for f in EXAMPLES.glob("*.yaml") for m in read_manifests(f.read_text())}
    assert {"Pod", "Deployment", "StatefulSet", "Job", "CronJob", "PodSpec"} <= kinds


@pytest.mark.parametrize(
    "text, fragment",
    [
        ((DATA / "not-yaml.yaml").read_text(), "is not valid YAML at line"),
        (
            (DATA / "bad-quantity.yaml").read_text(),
            "document 1 (Job): Job/greedy: spec.containers[0].resources.requests.memory: '4GB' is not a quantity",
        ),
        (
            "kind: Deployment\nmetadata: {name: x}\nspec: {replicas: 1}\n",
            "document 1 (Deployment): has no spec.template; a Deployment keeps its PodSpec at spec.template.spec",
        ),
        ("- a\n- b\n", "document 1: must be a mapping"),
        ("metadata: {name: x}\n", "document 1: has no 'kind' and no 'containers'"),
        ("", "no pod specs found"),
        ("---\n---\n", "no pod specs found"),
        ("kind: List\nitems: {}\n", "document 1 (List): a List needs an 'items' list"),
        ("kind: Service\n---\nkind: ConfigMap\n", "no pod specs found (only ConfigMap, Service)"),
        (
            "kind: List\nitems:\n- {kind: Service}\n- {kind: Deployment, metadata: {name: x}, spec: {}}\n",
            "document 1 items[1] (Deployment): has no spec.template",
        ),
        (
            "kind: List\nitems:\n- {kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, resources: "
            "{requests: {cpu: lots}}}]}}\n",
            "document 1 items[0] (Pod): Pod/p: spec.containers[0].resources.requests.cpu",
        ),
        ("kind: List\nitems: [a]\n", "items[0] must be a mapping"),
    ],
)
def test_unusable_input_names_the_document_and_kind(text, fragment):
    with pytest.raises(ManifestError) as exc:
        read_pods(text)
    assert fragment in str(exc.value)


def test_the_fast_loader_builds_what_safe_load_builds():
    import yaml

    from mlplatform_core.placement.manifest_yaml import ManifestLoader as _ManifestLoader

    text = """
base: &base {cpu: 500m, memory: 1Gi, n: 3, f: 0.5, on: yes, none: ~, when: 2024-01-01}
spec:
  <<: *base
  memory: 2Gi
  list: [*base, *base, "010", 010, 0x1F, .inf, !!str 5, !!binary aGk=]
  nested: {a: [1, [2, [3]]], "quoted key": true}
---
- plain
---
"""
    assert list(yaml.load_all(text, Loader=_ManifestLoader)) == list(yaml.safe_load_all(text))
    shared = next(yaml.load_all(text, Loader=_ManifestLoader))["spec"]["list"]
    assert shared[0] is shared[1]  # aliases stay shared objects (an alias bomb stays small)
    with pytest.raises(yaml.YAMLError):
        list(yaml.load_all("a: !Ref x\n", Loader=_ManifestLoader))
    with pytest.raises(yaml.YAMLError):
        list(yaml.load_all("? [a]\n: 1\n", Loader=_ManifestLoader))
