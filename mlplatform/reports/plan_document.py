"""The document of `mlplatform plan --json`: what the stack builds, read back from the recording."""

from __future__ import annotations

from typing import Any

from mlplatform_core.model.resource_types import LAUNCH_TEMPLATE as LAUNCH_TEMPLATE_TYPE
from mlplatform_core.model.resource_types import NODE_GROUP as NODE_GROUP_TYPE
from mlplatform_core.model.scheduling import ROLE_LABEL, Taint

from ..documents import SCHEMA_VERSION
from ..engine import ProgramRun, Recorded
from ..plan import Plan
from .auto_mode import auto_mode_section
from .cost import cost_section, plan_cost
from .deployment import access_section, deployment_section, storage_section, support_section
from .deployment_order import order_section
from .gpu_capacity import gpu_capacity_section
from .node_pools import node_pools as karpenter_node_pools
from .placement import placement_section
from .teams import teams_section
from .workload_layer import kubernetes_section

ASG_TAG_TYPE = "aws:autoscaling/tag:Tag"


def _by_parent(run: ProgramRun, *types: str) -> dict[tuple[str | None, str], list[Recorded]]:
    """Resources of the given types grouped by (parent, type): one pass, not one per node group."""
    index: dict[tuple[str | None, str], list[Recorded]] = {}
    for r in run.resources:
        if r.type in types:
            index.setdefault((r.parent, r.type), []).append(r)
    return index


def node_groups(run: ProgramRun, order: list[str] | None = None, autoscaler: bool = True) -> list[dict[str, Any]]:
    """Every registered aws.eks.NodeGroup with the ASG tags and launch template of its component.

    Registration order is asynchronous; `order` (the layout's) keeps the output stable. `autoscaler`: whether
    the Cluster Autoscaler runs (layout.runs_cluster_autoscaler): without it no group is `autoscaled`, though
    `pulumi up` still leaves the desired size of a kept group alone (`desiredSizeIgnored`).
    """
    out = []
    rank = {name: i for i, name in enumerate(order or [])}
    found = sorted(run.of_type(NODE_GROUP_TYPE), key=lambda r: (rank.get(r.name, len(rank)), r.name))
    siblings = _by_parent(run, ASG_TAG_TYPE, LAUNCH_TEMPLATE_TYPE)
    for ng in found:
        i = ng.inputs
        scaling = i.get("scalingConfig", {})
        asg_tags = siblings.get((ng.parent, ASG_TAG_TYPE), [])
        tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in asg_tags}
        lts = siblings.get((ng.parent, LAUNCH_TEMPLATE_TYPE), [])
        out.append(
            {
                "name": ng.name,
                "role": i.get("labels", {}).get(ROLE_LABEL, ng.name),
                "capacityType": i.get("capacityType"),
                # A reservation's group names its type in the launch template (EKS requires it there).
                "instanceTypes": i.get("instanceTypes") or [t for lt in lts if (t := lt.inputs.get("instanceType"))],
                "amiType": i.get("amiType"),
                "minSize": scaling.get("minSize"),
                "maxSize": scaling.get("maxSize"),
                "desiredSize": scaling.get("desiredSize"),
                "desiredSizeIgnored": "scalingConfig.desiredSize" in ng.ignore_changes,
                "autoscaled": autoscaler and scaling.get("minSize") != scaling.get("maxSize"),
                # Nodes replaced at a time when EKS rolls the group (UpdateNodegroupVersion).
                "maxUnavailable": i.get("updateConfig", {}).get("maxUnavailable"),
                # A roll's scale-up phase adds up to twice this many nodes first (mlplatform_core/change/rolls.py).
                "availabilityZones": len(i.get("subnetIds") or []) or None,
                # Off unless set: a roll then fails on a node whose pods do not leave in 15 minutes.
                "forceUpdateVersion": bool(i.get("forceUpdateVersion", False)),
                "labels": dict(sorted(i.get("labels", {}).items())),
                "taints": [
                    Taint.from_eks(t["key"], t.get("value"), t["effect"]).to_dict() for t in i.get("taints", [])
                ],
                "autoscalerTags": dict(sorted(tags.items())),
                "launchTemplate": lts[0].inputs if lts else None,
            }
        )
    return out


