#!/usr/bin/env python3
"""Regenerate every command output and generated table shown in README.md and docs/: `make docs`.

A generated block sits between two markers; the first names what fills it:

    <!-- mlplatform-docs: plan dev | section "Node groups" -->
    ...generated, never edited by hand...
    <!-- /mlplatform-docs -->

- `COMMAND [| FILTER]...`: runs `mlplatform COMMAND` in-process from the repository root (COLUMNS=100, the
  date fixed to DOCS_DATE so that support phases and prices do not move), shown as a `text` block headed
  `$ mlplatform COMMAND`; stderr is shown too. Filters: `section "TITLE"` (from the line that starts with
  TITLE to the next blank line), `entry "TITLE"` (that line and the lines that continue it), `lines A-B`,
  `tail N`, `raw` (the output is Markdown, put in as it is: the --format markdown document), `mermaid [N]`
  (only the ```mermaid blocks of Markdown output, or the Nth), `in-temp` (run in an empty temporary
  folder: `init`), `json-keys KEY[:N]...` (a JSON document abridged to those top-level keys, a list to its
  first N items), `fence LANG` (the code block's language instead of `text`, with no `$` line).
  Files a command reads, made in a temporary folder first and named there as they are in the command
  (shown by that name): `save FILE "COMMAND"` (what `mlplatform COMMAND` prints: a BEFORE plan for `diff`),
  `edit FILE SOURCE "OLD" "NEW"` (the repository's SOURCE with OLD, which must occur, replaced by NEW).
- `config-reference`: the configuration reference, from the settings model (scripts/docs/config_reference.py).

`--check` regenerates in memory and exits 1 naming each file that differs (tests/docs runs it). One command
for everything, so that a merge that changes an output is one `make docs` away from documented.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import difflib
import functools
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
DOCS_DATE = datetime.date(2026, 11, 26)  # every generated output is as of this day
COLUMNS = 100
TEMP_SHOWN = "/home/me/work"  # the temporary folder of an `in-temp` command, as the docs show it
BLOCK = re.compile(r"(<!-- mlplatform-docs: (?P<spec>.*?) -->\n)(?P<body>.*?)(<!-- /mlplatform-docs -->)", re.S)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@contextlib.contextmanager
def fixed_world() -> Iterator[None]:
    """The date fixed, COLUMNS 100, the repository as the working directory, and one engine run per stack
    file whatever the command (the run is deterministic; plan and check of one stack share it)."""
    import mlplatform.plan as plan_module
    from mlplatform_core.model import eks_versions
    from mlplatform_policies import cost as pack_cost

    runs: dict = {}
    real = plan_module.run_stack

    def cached(stack, config, project, **kw):
        import json

        key = (stack, json.dumps(config, sort_keys=True, default=str), str(project.root))
        if key not in runs:
            runs[key] = real(stack, config, project, **kw)
        return runs[key]

    cwd = Path.cwd()
    with contextlib.ExitStack() as stack:
        # `init` pins the toolkit as a user who installed its wheel sees it, whatever installed this checkout
        # (editable, a build's egg-info in the working directory): the wheel copied into the project.
        from mlplatform import __version__
        from mlplatform.scaffold import pinning

        wheel = (
            Path(stack.enter_context(tempfile.TemporaryDirectory())) / f"ml_platform_eks-{__version__}-py3-none-any.whl"
        )
        wheel.write_bytes(b"")
        why = f"ml-platform-eks {__version__}, the wheel this toolkit was installed from"
        stack.enter_context(mock.patch.object(pinning, "installed", lambda: pinning.vendored(wheel, why)))
        stack.enter_context(mock.patch.object(eks_versions, "today", lambda: DOCS_DATE))
        stack.enter_context(mock.patch.object(pack_cost, "today", lambda: DOCS_DATE))
        stack.enter_context(mock.patch.object(plan_module, "run_stack", cached))
        stack.enter_context(mock.patch.dict(os.environ, {"COLUMNS": str(COLUMNS)}))
        os.chdir(ROOT)
        try:
            yield
        finally:
            os.chdir(cwd)


def run_command(words: list[str], in_temp: bool = False) -> str:
    """`mlplatform WORDS` in-process: what a user sees on stdout and stderr, in order."""
    from mlplatform.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), contextlib.ExitStack() as stack:
        temp = None
        if in_temp:
            temp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            os.chdir(temp)
            stack.callback(os.chdir, ROOT)
        with contextlib.suppress(SystemExit):  # --help exits, as argparse does
            main(words)
    text = out.getvalue()
    if temp is not None:  # a folder of this machine, shown as a user's would be
        for path in {str(temp.resolve()), str(temp)}:
            text = text.replace(path, TEMP_SHOWN)
    return text


def _section(text: str, title: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        raise SystemExit(f"generate_docs: no line starts with {title!r} in the output")
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(lines[start:end]) + "\n"


def _entry(text: str, title: str) -> str:
    """The line that starts with TITLE and the lines that continue it (indented further)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        raise SystemExit(f"generate_docs: no line starts with {title!r} in the output")
    depth = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) > depth and lines[end].strip():
        end += 1
    return "\n".join(lines[start:end]) + "\n"


