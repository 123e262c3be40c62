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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from .resource_types import EKS_CLUSTER, NODE_GROUP


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __bool__(self) -> bool:
        return False


MISSING = _Sentinel("MISSING")
UNKNOWN = _Sentinel("UNKNOWN")

ENV_KEY = "mlplatform.io/environment"
ROLE_LABEL = "mlplatform.io/node-role"
LIFECYCLE_LABEL = "app.iguazio.com/lifecycle"
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"  # the Cluster Autoscaler's GPU label (AWS provider)
GPU_RESOURCE = "nvidia.com/gpu"
CORE_TAINT_KEY = "CriticalAddonsOnly"
AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"
# AL2 GPU AMIs reached end of support on 2025-11-26: not accepted.
GPU_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
)
CONTROL_PLANE_LOG_TYPES = ("api", "audit", "authenticator", "controllerManager", "scheduler")

# The pack runs in its own venv (pulumi_policy + stdlib), so it keeps its own copy of the accelerated
# instance types, generated with the toolkit's instance catalog (scripts/generate_instance_catalog.py);
# a test keeps the two equal.
_ACCELERATED = json.loads((Path(__file__).resolve().parent / "accelerated_instance_types.json").read_text())
NVIDIA_GPU_TYPES = frozenset(_ACCELERATED["nvidia_gpu"])  # pods can request nvidia.com/gpu on them
ACCELERATED_TYPES = frozenset(_ACCELERATED["accelerated"])  # any GPU (fractional too) or other accelerator


_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}


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


def number(value: Any) -> float | None:
    """Numbers arrive as floats in a preview and as ints offline; None when not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(plain(value)) if not isinstance(value, str) else value


def truthy(value: Any) -> bool:
    """Boolean inputs some providers type as strings (LaunchTemplate EBS `encrypted` is "true")."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def tags_of(props: Any) -> dict[str, Any]:
    return entries(get(props, "tags", default={}))


def environment(props: Any) -> str | None:
    """The toolkit's environment tag (or node label) on a resource, None when it carries none."""
    for where in ("tags", "labels"):
        env = get(props, where, ENV_KEY)
        if isinstance(env, str):
            return env
    env = get(props, "metadata", "labels", ENV_KEY)
    return env if isinstance(env, str) else None


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
    return itype in ACCELERATED_TYPES


# --- taints and tolerations (Kubernetes semantics) ------------------------------------------


def k8s_effect(effect: Any) -> str:
    return _EFFECTS.get(effect, effect) if isinstance(effect, str) else ""


def taints_of(props: Any) -> list[tuple[str, str, str]]:
    """A node group's taints as (key, value, effect) with Kubernetes effect spelling."""
    out = []
    for t in items(get(props, "taints", default=[])):
        key, value, effect = get(t, "key"), get(t, "value", default=""), get(t, "effect")
        out.append((key if isinstance(key, str) else "", value if isinstance(value, str) else "", k8s_effect(effect)))
    return out


def repels(taint: tuple[str, str, str]) -> bool:
    # PreferNoSchedule only lowers a node's score; it keeps nobody off.
    return taint[2] in ("NoSchedule", "NoExecute")


def tolerates(toleration: Mapping[str, Any], taint: tuple[str, str, str]) -> bool:
    """Kubernetes' ToleratesTaint."""
    key, value, effect = taint
    t_key = toleration.get("key") or ""
    t_op = toleration.get("operator") or "Equal"
    t_value = toleration.get("value") or ""
    t_effect = toleration.get("effect") or ""
    if t_effect and t_effect != effect:
        return False
    if t_key and t_key != key:
        return False
    if t_op == "Exists":
        return True
    if not t_key:
        return False
    return t_op == "Equal" and t_value == value


def show_taint(taint: tuple[str, str, str]) -> str:
    key, value, effect = taint
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


# --- Kubernetes quantities ----------------------------------------------------------------------
# The twin of mlplatform_core/model/quantity.py: the pack runs in its own venv and imports only
# pulumi_policy, so it cannot share the core's parser. tests/policies/test_quantities.py keeps them equal.

_SUFFIXES = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}


def quantity(value: Any) -> Fraction | None:
    """A Kubernetes quantity ("500m", "4Gi", 2) as an exact number; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Fraction(value)
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            number_part, scale = text[: -len(suffix)], _SUFFIXES[suffix]
            break
    else:
        number_part, scale = text, Fraction(1)
    try:
        return Fraction(number_part) * scale
    except (ValueError, ZeroDivisionError):
        return None
