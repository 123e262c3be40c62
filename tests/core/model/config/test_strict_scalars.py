"""Stack settings are taken as written: no YAML 1.1 reading, no coercion between types, in every model.

Both ways in are covered: the stack file (read by the stack-file loader, which keeps scalars YAML
versions disagree on) and the text the Pulumi engine hands the program (PULUMI_CONFIG: top-level values
as text, objects as JSON), which the program must accept as the real CLI writes it.
"""

from __future__ import annotations

import json
import typing

import pytest
from pydantic import ValidationError

from mlplatform_core.model.config import ConfigError, read_stack_file, to_pulumi_config
from mlplatform_core.model.config.base import SettingsModel
from mlplatform_core.model.config.scalars import AsWritten
from mlplatform_core.model.validation import validate_stack
from tests.conftest import ROOT

G = "  ml-platform-eks:nodeGroups:\n"
HEAD = "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n"


def refusal(tmp_path, body: str) -> str:
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    document = read_stack_file(path)
    with pytest.raises(ConfigError) as info:
        validate_stack(document, "t")
    return str(info.value)


@pytest.mark.parametrize(
    "body,key,written,expected",
    [
        # YAML 1.1 booleans where a boolean goes: YAML 1.2 and the Go parser read them as text
        (G + "    gpu: {enabled: yes}\n", "nodeGroups.gpu.enabled", "yes", "true or false"),
        (G + "    gpu: {enabled: on}\n", "nodeGroups.gpu.enabled", "on", "true or false"),
        ("  ml-platform-eks:protectResources: off\n", "protectResources", "off", "true or false"),
        # text and decimals where a whole number goes
        (G + '    jobs: {maxSize: "1"}\n', "nodeGroups.jobs.maxSize", "'1'", "whole number"),
        (
            "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 10.0}\n",
            "nodeGroups.jobs.maxSize",
            "10.0",
            "whole number",
        ),
        # YAML 1.1 numbers: octal, base 60, underscores
        (G + "    jobs: {maxSize: 010}\n", "nodeGroups.jobs.maxSize", "010", "whole number"),
        (
            "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 1:30}\n",
            "nodeGroups.jobs.maxSize",
            "1:30",
            "whole number",
        ),
        (G + "    jobs: {maxSize: 1_0}\n", "nodeGroups.jobs.maxSize", "1_0", "whole number"),
        # a boolean or a number where text goes
        (
            "  ml-platform-eks:nodeGroups:\n    jobs: {labels: {team: on}}\n",
            "nodeGroups.jobs.labels.team",
            "on",
            "text",
        ),
        (G + "    jobs: {labels: {team: 3}}\n", "nodeGroups.jobs.labels.team", "3", "text"),
        ("  ml-platform-eks:workloads:\n    preemptionMode: off\n", "workloads.preemptionMode", "off", "one of"),
        # a quantity
        (
            "  ml-platform-eks:workloads:\n    namespaces:\n      team-a: {quota: {pods: 0o17}}\n",
            "workloads.namespaces.team-a.quota.pods",
            "0o17",
            "ambiguous",
        ),
    ],
)
def test_a_scalar_is_refused_naming_key_value_as_written_and_type(tmp_path, body, key, written, expected):
    message = refusal(tmp_path, body)
    line = next(line for line in message.splitlines() if f"ml-platform-eks:{key}:" in line)
    assert written in line and expected in line, line


def test_the_readings_are_named(tmp_path):
    assert 'YAML 1.1 reads it as true, YAML 1.2 as the text "yes"' in refusal(
        tmp_path, "  ml-platform-eks:nodeGroups:\n    gpu: {enabled: yes}\n"
    )
    octal = refusal(tmp_path, "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 010}\n")
    assert "the octal number 8" in octal and "write 8 or 10" in octal
    assert "the base-60 number 90" in refusal(tmp_path, "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 1:30}\n")
    assert "write 10" in refusal(tmp_path, "  ml-platform-eks:nodeGroups:\n    jobs: {maxSize: 10.0}\n")


def test_quoted_and_unambiguous_scalars_load_as_written(tmp_path):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(
        HEAD + "  x:a: [yes, 'yes', 010, '010', 1:30, 3, 2.5, true, 0x1F, m5.xlarge, y]\n", encoding="utf-8"
    )
    values = read_stack_file(path)["x:a"]
    assert [type(v) for v in values] == [AsWritten, str, AsWritten, str, AsWritten, int, float, bool, int, str, str]
    assert values[5:] == [3, 2.5, True, 31, "m5.xlarge", "y"]


