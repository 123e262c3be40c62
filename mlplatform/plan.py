"""The offline plan of a stack: its validated configuration, layout and the recording of the real program.

`build_plan` validates the stack file (clean ConfigError before anything runs),
runs every program the stack deploys (__main__.py, and kubernetes-layer/ when its
Kubernetes layer is separate) through the offline engine and keeps the recording.
The reports (mlplatform.reports) turn a Plan into the JSON document and the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mlplatform_core.model.addons.proof import ChartProof, prove
from mlplatform_core.model.addons.releases import DeployTimeValues
from mlplatform_core.model.config import StackConfig, kubernetes_layer_of, read_stack_document
from mlplatform_core.model.cost.auto_mode_fee import bills_pool_fee
from mlplatform_core.model.cost.capacity import stack_capacity
from mlplatform_core.model.cost.prices import LivePrices, auto_mode_fee, on_demand
from mlplatform_core.model.deployment import Deployment, deployment
from mlplatform_core.model.iam.proof import IamError, stack_problems
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.regions import partition_of
from mlplatform_core.model.validation import prove_charts, validate_stack, validated
from mlplatform_core.placement.invariants import InvariantReport, stack_report

from .documents import shown_path
from .engine import StackRun, run_stack
from .engine.placeholders import Placeholders
from .iam_proof import prove as prove_iam
from .project import KUBERNETES_DIRECTORY, Project, ProjectError, builtin_project, find_project
from .stacks import NAMED_BY_ARGUMENT, named_by, resolve_stack


@dataclass
class Plan:
    stack: str
    source: str
    config: StackConfig
    layout: Layout
    run: StackRun  # every program of the stack; run.programs for each `pulumi up` on its own
    named_by: str = NAMED_BY_ARGUMENT  # stacks.NAMED_BY_FILE when the name came from the --config-file's name
    project: Project | None = None  # whose programs ran (None: a plan built by hand, in tests)
    live_prices: LivePrices | None = None  # `--prices live`: what the Price List API answered for this stack
    chart_proof: ChartProof | None = None  # the charts as build_plan proved them (None: proven when first read)
    live_quotas: dict[str, int] | None = None  # `--quotas live`: the EC2 quota values Service Quotas answered

    @cached_property
    def placement(self) -> InvariantReport:
        """The placement proof, computed once for the JSON, the tables and the check."""
        return stack_report(self.config, self.layout)

    @cached_property
    def charts(self) -> ChartProof:
        """The add-on charts as they render with the stack's values (build_plan refused the stack if it failed)."""
        if self.chart_proof is not None:
            return self.chart_proof
        cfg = self.config
        at_deploy = DeployTimeValues(cfg.region, cfg.image_registry, karpenter_replicas=cfg.karpenter.replicas)
        return prove(self.layout, at_deploy)

    @cached_property
    def placeholders(self) -> Placeholders:
        """The offline run's made-up values (only real after deploy), for the reports to mark."""
        return Placeholders.of(self.run)

    @cached_property
    def deployment(self) -> Deployment:
        """Which programs run, in order, and what the machine running each must reach."""
        return deployment(self.config, self.layout)


def project_for(project_dir: str | None, config_file: str | None) -> Project:
    """The project a command works in: --project-dir or the working directory's; with none found, a
    --config-file alone runs the installed programs (ProjectError otherwise)."""
    project = find_project(project_dir, required=not config_file)
    return project if project is not None else builtin_project()


def build_plan(
    stack: str | None = None, config_file: str | None = None, project: Project | None = None, prices: str = "snapshot"
) -> Plan:
    project = project or project_for(None, config_file)
    name, path = resolve_stack(project, stack, config_file)
    source = shown_path(path, project.root)  # in documents and messages: no absolute path of this machine
    document = read_stack_document(path, source)
    # Every problem of the file at once (keys, settings, layout, workload layer), each with its line.
    valid = validate_stack(document.config, name, source, document)
    # The add-on charts as they render with these settings: refused (exit 2, on kubernetesVersion) before any run.
    charts = prove_charts(valid, source, document)
    separate = kubernetes_layer_of(valid.config) == "separate"
    if separate and project.kubernetes_layer is None:
        raise ProjectError(
            f"stack {name} deploys its Kubernetes layer separately (kubernetesLayer: separate), but the project "
            f"{project.name} has no {KUBERNETES_DIRECTORY}/Pulumi.yaml beside its "
            f"{shown_path(project.cluster.file, project.root)} (`mlplatform init` writes one)"
        )
    with validated(name, valid):  # the programs read this validation instead of repeating it
        run = run_stack(name, document.config, project, separate=separate)
    # What AWS would refuse (a managed policy missing from the partition, a malformed document) or let grant
    # nothing (a misspelt action): refused now, as the charts' proofs are, not at the first `pulumi up`.
    partition = partition_of(valid.config.region)
    iam = stack_problems(((r.type, r.name, r.inputs) for r in run.resources), partition)
    if iam:
        raise IamError(iam, source, partition)
    # The planned roles against what their controllers need upstream (exit 2, like missing chart RBAC).
    prove_iam(run.resources, valid.config.region, valid.layout.cluster_name, name)
    return Plan(
        stack=name,
        source=source,
        config=valid.config,
        layout=valid.layout,
        run=run,
        named_by=named_by(stack, config_file),
        project=project,
        live_prices=_live_prices(valid.config.region, valid.layout) if prices == "live" else None,
        chart_proof=charts,
    )


def _live_prices(region: str, layout: Layout) -> LivePrices:
    """Live answers for what the snapshot does not price in the region: its unpriced instance types, charges."""
    from .live_prices import read_live  # boto3 is imported only when live prices are asked for

    capacity = stack_capacity(layout)
    types = {t for cap in capacity for t in cap.instance_types}
    # Auto Mode bills its fee per instance of a NodePool (mlplatform_core.model.cost.auto_mode_fee)
    auto_mode = bills_pool_fee(layout)
    pools = {t for cap in capacity if auto_mode and cap.kind == "node pool" for t in cap.instance_types}
    return read_live(
        region,
        sorted(t for t in types if not on_demand(region, t).known),
        auto_mode_types=sorted(t for t in pools if not auto_mode_fee(region, t).known),
    )
