"""Helm's values as the chart facts address them: dotted paths, free-form maps, and Helm's merge.

A chart's templates read `.Values.a.b`; the facts name a value by its path `a.b`. Maps that a template
copies whole (`toYaml .Values.nodeSelector`) are free-form: their keys are data, not further paths.
`coalesce` is how Helm merges a release's values over the chart's defaults (helm pkg/chart/common/util
coalesce.go): maps merge key by key, the release's value wins, a null deletes the key, anything else
(lists included) replaces the default whole.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

# Values whose keys are data: a path ends there.
FREEFORM = frozenset(
    {
        "nodeSelector",
        "tolerations",
        "affinity",
        "resources",
        "securityContext",
        "containerSecurityContext",
        "podSecurityContext",
        "annotations",
        "podAnnotations",
        "podLabels",
        "labels",
        "additionalLabels",
        "topologySpreadConstraints",
    }
)
# Values at these paths are data too (the device plugin's named configs: config.map.<name>).
FREEFORM_PATHS = frozenset({"config.map"})


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def coalesce(default: Any, value: Any) -> Any:
    """The value Helm renders with: `value` (the release's) merged over `default` (the chart's)."""
    if value is MISSING:
        return copy.deepcopy(default) if default is not MISSING else MISSING
    if isinstance(value, Mapping) and isinstance(default, Mapping):
        out = {k: copy.deepcopy(v) for k, v in default.items()}
        for key, item in value.items():
            if item is None:
                out.pop(key, None)
            else:
                out[key] = coalesce(default.get(key, MISSING), item)
        return out
    return copy.deepcopy(value)


def leaf_paths(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """path -> value for every value a release sets: nested maps are walked, free-form maps and empty maps are
    one value each."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value and key not in FREEFORM and path not in FREEFORM_PATHS:
            out.update(leaf_paths(value, path + "."))
        else:
            out[path] = value
    return out


def get(values: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path, or MISSING."""
    node: Any = values
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return MISSING
        node = node[part]
    return node


def empty(value: Any) -> bool:
    """What a template's `with` skips: a missing, null, false, zero or empty value renders no field."""
    return value is MISSING or value is None or value is False or value == {} or value == [] or value == ""
