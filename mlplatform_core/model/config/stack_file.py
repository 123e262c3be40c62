"""Reading a stack file (stacks/Pulumi.<stack>.yaml) safely: size, nesting and YAML alias limits first.

Nothing the file says is dropped on the way: a key repeated in one mapping (which YAML would
silently overwrite) is a problem naming both lines, and every key and list item keeps the line it
was written on, so later problems can say where to look.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from . import scalars
from .errors import PROJECT, ConfigError, Problem, escaped, show
from .stack import StackConfig, parse

MAX_CONFIG_BYTES = 1_000_000  # a stack file larger than this is a mistake, not a configuration
MAX_CONFIG_VALUES = 500_000  # values in a stack file once YAML aliases are expanded (a 1 MB file holds far fewer)
MAX_CONFIG_DEPTH = 64  # mappings and lists nested in each other; the deepest setting is under 10
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster, same safe types
_MERGE_TAG = "tag:yaml.org,2002:merge"


class _StackLoader(_YAML_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, recording where each key and list item is written and which keys repeat.

    Only construction is Python (libyaml parses), so checking keys while mappings are built costs
    one pass over each mapping's keys.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        # id(container) -> (container, {key or index: line}); the container is kept so its id stays unique.
        self.lines: dict[int, tuple[Any, dict[Any, int]]] = {}
        # id(container) -> (parent, key): the first place each mapping or list is written, even one a
        # repeated key overwrote, so a repeated key deep inside it still gets its full path.
        self.parents: dict[int, tuple[Any, Any]] = {}
        self.repeated: list[tuple[Any, Any, list[tuple[int, int]]]] = []  # (mapping, key, [(line, column)])

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        tag = super().resolve(kind, value, implicit)
        if kind is yaml.ScalarNode and implicit[0]:  # plain (unquoted): YAML 1.1 and 1.2 may disagree
            return scalars.plain_tag(value, tag)
        return tag

    def _adopt(self, parent: Any, key: Any, node: yaml.Node) -> None:
        child = self.constructed_objects.get(node)
        if isinstance(child, (dict, list)):
            self.parents.setdefault(id(child), (parent, key))


def _construct_map(loader: _StackLoader, node: yaml.MappingNode) -> Any:
    data: dict[Any, Any] = {}
    yield data
    # Merged keys (<<: *anchor) are meant to be overridden; only keys written here may not repeat.
    written = [(k, v) for k, v in node.value if k.tag != _MERGE_TAG]
    data.update(loader.construct_mapping(node))
    marks: dict[Any, tuple[int, int]] = {}
    seen: dict[Any, list[tuple[int, int]]] = {}
    for key_node, value_node in written:
        key = loader.constructed_objects[key_node]  # built by construct_mapping just before
        mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        if key in marks:
            seen.setdefault(key, [marks[key]]).append(mark)
        else:
            marks[key] = mark
        loader._adopt(data, key, value_node)
    loader.repeated.extend((data, key, where) for key, where in seen.items())
    loader.lines[id(data)] = (data, {key: line for key, (line, _) in marks.items()})


def _construct_seq(loader: _StackLoader, node: yaml.SequenceNode) -> Any:
    data: list[Any] = []
    yield data
    data.extend(loader.construct_sequence(node))
    loader.lines[id(data)] = (data, {i: n.start_mark.line + 1 for i, n in enumerate(node.value)})
    for i, item in enumerate(node.value):
        loader._adopt(data, i, item)


def _construct_as_written(loader: _StackLoader, node: yaml.ScalarNode) -> scalars.AsWritten:
    yaml11_tag = yaml.resolver.Resolver.resolve(loader, yaml.ScalarNode, node.value, (True, False))
    yaml11 = loader.yaml_constructors[yaml11_tag](loader, yaml.ScalarNode(yaml11_tag, node.value))
    return scalars.as_written(node.value, yaml11)


_StackLoader.add_constructor(scalars.TAG, _construct_as_written)
_StackLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_StackLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def _yaml_problem(text: str, exc: yaml.YAMLError) -> str:
    """Where and why YAML refuses the text: line, column and cause (libyaml's wording is terser, so
    the pure-Python parser, which names the character or alias, re-reads the text on this rare path)."""
    detailed = exc
    try:
        for _ in yaml.compose_all(text, Loader=yaml.SafeLoader):
            pass
    except yaml.YAMLError as again:
        detailed = again
    except RecursionError:
        pass
    mark = getattr(detailed, "problem_mark", None) or getattr(detailed, "context_mark", None)
    problem = getattr(detailed, "problem", None) or str(detailed).splitlines()[0]
    context = getattr(detailed, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    cause = problem
    if "'\\t'" in problem or (mark and _char_at(text, mark) == "\t"):
        cause = "a tab character; YAML indents with spaces only, never tabs"
    elif context and "duplicate anchor" in context:
        cause = f"{context.replace('; first occurrence', '')} (an anchor name may be defined once)"
    elif "undefined alias" in problem:
        cause = f"{problem}: no anchor (&name) of that name appears before it"
    elif context:
        cmark = getattr(detailed, "context_mark", None)
        cause = f"{problem} ({context}" + (f" started at line {cmark.line + 1}" if cmark else "") + ")"
    return where + cause


def _char_at(text: str, mark: Any) -> str:
    lines = text.splitlines()
    if 0 <= mark.line < len(lines) and 0 <= mark.column < len(lines[mark.line]):
        return lines[mark.line][mark.column]
    return ""


def config_path(parts: tuple[Any, ...]) -> str:
    """The key path of a place in the `config:` mapping, spelled as problems spell it.

    ("ml-platform-eks:nodeGroups", "gpu", "instanceTypes", 0) -> ml-platform-eks:nodeGroups.gpu.instanceTypes[0]
    """
    out = escaped(str(parts[0])) if parts else "config"
    for part in parts[1:]:
        out += f"[{part}]" if isinstance(part, int) else f".{escaped(str(part))}"
    return out


_LAST_PART = re.compile(r"(\.[^.\[\]]*|\[\d+\])$")


@dataclass(frozen=True)
class StackDocument:
    """A stack file's `config:` mapping, what reading it as YAML would lose, and where each setting is."""

    config: dict[str, Any]
    problems: tuple[Problem, ...] = ()  # keys repeated in one mapping: YAML keeps the last, silently
    # id(container) -> (container, {key or index: line}), as the loader recorded them
    marks: Mapping[int, tuple[Any, Mapping[Any, int]]] = field(default_factory=dict, repr=False)

    @cached_property
    def lines(self) -> Mapping[str, int]:
        """Key path (as problems spell it) -> line; worked out only when a problem needs a line."""
        return _line_index(self.config, self.marks)

    def line_of(self, path: str) -> int | None:
        """The line of `path`, or of its nearest ancestor the file writes out."""
        while path:
            if path in self.lines:
                return self.lines[path]
            shorter = _LAST_PART.sub("", path)
            if shorter == path:
                return None
            path = shorter
        return None


