#!/usr/bin/env python3
"""Generate AWS's managed IAM policies (mlplatform_core/data/aws_managed_policies.json) from moto's copy of them.

Standard library (and pip, for --fetch). Source (pinned in scripts/upstream.json by the wheel's sha256):
  moto-managed-policies   moto/iam/aws_managed_policies.py in the moto wheel on PyPI: every AWS managed policy
                          (name, path, default version, dates, document) as IAM lists them. moto makes it with
                          its scripts/update_managed_policies.py: IAM ListPolicies(Scope=AWS), then
                          GetPolicyVersion of each default version, with a commercial-partition account
                          (boto3.client("iam") in the aws partition). It is what moto's emulator answers with
                          when MOTO_IAM_LOAD_MANAGED_POLICIES=true.

What is shipped: every policy's name, path, ARN, default version and dates (the plan and the policy pack refuse
an ARN that names no managed policy, with a did-you-mean at another path); the documents only of the policies
EKS's roles are built from (DOCUMENTS below: the EKS, EBS/EFS CSI and ECR families, SSM and the CloudWatch agent's),
about 46 kB. All 1,580-odd documents are 3.4 MB, fifteen times the largest data file the wheel ships, and
nothing in the toolkit reads a document outside those families.

Partitions: moto's data is the commercial partition's (aws). AWS publishes no list of the managed policies in
aws-us-gov, aws-cn or the ISO partitions (no API answers outside an account of that partition, and no public
dataset taken from one was found), so each policy records the partitions its presence is known in, ["aws"], and
the snapshot's `partitions` says which lists are known. The check (mlplatform_core/model/iam/managed_policies.py)
says so when it falls back on the commercial list for another partition.

Usage (from the repository root):
  scripts/generators/generate_managed_policies.py --fetch      pip-downloads the pinned wheel and checks its hash
  scripts/generators/generate_managed_policies.py --moto FILE  a local copy of moto/iam/aws_managed_policies.py
To refresh: pin a newer moto version, wheel name and sha256 in scripts/upstream.json, then --fetch.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "aws_managed_policies.json"
ROLE = "moto-managed-policies"
# The policies whose documents are kept: those EKS's cluster, node, Auto Mode and add-on roles are made of.
DOCUMENTS = re.compile(
    r"^(AmazonEKS|AmazonEBSCSIDriver|AmazonEFSCSIDriver|AmazonEC2ContainerRegistry"
    r"|AmazonSSMManagedInstanceCore$|CloudWatchAgentServerPolicy$)"
)
KNOWN_PARTITIONS = {
    "aws": "IAM ListPolicies (Scope=AWS) in the commercial partition, as moto records it",
    "aws-us-gov": None,
    "aws-cn": None,
}


def moto_policies(text: str) -> dict[str, dict]:
    """The JSON string moto's module assigns to `aws_managed_policies_data`, parsed (the module is not run)."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "aws_managed_policies_data" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            return json.loads(value)
    raise SystemExit(f"{ROLE}: no aws_managed_policies_data in the file: has moto's format changed?")


def snapshot(policies: dict[str, dict]) -> dict[str, dict]:
    out = {}
    for name, p in policies.items():
        path = p["Path"]
        if not (path.startswith("/") and path.endswith("/")):
            raise SystemExit(f"{ROLE}: {name} has the path {path!r}; IAM paths begin and end with '/'")
        item = {
            "path": path,
            "arn": f"arn:aws:iam::aws:policy{path}{name}",
            "version": p["DefaultVersionId"],
            "created": p["CreateDate"][:10],
            "updated": p["UpdateDate"][:10],
            "partitions": ["aws"],
        }
        if DOCUMENTS.match(name):
            item["document"] = p["Document"]
        out[name] = item
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moto", help="a local copy of moto/iam/aws_managed_policies.py")
    ap.add_argument("--fetch", action="store_true", help="read it from the pinned moto wheel (PyPI)")
    ap.add_argument("-o", "--output", default=str(OUTPUT))
    args = ap.parse_args(argv)
    text, source = upstream.read(ROLE, args.moto, args.fetch)
    policies = snapshot(moto_policies(text))
    if len(policies) < 1000:
        print(f"only {len(policies)} policies: has moto's data changed?", file=sys.stderr)
        return 1
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_managed_policies.py",
        "source": [source],
        "partitions": KNOWN_PARTITIONS,
        "fields": {
            "path": "the policy's IAM path, part of its ARN",
            "arn": "its ARN in the aws partition (arn:<partition>:iam::aws:policy<path><name> elsewhere)",
            "version": "its default version",
            "created": "CreateDate",
            "updated": "UpdateDate",
            "partitions": "the partitions it is known to exist in (a partition whose list is null above is unknown)",
            "document": "its default version's document (only the policies EKS's roles are built from)",
        },
    }
    upstream.write_json(Path(args.output), head, "policies", policies)
    print(f"{len(policies)} managed policies -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
