"""Typo'd keys: a toleration, nodeSelector or node affinity key no node of the stack has, but close to one it has.

Pure Python. A misspelt taint key in a toleration (`app.iguazio.com/lifecyle`) tolerates nothing, and the pod
silently stays off the nodes it was meant for; a misspelt label key in a selector matches no node. Neither is
an error the API server reports. `key_warnings` names each such key with the stack's own key it most likely
means, from the keys the stack's nodes carry (`stack_keys`: every taint key and label key of every group,
and the per-node labels every node has). Keys of Kubernetes' own (`*kubernetes.io/*`: its taints such as
node.kubernetes.io/not-ready, its well-known labels) are never questioned, and a key close to none of the
stack's is a key of the user's own, left alone.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache

from .pods import Pod
from .templates import PER_NODE_LABELS, NodeTemplate

# How alike two keys must be (difflib's ratio): app.iguazio.com/lifecyle and app.iguazio.com/lifecycle are
# 0.98; two distinct keys of one domain (mlplatform.io/node-role, mlplatform.io/node-group) are below.
CUTOFF = 0.9


def stack_keys(templates: Iterable[NodeTemplate]) -> frozenset[str]:
    """Every taint key and label key the stack's nodes carry (every instance type's labels, every group)."""
    keys: set[str] = set(PER_NODE_LABELS)
    for t in templates:
        keys.update(taint.key for taint in t.taints)
        keys.update(t.labels)
        for v in t.variants:
            keys.update(v.labels)
    return frozenset(keys)


def _kubernetes_own(key: str) -> bool:
    domain = key.split("/", 1)[0] if "/" in key else ""
    return domain == "kubernetes.io" or domain.endswith(".kubernetes.io")


@lru_cache(maxsize=4096)  # a manifest of many pods repeats its keys; difflib per pod would add up
def _near(key: str, keys: frozenset[str], of: str) -> str | None:
    if not key or key in keys or _kubernetes_own(key):
        return None
    close = difflib.get_close_matches(key, sorted(keys), n=1, cutoff=CUTOFF)
    close = close or sorted(k for k in keys if len(k) >= 4 and _one_edit(key, k))[:1]
    if not close:
        return None
    return f"{of} key {key!r} is on no node of this stack; did you mean {close[0]!r}?"


def _one_edit(a: str, b: str) -> bool:
    """One letter added, dropped, changed or two swapped (short keys: `teams` for `team`, below the ratio)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def key_warnings(pod: Pod, keys: frozenset[str]) -> list[str]:
    """A did-you-mean per toleration, nodeSelector and node affinity key that is close to, but not, a key of the
    stack's nodes."""
    found: list[str | None] = []
    found += [_near(t.key, keys, "toleration") for t in pod.tolerations]
    found += [_near(k, keys, "nodeSelector") for k in pod.node_selector]
    terms = [*(pod.required_terms or ()), *(p.term for p in pod.preferred_terms)]
    found += [_near(r.key, keys, "node affinity") for term in terms for r in term.expressions]
    return list(dict.fromkeys(w for w in found if w))