def _line_index(config: dict[str, Any], marks: Mapping[int, tuple[Any, Mapping[Any, int]]]) -> dict[str, int]:
    """The line of every key path under `config:` (a container shared through YAML aliases: its first path)."""
    paths: dict[int, tuple] = {id(config): ()}
    lines: dict[str, int] = {}
    stack = [config]
    while stack:
        node = stack.pop()
        prefix = paths[id(node)]
        where = marks.get(id(node), (None, {}))[1]
        children = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in children:
            parts = (*prefix, key)
            if key in where:
                lines.setdefault(config_path(parts), where[key])
            if isinstance(child, (dict, list)) and id(child) not in paths:
                paths[id(child)] = parts
                stack.append(child)
    return lines


def _expanded_values(doc: Any, limit: int) -> str | None:
    """Why the loaded YAML is unusable (a cycle, too deep, more than `limit` values with aliases expanded), or None.

    YAML aliases share one object, so an 'alias bomb' of a few hundred bytes stands for billions of
    values that JSON encoding (the Pulumi engine's config format) would write out. Counts each
    shared object once (memoized) and walks without recursion, so deep nesting cannot overflow.
    """
    sizes: dict[int, int] = {}
    open_: set[int] = set()
    stack = [doc]
    while stack:
        node = stack[-1]
        key = id(node)
        if not isinstance(node, (dict, list)) or key in sizes:
            stack.pop()
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if key not in open_:
            open_.add(key)
            if len(open_) > MAX_CONFIG_DEPTH:
                return f"is nested more than {MAX_CONFIG_DEPTH} levels deep; stack settings nest a few levels at most"
            for child in children:
                if isinstance(child, (dict, list)):
                    if id(child) in open_:
                        return "refers to itself through a YAML alias (*name inside the &name it points to)"
                    if id(child) not in sizes:
                        stack.append(child)
            continue
        total = 1 + len(node) + sum(sizes[id(c)] - 1 for c in children if isinstance(c, (dict, list)))
        if total > limit:
            return (
                f"expands to more than {limit:,} values once YAML aliases (*name) are expanded; "
                "write the settings out or use fewer nested aliases"
            )
        sizes[key] = total
        open_.discard(key)
        stack.pop()
    return None


