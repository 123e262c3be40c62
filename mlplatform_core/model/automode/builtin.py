"""Auto Mode's built-in NodePools, `system` and `general-purpose`, as the layout and the proof see them.

EKS user guide (awsdocs/amazon-eks-user-guide latest/ug/automode/set-builtin-node-pools.adoc, "Built-in
NodePool Reference"): `system` has a CriticalAddonsOnly taint and runs amd64 and arm64; `general-purpose`
runs amd64 only; both use the `default` NodeClass, on-demand capacity only, the C, M and R families,
generation 5 or newer. Auto Mode launches only types with more than 1 CPU that are not nano, micro or
small (automode-learn-instances.adoc, "EKS Auto Mode supported instance reference"). Built-in pools
cannot be modified (create-node-pool.adoc), so their nodes carry none of the toolkit's labels; a workload
finds the system pool by `karpenter.sh/nodepool: system` and tolerates CriticalAddonsOnly with Exists
(critical-workload.adoc), which matches the taint whatever its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .. import instances
from ..scheduling import CRITICAL_ADDONS_TAINT, Taint

SYSTEM_POOL, GENERAL_PURPOSE_POOL = "system", "general-purpose"
BUILTIN_POOLS = (SYSTEM_POOL, GENERAL_PURPOSE_POOL)
DEFAULT_NODE_CLASS = "default"  # what EKS creates for the built-in pools; "Do not name your custom node class default"
# The default NodeClass's ephemeral storage (create-node-class.adoc, "shown with default values": 80Gi).
DEFAULT_EPHEMERAL_STORAGE_GIB = 80
SYSTEM_TAINT = Taint(CRITICAL_ADDONS_TAINT.key, "", "NoSchedule")
CATEGORIES = ("c", "m", "r")
MIN_GENERATION = 5
TOO_SMALL_SIZES = ("nano", "micro", "small")
_SCHEME = re.compile(r"^([a-z]+)([0-9]+)")


@dataclass(frozen=True)
class BuiltinPool:
    name: str
    arches: tuple[str, ...]  # x86_64, arm64 (catalog spelling)
    taints: tuple[Taint, ...]

    @property
    def instance_types(self) -> tuple[str, ...]:
        return builtin_types(self.arches)


SYSTEM = BuiltinPool(SYSTEM_POOL, ("x86_64", "arm64"), (SYSTEM_TAINT,))
GENERAL_PURPOSE = BuiltinPool(GENERAL_PURPOSE_POOL, ("x86_64",), ())


def launchable(t: instances.InstanceType) -> bool:
    """Whether Auto Mode launches the type at all: more than 1 CPU, not nano/micro/small."""
    size = t.name.partition(".")[2]
    return t.vcpu is not None and t.vcpu > 1 and not any(size == s for s in TOO_SMALL_SIZES)


@cache
def builtin_types(arches: tuple[str, ...]) -> tuple[str, ...]:
    """The catalog types a built-in pool may launch, smallest first."""
    found = []
    for t in instances.catalog().values():
        m = _SCHEME.match(t.name)
        if not (m and m[1] in CATEGORIES and int(m[2]) >= MIN_GENERATION):
            continue
        if t.known and t.arch in arches and not t.accelerated and launchable(t):
            found.append(t)
    return tuple(t.name for t in sorted(found, key=lambda t: (t.vcpu or 0, t.memory_mib or 0, t.name)))
