"""Every problem of a stack at once: the file, the keys, the settings, the layout and the workload layer.

The settings model, the layout and the workload layer each check what they know. Run one after the
other, the first to fail would hide the others, so a file with a typo in one group and a bad size in
another would need two rounds to fix. `validate_stack` gathers them: when the model refuses some
settings, it sets those settings aside (as if the file did not write them), builds the layout and
the workload layer from the rest, and adds their problems too, except where setting a value aside
could itself cause a problem (the same group, namespace or section), so nothing is falsely flagged.
Problems from a stack file carry the line they point at.

Validation is about the settings: the add-on charts' proof (`prove_charts`) runs after it, once, in the
plan's proofs (and in the program when the real Pulumi CLI runs it). `validated` is the seam through which
the offline engine hands the stack it already validated to the program it runs, so a `plan` validates once.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .addons.kueue import kueue_release
from .addons.proof import ChartProof, prove
from .addons.releases import DeployTimeValues
from .config import ConfigError, Problem, StackConfig, key_path
from .config.karpenter_settings import PROVISIONERS
from .config.stack import cross_setting_problems, model_problems, split_keys
from .config.stack_file import StackDocument
from .layout import Layout, build_layout
from .layout.gpu import whole_nodes
from .teams import Teams, build_teams
from .teams.namespaces import label_team_namespaces
from .workloads import Workloads, build_workloads

_ANY_REGION = "us-east-1"
_MAX_ROUNDS = 3  # setting a value aside rarely uncovers another invalid one; a few rounds always suffice


@dataclass(frozen=True)
class ValidStack:
    config: StackConfig
    layout: Layout
    workloads: Workloads
    teams: Teams | None = None  # the stack's teams (Kueue); None: no `teams`, no Kueue


class _SetAside:
    """Settings set aside so the rest can be checked, and which original item each list item now is.

    An invalid list item (an additional node group, an access entry) is taken out of its list, not the
    whole list, so every other item is still checked; the items after it move up, so problems about
    them are put back at the index the file gives them (`original`, `original_path`). Lists inside list
    items are not tracked: their invalid items set the enclosing key aside, as before.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.removed: list[tuple] = []  # locations in the file's own indices
        self.names: list[str] = []  # names of list items set aside (settings elsewhere may refer to them)
        self.positions: dict[tuple, list[int]] = {}  # list path (mapping keys only) -> original index of each item
        self._items: list[tuple[list, tuple, int]] = []  # (list, path, index) to take out at the end of a round

    def original(self, loc: tuple) -> tuple:
        out = list(loc)
        for i, part in enumerate(loc):
            if isinstance(part, int) and tuple(loc[:i]) in self.positions:
                out[i] = self.positions[tuple(loc[:i])][part]
        return tuple(out)

    def original_path(self, path: str) -> str:
        for list_path, positions in self.positions.items():
            prefix = key_path(*list_path)
            found = re.match(re.escape(prefix) + r"\[(\d+)\]", path)
            if found and int(found.group(1)) < len(positions):
                return f"{prefix}[{positions[int(found.group(1))]}]" + path[found.end() :]
        return path

    def restored(self, problems: Sequence[Problem]) -> list[Problem]:
        """`problems` of the settings left, at the indices the file gives."""
        return [Problem(self.original_path(p.path), p.message, p.line) for p in problems]

    def take(self, loc: tuple) -> bool:
        """Set aside the setting at `loc` (a pydantic error location): the deepest mapping key the data has, or
        the list item itself when `loc` ends at one. False when nothing could be set aside."""
        node: Any = self.data
        owner, key, depth_taken = None, None, 0
        for depth, part in enumerate(loc):
            if isinstance(node, dict) and part in node:
                owner, key, depth_taken = node, part, depth + 1
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                path = loc[:depth]
                if depth + 1 == len(loc) and all(isinstance(p, str) for p in path):
                    if any(items is node and index == part for items, _, index in self._items):
                        return True
                    self._items.append((node, path, part))
                    self.removed.append(self.original(loc))
                    if isinstance(node[part], dict) and isinstance(node[part].get("name"), str):
                        self.names.append(node[part]["name"])
                    return True
                node = node[part]
            else:
                break
        if owner is None:
            return False
        del owner[key]
        self.removed.append(self.original(loc[:depth_taken]))
        return True

    def end_round(self) -> None:
        """Take the list items set aside this round out of their lists, the last first."""
        for items, path, index in sorted(self._items, key=lambda t: -t[2]):
            if index < len(items):
                del items[index]
                positions = self.positions.setdefault(path, list(range(len(items) + 1)))
                del positions[index]
        self._items.clear()


def _partial_config(data: dict[str, Any], exc: ValidationError) -> tuple[StackConfig | None, _SetAside]:
    """The model built from the settings the model accepts, and what was set aside to get there."""
    aside = _SetAside(copy.deepcopy(data))
    for _ in range(_MAX_ROUNDS):
        for err in exc.errors(include_url=False):
            where = tuple(err["loc"])
            if err["type"] == "missing":
                if where == ("region",):  # neither the layout nor the workload layer reads the region
                    aside.data["region"] = _ANY_REGION
                    aside.removed.append(where)  # a placeholder: checks that read the region are skipped
                    continue
                if len(where) == 1:  # the environment: nothing to build on
                    return None, aside
                where = where[:-1]  # the mapping that lacks a required key
            if not aside.take(where):
                return None, aside
        aside.end_round()
        try:
            return StackConfig.model_validate(aside.data), aside
        except ValidationError as again:
            exc = again
    return None, aside


