"""The offline plan of a stack: its validated configuration, layout and the recording of the real program.

`build_plan` validates the stack file (clean ConfigError before anything runs),
runs every program the stack deploys (__main__.py, and kubernetes-layer/ when its
Kubernetes layer is separate) through the offline engine and keeps the recording.
The reports (mlplatform.reports) turn a Plan into the JSON document and the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mlplatform_core.model.config import StackConfig, read_stack_document
from mlplatform_core.model.deployment import Deployment, deployment
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.validation import validate_stack
from mlplatform_core.placement.invariants import InvariantReport, stack_report

from .engine import StackRun, run_stack
from .stacks import resolve_stack


@dataclass
class Plan:
    stack: str
    source: str
    config: StackConfig
    layout: Layout
    run: StackRun  # every program of the stack; run.programs for each `pulumi up` on its own

    @cached_property
    def placement(self) -> InvariantReport:
        """The placement proof, computed once for the JSON, the tables and the check."""
        return stack_report(self.config, self.layout)

    @cached_property
    def deployment(self) -> Deployment:
        """Which programs run, in order, and what the machine running each must reach."""
        return deployment(self.config, self.layout)


def build_plan(stack: str | None = None, config_file: str | None = None) -> Plan:
    name, path = resolve_stack(stack, config_file)
    document = read_stack_document(path)
    # Every problem of the file at once (keys, settings, layout, workload layer), each with its line.
    valid = validate_stack(document.config, name, str(path), document)
    return Plan(
        stack=name, source=str(path), config=valid.config, layout=valid.layout, run=run_stack(name, document.config)
    )
