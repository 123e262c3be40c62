"""The recorded facts of one chart version (mlplatform_core/data/charts/<chart>-<version>.json), read lazily.

Written by scripts/generators/render_charts.py from a real `helm template` of the chart at its upstream release tag:
- `workloads`: every Deployment and DaemonSet, with its pod's placement and security fields (`pod`) and its
  containers and init containers (`image`, `resources`, `securityContext`), as rendered with `values.base`;
- `rbac`: the rules of every Role and ClusterRole bound to a workload's service account;
- `configMaps` (where `recorded` asks for them, and more container fields such as `env`): the ConfigMaps the
  release renders, with their `data` (the device plugin's GPU sharing configs);
- `values`: which release values change them: `bindings` (the value lands verbatim, or into a string
  `template`, at a field of a workload), `affects` (a value that changes facts in a way not recorded as a
  binding: a release must then set it as `base` does), `presence` (values whose absence changes the facts: a
  release must set them, to any value), `inert` (probed, changes no fact), and the chart's
  `defaults` of the bound values (Helm merges a release's values over them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

DATA_DIR = "data/charts"


@dataclass(frozen=True)
class Binding:
    value: str  # the dotted values path
    workload: str  # Kind/name
    field: str  # a JSON Pointer into the workload's facts, e.g. /pod/nodeSelector, /containers/0/resources
    template: str | None = None  # the field is this string with {path} filled in
    path: str = ""  # the value sits below the field, at this JSON Pointer into it
    tail: int | None = None  # the value is the list at `path` from this index on (the chart's own items before)


@dataclass(frozen=True)
class ChartFacts:
    chart: str
    version: str
    app_version: str
    release: str
    namespace: str
    workloads: Sequence[Mapping[str, Any]]
    rbac: Sequence[Mapping[str, Any]]
    config_maps: Sequence[Mapping[str, Any]]
    # what was recorded beyond workloads and RBAC (scripts/generators/render_charts.py EXTRA_FACTS)
    recorded: Mapping[str, Any]
    base: Mapping[str, Any]  # the leaf values the facts were rendered with
    defaults: Mapping[str, Any]
    bindings: Sequence[Binding]
    affects: Mapping[str, Sequence[str]]
    presence: Mapping[str, Sequence[str]]  # values whose absence changes the facts: a release must set them
    inert: frozenset[str]
    source: Mapping[str, Any]
    # The same chart rendered with other base values (e.g. the device plugin with a sharing config, which adds
    # containers): render() takes the first whose values account for a release's.
    variants: tuple[ChartFacts, ...] = ()
    # The DeviceClasses the chart renders with `base` ({name, apiVersion, spec}): the DRA driver's.
    device_classes: Sequence[Mapping[str, Any]] = ()

    @property
    def bound(self) -> frozenset[str]:
        return frozenset(b.value for b in self.bindings)


def file_name(chart: str, version: str) -> str:
    return f"{chart}-{version}.json"


def available(chart: str, version: str) -> bool:
    return resources.files("mlplatform_core").joinpath(DATA_DIR, file_name(chart, version)).is_file()


@cache
def load(chart: str, version: str) -> ChartFacts:
    """The facts of a chart version; FileNotFoundError when they were never recorded (regenerate)."""
    path = resources.files("mlplatform_core").joinpath(DATA_DIR, file_name(chart, version))
    return from_json(json.loads(path.read_text(encoding="utf-8")))


def from_json(raw: Mapping[str, Any]) -> ChartFacts:
    variants = tuple(from_json({**raw, **v, "variants": []}) for v in raw.get("variants", []))
    values = raw["values"]
    return ChartFacts(
        chart=raw["chart"],
        version=raw["version"],
        app_version=raw["appVersion"],
        release=raw["release"],
        namespace=raw["namespace"],
        workloads=tuple(raw["workloads"]),
        rbac=tuple(raw["rbac"]),
        config_maps=tuple(raw.get("configMaps", [])),
        recorded=raw.get("recorded", {}),
        base=values["base"],
        defaults=values["defaults"],
        bindings=tuple(Binding(**b) for b in values["bindings"]),
        affects=values["affects"],
        presence=values.get("presence", {}),
        inert=frozenset(values["inert"]),
        source=raw["source"],
        variants=variants,
        device_classes=tuple(raw.get("deviceClasses", [])),
    )


@cache
def needs() -> Mapping[str, Any]:
    """What each Cluster Autoscaler image minor needs granted (data/charts/cluster-autoscaler-needs.json)."""
    path = resources.files("mlplatform_core").joinpath(DATA_DIR, "cluster-autoscaler-needs.json")
    return json.loads(path.read_text(encoding="utf-8"))
