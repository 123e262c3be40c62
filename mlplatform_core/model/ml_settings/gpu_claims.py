"""How pods ask for a DRA group's GPUs: the claim-based `gpuResources` entry of a group with gpuAllocation dra.

Pure Python. On such a group the NVIDIA DRA driver publishes the GPUs (or, with MIG, the MIG devices) in
ResourceSlices and the device plugin does not run: a pod asks through a ResourceClaim, usually one the
resourceclaim controller makes per pod from a ResourceClaimTemplate (resource.k8s.io/v1) named in the pod's
`spec.resourceClaims` and used by its container in `resources.claims`. The entry gives the template (one
device of the group's kind: DeviceClass gpu.nvidia.com, or mig.nvidia.com with the group's MIG profile), the
pod fields that use it and the tolerations of the group's taints (a pod with claims requests no extended
resource, so the ExtendedResourceToleration admission plugin adds none).

Neither tool can set those pod fields: MLRun's function spec has no resource claims (mlrun/runtimes/pod.py
KubeResourceSpec: resources, node selection, tolerations, priority, security context; no resourceClaims), and
Polyaxon's `environment` section has none either (polyaxon V1Environment: labels, annotations, nodeSelector,
affinity, tolerations, ... restartPolicy). The entry says so instead of inventing a setting.
"""

from __future__ import annotations

from typing import Any

from .. import instances, mig
from ..layout import NodeGroupSpec
from ..nvidia_dra import GPU_CLASS, MIG_CLASS, mig_profile_selector
from ..scheduling import Toleration

CLAIM_NAME = "gpu"  # the pod's name for the claim, and the template's request name
MLRUN = (
    "MLRun functions cannot use a ResourceClaim: its function spec has no resource claims (mlrun/runtimes/pod.py); "
    "run MLRun's GPU functions on a devicePlugin group (fn.with_limits(gpus=1)), or submit this group's work as a "
    "Kubernetes Job with podSpec"
)
POLYAXON = (
    "Polyaxon's environment section has no resourceClaims: use this group's polyaxonEnvironments entry with a "
    "Kubernetes Job carrying podSpec, or a devicePlugin group for Polyaxon runs"
)


def template_name(g: NodeGroupSpec) -> str:
    return f"{g.name}-gpu"


def _per_node(g: NodeGroupSpec) -> int | None:
    """Devices a node publishes (the fewest among the group's types): its GPUs, or its MIG devices."""
    counts = []
    for info in (t for t in map(instances.lookup, g.instance_types) if t is not None and t.known):
        if g.sharing is not None and g.sharing.kind == "mig" and g.sharing.profile:
            model = mig.for_instance(info)
            counts.append(info.gpus * ((model.count(g.sharing.profile) or 0) if model else 0))
        else:
            counts.append(info.gpus)
    return min(counts, default=None)


def claim_template(g: NodeGroupSpec) -> dict[str, Any]:
    """A ResourceClaimTemplate for one device of the group's kind (apply it in the pods' namespace)."""
    exactly: dict[str, Any] = {"deviceClassName": GPU_CLASS}
    if g.sharing is not None and g.sharing.kind == "mig" and g.sharing.profile:
        exactly = {
            "deviceClassName": MIG_CLASS,
            "selectors": [{"cel": {"expression": mig_profile_selector(g.sharing.profile)}}],
        }
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": template_name(g)},
        "spec": {"spec": {"devices": {"requests": [{"name": CLAIM_NAME, "exactly": exactly}]}}},
    }


def claim_resources(g: NodeGroupSpec) -> dict[str, Any]:
    """The `gpuResources` entry of a DRA group."""
    template = claim_template(g)
    out: dict[str, Any] = {
        "allocation": "dra",
        "deviceClass": template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"],
        "perNode": _per_node(g),
    }
    if g.sharing is not None and g.sharing.kind == "mig":
        out["migProfile"] = g.sharing.profile
    out["resourceClaimTemplate"] = template
    out["podSpec"] = {
        "resourceClaims": [{"name": CLAIM_NAME, "resourceClaimTemplateName": template_name(g)}],
        "containers": [{"resources": {"claims": [{"name": CLAIM_NAME}]}}],
        "tolerations": [Toleration.for_taint(t).to_dict() for t in g.taints if t.repels],
    }
    out["mlrun"] = MLRUN
    out["polyaxon"] = POLYAXON
    return out
