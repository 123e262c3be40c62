"""`mlplatform check`: the policy pack's rules on the offline program run, no Pulumi CLI or cloud needed.

The recording of plan.build_plan becomes the resources pulumi-policy would
see (inputs for resource rules, inputs + outputs for stack rules, protect,
ignoreChanges, parents), and mlplatform_policies.offline evaluates the very
policy objects the pack serves to `pulumi preview --policy-pack policies`,
once per program: a stack whose Kubernetes layer is separate is two Pulumi
stacks, and a real preview's pack sees each on its own.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlplatform_core.change import rules as change_rules
from mlplatform_core.model.config import PROJECT, REGION_KEY
from mlplatform_policies import POLICIES, offline
from mlplatform_policies.policy_config import named
from mlplatform_policies.pulumi_policy_internals import UNKNOWN_STRING

from .documents import SCHEMA_VERSION, shown_path
from .engine import ProgramRun, StackRun
from .plan import Plan
from .project import find_project

Violation = offline.Violation
PolicyConfigError = offline.PolicyConfigError
load_policy_config = offline.load_policy_config


def _default_aws_provider(run: ProgramRun) -> list[offline.Resource]:
    """The default aws provider, which a real preview hands the analyzer too (pulumi/pulumi
    pkg/resource/deploy/step_generator.go, analyzeAll: every registered resource, default providers
    included); the mocks register none. Its inputs carry the stack's aws:region."""
    region = run.config.get(REGION_KEY)
    if not isinstance(region, str):
        return []
    props = {"region": region}
    urn = f"urn:pulumi:{run.stack}::{run.project or PROJECT}::pulumi:providers:aws::default"
    return [offline.Resource(type="pulumi:providers:aws", name="default", urn=urn, props=props, state=props)]


def policy_resources(run: ProgramRun, preview: bool = False) -> list[offline.Resource]:
    """The recording as the pack sees it: inputs for resource rules, inputs + outputs for stack rules.

    `preview`: as in a `pulumi preview` of a fresh stack, with the values the engine does not know
    until the update (marked on pulumi-eks's children) unknown.
    """
    out = []
    for r in run.resources:
        # Stack policies see a resource's state; under mocks that is the inputs plus the mock's outputs.
        props, state = r.inputs, {**r.inputs, **r.outputs}
        if preview and r.unknown_in_preview:
            props, state = _unknown(props, r.unknown_in_preview), _unknown(state, r.unknown_in_preview)
        out.append(
            offline.Resource(
                type=r.type,
                name=r.name,
                urn=r.urn,
                props=props,
                parent=r.parent,
                protect=r.protect,
                ignore_changes=tuple(r.ignore_changes),
                state=state,
            )
        )
    return out + _default_aws_provider(run)


def _unknown(values: Mapping[str, Any], paths) -> dict[str, Any]:
    """`values` with each path that exists replaced by the engine's unknown sentinel."""
    out = copy.deepcopy(dict(values))
    for *head, last in paths:
        cur: Any = out
        try:
            for part in head:
                cur = cur[part]
            cur[last]  # only where the value exists
        except (KeyError, IndexError, TypeError):
            continue
        cur[last] = UNKNOWN_STRING
    return out


# The placement proof needs the layout, which a real preview's policy pack never sees: offline only.
PLACEMENT_RULE = {
    "name": "placement-invariants",
    "level": "mandatory",
    "defaultLevel": "mandatory",
    "severity": "high",
    "description": "Every built-in workload profile (MLRun jobs in each preemption mode, Nuclio, Jupyter, GPU "
    "training, Polyaxon on spot, core services) lands only where it belongs, MLRun's admitted by its namespace's "
    "LimitRange, and one MLRun job can use each GPU or EFA node whole (offline only).",
    "remediation": "Run `mlplatform plan <stack>` to see the placement matrix; make spot groups share their "
    "taints so MLRun's tolerations cover them, keep GPU types in GPU groups and core services "
    "on the initial group; raise (or remove) workloads.namespaces.<namespace>.limits.max where it refuses a "
    "whole GPU node.",
}


def placement_violations(plan: Plan) -> list[Violation]:
    """The broken placement promises of the built-in profiles as violations of one mandatory rule."""
    return [
        Violation(
            policy=PLACEMENT_RULE["name"],
            level="mandatory",
            severity=PLACEMENT_RULE["severity"],
            message=f"{f.profile} {f.message}",
            urn=None,
            resource_type=None,
            resource_name=None,
            description=PLACEMENT_RULE["description"],
            remediation=PLACEMENT_RULE["remediation"],
        )
        for f in plan.placement.errors
    ]


def run_checks(
    plan: Plan | ProgramRun, policy_config: Mapping[str, Any] | None = None, preview: bool = False
) -> list[Violation]:
    """Every violation of the pack's rules in a plan (or a bare program run), mandatory first.

    A plan also carries its layout, so its placement invariants are checked too. `preview`: as a
    `pulumi preview` of a fresh stack sees it (see policy_resources).
    """
    run = plan.run if isinstance(plan, Plan) else plan
    programs = run.programs if isinstance(run, StackRun) else (run,)
    violations = [
        v for program in programs for v in offline.evaluate(policy_resources(program, preview), policy_config)
    ]
    violations.sort(key=lambda v: not v.mandatory)
    if isinstance(plan, Plan):
        violations = placement_violations(plan) + violations
    return violations