def plan_document(plan: Plan) -> dict[str, Any]:
    cfg = plan.config
    doc = {
        "schemaVersion": SCHEMA_VERSION,
        "stack": plan.stack,
        "stackNamedBy": plan.named_by,
        "environment": cfg.environment,
        "source": plan.source,
        "clusterName": plan.layout.cluster_name,
        "region": cfg.region,
        "kubernetesVersion": cfg.kubernetes_version,
        "kubernetesSupport": support_section(plan),
        "deployment": deployment_section(plan, auto_mode_section(plan)),
        "access": access_section(plan),
        "nodeGroups": node_groups(plan.run, [g.name for g in plan.layout.groups], plan.layout.runs_cluster_autoscaler),
        "provisioner": cfg.provisioner,
        "nodePools": karpenter_node_pools(plan.run, plan.layout),
        "resourceCount": len(plan.run.resources),
        "resources": [
            {
                "type": r.type,
                "name": r.name,
                "project": r.project,
                "parent": r.parent,
                "custom": r.custom,  # false: a component (under the real engine a remote one has no inputs)
                "inputs": r.inputs,
                "protect": r.protect,
                "ignoreChanges": r.ignore_changes,
                # What `pulumi up` replaces besides the provider's ForceNew inputs, and in which order.
                "replaceOnChanges": r.replace_on_changes,
                "deleteBeforeReplace": r.delete_before_replace,
                "createdBy": r.created_by,
                # What `pulumi up` makes it wait for (URNs), as the state records it; deploymentOrder follows.
                "urn": r.urn,
                "dependencies": r.dependencies,
                "propertyDependencies": {k: v for k, v in r.property_dependencies.items() if v},
            }
            for r in plan.run.resources
        ],
        "exports": plan.run.public_exports(),
        # With the proof: where training groups sit and what pods request on each GPU group (gpu_capacity.py).
        "placement": {
            **placement_section(plan.layout, report=plan.placement),
            "gpuCapacity": gpu_capacity_section(plan),
        },
        # `charts`: each Helm release as its chart renders with the stack's values (the plan's chart proof).
        "kubernetes": {**kubernetes_section(plan.run), "charts": addon_charts_section(plan)},
        "cost": cost_section(plan_cost(plan)),
        "storage": storage_section(plan),
        # One entry per `pulumi up` (each program is its own stack and its own dependency graph).
        "deploymentOrder": [order_section(run) for run in plan.run.programs],
    }
    if (teams := teams_section(plan)) is not None:  # only a stack with `teams` (Kueue) has the section
        doc["teams"] = teams
    # The offline run's stand-ins for what exists only after deploy, outside `resources` (whose inputs repeat
    # them wherever one resource reads another's output): each string's JSON Pointer, value and `<...>` form.
    doc["placeholders"] = list(plan.placeholders.find({k: v for k, v in doc.items() if k != "resources"}))
    return doc


def addon_charts_section(plan: Plan) -> dict[str, Any]:
    """Each Helm release's chart as it renders with the stack's values (the plan's chart proof): its workloads,
    their images, and what a workload needs beyond the hardening baseline, stated."""
    releases = []
    for item in plan.charts.releases:
        chart = item.release.chart
        facts = item.rendering.facts if item.rendering else None
        releases.append(
            {
                "release": item.release.name,
                "chart": chart.name,
                "version": chart.version,
                "appVersion": facts.app_version if facts else None,
                "namespace": chart.namespace,
                "workloads": [
                    {
                        "kind": w["kind"],
                        "name": w["name"],
                        "images": [c["image"] for c in w.get("initContainers", []) + w["containers"]],
                    }
                    for w in (item.rendering.workloads if item.rendering else ())
                ],
            }
        )
    return {"releases": releases, "statedNeeds": list(plan.charts.stated), "problems": list(plan.charts.problems)}
