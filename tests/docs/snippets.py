"""The code blocks of README.md and docs/, and what each says it proves (tests/docs/test_snippets.py runs them).

Every ```yaml, ```bash, ```console, ```sh and ```shell block outside a generated block (scripts/docs/generate_docs.py)
carries a marker, an HTML comment on the line before its fence (invisible on GitHub and in the site):

    <!-- snippet: base=dev expect=plan -->         (stack config: merged into stacks/Pulumi.dev.yaml, planned)
    <!-- snippet: base=prod expect=refused message="is not an IAM" -->
    <!-- snippet: run in=project given=job.yaml:examples/manifests/gpu-training.yaml -->
    <!-- snippet: skip: a polyaxonfile, not stack config -->

YAML (stack config): the block is a fragment of a stack file's `config:` (indented as under `config:`, or not),
or a whole stack file (`config:` at the top). `base=` names the stack it is added to: a shipped stack (`dev`)
or a stack file of the repository (`examples/stacks/Pulumi.training.yaml`); `under=KEY` puts a fragment that
shows only the value of a top-level key (a list item of `ml-platform-eks:additionalNodeGroups`) under it.
The fragment merges as a user edits the file: a mapping goes into the base's mapping of the same key, key by
key at every depth; anything else (a list, a value) replaces the base's. `expect=plan` (the default): `mlplatform
plan` exits 0; `expect=refused message=TEXT`: it exits 2 and its error contains TEXT.

Shell: the block's commands run in order, each `mlplatform ...` (or `.venv/bin/mlplatform ...`) in-process,
`cd DIR` moves, `> FILE` writes the command's output there. `in=` is where they start: `project` (default:
a copy of a project `mlplatform init` wrote), `empty` (an empty folder: blocks that run `mlplatform init`
themselves) or `repo` (this repository: only commands that write nothing). `given=DEST:SRC` copies the
repository's SRC to DEST first (the files the text says the reader has: `job.yaml`). Every command runs and
exits 0 (`exit=N`: N); a line that is no `mlplatform` command (pulumi, pip, kubectl, make, a pipe from
kubectl) does not run, and the marker says why: `not-run=REASON`. `skip: REASON`: a block that runs nothing
here (a pod spec, a polyaxonfile, a real `pulumi up`), always with the reason.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHECKED = {"yaml", "bash", "console", "sh", "shell"}
SHELL = CHECKED - {"yaml"}
MLPLATFORM = {"mlplatform", ".venv/bin/mlplatform"}
YAML_KEYS = {"base", "under", "expect", "message"}
SHELL_KEYS = {"in", "given", "not-run", "exit"}
WHERE = {"project", "empty", "repo"}
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>\S*)\s*$")
MARKER = re.compile(r"^\s*<!-- snippet: (?P<words>.*?) -->\s*$")
GENERATED = re.compile(r"<!-- mlplatform-docs: .*? -->\n.*?<!-- /mlplatform-docs -->", re.S)


class MarkerError(ValueError):
    """A block without a marker, or with one that says nothing runnable."""


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository
    line: int  # the opening fence's, 1-based
    lang: str
    text: str  # the body, dedented by the fence's indentation
    marker: str | None  # what follows `snippet:`, None without a marker

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass
class Marker:
    skip: str | None = None
    options: dict[str, list[str]] = field(default_factory=dict)

    def one(self, key: str, default: str | None = None) -> str | None:
        values = self.options.get(key)
        return values[-1] if values else default


def blocks(root: Path, pages: list[Path]) -> list[Block]:
    """Every fenced block of the pages outside generated blocks (their line numbers kept)."""
    found = []
    for page in pages:
        text = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            opening = FENCE.match(lines[i])
            if not opening:
                i += 1
                continue
            end = next((j for j in range(i + 1, len(lines)) if re.match(r"^\s*```\s*$", lines[j])), len(lines))
            indent = len(opening.group("indent"))
            body = "\n".join(line[indent:] if line[:indent].isspace() else line for line in lines[i + 1 : end])
            previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            marker = MARKER.match(previous)
            found.append(
                Block(
                    str(page.relative_to(root)),
                    i + 1,
                    opening.group("lang"),
                    body + "\n",
                    marker.group("words") if marker else None,
                )
            )
            i = end + 1
    return found


def parse_marker(block: Block) -> Marker:
    if block.marker is None:
        raise MarkerError(
            f"{block.where}: a ```{block.lang} block without a `<!-- snippet: ... -->` marker on the line before "
            "it (tests/docs/snippets.py says how to mark it: planned, run, or skipped with a reason)"
        )
    if block.marker.startswith("skip:"):
        reason = block.marker.removeprefix("skip:").strip()
        if not reason:
            raise MarkerError(f"{block.where}: `skip:` without a reason")
        return Marker(skip=reason)
    allowed = YAML_KEYS if block.lang == "yaml" else SHELL_KEYS
    marker = Marker()
    words = shlex.split(block.marker)
    if block.lang in SHELL and words[:1] == ["run"]:  # `run in=project ...`: reads as what it does
        words = words[1:]
    for word in words:
        key, eq, value = word.partition("=")
        if not eq or key not in allowed:
            raise MarkerError(f"{block.where}: {word!r} in the marker; a ```{block.lang} block takes {sorted(allowed)}")
        marker.options.setdefault(key, []).append(value)
    expect = marker.one("expect", "plan")
    if expect not in ("plan", "refused") or (expect == "refused") != ("message" in marker.options):
        raise MarkerError(f"{block.where}: expect=plan, or expect=refused with message=TEXT")
    if marker.one("in", "project") not in WHERE or not marker.one("exit", "0").isdigit():
        raise MarkerError(f"{block.where}: in= is one of {sorted(WHERE)}; exit= a number")
    return marker


def stack_config(block: Block, marker: Marker, base: dict[str, Any]) -> dict[str, Any]:
    """The base stack's `config:` with the block's YAML merged in, as a user edits the stack file."""
    import yaml

    fragment = yaml.safe_load(textwrap.dedent(block.text))
    under = marker.one("under")
    if under:
        fragment = {under: fragment}
    if not isinstance(fragment, dict):
        raise MarkerError(f"{block.where}: the YAML is no mapping of stack settings (under=KEY puts it under a key)")
    if "config" in fragment:  # a whole stack file
        return fragment["config"]
    return merged(base, fragment)


def merged(base: Any, fragment: Any) -> Any:
    if isinstance(base, dict) and isinstance(fragment, dict):
        out = dict(base)
        for key, value in fragment.items():
            out[key] = merged(base[key], value) if key in base else value
        return out
    return fragment


@dataclass(frozen=True)
class Command:
    words: tuple[str, ...]  # `mlplatform` and its arguments, or `cd DIR`
    output: str | None = None  # `> FILE`
    line: str = ""  # as shown


def commands(text: str, console: bool = False) -> tuple[list[Command], list[str]]:
    """The commands of a shell block that run here, in order, and the lines that do not (another program, a
    pipe into or out of mlplatform, a shell expansion). In a ```console block only `$ ` lines are commands."""
    runnable, not_run = [], []
    if console:
        text = "\n".join(line.removeprefix("$ ") for line in text.splitlines() if line.startswith("$ "))
    for line in _logical_lines(text):
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
        if not tokens:
            continue
        parsed = [_command(part, line) for part in _split(tokens, {"&&", ";"})]
        if all(parsed):
            runnable += parsed
        else:  # one line is one step: run all of it or none
            not_run.append(line.strip())
    return runnable, not_run


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        lines.append(pending + raw)
        pending = ""
    return [*lines, pending] if pending else lines


def _split(tokens: list[str], separators: set[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token in separators:
            parts.append([])
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _command(words: list[str], line: str) -> Command | None:
    output = None
    if len(words) >= 2 and words[-2] == ">":
        words, output = words[:-2], words[-1]
    if any(set(w) & set("|<>()$`*") for w in words):
        return None
    if words[0] == "cd" and len(words) == 2 and output is None:
        return Command(tuple(words), line=line.strip())
    if words[0] in MLPLATFORM:
        return Command(("mlplatform", *words[1:]), output, line.strip())
    return None
