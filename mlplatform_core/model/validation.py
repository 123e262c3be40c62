"""Every problem of a stack at once: the file, the keys, the settings, the layout and the workload layer.

The settings model, the layout and the workload layer each check what they know. Run one after the
other, the first to fail would hide the others, so a file with a typo in one group and a bad size in
another would need two rounds to fix. `validate_stack` gathers them: when the model refuses some
settings, it sets those settings aside (as if the file did not write them), builds the layout and
the workload layer from the rest, and adds their problems too, except where setting a value aside
could itself cause a problem (the same group, namespace or section), so nothing is falsely flagged.
Problems from a stack file carry the line they point at.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .addons.proof import prove
from .addons.releases import DeployTimeValues
from .config import ConfigError, Problem, StackConfig, key_path
from .config.stack import cross_setting_problems, model_problems, split_keys
from .config.stack_file import StackDocument
from .layout import Layout, build_layout
from .workloads import Workloads, build_workloads

_ANY_REGION = "us-east-1"
_MAX_ROUNDS = 3  # setting a value aside rarely uncovers another invalid one; a few rounds always suffice


@dataclass(frozen=True)
class ValidStack:
    config: StackConfig
    layout: Layout
    workloads: Workloads


def _set_aside(data: dict[str, Any], loc: tuple) -> tuple | None:
    """Remove the setting at `loc` (a pydantic error location) from `data`; the location removed, or None.

    Stops at the deepest mapping key the data has, and never deletes a list item (the items after it
    would change index): an invalid item removes the whole list.
    """
    node: Any = data
    owner, key, removed = None, None, ()
    for depth, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            owner, key, removed = node, part, loc[: depth + 1]
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            break
    if owner is None:
        return None
    del owner[key]
    return removed


def _partial_config(data: dict[str, Any], exc: ValidationError) -> tuple[StackConfig | None, list[tuple]]:
    """The model built from the settings the model accepts, and the locations set aside to get there."""
    data = copy.deepcopy(data)
    removed: list[tuple] = []
    for _ in range(_MAX_ROUNDS):
        for err in exc.errors(include_url=False):
            where = tuple(err["loc"])
            if err["type"] == "missing":
                if where == ("region",):  # neither the layout nor the workload layer reads the region
                    data["region"] = _ANY_REGION
                    removed.append(where)  # a placeholder: checks that read the region are skipped
                    continue
                if len(where) == 1:  # the environment: nothing to build on
                    return None, removed
                where = where[:-1]  # the mapping that lacks a required key
            loc = _set_aside(data, where)
            if loc is None:
                return None, removed
            removed.append(loc)
        try:
            return StackConfig.model_validate(data), removed
        except ValidationError as again:
            exc = again
    return None, removed


def _reach(loc: tuple) -> list[str]:
    """The key paths whose checks may read the setting at `loc`: its node group, its workload namespace (and
    the MLRun namespace choice, which needs an enabled namespace), the rest of the workload layer as a whole
    (priority classes rank against each other), or else its own section."""
    if loc[:2] == ("workloads", "namespaces") and len(loc) > 2:
        return [key_path(*loc[:3]), key_path("workloads", "mlrunNamespace")]
    if loc[:1] == ("workloads",):
        return [key_path("workloads")]
    return [key_path(*loc[:2])]


def _derived(problems: Sequence[Problem], removed: Sequence[tuple], whole: tuple[str, ...] = ()) -> list[Problem]:
    """The problems that cannot come from a setting set aside. Setting aside a setting in `whole` (the spot
    taint, on every spot group) may affect anything, so then none are kept."""
    if any(loc[:1] in [(w,) for w in whole] for loc in removed):
        return []
    prefixes = [x for loc in removed for x in _reach(loc)]
    return [p for p in problems if not any(p.path == x or p.path.startswith((x + ".", x + "[")) for x in prefixes)]


def validate_stack(
    raw: Mapping[str, Any], stack: str, source: str | None = None, document: StackDocument | None = None
) -> ValidStack:
    """The model, layout and workload layer of a stack's `config:` mapping. Raises one ConfigError with
    every problem found: the file's (`document`), the keys', the settings', the layout's and the workloads'."""
    data, problems = split_keys(raw)
    removed: list[tuple] = []
    cfg: StackConfig | None
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as exc:
        problems += model_problems(exc, raw)
        cfg, removed = _partial_config(data, exc)
    layout = workloads = None
    if cfg is not None:
        problems += cross_setting_problems(cfg, set_aside={str(loc[0]) for loc in removed})
        try:
            layout = build_layout(cfg, stack)
        except ConfigError as err:
            problems += _derived(err.problems, removed, whole=("spotTaint",))
        else:
            problems += _derived(addon_problems(cfg, layout), removed)
        try:
            workloads = build_workloads(cfg)
        except ConfigError as err:
            problems += _derived(err.problems, removed)
    if problems or (document and document.problems) or layout is None or workloads is None:
        if document is not None:  # the file's own problems (repeated keys) name their lines already
            problems = list(document.problems) + [
                Problem(p.path, p.message, p.line or document.line_of(p.path)) for p in problems
            ]
        raise ConfigError(_unique(problems), source)
    return ValidStack(cfg, layout, workloads)


def addon_problems(cfg: StackConfig, layout: Layout) -> list[Problem]:
    """The add-on charts of the stack's Kubernetes minor, proven as they render with the stack's values."""
    at_deploy = DeployTimeValues(
        region=cfg.region, image_registry=cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas
    )
    return [Problem(key_path("kubernetesVersion"), p) for p in prove(layout, at_deploy).problems]


def _unique(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))