def _reach(loc: tuple) -> list[str]:
    """The key paths whose checks may read the setting at `loc`: its node group, its workload namespace (and
    the MLRun namespace choice, which needs an enabled namespace), the rest of the workload layer as a whole
    (priority classes rank against each other), or else its own section."""
    if loc[:2] == ("workloads", "namespaces") and len(loc) > 2:
        return [key_path(*loc[:3]), key_path("workloads", "mlrunNamespace")]
    if loc[:1] == ("workloads",):
        return [key_path("workloads")]
    return [key_path(*loc[:2])]


def _derived(problems: Sequence[Problem], aside: _SetAside, whole: tuple[str, ...] = ()) -> list[Problem]:
    """The problems that cannot come from a setting set aside. Setting aside a setting in `whole` (the spot
    taint, on every spot group) may affect anything, so then none are kept. A group set aside takes the
    settings that name it (its NodePool settings) with it."""
    if any(loc[:1] in [(w,) for w in whole] for loc in aside.removed):
        return []
    prefixes = [x for loc in aside.removed for x in _reach(loc)]
    prefixes += [key_path("karpenter", "nodePools", name) for name in aside.names]
    return [p for p in problems if not any(p.path == x or p.path.startswith((x + ".", x + "[")) for x in prefixes)]


# Settings the whole layout depends on, with every value they may take: when one is set aside (invalid), the
# layout's problems are those it has whichever value is chosen, so none only repeats the invalid choice.
_CHOICES: dict[str, tuple[str, ...]] = {"provisioner": PROVISIONERS}


def _whatever_chosen(cfg: StackConfig, stack: str, aside: _SetAside, err: ConfigError) -> list[Problem]:
    """The layout's problems, keeping only those every valid value of a set-aside choice (_CHOICES) has too."""
    problems = err.problems
    for setting, values in _CHOICES.items():
        if (setting,) not in aside.removed:
            continue
        field = next(n for n, f in StackConfig.model_fields.items() if (f.alias or n) == setting)
        for value in values:
            try:
                build_layout(cfg.model_copy(update={field: value}), stack)
                return []
            except ConfigError as other:
                problems = [p for p in problems if p in set(other.problems)]
    return problems


def validate_stack(
    raw: Mapping[str, Any], stack: str, source: str | None = None, document: StackDocument | None = None
) -> ValidStack:
    """The model, layout and workload layer of a stack's `config:` mapping. Raises one ConfigError with
    every problem found: the file's (`document`), the keys', the settings', the layout's and the workloads'."""
    data, problems = split_keys(raw)
    aside = _SetAside(data)
    cfg: StackConfig | None
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as exc:
        problems += model_problems(exc, raw)
        cfg, aside = _partial_config(data, exc)
    layout = workloads = None
    if cfg is not None:
        problems += cross_setting_problems(cfg, set_aside={str(loc[0]) for loc in aside.removed})
        try:
            layout = build_layout(cfg, stack)
        except ConfigError as err:
            problems += _derived(aside.restored(_whatever_chosen(cfg, stack, aside, err)), aside, whole=("spotTaint",))
        try:
            workloads = build_workloads(cfg, whole_nodes(layout.node_sources) if layout is not None else ())
        except ConfigError as err:
            problems += _derived(aside.restored(err.problems), aside)
    teams = None
    if cfg is not None and layout is not None and workloads is not None:
        try:
            teams = build_teams(cfg, layout, workloads)
        except ConfigError as err:
            problems += err.problems
        workloads, labelled = label_team_namespaces(workloads, teams)  # mlplatform.io/team on team namespaces
        problems += labelled
    if problems or (document and document.problems) or layout is None or workloads is None:
        if document is not None:  # the file's own problems (repeated keys) name their lines already
            problems = list(document.problems) + [
                Problem(p.path, p.message, p.line or document.line_of(p.path)) for p in problems
            ]
        raise ConfigError(_unique(problems), source)
    return ValidStack(cfg, layout, workloads, teams)


def prove_charts(valid: ValidStack, source: str | None = None, document: StackDocument | None = None) -> ChartProof:
    """The add-on charts of the stack's Kubernetes minor, proven as they render with the stack's values: the
    proof, or one ConfigError (on kubernetesVersion, with its line in `document`) with every chart problem."""
    cfg = valid.config
    at_deploy = DeployTimeValues(
        region=cfg.region, image_registry=cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas
    )
    # A stack with teams also installs Kueue (model/addons/kueue.py), proven like the layout's charts.
    team_release = kueue_release(valid.layout, valid.teams, cfg.image_registry)
    proof = prove(valid.layout, at_deploy, extra=() if team_release is None else (team_release,))
    if proof.problems:
        path = key_path("kubernetesVersion")
        line = document.line_of(path) if document is not None else None
        raise ConfigError(_unique([Problem(path, p, line) for p in proof.problems]), source)
    return proof


# What the offline engine already validated, by stack name, while it runs that stack's programs.
_VALIDATED: ContextVar[tuple[str, ValidStack] | None] = ContextVar("mlplatform_validated_stack", default=None)


@contextmanager
def validated(stack: str, valid: ValidStack) -> Iterator[None]:
    """While the offline engine runs `stack`'s programs from the stack file it validated: they read `valid`
    (`validated_for`) instead of validating the same settings again."""
    token = _VALIDATED.set((stack, valid))
    try:
        yield
    finally:
        _VALIDATED.reset(token)


def validated_for(stack: str) -> ValidStack | None:
    """The stack handed over by `validated` for `stack`; None when nothing was (the real Pulumi CLI runs the
    program, or another stack's run): the program then validates its config itself."""
    given = _VALIDATED.get()
    return given[1] if given is not None and given[0] == stack else None


def _unique(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))
