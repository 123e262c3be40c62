"""Reading a stack file (stacks/Pulumi.<stack>.yaml) safely: size, nesting and YAML alias limits first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import PROJECT, ConfigError, Problem, show
from .stack import StackConfig, parse

MAX_CONFIG_BYTES = 1_000_000  # a stack file larger than this is a mistake, not a configuration
MAX_CONFIG_VALUES = 500_000  # values in a stack file once YAML aliases are expanded (a 1 MB file holds far fewer)
MAX_CONFIG_DEPTH = 64  # mappings and lists nested in each other; the deepest setting is under 10
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster, same safe types


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


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi stack file. Raises ConfigError for unreadable or malformed files."""
    p = Path(path)
    src = str(path)
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
        doc = yaml.load(data.decode("utf-8"), Loader=_YAML_LOADER)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError([Problem(src, f"is not valid YAML: {first}")]) from None
    except RecursionError:
        raise ConfigError([Problem(src, "is nested too deeply to be a stack configuration")]) from None
    if err := _expanded_values(doc, MAX_CONFIG_VALUES):
        raise ConfigError([Problem(src, err)])
    if doc is None:
        raise ConfigError(
            [Problem(src, f"is empty; it needs a 'config:' mapping with at least {PROJECT}:environment and aws:region")]
        )
    if not isinstance(doc, dict):
        raise ConfigError([Problem(src, f"must be a YAML mapping with a 'config:' key (got {type(doc).__name__})")])
    extra = sorted(set(map(str, doc)) - {"config", "encryptionsalt", "secretsprovider", "encryptedkey", "environment"})
    if extra:
        raise ConfigError(
            [Problem(src, f"unknown top-level key(s) {', '.join(extra)}; stack settings go under 'config:'")]
        )
    config = doc.get("config")
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{src}: config", f"must be a mapping of settings (got {show(config)})")])
    return config


def load_stack_file(path: str | Path) -> StackConfig:
    return parse(read_stack_file(path), source=str(path))
