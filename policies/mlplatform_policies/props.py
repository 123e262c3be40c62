"""Reading resource properties the same way offline and in a real `pulumi preview`.

In a preview pulumi-policy hands validators proxies: dicts and lists arrive as
Mapping/Sequence proxies (not dict/list), numbers as floats, and a value that
is not known until deployment raises UnknownValueError when read. `get` turns
that into the UNKNOWN sentinel so one unknown ARN does not abort a whole
stack policy; rules treat UNKNOWN as "set, value not checkable yet". `require`
lets it through instead, for a rule whose verdict rests on the value: pulumi-policy
then reports the advisory "can't run policy ... during preview" and the rule runs
for real on `pulumi up`, when the value is known (pulumi_policy/policy.py Analyze).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from mlplatform_core.model.instances import catalog
from mlplatform_core.model.quantity import QuantityError, parse_quantity
from mlplatform_core.model.resource_types import EKS_CLUSTER, NODE_GROUP
from mlplatform_core.model.scheduling import (
    CRITICAL_ADDONS_TAINT,
    ENVIRONMENT_LABEL,
    Taint,
    Toleration,
)

from .pulumi_policy_internals import UnknownValueError


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __bool__(self) -> bool:
        return False


MISSING = _Sentinel("MISSING")
UNKNOWN = _Sentinel("UNKNOWN")

CORE_TAINT_KEY = CRITICAL_ADDONS_TAINT.key

# The core's instance catalog: types whose NVIDIA GPUs pods can request, and types with any accelerator.
NVIDIA_GPU_TYPES = frozenset(t.name for t in catalog().values() if t.nvidia_gpu)
ACCELERATED_TYPES = frozenset(t.name for t in catalog().values() if t.accelerated)
# Types the catalog knows only by their network limits: whether they have accelerators is unknown, so they are
# never taken for CPU types.
ACCELERATORS_UNKNOWN = frozenset(t.name for t in catalog().values() if not t.known)


def get(obj: Any, *path: Any, default: Any = MISSING) -> Any:
    """obj[path[0]][path[1]]...; `default` when absent, UNKNOWN when not known during a preview."""
    cur = obj
    for part in path:
        if cur is UNKNOWN:
            return UNKNOWN
        try:
            if (isinstance(part, int) and isinstance(cur, Sequence) and not isinstance(cur, str)) or isinstance(
                cur, Mapping
            ):
                cur = cur[part]
            else:
                return default
        except (KeyError, IndexError):
            return default
        except UnknownValueError:
            return UNKNOWN
    return cur


def require(obj: Any, *path: Any, default: Any = MISSING) -> Any:
    """obj[path[0]][path[1]]... as plain data, `default` when absent; a value unknown during a preview
    (anywhere inside it) raises pulumi-policy's UnknownValueError."""
    cur = obj
    for part in path:
        if isinstance(cur, Mapping):
            present = part in list(cur)  # `in` on the proxy would read the value
        else:
            sequence = isinstance(cur, Sequence) and not isinstance(cur, str)
            present = isinstance(part, int) and sequence and 0 <= part < len(cur)
        if not present:
            return default
        cur = cur[part]
    return _materialize(cur)


def _materialize(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _materialize(value[k]) for k in list(value)}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_materialize(value[i]) for i in range(len(value))]
    return value


def items(seq: Any) -> Iterator[Any]:
    """Elements of a list property (nothing when absent or unknown; UNKNOWN for unknown elements)."""
    if isinstance(seq, Sequence) and not isinstance(seq, str):
        for i in range(len(seq)):
            yield get(seq, i)


def entries(mapping: Any) -> dict[str, Any]:
    """A mapping property as a plain dict (empty when absent or unknown; UNKNOWN for unknown values)."""
    if not isinstance(mapping, Mapping):
        return {}
    return {k: get(mapping, k) for k in list(mapping)}


def plain(value: Any) -> Any:
    """A property as plain dicts/lists (for JSON documents and messages)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in entries(value).items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [plain(v) for v in items(value)]
    return value


def known(value: Any) -> bool:
    return value is not MISSING and value is not UNKNOWN


def number(value: Any) -> int | Decimal | None:
    """A number property, exactly: numbers arrive as floats in a preview (3.0) and as ints offline, so an
    integral one is an int and any other the decimal it was written as; None when not a (finite) number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return value
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else Decimal(repr(value))


def fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(plain(value)) if not isinstance(value, str) else value


def truthy(value: Any) -> bool:
    """Boolean inputs some providers type as strings (LaunchTemplate EBS `encrypted` is "true")."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def tags_of(props: Any) -> dict[str, Any]:
    return entries(get(props, "tags", default={}))


def environment(props: Any) -> str | None:
    """The toolkit's environment tag (or node label) on a resource, None when it carries none."""
    for where in ("tags", "labels"):
        env = get(props, where, ENVIRONMENT_LABEL)
        if isinstance(env, str):
            return env
    # Node classes (Karpenter's EC2NodeClass, Auto Mode's NodeClass) tag their instances and NodePools label their
    # nodes: the environment of a Kubernetes-layer stack whose only tagged resources they are (Auto Mode installs
    # no add-on of its own).
    paths = (("metadata", "labels"), ("spec", "tags"), ("spec", "template", "metadata", "labels"))
    for path in paths:
        env = get(props, *path, ENVIRONMENT_LABEL)
        if isinstance(env, str):
            return env
    return None


def prod_rules(env: str | None) -> bool:
    # Only an explicit "dev" relaxes prod's rules: a missing tag must not loosen the gate.
    return env != "dev"


def stack_environment(resources: Iterable[Any]) -> str | None:
    """The environment of a stack: the cluster's tag, else the node groups' label, else any resource's tag.

    A separate Kubernetes-layer stack (kubernetes-layer/) holds no cluster or node group; its IAM roles
    and EKS add-ons carry the environment tag.
    """
    resources = list(resources)
    for r in resources:
        if r.resource_type in (EKS_CLUSTER, NODE_GROUP):
            env = environment(r.props)
            if env:
                return env
    for r in resources:
        env = environment(r.props)
        if env:
            return env
    return None


def is_nvidia_gpu(itype: str) -> bool:
    return itype in NVIDIA_GPU_TYPES


def is_accelerated(itype: str) -> bool:
    """Has a GPU or another accelerator, or may have (its accelerators are unknown)."""
    return itype in ACCELERATED_TYPES or itype in ACCELERATORS_UNKNOWN


# --- taints and quantities: the core's (Kubernetes semantics) ------------------------------------


def taints_of(props: Any) -> list[Taint]:
    """A node group's taints with Kubernetes effect spelling (the EKS API writes NO_SCHEDULE...); a part that
    is not a string (unknown during a preview) reads as empty."""
    out = []
    for t in items(get(props, "taints", default=[])):
        key, value, effect = (get(t, part) for part in ("key", "value", "effect"))
        out.append(Taint.from_eks(*(x if isinstance(x, str) else "" for x in (key, value, effect))))
    return out


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """Whether a toleration as written in a pod spec (or MLRun's settings) tolerates `taint`."""
    return Toleration.from_dict(toleration).tolerates(taint)


def quantity(value: Any) -> Fraction | None:
    """A Kubernetes quantity ("500m", "4Gi", 2, 0.5) as the core reads it, exactly; None when it is not one."""
    try:
        return parse_quantity(value)
    except QuantityError:
        return None
