"""The scheduler's DynamicResources filter over a group's node template, and the GPU requests a DRA group
refuses.

Pure Python. A pod with claims lands only where the NVIDIA DRA driver runs (groups with gpuAllocation dra) and
one node can satisfy all of its claims at once (dra_fit.py); on a device-plugin group the driver does not run,
so its nodes publish no devices. The reverse: on a DRA group the NVIDIA device plugin does not run, so a pod
asking nvidia.com/gpu (or a MIG resource) there never fits; it must ask through a ResourceClaim.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.layout.spec import MIG_RESOURCE_PREFIX
from ..model.scheduling import GPU_RESOURCE
from .claims import CLAIM, PodClaims
from .dra_devices import DEVICE_CLASSES, DRA
from .dra_fit import UNSCHEDULABLE, allocate
from .reasons import Reason
from .templates import NodeTemplate, NodeVariant

CLASSES = " or ".join(DEVICE_CLASSES)


def is_device_plugin_resource(name: str) -> bool:
    """A GPU resource only the NVIDIA device plugin advertises (whole or shared GPUs, MIG devices)."""
    return name == GPU_RESOURCE or name.startswith(MIG_RESOURCE_PREFIX)


def _plugin_resource(template: NodeTemplate) -> str:
    """The resource the device plugin advertises on the group (a MIG profile's with strategy mixed)."""
    names = {
        k for v in template.variants for k, n in (v.allocatable or {}).items() if n and is_device_plugin_resource(k)
    }
    return ", ".join(sorted(names)) or GPU_RESOURCE


def device_plugin_reason(template: NodeTemplate, resource: str, amount: int) -> Reason:
    """Why a pod asking `resource` cannot land on a DRA group."""
    return Reason(
        "devices",
        f"Insufficient {resource}: the pod requests {amount}, but the NVIDIA device plugin does not run on the "
        f"nodes of {template.group} (gpuAllocation: dra), so they advertise no {resource}; ask for the GPU through a "
        f"ResourceClaim (deviceClassName {CLASSES}) in spec.resourceClaims",
        "no device plugin (dra)",
    )


def claim_filter(
    template: NodeTemplate, variants: Sequence[NodeVariant], claims: PodClaims
) -> tuple[list[NodeVariant], list[Reason], list[str]]:
    """The variants where one node satisfies all the pod's claims, why none does, and notes."""
    if claims.missing:
        return [], [Reason("claims", f"{UNSCHEDULABLE}: {claims.missing[0]}", "claim not in manifest")], []
    titles = ", ".join(dict.fromkeys(c.title for _, c in claims.claims))
    if template.gpu_allocation != DRA:
        if template.gpu_allocation:
            why = (
                f"the NVIDIA DRA driver does not run on the nodes of {template.group} (gpuAllocation: "
                f"{template.gpu_allocation}), so they publish no devices for {titles}; on this group request "
                f"{_plugin_resource(template)} in resources.limits, or set gpuAllocation: dra on it"
            )
        else:
            why = f"the nodes of {template.group} have no GPUs: no DRA driver publishes devices there for {titles}"
        return [], [Reason("claims", f"{UNSCHEDULABLE}: {why}", "no DRA driver")], []
    landing, failure = [], ""
    notes = [
        f"{claim.title} is allocated once, for every pod that names it: they all run on the node it lands on"
        for _, claim in claims.claims
        if claim.kind == CLAIM
    ]
    for v in variants:
        result = allocate(claims, v.devices)
        notes.extend(result.notes)
        if result.ok:
            landing.append(v)
        elif not failure:
            failure = f"on {v.instance_type}: {result.why}"
    if landing or not variants:
        return landing, [], notes
    return [], [Reason("claims", f"{UNSCHEDULABLE}: {failure}", "claims")], notes