def _lines(text: str, span: str) -> str:
    a, _, b = span.partition("-")
    return "\n".join(text.splitlines()[int(a) - 1 : int(b)]) + "\n"


def _json_keys(text: str, keys: list[str]) -> str:
    import json

    doc = json.loads(text)
    kept = {}
    for key in keys:
        name, _, first = key.partition(":")
        kept[name] = doc[name][: int(first)] if first else doc[name]
    return json.dumps(kept, indent=2) + "\n"


def _prepared_files(options: list[list[str]], folder: Path) -> dict[str, Path]:
    """The files of `save` and `edit`, written into FOLDER: {name in the command: its path}."""
    made = {}
    for name, *args in options:
        if name not in ("save", "edit"):
            continue
        target = folder / args[0]
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == "save":
            text = run_command(shlex.split(args[1]))
        else:
            source, old, new = args[1:]
            text = (ROOT / source).read_text(encoding="utf-8")
            if old not in text:
                raise SystemExit(f"generate_docs: {old!r} is not in {source}")
            text = text.replace(old, new)
        target.write_text(text, encoding="utf-8")
        made[args[0]] = target
    return made


def _mermaid(text: str, which: list[str]) -> str:
    blocks = re.findall(r"```mermaid\n.*?```\n", text, re.S)
    return "\n".join(blocks[int(which[0]) - 1 : int(which[0])] if which else blocks)


FILTERS: dict[str, Callable[[str, list[str]], str]] = {
    "section": lambda text, args: _section(text, args[0]),
    "entry": lambda text, args: _entry(text, args[0]),
    "lines": lambda text, args: _lines(text, args[0]),
    "tail": lambda text, args: "\n".join(text.splitlines()[-int(args[0]) :]) + "\n",
    "mermaid": _mermaid,
    "json-keys": _json_keys,
}
SETUP = ("raw", "in-temp", "save", "edit", "fence")  # options that are not filters of the output


def generate(spec: str) -> str:
    """The body of one block."""
    if spec == "config-reference":
        from scripts.docs.config_reference import reference

        return reference()
    command, *filters = [part.strip() for part in spec.split("|")]
    options = [shlex.split(f) for f in filters]
    names = {o[0] for o in options}
    with tempfile.TemporaryDirectory() as folder:
        made = _prepared_files(options, Path(folder))
        words = [str(made.get(word, word)) for word in shlex.split(command)]
        text = run_command(words, in_temp="in-temp" in names)
        for name, path in made.items():  # as the command names it (documents show only the file's name)
            text = text.replace(str(path), name)
    shown = f"$ mlplatform {command}"
    for name, *args in options:
        if name in FILTERS:
            text = FILTERS[name](text, args)
        elif name not in SETUP:
            raise SystemExit(f"generate_docs: unknown filter {name!r} in {spec!r}")
        if name == "tail":
            shown += f" | tail -{args[0]}"
        elif name in ("section", "lines", "entry"):
            text = f"...\n{text.rstrip()}\n..."  # a part of the output
    if "raw" in names or "mermaid" in names:
        # MkDocs reads Markdown inside a collapsed section only when told to (md_in_html); GitHub always does.
        return text.replace("<details><summary>", '<details markdown="1"><summary>').rstrip("\n") + "\n"
    fence = next((args[0] for name, *args in options if name == "fence"), None)
    if fence:
        return f"```{fence}\n{text.rstrip()}\n```\n"
    return f"```text\n{shown}\n{text.rstrip()}\n```\n"


@functools.cache
def _generated(spec: str) -> str:
    return generate(spec)


def regenerate(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return BLOCK.sub(lambda m: m.group(1) + _generated(m.group("spec")) + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is out of date")
    args = parser.parse_args(argv)
    stale = []
    _generated.cache_clear()
    with fixed_world():
        for path in pages():
            old = path.read_text(encoding="utf-8")
            new = regenerate(path)
            if new == old:
                continue
            stale.append(path)
            if args.check:
                diff = difflib.unified_diff(old.splitlines(), new.splitlines(), str(path), "regenerated", lineterm="")
                print("\n".join(list(diff)[:40]), file=sys.stderr)
            else:
                path.write_text(new, encoding="utf-8")
    for path in stale:
        print(f"{'out of date' if args.check else 'regenerated'}: {path.relative_to(ROOT)}")
    if args.check and stale:
        print("run `make docs` and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
