"""The document of `mlplatform plan --json`: what the stack builds, read back from the recording."""

from __future__ import annotations

from typing import Any

from mlplatform_core.model.plan_document import (
    ChartRelease,
    Charts,
    ChartWorkload,
    NodeGroupEntry,
    Placeholder,
    PlanDocument,
    PlanResource,
    Taint,
    dump,
)
from mlplatform_core.model.resource_types import LAUNCH_TEMPLATE as LAUNCH_TEMPLATE_TYPE
from mlplatform_core.model.resource_types import NODE_GROUP as NODE_GROUP_TYPE
from mlplatform_core.model.scheduling import ROLE_LABEL
from mlplatform_core.model.scheduling import Taint as EksTaint

from ..documents import SCHEMA_VERSION
from ..engine import ProgramRun, Recorded
from ..plan import Plan
from .auto_mode import auto_mode_section
from .capacity_quotas import capacity_quotas_section
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


def node_groups(run: ProgramRun, order: list[str] | None = None, autoscaler: bool = True) -> list[NodeGroupEntry]:
    """Every registered aws.eks.NodeGroup with the ASG tags and launch template of its component.

    Registration order is asynchronous; `order` (the layout's) keeps the output stable. `autoscaler`: whether
    the Cluster Autoscaler runs (layout.runs_cluster_autoscaler): without it no group is `autoscaled`, though
    `pulumi up` still leaves the desired size of a kept group alone (`desiredSizeIgnored`).
    """
    rank = {name: i for i, name in enumerate(order or [])}
    found = sorted(run.of_type(NODE_GROUP_TYPE), key=lambda r: (rank.get(r.name, len(rank)), r.name))
    siblings = _by_parent(run, ASG_TAG_TYPE, LAUNCH_TEMPLATE_TYPE)
    return [_node_group(ng, siblings, autoscaler) for ng in found]


def _node_group(
    ng: Recorded, siblings: dict[tuple[str | None, str], list[Recorded]], autoscaler: bool
) -> NodeGroupEntry:
    i = ng.inputs
    scaling = i.get("scalingConfig", {})
    tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in siblings.get((ng.parent, ASG_TAG_TYPE), [])}
    lts = siblings.get((ng.parent, LAUNCH_TEMPLATE_TYPE), [])
    taints = i.get("taints", [])
    return NodeGroupEntry(
        name=ng.name,
        role=i.get("labels", {}).get(ROLE_LABEL, ng.name),
        capacity_type=i.get("capacityType"),
        # A reservation's group names its type in the launch template (EKS requires it there).
        instance_types=i.get("instanceTypes") or [t for lt in lts if (t := lt.inputs.get("instanceType"))],
        ami_type=i.get("amiType"),
        min_size=scaling.get("minSize"),
        max_size=scaling.get("maxSize"),
        desired_size=scaling.get("desiredSize"),
        desired_size_ignored="scalingConfig.desiredSize" in ng.ignore_changes,
        autoscaled=autoscaler and scaling.get("minSize") != scaling.get("maxSize"),
        max_unavailable=i.get("updateConfig", {}).get("maxUnavailable"),
        availability_zones=len(i.get("subnetIds") or []) or None,
        force_update_version=bool(i.get("forceUpdateVersion", False)),
        labels=dict(sorted(i.get("labels", {}).items())),
        taints=[Taint(**EksTaint.from_eks(t["key"], t.get("value"), t["effect"]).to_dict()) for t in taints],
        autoscaler_tags=dict(sorted(tags.items())),
        launch_template=lts[0].inputs if lts else None,
    )


def _resource(r: Recorded) -> PlanResource:
    return PlanResource(
        type=r.type,
        name=r.name,
        project=r.project,
        parent=r.parent,
        custom=r.custom,
        inputs=r.inputs,
        protect=r.protect,
        ignore_changes=r.ignore_changes,
        replace_on_changes=r.replace_on_changes,
        delete_before_replace=r.delete_before_replace,
        created_by=r.created_by,
        urn=r.urn,
        dependencies=r.dependencies,
        property_dependencies={k: v for k, v in r.property_dependencies.items() if v},
    )


def _plan_model(plan: Plan) -> PlanDocument:
    """The typed plan document (mlplatform_core/model/plan_document), its `placeholders` still empty."""
    cfg = plan.config
    return PlanDocument(
        schema_version=SCHEMA_VERSION,
        stack=plan.stack,
        stack_named_by=plan.named_by,
        environment=cfg.environment,
        source=plan.source,
        cluster_name=plan.layout.cluster_name,
        region=cfg.region,
        kubernetes_version=cfg.kubernetes_version,
        kubernetes_support=support_section(plan),
        deployment=deployment_section(plan, auto_mode_section(plan)),
        access=access_section(plan),
        node_groups=node_groups(plan.run, [g.name for g in plan.layout.groups], plan.layout.runs_cluster_autoscaler),
        provisioner=cfg.provisioner,
        node_pools=karpenter_node_pools(plan.run, plan.layout),
        resource_count=len(plan.run.resources),
        resources=[_resource(r) for r in plan.run.resources],
        exports=plan.run.public_exports(),
        # With the proof: where training groups sit and what pods request on each GPU group (gpu_capacity.py).
        placement=placement_section(plan.layout, report=plan.placement).model_copy(
            update={"gpu_capacity": gpu_capacity_section(plan)}
        ),
        # `charts`: each Helm release as its chart renders with the stack's values (the plan's chart proof).
        kubernetes=kubernetes_section(plan.run).model_copy(update={"charts": addon_charts_section(plan)}),
        # The GPU capacity preflight: the EC2 instance quotas the GPU and spot groups reach (capacity_quotas.py).
        capacity_quotas=capacity_quotas_section(plan),
        cost=cost_section(plan_cost(plan)),
        storage=storage_section(plan),
        # One entry per `pulumi up` (each program is its own stack and its own dependency graph).
        deployment_order=[order_section(run) for run in plan.run.programs],
        **({"teams": teams} if (teams := teams_section(plan)) is not None else {}),  # only a stack with `teams`
        placeholders=[],
    )


def plan_document(plan: Plan) -> dict[str, Any]:
    """`mlplatform plan --json`: the typed document (model/plan_document) in its JSON form."""
    doc = dump(_plan_model(plan))
    # The offline run's stand-ins for what exists only after deploy, outside `resources` (whose inputs repeat
    # them wherever one resource reads another's output): each string's JSON Pointer, value and `<...>` form.
    found = plan.placeholders.find({k: v for k, v in doc.items() if k != "resources"})
    doc["placeholders"] = [dump(Placeholder.model_validate(p)) for p in found]
    return doc


def addon_charts_section(plan: Plan) -> Charts:
    """Each Helm release's chart as it renders with the stack's values (the plan's chart proof): its workloads,
    their images, and what a workload needs beyond the hardening baseline, stated."""
    releases = []
    for item in plan.charts.releases:
        chart = item.release.chart
        facts = item.rendering.facts if item.rendering else None
        releases.append(
            ChartRelease(
                release=item.release.name,
                chart=chart.name,
                version=chart.version,
                app_version=facts.app_version if facts else None,
                namespace=chart.namespace,
                workloads=[
                    ChartWorkload(
                        kind=w["kind"],
                        name=w["name"],
                        images=[c["image"] for c in w.get("initContainers", []) + w["containers"]],
                    )
                    for w in (item.rendering.workloads if item.rendering else ())
                ],
            )
        )
    return Charts(releases=releases, stated_needs=list(plan.charts.stated), problems=list(plan.charts.problems))
