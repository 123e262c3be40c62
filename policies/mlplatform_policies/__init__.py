"""The ml-platform-eks policy pack's rules, importable without starting a policy server.

`POLICIES` is what policies/__main__.py hands to PolicyPack (which blocks serving
the Pulumi CLI); `offline.evaluate` runs the same policy objects through
pulumi-policy's validation API on a recorded program run, without the CLI.
"""

from __future__ import annotations

from pulumi_policy import Policy

from . import addons, cost, karpenter, layout, security, workloads

PACK_NAME = "mlplatform-eks"

POLICIES: list[Policy] = [
    *layout.POLICIES,
    *workloads.POLICIES,
    *security.POLICIES,
    *addons.POLICIES,
    *cost.POLICIES,
    *karpenter.POLICIES,
]
BY_NAME: dict[str, Policy] = {p.name: p for p in POLICIES}
assert len(BY_NAME) == len(POLICIES), "policy names must be unique"

__all__ = ["BY_NAME", "PACK_NAME", "POLICIES"]
