"""GPU sharing proven as the device plugin's chart renders it, not only as the toolkit models it.

The layout labels each sharing group `nvidia.com/device-plugin.config=<config>` (layout/sharing.py) and the
release's `config.map` holds one config per name (device_plugin.sharing_configs). What the nodes then advertise
depends on the chart (NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin, templates/configmap.yml and
daemonset-device-plugin.yml): it writes the configs into a ConfigMap, mounts it into the config manager (init
container and sidecar), which reads the node label named by its `NODE_LABEL` env, copies the named config (or
`DEFAULT_CONFIG`) to `CONFIG_FILE_DST`, and the plugin reads `CONFIG_FILE`. A `MIG_STRATEGY` env on the plugin
would override the config's flag. Each link is checked on the rendering of the stack's own values
(data/charts: the ConfigMaps and env recorded by scripts/generators/render_charts.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from ..charts.render import Rendering
from ..layout import Layout
from ..layout.sharing import DEFAULT_DEVICE_PLUGIN_CONFIG, DEVICE_PLUGIN_CONFIG_LABEL
from ..scheduling import GPU_RESOURCE
from . import device_plugin

CONFIG_MANAGER = "config-manager"


def _env(container: Mapping[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in container.get("env") or []}


def _containers(workload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [*workload.get("initContainers", []), *workload.get("containers", [])]


def _advertised(config: Mapping[str, Any], sharing: Any) -> str | None:
    """What is wrong with a rendered config for the group's sharing, or None."""
    flags = config.get("flags") or {}
    if sharing.kind == "time-slicing":
        if flags.get("migStrategy", "none") != "none":
            return f"migStrategy {flags.get('migStrategy')} instead of none"
        resources = ((config.get("sharing") or {}).get("timeSlicing") or {}).get("resources") or []
        replicas = [r.get("replicas") for r in resources if r.get("name") == GPU_RESOURCE]
        if replicas != [sharing.per_gpu]:
            return f"time-slicing replicas of {GPU_RESOURCE} {replicas or 'none'} instead of [{sharing.per_gpu}]"
        return None
    if flags.get("migStrategy") != sharing.strategy:
        return f"migStrategy {flags.get('migStrategy')} instead of {sharing.strategy}"
    return None


def sharing_problems(layout: Layout, rendering: Rendering | None) -> list[str]:
    """Where the rendered device plugin would not advertise what the layout's sharing groups promise."""
    groups = [g for g in device_plugin.plugin_groups(layout) if getattr(g, "sharing", None) is not None]
    if not groups or rendering is None:
        return []
    where = f"nvidia-device-plugin {rendering.facts.version}"
    plugin = next((w for w in rendering.workloads if w["name"] == device_plugin.DAEMONSET), None)
    if plugin is None:
        return [f"{where}: the chart renders no {device_plugin.DAEMONSET} DaemonSet"]
    maps = {m["name"]: m.get("data") or {} for m in rendering.config_maps}
    mounted = [maps[n] for n in (plugin["pod"].get("configMapVolumes") or {}).values() if n in maps]
    if not mounted:
        return [f"{where}: the plugin mounts no ConfigMap of GPU sharing configs (config.map is not rendered)"]
    data = mounted[0]
    managers = [c for c in _containers(plugin) if CONFIG_MANAGER in (c.get("command") or [])]
    problems = []
    if not managers:
        problems.append(f"{where}: no config manager container selects a config by node label")
    plugin_files = {_env(c).get("CONFIG_FILE") for c in plugin.get("containers", []) if c not in managers}
    for c in managers:
        env = _env(c)
        if env.get("NODE_LABEL") != DEVICE_PLUGIN_CONFIG_LABEL:
            problems.append(
                f"{where}: container {c['name']} reads the node label {env.get('NODE_LABEL')!r}, the layout "
                f"labels sharing groups {DEVICE_PLUGIN_CONFIG_LABEL}"
            )
        if env.get("DEFAULT_CONFIG") != DEFAULT_DEVICE_PLUGIN_CONFIG or DEFAULT_DEVICE_PLUGIN_CONFIG not in data:
            problems.append(f"{where}: container {c['name']} defaults to {env.get('DEFAULT_CONFIG')!r}, not a config")
        if env.get("CONFIG_FILE_DST") not in plugin_files:
            problems.append(
                f"{where}: container {c['name']} writes {env.get('CONFIG_FILE_DST')!r}; the plugin reads "
                f"{sorted(str(f) for f in plugin_files)}"
            )
    for c in plugin.get("containers", []):
        if "MIG_STRATEGY" in _env(c):
            problems.append(f"{where}: container {c['name']} sets MIG_STRATEGY, overriding every config's flag")
    problems += _group_problems(where, data, groups)
    return problems


def _group_problems(where: str, data: Mapping[str, str], groups: Sequence[Any]) -> list[str]:
    out = []
    for g in groups:
        sharing = g.sharing
        text = data.get(sharing.config)
        if text is None:
            out.append(
                f"{where}: group {g.name} is labelled {DEVICE_PLUGIN_CONFIG_LABEL}={sharing.config}, which "
                "the rendered ConfigMap does not hold (the plugin would fall back to another config)"
            )
            continue
        wrong = _advertised(yaml.safe_load(text) or {}, sharing)
        if wrong:
            out.append(f"{where}: group {g.name}'s config {sharing.config} renders {wrong}")
    return out


def rendered_configs(rendering: Rendering) -> dict[str, Any]:
    """The sharing configs as rendered, parsed (config name -> document): what `plan` can show."""
    out: dict[str, Any] = {}
    for m in rendering.config_maps:
        for name, text in (m.get("data") or {}).items():
            out[name] = yaml.safe_load(text)
    return out