def read_stack_document(path: str | Path, source: str | None = None) -> StackDocument:
    """The `config:` mapping of a Pulumi stack file with its line index and the problems YAML would hide.

    Raises ConfigError when the file cannot be used at all (unreadable, not YAML, not a stack file);
    its messages name the file as `source` (default: `path`)."""
    src = source or str(path)
    doc, loader = _parse(_read_text(Path(path), src), src)
    if err := _expanded_values(doc, MAX_CONFIG_VALUES):
        raise ConfigError([Problem(src, err)])
    if doc is None:
        raise ConfigError(
            [Problem(src, f"is empty; it needs a 'config:' mapping with at least {PROJECT}:environment and aws:region")]
        )
    if not isinstance(doc, dict):
        raise ConfigError([Problem(src, f"must be a YAML mapping with a 'config:' key (got {type(doc).__name__})")])
    top_lines = loader.lines.get(id(doc), (None, {}))[1]
    problems: list[Problem] = []
    extra = sorted(set(map(str, doc)) - {"config", "encryptionsalt", "secretsprovider", "encryptedkey", "environment"})
    if extra:
        problems.append(Problem(src, f"unknown top-level key(s) {', '.join(extra)}; stack settings go under 'config:'"))
    config = doc.get("config")
    if not isinstance(config, dict):
        problems.append(
            Problem(f"{src}: config", f"must be a mapping of settings (got {show(config)})", top_lines.get("config"))
        )
    for mapping, key, where in loader.repeated:
        if mapping is doc:
            problems.append(Problem(f"{src}: {key}", _repeated(where)))
    if not isinstance(config, dict):  # no settings to check: these are all there is to say
        raise ConfigError(problems)
    for mapping, key, where in loader.repeated:
        if mapping is doc:
            continue
        parts = _parts(mapping, config, loader)
        if parts is not None:
            problems.append(Problem(config_path((*parts, key)), _repeated(where)))
        else:  # a mapping used as a key: nowhere a setting could be
            problems.append(Problem(src, f"key {show(key)} {_repeated(where)}"))
    return StackDocument(config, tuple(problems), loader.lines)


def _read_text(p: Path, src: str) -> str:
    """The stack file's text: at most MAX_CONFIG_BYTES of UTF-8; ConfigError naming `src` otherwise."""
    try:
        size = p.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError([Problem(src, f"is {size:,} bytes; stack files are limited to {MAX_CONFIG_BYTES:,}")])
        with p.open("rb") as f:  # read at most the limit: devices and pipes report size 0
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError([Problem(src, f"cannot read the stack file ({exc.strerror or exc})")]) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError([Problem(src, f"is larger than {MAX_CONFIG_BYTES:,} bytes, the limit for stack files")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError([Problem(src, f"is not UTF-8 text (byte {exc.start + 1}); stack files are UTF-8")]) from None


def _parse(text: str, src: str) -> tuple[Any, _StackLoader]:
    """The YAML document and the loader that read it (its line index, its repeated keys)."""
    loader = _StackLoader(text)
    try:
        return loader.get_single_data(), loader
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(src, f"is not valid YAML: {_yaml_problem(text, exc)}")]) from None
    except RecursionError:
        raise ConfigError([Problem(src, "is nested too deeply to be a stack configuration")]) from None
    finally:
        loader.dispose()


def _parts(container: Any, config: dict[str, Any], loader: _StackLoader) -> tuple | None:
    """The keys from `config:` down to a mapping or list; None when it is not under `config:`."""
    parts: list[Any] = []
    seen: set[int] = set()
    while container is not config:
        if id(container) in seen or id(container) not in loader.parents:
            return None
        seen.add(id(container))
        container, key = loader.parents[id(container)]
        parts.append(key)
    return tuple(reversed(parts))


def _repeated(where: list[tuple[int, int]]) -> str:
    lines = [line for line, _ in where]
    if len(set(lines)) == len(lines):
        shown = "lines " + ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    else:
        shown = ", ".join(f"line {line} column {column}" for line, column in where[:-1])
        shown += f" and line {where[-1][0]} column {where[-1][1]}"
    return (
        f"is written {len(where)} times in the same mapping ({shown}); YAML would keep only the last "
        "and silently drop the others, so merge them into one"
    )


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi stack file. Raises ConfigError for unreadable or malformed files,
    including keys repeated in one mapping."""
    document = read_stack_document(path)
    if document.problems:
        raise ConfigError(list(document.problems))
    return document.config


def load_stack_file(path: str | Path) -> StackConfig:
    return parse(read_stack_file(path), source=str(path))
