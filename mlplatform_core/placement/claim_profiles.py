"""GPU jobs on DRA groups for the placement proof: the pod the `gpuResources` export tells users to write.

Pure Python. On a group with gpuAllocation dra a GPU job asks through a ResourceClaim (model/ml_settings/
gpu_claims.py: the group's ResourceClaimTemplate, the pod fields that use it, the tolerations of the group's
taints). One such job per kind of device the DRA groups publish (whole GPUs, or MIG devices of one profile):
the matrix shows it lands on the groups of its kind only. MLRun cannot submit such a pod (no resource claims
in its function spec), so it is a plain Kubernetes Job's pod, not an MLRun job.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..model.layout import Layout, NodeGroupSpec
from ..model.ml_settings.gpu_claims import claim_resources
from .claims import TEMPLATE, ClaimCatalog, PodClaims


@dataclass(frozen=True)
class ClaimJob:
    name: str
    description: str
    spec: dict[str, Any]
    claims: PodClaims


def claim_pod(
    groups: list[NodeGroupSpec], base: dict[str, Any], all_devices: bool = False
) -> tuple[dict[str, Any], PodClaims]:
    """`base` (a PodSpec with one container) claiming one device of the first group's kind (every device of the
    node with `all_devices`: allocationMode All) and tolerating every group's taints, and its claims resolved."""
    entry = claim_resources(groups[0])
    template = copy.deepcopy(entry["resourceClaimTemplate"])
    if all_devices:
        template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["allocationMode"] = "All"
    pod = entry["podSpec"]
    spec = copy.deepcopy(base)
    container = spec["containers"][0]
    container.setdefault("resources", {})["claims"] = copy.deepcopy(pod["containers"][0]["resources"]["claims"])
    spec["resourceClaims"] = copy.deepcopy(pod["resourceClaims"])
    tolerations = {str(t): t for g in groups for t in claim_resources(g)["podSpec"]["tolerations"]}
    spec["tolerations"] = [*spec.get("tolerations", []), *tolerations.values()]
    catalog = ClaimCatalog()
    catalog.add(template)
    refs = tuple((c["name"], TEMPLATE, c["resourceClaimTemplateName"]) for c in spec["resourceClaims"])
    return spec, catalog.resolve(refs, "default", "default")


def claim_jobs(layout: Layout, image: str, priority_class: str) -> list[ClaimJob]:
    """One GPU job per kind of device the layout's DRA groups publish, as the export has users write it."""
    kinds: dict[str, list[NodeGroupSpec]] = {}
    for g in layout.gpu_groups:
        if g.gpu_allocation == "dra":
            kinds.setdefault(g.sharing.profile or "" if g.sharing and g.sharing.kind == "mig" else "", []).append(g)
    out = []
    base = {"containers": [{"name": "base", "image": image}], "priorityClassName": priority_class}
    for profile, groups in sorted(kinds.items()):
        spec, claims = claim_pod(groups, {**base, "restartPolicy": "Never"})
        what = f"one MIG {profile} device" if profile else "one whole GPU"
        name = spec["resourceClaims"][0]["resourceClaimTemplateName"]
        out.append(
            ClaimJob(
                f"gpu-claim-job-mig-{profile}" if profile else "gpu-claim-job",
                f"Kubernetes Job claiming {what} through ResourceClaimTemplate {name} (gpuAllocation: dra; "
                "MLRun cannot set claims)",
                spec,
                claims,
            )
        )
    return out
