"""NodePools in the plan (Karpenter's or EKS Auto Mode's): read back from the recorded NodePool and node class
objects (EC2NodeClass, or Auto Mode's NodeClass).

`node_pools` is the `nodePools` key of `mlplatform plan --json`; `node_pool_table` shows the same
facts (requirements, labels, taints, limits, disruption, weight, node class) for people.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from mlplatform_core.model import provisioners
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.plan_document import NodePoolEntry
from mlplatform_core.model.resource_types import NODE_POOL as NODE_POOL_TYPE

from ..engine import ProgramRun

NODE_CLASS_TYPE = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
AUTO_MODE_NODE_CLASS_TYPE = "kubernetes:eks.amazonaws.com/v1:NodeClass"


def _name(inputs: dict[str, Any]) -> str:
    return str(inputs.get("metadata", {}).get("name", ""))


def node_pools(run: ProgramRun, layout: Layout | None = None) -> list[NodePoolEntry]:
    """Every registered NodePool with its node class, in the layout's order.

    With the layout, each pool also lists `instanceTypes`: every catalog type its requirements allow.
    """
    classes = {
        (r.inputs.get("kind"), _name(r.inputs)): r.inputs.get("spec", {})
        for type_ in (NODE_CLASS_TYPE, AUTO_MODE_NODE_CLASS_TYPE)
        for r in run.of_type(type_)
    }
    specs = {p.k8s_name: p for p in (*layout.node_pools, *layout.retained_pools)} if layout else {}
    rank = {name: i for i, name in enumerate(specs)}
    found = sorted(run.of_type(NODE_POOL_TYPE), key=lambda r: (rank.get(_name(r.inputs), len(rank)), r.name))
    return [_pool(r.inputs, classes, specs) for r in found]


def _pool(
    inputs: dict[str, Any], classes: dict[tuple[Any, str], dict[str, Any]], specs: dict[str, Any]
) -> NodePoolEntry:
    spec = inputs.get("spec", {})
    template = spec.get("template", {})
    tspec = template.get("spec", {})
    ref, kind = tspec.get("nodeClassRef", {}).get("name"), tspec.get("nodeClassRef", {}).get("kind")
    node_class = classes.get((kind, ref), {})
    name = _name(inputs)
    pool: dict[str, Any] = {
        "name": name,
        "requirements": tspec.get("requirements", []),
        "labels": dict(sorted(template.get("metadata", {}).get("labels", {}).items())),
        "taints": tspec.get("taints", []),
        "limits": _ordered(spec.get("limits", {})),
        "disruption": spec.get("disruption", {}),
        "expireAfter": tspec.get("expireAfter"),
        "weight": spec.get("weight"),
        "nodeClass": {"name": ref, "kind": kind, **{k: node_class[k] for k in _CLASS_KEYS if k in node_class}},
    }
    if spec.get("replicas") is not None:  # a static pool (staticNodes): this many nodes always run
        pool["replicas"] = spec["replicas"]
    if name in specs:
        pool["instanceTypes"] = list(specs[name].instance_types)
    # The pool's and its class's fields as the program wrote them; the model types what a roll reads.
    return NodePoolEntry.model_validate(pool)


_LIMIT_ORDER = ("cpu", "memory", "nvidia.com/gpu", "nodes")


def _ordered(limits: dict[str, Any]) -> dict[str, Any]:
    return dict(sorted(limits.items(), key=lambda kv: (_LIMIT_ORDER + (kv[0],)).index(kv[0])))


_CLASS_KEYS = ("amiSelectorTerms", "role", "metadataOptions", "blockDeviceMappings", "subnetSelectorTerms")
_CLASS_KEYS += ("securityGroupSelectorTerms", "ephemeralStorage", "advancedNetworking")
_CLASS_KEYS += ("capacityReservationSelectorTerms", "placementGroupSelector")


def _reservations(c: dict[str, Any]) -> list[str]:
    ids = [t.get("id") or str(t.get("tags")) for t in c.get("capacityReservationSelectorTerms") or []]
    return [f"reservation {', '.join(ids)}"] if ids else []


def _requirement(r: dict[str, Any]) -> str:
    values = r.get("values") or []
    return f"{r.get('key')} {r.get('operator')}" + (f" [{', '.join(values)}]" if values else "")


def _taint(t: dict[str, Any]) -> str:
    return f"{t['key']}={t['value']}:{t['effect']}" if t.get("value") else f"{t['key']}:{t['effect']}"


def _disruption(pool: dict[str, Any]) -> str:
    d = pool["disruption"]
    lines = [f"{d.get('consolidationPolicy')} after {d.get('consolidateAfter')}"]
    for b in d.get("budgets", []):
        reasons = ", ".join(b.get("reasons", [])) or "any reason"
        lines.append(f"budget {b.get('nodes')} ({reasons})")
    lines.append(f"expire after {pool.get('expireAfter')}")
    return "\n".join(lines)


def _node_class(c: dict[str, Any]) -> str:
    if c.get("kind") == "NodeClass":  # Auto Mode's: AMI, IMDS (v2, hop 1) and devices are AWS's
        storage = c.get("ephemeralStorage") or {}
        key = storage.get("kmsKeyID") or "the aws/ebs key"
        public = (c.get("advancedNetworking") or {}).get("associatePublicIPAddress")
        return "\n".join(
            [
                f"NodeClass {c.get('name')}",
                "image and IMDS: Auto Mode's",
                f"{storage.get('size')} encrypted ({key})",
                "no public IP" if public is False else "public IP per subnet",
                *_reservations(c),
            ]
        )
    ami = ", ".join(t.get("alias") or t.get("id") or "?" for t in c.get("amiSelectorTerms") or [])
    md = c.get("metadataOptions") or {}
    imds = f"IMDS tokens {md.get('httpTokens')}, hop {md.get('httpPutResponseHopLimit')}"
    disks = [
        f"{m.get('deviceName')} {m['ebs'].get('volumeSize')} {m['ebs'].get('volumeType')}"
        + (" encrypted" if m["ebs"].get("encrypted") else " NOT encrypted")
        for m in c.get("blockDeviceMappings") or []
        if isinstance(m.get("ebs"), dict)
    ]
    return "\n".join([ami, imds, *disks, *_reservations(c)])


def _weight(pool: dict[str, Any]) -> str:
    if pool.get("replicas") is not None:
        return f"static: {pool['replicas']} node(s)"
    return str(pool.get("weight") if pool.get("weight") is not None else "-")


def _title(pools: list[dict[str, Any]]) -> str:
    """The provisioner's, found by the kind of node class its pools use (the later registered one wins: a stack
    moving from Karpenter to Auto Mode lists Auto Mode's)."""
    kinds = {p["nodeClass"].get("kind") for p in pools}
    flavors = [p.flavor for p in provisioners.every() if p.flavor is not None]
    flavor = next((f for f in reversed(flavors) if f.node_class_kind in kinds), flavors[0])
    return f"{flavor.title} NodePools"


def node_pool_table(pools: list[dict[str, Any]]) -> Table:
    table = Table(title=_title(pools), title_justify="left", show_lines=True)
    for col in ("pool", "requirements", "labels", "taints", "limits", "disruption", "weight", "node class"):
        table.add_column(col, overflow="fold")  # long label keys wrap instead of being cut
    for p in pools:
        table.add_row(
            escape(p["name"]),
            escape("\n".join(_requirement(r) for r in p["requirements"])),
            escape("\n".join(f"{k}={v}" for k, v in p["labels"].items())),
            escape("\n".join(_taint(t) for t in p["taints"]) or "-"),
            escape("\n".join(f"{k}: {v}" for k, v in p["limits"].items()) or "none"),
            escape(_disruption(p)),
            _weight(p),
            escape(_node_class(p["nodeClass"])),
        )
    return table
