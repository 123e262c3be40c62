"""The documented migrations (docs/karpenter.md, docs/automode.md), read from the docs themselves: each numbered
step's settings are the docs' own code spans, so a test that walks them fails when the docs drift.

A step says what to edit in words around complete settings: "Set `provisioner: karpenter` and
`karpenter.keepNodeGroups: true`", "Remove `keepNodeGroups` (and any `minSize`/`desiredSize` of the pools'
groups)", "roll back: set `provisioner: nodeGroups` and remove the `karpenter` settings". `edit` applies such a
sentence to a stack's `config:` mapping: `key: value` spans are set (a bare key lives in the section of the
provisioner, `karpenter` or `autoMode`, unless it is a top-level setting), bare names after "set ... with" are
turned on, and names after "remove" are removed from the top level, the provisioner's section, or (group settings)
from every group but the initial one; "the initial group's settings" removes that group.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml

from tests.conftest import ROOT

P = "ml-platform-eks:"
DOCS = ROOT / "docs"
SPAN = re.compile(r"`([^`]+)`")
SETTING = re.compile(r"^([A-Za-z][\w.]*): (.+)$")
SECTIONS = ("karpenter", "autoMode")
TOP_LEVEL = ("provisioner", *SECTIONS)
GROUP_SETTINGS = ("minSize", "desiredSize", "amiType")
# Where a clause the step starts with ("Set ...", "Remove ...") ends: the next clause or sentence.
END = re.compile(r"(;|, then|, keep|, as in|\.\s|\.$| \(the | and remove )")


def section(doc: str, heading: str) -> str:
    """The text under a `## ` heading of docs/<doc> (up to the next one)."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    head = f"\n## {heading}\n"
    assert head in text, f"docs/{doc} has no section {heading!r}"
    return text.split(head, 1)[1].split("\n## ", 1)[0]


def steps(doc: str, heading: str) -> list[str]:
    """The numbered steps of a section, each as one line of text (the list ends at its first blank line)."""
    items = re.split(r"(?m)^(?=\d+\. )", section(doc, heading))
    return [" ".join(i.split("\n\n", 1)[0].split()) for i in items if re.match(r"\d+\. ", i)]


def _masked(text: str) -> str:
    """The text with its code spans blanked (same length): what ends a clause or a sentence is never in one."""
    return SPAN.sub(lambda m: "`" + "x" * len(m[1]) + "`", text)


def edits(step: str) -> list[str]:
    """The sentences of a step that edit the stack (a "Set ..." or "Remove ..."), in order: each is one state
    of the stack. A step that only drains or moves data has none."""
    cuts = [m.end() for m in re.finditer(r"\.\s", _masked(step))]
    sentences = [step[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(step)], strict=True)]
    return [s for s in sentences if _clause(s, "set") is not None or _clause(s, "remove") is not None]


def rollback(doc: str, heading: str) -> str:
    """The section's "you can roll back: ..." sentence."""
    text = " ".join(section(doc, heading).split())
    (found,) = re.findall(r"roll back: [^.]*\.", text)
    return found


def _clause(text: str, verb: str) -> str | None:
    match = re.search(rf"(?:^|[\s:(]){verb} ", text, flags=re.IGNORECASE)
    if match is None:
        return None
    rest = text[match.end() :]
    end = END.search(_masked(rest))  # a code span may hold what END matches (a dotted key)
    return rest[: end.start()] if end else rest


def _section_of(cfg: dict[str, Any]) -> str:
    provisioner = cfg.get(P + "provisioner", "nodeGroups")
    return provisioner if provisioner in SECTIONS else "karpenter"


def _set(cfg: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    if parts[0] not in TOP_LEVEL and parts[0] not in {k.removeprefix(P) for k in cfg}:
        parts = [_section_of(cfg), *parts]
    node = cfg.setdefault(P + parts[0], {}) if len(parts) > 1 else cfg
    for part in parts[1:-1]:
        node = node.setdefault(part, {})
    node[parts[-1] if len(parts) > 1 else P + parts[0]] = value


def _remove(cfg: dict[str, Any], name: str) -> None:
    if name in TOP_LEVEL:
        cfg.pop(P + name, None)
        return
    sections = [cfg[P + s] for s in SECTIONS if isinstance(cfg.get(P + s), dict) and name in cfg[P + s]]
    if sections:
        for s in sections:
            del s[name]
        return
    assert name in GROUP_SETTINGS, f"the docs remove {name!r}, which this walk does not know"
    for group, settings in cfg.get(P + "nodeGroups", {}).items():
        if group != "initial":
            settings.pop(name, None)


def edit(cfg: dict[str, Any], text: str) -> dict[str, Any]:
    """The stack config after the edits a step's text names (a new mapping); a step that edits nothing
    (draining, moving volumes) returns the config as it was."""
    out = copy.deepcopy(cfg)
    said = _clause(text, "set")
    if said is not None:
        for span in SPAN.findall(said):
            match = SETTING.match(span)
            if match:
                _set(out, match[1], yaml.safe_load(match[2]))
            else:  # "Set `initialGroup: systemPool` later with `keepNodeGroups`": turned on
                _set(out, span, True)
    removed = _clause(text, "remove")
    if removed is not None:
        for span in SPAN.findall(removed):
            for name in span.split("/"):
                _remove(out, name)
        if "initial group's settings" in removed:
            out.get(P + "nodeGroups", {}).pop("initial", None)
    for s in SECTIONS:  # a section left empty is no section
        if out.get(P + s) == {}:
            del out[P + s]
    return out
