"""Stacks of one run that would create the same EKS cluster: refused before either is planned or checked.

EKS names a cluster once per account and region; two stacks whose cluster names and regions match, in
accounts that may be the same (core: mlplatform_core/model/config/cluster_name.py), would fight over one
cluster. Each stack's file is read for its name and region only; a stack that cannot be read is left to
its own run, which reports why.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlplatform_core.errors import InputError
from mlplatform_core.model.config import ConfigError, key_path, parse, read_stack_file
from mlplatform_core.model.config.cluster_name import StackCluster, accounts_of, colliding_pairs, collision_message

from .documents import shown_path
from .project import Project
from .stacks import Target, resolve_stack


def colliding(project: Project, targets: Sequence[Target]) -> dict[Target, str]:
    """The targets refused because another target of the run creates the same cluster, with the reason."""
    if len(targets) < 2:
        return {}
    found: dict[str, tuple[Target, StackCluster]] = {}
    for target in targets:
        try:
            name, path = resolve_stack(project, target.stack, target.config_file)
            raw = read_stack_file(path)
            cfg = parse(raw)
        except (ConfigError, InputError):
            continue
        source = shown_path(path, project.root)
        found[source] = (target, StackCluster(name, source, cfg.cluster_name_for(name), cfg.region, accounts_of(raw)))
    refused: dict[Target, str] = {}
    for first, second in colliding_pairs(cluster for _, cluster in found.values()):
        message = collision_message(first, second)
        for stack in (first, second):  # neither may be deployed as it stands
            refused.setdefault(found[stack.source][0], f"{stack.source}: {key_path('clusterName')}: {message}")
    return refused