def default_policy_config(plan: Plan | str) -> Path | None:
    """The project's policies/config/<stack>.json, the file CI passes as --policy-pack-config for that stack
    (a stack name alone: of the working directory's project)."""
    if isinstance(plan, str):
        project = find_project(required=False)
        return project.policy_config(plan) if project else None
    return plan.project.policy_config(plan.stack) if plan.project else None


def effective_levels(policy_config: Mapping[str, Any] | None) -> dict[str, str]:
    return {name: s.level.value for name, s in offline.resolve_config(policy_config).items()}


def violation_document(v: Violation) -> dict[str, Any]:
    """A violation in `check --json`: the analyzer's fields, named in camelCase like every key of ours."""
    return {
        "policy": v.policy,
        "level": v.level,
        "severity": v.severity,
        "message": v.message,
        "urn": v.urn,
        "resourceType": v.resource_type,
        "resourceName": v.resource_name,
        "description": v.description,
        "remediation": v.remediation,
    }


def check_document(
    plan: Plan, violations: list[Violation], config_path: Path | None, policy_config: Mapping[str, Any] | None
) -> dict[str, Any]:
    levels = effective_levels(policy_config)
    mandatory = sum(v.mandatory for v in violations)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "stack": plan.stack,
        "stackNamedBy": plan.named_by,
        "source": plan.source,
        "policyConfig": shown_path(config_path, plan.project.root if plan.project else None) if config_path else None,
        "passed": mandatory == 0,
        "mandatory": mandatory,
        "advisory": len(violations) - mandatory,
        "violations": [violation_document(v) for v in violations],
        "rules": [
            {
                "name": p.name,
                "level": levels[p.name],
                "defaultLevel": p.enforcement_level.value,
                "severity": p.severity.value if p.severity else None,
                "description": p.description,
                "remediation": p.remediation_steps,
            }
            for p in POLICIES
        ]
        + [PLACEMENT_RULE],
    }


# --- change rules (`check --against BEFORE`): mlplatform_core.change.rules, offline only -----------------
CHANGE_RULE_NAMES = frozenset(r.name for r in change_rules.RULES)


def split_policy_config(
    policy_config: Mapping[str, Any] | None,
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The pack's part of a policy config and the change rules' part (which a real preview's pack ignores)."""
    if policy_config is None:
        return None, {}
    pack = {k: v for k, v in policy_config.items() if k not in CHANGE_RULE_NAMES}
    return pack, {k: v for k, v in policy_config.items() if k in CHANGE_RULE_NAMES}


def allowed_groups(change_config: Mapping[str, Any], source: str) -> list[str]:
    """`{"change-capacity-gap": {"allowedGroups": [...]}}`: node groups whose replacement may leave a gap.

    The only setting of the change rules (their levels follow the environment, docs/diff.md): any other key
    under a change rule's name is refused rather than dropped, as the pack refuses its own unknown names."""
    example = '{"change-capacity-gap": {"allowedGroups": ["gpu"]}}'
    if other := sorted(set(change_config) - {"change-capacity-gap"}):
        raise PolicyConfigError(
            f"{source}: {other[0]}: the change rules' levels follow the environment (docs/diff.md) and take no "
            f"setting; the one setting is change-capacity-gap's allowedGroups, e.g. {example}"
        )
    entry = change_config.get("change-capacity-gap", {})
    unknown = sorted(set(entry) - {"allowedGroups"}) if isinstance(entry, Mapping) else []
    groups = entry.get("allowedGroups", []) if isinstance(entry, Mapping) else None
    if unknown or not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        what = f"unknown key {named(unknown[0])}" if unknown else f"got {json.dumps(entry)}"
        raise PolicyConfigError(
            f"{source}: change-capacity-gap must be an object with allowedGroups, a list of node group names "
            f"(e.g. {example}); {what}"
        )
    return groups


def change_rule_violations(found: list[change_rules.ChangeViolation]) -> list[Violation]:
    by_name = {r.name: r for r in change_rules.RULES}
    return [
        Violation(
            policy=v.rule,
            level=v.level,
            severity="high" if v.level == "mandatory" else "medium",
            message=v.message,
            urn=None,
            resource_type=v.resource_type,
            resource_name=v.resource_name,
            description=by_name[v.rule].description,
            remediation=by_name[v.rule].remediation,
        )
        for v in found
    ]


def change_rule_documents(environment: str) -> list[dict[str, Any]]:
    """The change rules as `check --json` lists its rules (level: this environment's, or off)."""
    env = "prod" if environment == "prod" else "dev"
    return [
        {
            "name": r.name,
            "level": change_rules.LEVELS[r.name][env] or "disabled",
            "defaultLevel": change_rules.LEVELS[r.name][env] or "disabled",
            "severity": "high",
            "description": r.description,
            "remediation": r.remediation,
        }
        for r in change_rules.RULES
    ]