def test_every_settings_field_of_every_model_is_strict():
    """Every field typed bool, int or str (optional or not) refuses the other types, in every model built on the
    shared base: fields added later inherit it."""
    wrong = {bool: ["true", 1], int: ["3", 3.0, True], str: [3, True]}
    quantities = {("ResourceAmounts", "cpu"), ("ResourceAmounts", "memory")}  # `cpu: 2`, as Kubernetes takes it
    checked = 0
    models = list(SettingsModel.__subclasses__())
    while models:
        model = models.pop()
        models.extend(model.__subclasses__())
        for name, field in model.model_fields.items():
            kinds = {a for a in typing.get_args(field.annotation) or (field.annotation,) if a is not type(None)}
            if len(kinds) != 1 or next(iter(kinds)) not in wrong or (model.__name__, name) in quantities:
                continue
            for value in wrong[next(iter(kinds))]:
                with pytest.raises(ValidationError) as info:
                    model.model_validate({field.alias or name: value})
                assert any(e["loc"][:1] == (field.alias or name,) for e in info.value.errors()), (model, name, value)
                checked += 1
    assert checked > 40


# --- the Pulumi engine's way in -----------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "dev-karpenter", "prod"])
def test_the_program_accepts_a_shipped_stack_as_the_engine_hands_it(stack):
    raw = read_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
    text = to_pulumi_config(raw)
    assert all(isinstance(v, str) for v in text.values())
    assert validate_stack(text, stack).config == validate_stack(raw, stack).config


def test_top_level_booleans_and_numbers_as_pulumi_writes_them():
    # `pulumi config set` stores every top-level value as text; the SDK reads them with get_bool / get_int.
    base = {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}
    cfg = validate_stack({**base, "ml-platform-eks:protectResources": "True", "ml-platform-eks:imdsHopLimit": "2"}, "t")
    assert cfg.config.protect_resources is True and cfg.config.imds_hop_limit == 2
    for key, value in (("protectResources", "yes"), ("protectResources", "1"), ("imdsHopLimit", "02")):
        with pytest.raises(ConfigError, match=f"ml-platform-eks:{key}: expected"):
            validate_stack({**base, f"ml-platform-eks:{key}": value}, "t")


def test_values_inside_objects_keep_their_json_type():
    base = {"aws:region": "us-west-2", "ml-platform-eks:environment": "dev"}
    groups = {"ml-platform-eks:nodeGroups": json.dumps({"jobs": {"maxSize": "3"}, "gpu": {"enabled": "true"}})}
    with pytest.raises(ConfigError) as info:
        validate_stack({**base, **groups}, "t")
    message = str(info.value)
    assert "nodeGroups.jobs.maxSize: expected a whole number" in message
    assert "nodeGroups.gpu.enabled: expected true or false" in message


def test_an_ambiguous_scalar_of_another_namespace_reaches_the_engine_as_written():
    assert to_pulumi_config({"aws:skipMetadataApiCheck": AsWritten("on", True, "on")}) == {
        "aws:skipMetadataApiCheck": "on"
    }
    assert json.loads(to_pulumi_config({"pulumi:tags": {"a": AsWritten("010", 8, 10)}})["pulumi:tags"]) == {"a": "010"}


def test_a_date_loads_as_the_text_written_quoted_or_not(tmp_path):
    """PyYAML reads an unquoted 2027-01-15 as a date; the Pulumi CLI hands it to the program as its text
    (gopkg.in/yaml.v3 decodes a timestamp into interface{} as a string), as YAML 1.2 reads it: the text it is."""
    path = tmp_path / "Pulumi.t.yaml"
    written = ["2027-01-15", "'2027-01-15'", "2026-12-01T11:30:00Z", '"2026-12-01T11:30:00Z"', "2026-12-01 11:30:00Z"]
    path.write_text(HEAD + f"  x:a: [{', '.join(written)}]\n", encoding="utf-8")
    assert read_stack_file(path)["x:a"] == [w.strip("'\"") for w in written]


@pytest.mark.parametrize("end", ["2027-01-15", "'2027-01-15'", "2027-01-15T11:30:00Z", "'2027-01-15T11:30:00Z'"])
def test_a_reservation_end_date_is_read_quoted_or_not(tmp_path, end):
    """docs/gpu.md and docs/configuration.md write `endDate: 2027-01-15` unquoted."""
    body = (
        "  ml-platform-eks:kubernetesVersion: '1.35'\n"
        "  ml-platform-eks:additionalNodeGroups:\n"
        "    - name: block\n      gpu: true\n      instanceTypes: [p5.48xlarge]\n"
        "      availabilityZone: us-west-2b\n"
        f"      capacityReservation: {{id: cr-0a1b2c3d4e5f60718, type: capacity-block, endDate: {end}}}\n"
    )
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    cfg = validate_stack(read_stack_file(path), "t").config
    (block,) = cfg.additional_node_groups
    assert block.capacity_reservation.end_date.isoformat().startswith("2027-01-15")
