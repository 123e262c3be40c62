"""Reading a stack file: nothing YAML would silently drop, and every syntax error says where and why."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, read_stack_document, read_stack_file
from mlplatform_core.model.config.stack_file import _StackLoader


def write(tmp_path, text: str):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(text, encoding="utf-8")
    return path


HEAD = "config:\n  aws:region: us-west-2\n  ml-platform-eks:environment: dev\n"


def test_the_reader_uses_libyaml_for_speed():
    assert "CSafeLoader" in [c.__name__ for c in _StackLoader.__mro__]


@pytest.mark.parametrize(
    "body,path,lines",
    [
        # a whole section written twice: YAML keeps the second, the GPU group of the first would vanish
        (
            "  ml-platform-eks:nodeGroups:\n    gpu: {enabled: true}\n  ml-platform-eks:nodeGroups:\n    jobs: {}\n",
            "ml-platform-eks:nodeGroups",
            "lines 4 and 6",
        ),
        # deep inside a section the second block replaced (itself a repetition): still found, with its full path
        (
            "  ml-platform-eks:nodeGroups:\n    jobs:\n      maxSize: 3\n      maxSize: 4\n"
            "  ml-platform-eks:nodeGroups: {}\n",
            "ml-platform-eks:nodeGroups.jobs.maxSize",
            "lines 6 and 7",
        ),
        # in a list item, in a flow mapping on one line
        (
            "  ml-platform-eks:additionalNodeGroups:\n"
            "    - {name: a, instanceTypes: [m5.xlarge], labels: {team: x, team: y}}\n",
            "ml-platform-eks:additionalNodeGroups[0].labels.team",
            "line 5 column 54 and line 5 column 63",
        ),
        # a provider's key and the region
        ("  aws:region: eu-west-1\n", "aws:region", "lines 2 and 4"),
    ],
)
def test_a_key_written_twice_is_a_problem_naming_both_lines(tmp_path, body, path, lines):
    doc = read_stack_document(write(tmp_path, HEAD + body))
    found = {p.path: p.message for p in doc.problems}
    assert lines in found[path]
    with pytest.raises(ConfigError, match="written 2 times"):
        read_stack_file(write(tmp_path, HEAD + body))


def test_three_times_names_every_line(tmp_path):
    doc = read_stack_document(write(tmp_path, HEAD + "  aws:profile: a\n  aws:profile: b\n  aws:profile: c\n"))
    assert "written 3 times" in doc.problems[0].message and "lines 4, 5 and 6" in doc.problems[0].message


def test_a_repeated_top_level_key_is_refused(tmp_path):
    doc = read_stack_document(write(tmp_path, HEAD + "config:\n  aws:region: eu-west-1\n"))
    assert [p.message[:30] for p in doc.problems] == ["is written 2 times in the same"]
    assert doc.problems[0].path.endswith("Pulumi.t.yaml: config")
    with pytest.raises(ConfigError, match=r"config: is written 2 times"):
        read_stack_file(write(tmp_path, HEAD + "config:\n  aws:region: eu-west-1\n"))


def test_merge_keys_may_be_overridden(tmp_path):
    """`<<: *anchor` then the same key is how YAML overrides shared settings: not a repetition."""
    text = HEAD + (
        "  ml-platform-eks:additionalNodeGroups:\n"
        "    - &pool {name: pool-a, instanceTypes: [r5.xlarge], maxSize: 4}\n"
        "    - {<<: *pool, name: pool-b, maxSize: 6}\n"
    )
    doc = read_stack_document(write(tmp_path, text))
    assert doc.problems == ()
    assert [g["maxSize"] for g in doc.config["ml-platform-eks:additionalNodeGroups"]] == [4, 6]


def test_values_that_are_equal_but_keys_that_differ_are_fine(tmp_path):
    doc = read_stack_document(write(tmp_path, HEAD + "  ml-platform-eks:tags: {a: '1', b: '1'}\n"))
    assert doc.problems == ()


def test_every_setting_knows_its_line(tmp_path):
    text = HEAD + (
        "  ml-platform-eks:nodeGroups:\n"  # 4
        "    gpu:\n"  # 5
        "      instanceTypes:\n"  # 6
        "        - g5.xlarge\n"  # 7
        "        - g5.2xlarge\n"  # 8
    )
    doc = read_stack_document(write(tmp_path, text))
    assert doc.line_of("ml-platform-eks:environment") == 3
    assert doc.line_of("ml-platform-eks:nodeGroups.gpu.instanceTypes[1]") == 8
    # a path the file does not write (a default) points at its nearest written ancestor
    assert doc.line_of("ml-platform-eks:nodeGroups.gpu.minSize") == 5
    assert doc.line_of("ml-platform-eks:network") is None


@pytest.mark.parametrize(
    "text,expected",
    [
        ("config:\n\taws:region: us-west-2\n", "line 2, column 1: a tab character; YAML indents with spaces only"),
        ("config:\n  a: *missing\n", "line 2, column 6: found undefined alias 'missing'"),
        ("config: {aws:region: us-west-2\n", "line 2, column 1: expected ',' or '}'"),
        ("config:\n  a: &x 1\n  b: &x 2\n", "line 3, column 6: found duplicate anchor 'x'"),
        ('config:\n  a: "\\q"\n', "line 2, column 8: found unknown escape character 'q'"),
    ],
)
def test_a_yaml_syntax_error_names_line_column_and_cause(tmp_path, text, expected):
    with pytest.raises(ConfigError) as err:
        read_stack_document(write(tmp_path, text))
    assert "is not valid YAML: " + expected in str(err.value)


def test_not_utf8_is_refused_with_the_byte(tmp_path):
    path = tmp_path / "Pulumi.t.yaml"
    path.write_bytes(b"config:\n  aws:region: \xff\n")
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_stack_document(path)


def test_file_level_problems_come_with_the_settings_problems(tmp_path):
    """A stray top-level key does not hide what is wrong under config: (validate_stack adds the rest)."""
    text = "confg: {}\n" + HEAD + "  aws:region: eu-west-1\n"
    doc = read_stack_document(write(tmp_path, text))
    assert [p.path for p in doc.problems] == [str(tmp_path / "Pulumi.t.yaml"), "aws:region"]
    assert "unknown top-level key(s) confg" in doc.problems[0].message
