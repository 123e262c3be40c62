"""`place` reads what the API server would accept: every object against the OpenAPI schema of the stack's
Kubernetes minor (kubectl apply validates fields strictly since 1.27), all problems of all documents at once."""

from __future__ import annotations

import copy
from functools import cache

import jsonschema
import pytest
import yaml

from mlplatform_core.placement.manifests import ManifestError, ManifestStream, SchemaError
from mlplatform_core.placement.schema import (
    KubernetesSchema,
    _lean_definitions,
    _lean_schema,
    _schema_file,
    _valid,
    _validator,
    custom_group,
    pick_minor,
    shipped_minors,
)
from tests.conftest import ROOT, stack_config

EXAMPLES = sorted((ROOT / "examples" / "manifests").glob("*.yaml"))

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: mlrun}
spec:
  template:
    spec:
      restartPolicy: Never
      SELECTOR: {node.kubernetes.io/instance-type: g5.xlarge}
      containers: [{name: main, image: mlrun/mlrun, resources: {limits: {nvidia.com/gpu: 1}}}]
"""


@cache
def schema(version: str = "1.35") -> KubernetesSchema:
    return KubernetesSchema.for_version(version)


def problems(text: str, version: str = "1.35") -> list[str]:
    stream = ManifestStream(text, schema(version))
    with pytest.raises(SchemaError) as err:
        list(stream)
    return err.value.problems


def read(text: str, version: str = "1.35") -> tuple[list, ManifestStream]:
    stream = ManifestStream(text, schema(version))
    return list(stream), stream


def test_a_misspelt_field_is_refused_with_its_path_and_a_did_you_mean():
    assert problems(JOB.replace("SELECTOR", "nodeSelectr")) == [
        "document 1 (Job/train): spec.template.spec.nodeSelectr: unknown field (did you mean nodeSelector?)"
    ]


def test_a_look_alike_character_is_shown_escaped():
    # a Cyrillic o (U+043E) in nodeSelector: it looks right, and kubectl apply refuses it
    [problem] = problems(JOB.replace("SELECTOR", "nodeSelect\u043er"))
    assert problem == (
        "document 1 (Job/train): spec.template.spec.nodeSelect\\u043er: unknown field (it contains the non-ASCII "
        "character(s) \\u043e; did you mean nodeSelector?)"
    )


def test_wrong_types_name_the_value_as_written():
    text = JOB.replace("SELECTOR", "nodeSelector").replace("nvidia.com/gpu: 1", "cpu: true")
    text = text.replace("spec:\n  template:", 'spec:\n  parallelism: "2"\n  template:')
    assert problems(text) == [
        "document 1 (Job/train): spec.parallelism: expected an integer, but '2' is text (quoted)",
        "document 1 (Job/train): spec.template.spec.containers[0].resources.limits.cpu: expected a quantity "
        "(a string such as 500m or 2Gi, or a number), but true is a boolean",
    ]


def test_every_problem_of_every_document_is_reported_at_once():
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, imagee: x}], nodeName: 3}\n"
    svc = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {portz: [{port: 80}]}\n"
    valid = JOB.replace("SELECTOR", "nodeSelector")
    text = "---\n".join([JOB.replace("SELECTOR", "nodeSelectr"), valid, pod, svc, "containers: [{image: x}]\n"])
    assert problems(text) == [
        "document 1 (Job/train): spec.template.spec.nodeSelectr: unknown field (did you mean nodeSelector?)",
        "document 3 (Pod/p): spec.containers[0].imagee: unknown field (did you mean image?)",
        "document 3 (Pod/p): spec.nodeName: expected a string, but 3 is a whole number",
        "document 4 (Service/s): spec.portz: unknown field (did you mean ports?)",
        "document 5 (PodSpec): containers[0].name: required field is missing",
    ]


def test_an_empty_quantity_or_int_or_string_is_taken_as_the_api_server_takes_it():
    text = JOB.replace("SELECTOR", "nodeSelector").replace("nvidia.com/gpu: 1", "cpu: null, memory: ~")
    text = text.replace("spec:\n  template:", "spec:\n  backoffLimit: null\n  template:")
    assert [p.name for p in read(text)[0]] == ["Job/train"]
    assert problems(text.replace("backoffLimit: null", "backoffLimit: []")) == [
        "document 1 (Job/train): spec.backoffLimit: expected an integer, but [] is a list"
    ]


def test_list_items_are_checked_one_by_one():
    text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c}], tolerations: [{key: k, efect: NoSchedule}]}}\n"  # noqa: E501
    assert problems(text) == [
        "document 1 items[0] (Pod/a): spec.tolerations[0].efect: unknown field (did you mean effect?)"
    ]


def test_an_apiversion_the_minor_does_not_serve_or_none_is_refused():
    old = "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n"
    bare = "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
    assert problems(old + "---\n" + bare) == [
        "document 1 (Deployment/d): apiVersion: Kubernetes 1.35 serves no Deployment at 'extensions/v1beta1' "
        "(kubectl: no matches for kind); use apps/v1",
        "document 2 (Pod/p): apiVersion: is not set (kubectl apply refuses the object); a Pod is v1",
    ]


def test_custom_resources_are_skipped_with_a_note_and_never_placed():
    volcano = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: v}\nspec: {tasks: []}\n"
    nuclio = "apiVersion: nuclio.io/v1beta1\nkind: NuclioFunction\nmetadata: {name: f}\nspec: {anything: 1}\n"
    pods, stream = read("---\n".join([volcano, nuclio, JOB.replace("SELECTOR", "nodeSelector")]))
    assert [p.name for p in pods] == ["Job/train"]
    assert stream.notes == [
        "skipped custom resources (no pods place reads; their fields are not checked: their schema is in their "
        "CustomResourceDefinition): Job (1), NuclioFunction (1)"
    ]


def test_a_valid_manifest_reads_as_it_did_without_the_check():
    text = JOB.replace("SELECTOR", "nodeSelector")
    checked, stream = read(text)
    assert checked == list(ManifestStream(text)) and stream.notes == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_shipped_example_manifests_are_valid_for_every_shipped_stack(path):
    text = path.read_text()
    for stack in ("dev", "dev-karpenter", "prod"):
        version = stack_config(stack).get("ml-platform-eks:kubernetesVersion", "1.35")
        pods, _ = read(text, version)
        assert pods == list(ManifestStream(text))


def test_the_schema_is_the_stack_minor_else_the_closest_older_said_in_a_note():
    shipped = [(1, 30), (1, 31), (1, 33)]
    assert pick_minor("1.31", shipped) == ((1, 31), None)
    assert pick_minor("1.32", shipped) == (
        (1, 31),
        "fields were checked against the Kubernetes 1.31 schema: kubernetes-validate ships none for 1.32, 1.31 "
        "is the closest it ships that is not newer",
    )
    assert pick_minor("1.40", shipped)[0] == (1, 33)
    picked, note = pick_minor("1.29", shipped)
    assert picked == (1, 30) and "1.30 is the oldest it ships" in note


def test_the_fallback_note_is_among_the_notes():
    newest = shipped_minors()[-1]
    later = KubernetesSchema.for_version(f"{newest[0]}.{newest[1] + 1}")
    stream = ManifestStream(JOB.replace("SELECTOR", "nodeSelector"), later)
    list(stream)
    assert later.minor == newest and stream.notes == [later.note]


# --- the direct walk agrees with jsonschema (pinned: a kubernetes-validate bump cannot silently change it) --


def _lean_keywords(node, found: set[str]) -> None:
    if isinstance(node, dict):
        for key, rule in node.items():
            found.add(key)
            if key in ("properties", "$defs"):
                for sub in rule.values():
                    _lean_keywords(sub, found)
            elif key in ("additionalProperties", "items"):
                _lean_keywords(rule, found)
            elif key == "oneOf":
                for sub in rule:
                    _lean_keywords(sub, found)


def test_the_schemas_use_only_keywords_the_direct_walk_evaluates():
    found: set[str] = set()
    _lean_keywords({"$defs": dict(_lean_definitions((1, 35)))}, found)
    assert found <= {
        "$defs",
        "$ref",
        "type",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "items",
        "oneOf",
    }


def _paths(node, at=()):
    yield at
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*at, key))


def _mutations(obj):
    """The object itself, then with one change at every place in it: each value made a boolean, a whole number,
    a decimal, text, a list, null or dropped, and an unknown key in every mapping."""
    yield obj
    for at in list(_paths(obj)):
        for change in (True, 7, 2.5, "text", [], None, "drop", "unknown"):
            copied = copy.deepcopy(obj)
            parent = copied
            for key in at[:-1]:
                parent = parent[key]
            node = parent[at[-1]] if at else copied
            if change == "unknown":
                if isinstance(node, dict):
                    node["nodeSelectr"] = {}
                    yield copied
            elif not at:
                continue
            elif change == "drop":
                if isinstance(parent, dict):
                    del parent[at[-1]]
                    yield copied
            else:
                parent[at[-1]] = change
                yield copied


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_direct_walk_says_valid_exactly_when_jsonschema_finds_nothing(path):
    definitions = _lean_definitions((1, 35))
    for obj in yaml.safe_load_all(path.read_text()):
        if not obj or custom_group(obj.get("apiVersion", "")):  # an operator's kind: no built-in schema
            continue
        file = _schema_file(obj["kind"], obj["apiVersion"]) if "kind" in obj else "podspec-v1.json"  # bare PodSpec
        validator: jsonschema.Validator = _validator((1, 35), file)
        for changed in _mutations(obj):
            assert _valid(_lean_schema((1, 35), file), changed, definitions) == (
                next(validator.iter_errors(changed), None) is None
            ), changed


def test_a_key_set_twice_is_refused_as_kubectl_refuses_it():
    text = JOB.replace("SELECTOR", "nodeSelector").replace(
        "restartPolicy: Never", "restartPolicy: Never\n      restartPolicy: OnFailure"
    )
    with pytest.raises(ManifestError) as err:
        read(text)
    assert str(err.value) == (
        "document 1: is not valid YAML at line 8, column 7: the key 'restartPolicy' is set twice in one mapping "
        "(kubectl refuses it)"
    )


def test_keys_merged_in_may_be_overridden():
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - &base {name: a, image: x}\n  - {<<: *base, name: b}\n"
    )
    [pod], _ = read(text)
    assert [c["name"] for c in pod.spec["containers"]] == ["a", "b"]
