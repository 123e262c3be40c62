"""The ml-platform-eks policy pack's rules, importable without starting a policy server.

rules.yaml declares every rule (rule.py reads it); the area modules (layout, workloads, security,
addons, cost, karpenter_pools, karpenter_nodes) hold their checks. `POLICIES` is what
policies/__main__.py hands to PolicyPack (which blocks serving the Pulumi CLI); `offline.evaluate`
runs the same policy objects through pulumi-policy's validation API on a recorded program run,
without the CLI.
"""

from __future__ import annotations

from pulumi_policy import Policy

from .rule import Rule, load_rules

PACK_NAME = "mlplatform-eks"

RULES: tuple[Rule, ...] = load_rules()
POLICIES: list[Policy] = [rule.policy() for rule in RULES]
BY_NAME: dict[str, Policy] = {p.name: p for p in POLICIES}

__all__ = ["BY_NAME", "PACK_NAME", "POLICIES", "RULES"]
