"""What a NodePool may launch: its instance types, from the group's list or from whole families (and sizes).

Pure Python, used by pools.py for both Karpenters. A pool that selects by family launches every catalog
type of those families (and sizes): they must exist, hold one architecture (the pool's AMI's) and be
NVIDIA GPU families in GPU pools only.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from .. import instances
from ..config.karpenter_settings import NodePoolSettings
from ..config.node_groups import NodeGroupSettings
from . import capacity as cap

Add = Callable[[tuple, str], None]


def ami_arch(ami_type: str) -> str:
    return "arm64" if "ARM" in ami_type else "x86_64"


def _suggest(name: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def candidates(
    g: Any, ps: NodePoolSettings, o: NodeGroupSettings, ppath: tuple, gpath: tuple, add: Add
) -> tuple[tuple[str, ...], str] | None:
    """The types the pool may launch and its AMI type; None (problems added) when they cannot be told."""
    if not ps.instance_families:
        if ps.instance_sizes:
            add(ppath + ("instanceSizes",), "needs instanceFamilies: sizes narrow the families a pool selects")
        return g.instance_types, g.ami_type
    if o.instance_types:
        add(
            ppath + ("instanceFamilies",),
            f"set together with {'.'.join(map(str, gpath))}.instanceTypes; a pool selects instance types "
            "either by name or by family, so drop one of the two",
        )
        return None
    sizes = ps.instance_sizes
    sizes_ok = _sizes_known(sizes, ppath, add)
    members = cap.family_members(ps.instance_families, sizes)
    if not _families_fit(g, ps, members, ppath, add) or not sizes_ok:
        return None
    found = [t for fam in ps.instance_families for t in members[fam]]
    if not found:
        add(
            ppath + ("instanceFamilies",),
            f"families {list(ps.instance_families)} with sizes {list(sizes or [])} match no instance type in the "
            f"catalog (EC2 data as of {instances.catalog_date()}); the pool could never launch a node",
        )
        return None
    ami = _ami_type(g, ps, o, found, ppath, add)
    return None if ami is None else (tuple(t.name for t in found), ami)


def _sizes_known(sizes: Any, ppath: tuple, add: Add) -> bool:
    """Whether every size of instanceSizes is in the catalog (a problem added for each that is not)."""
    ok = True
    for i, size in enumerate(sizes or ()):
        if size not in cap.known_sizes():
            add(
                ppath + ("instanceSizes", i),
                f"{size!r} is not an instance size in the catalog{_suggest(size, cap.known_sizes())}",
            )
            ok = False
    return ok


def _families_fit(g: Any, ps: NodePoolSettings, members: dict, ppath: tuple, add: Add) -> bool:
    """Whether every family exists and fits the pool (GPU pools: NVIDIA GPU families only; other pools: no
    accelerators, known or not), a problem added for each that does not."""
    ok = True
    for i, fam in enumerate(ps.instance_families):
        where = ppath + ("instanceFamilies", i)
        if fam not in cap.known_families():
            add(where, f"{fam!r} is not an instance family in the catalog{_suggest(fam, cap.known_families())}")
            ok = False
            continue
        problem = _family_problem(fam, members[fam], g.gpu)
        if problem:
            add(where, problem)
            ok = False
    return ok


def _family_problem(fam: str, types: Any, gpu: bool) -> str | None:
    """Why a catalog family does not fit a GPU (or a non-GPU) pool; None when it does."""
    if gpu and not all(t.nvidia_gpu for t in types):
        examples = ", ".join(sorted({instances.family(t) for t in instances.nvidia_gpu_examples()}))
        return f"{fam!r} has types without a whole NVIDIA GPU; a GPU pool needs NVIDIA GPU families such as {examples}"
    if not gpu and any(t.accelerated for t in types):
        return (
            f"{fam!r} has accelerators; accelerated families belong only in the gpu pool or an additional "
            "group with gpu: true"
        )
    if not gpu and (unknown := [t.name for t in types if not t.known]):
        return (
            f"{fam!r} has types whose accelerators are unknown ({', '.join(unknown[:4])}): "
            f"{instances.UNKNOWN_ACCELERATORS}; pick instanceSizes without them, or families the catalog describes"
        )
    return None


def _ami_type(g: Any, ps: NodePoolSettings, o: NodeGroupSettings, found: list, ppath: tuple, add: Add) -> str | None:
    """The pool's AMI type: the group's, which every type must match, or the one of the types' single
    architecture; None (a problem added) when they do not agree."""
    arches = sorted({t.arch for t in found if t.arch})
    if o.ami_type:
        ami = o.ami_type
        wrong = [t.name for t in found if t.arch and t.arch != ami_arch(ami)]
        if wrong:
            add(
                ppath + ("instanceFamilies",),
                f"types {', '.join(wrong[:4])}{'...' if len(wrong) > 4 else ''} are not {ami_arch(ami)} like "
                f"amiType {ami}; pick families of one architecture",
            )
            return None
        return ami
    if len(arches) > 1:
        add(
            ppath + ("instanceFamilies",),
            f"families {list(ps.instance_families)} mix {' and '.join(arches)}; a pool has one architecture "
            "(its AMI's), so split them into two groups",
        )
        return None
    arch = "ARM_64" if arches == ["arm64"] else "x86_64"
    return f"AL2023_{arch}_{'NVIDIA' if g.gpu else 'STANDARD'}"
