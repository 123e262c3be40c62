#!/usr/bin/env python3
"""Generate the Karpenter data the toolkit pins (mlplatform_core/data/karpenter.json) and the CRD schemas its
tests validate NodePools and EC2NodeClasses against (tests/data/karpenter/crd_schemas.json).

Needs PyYAML (a dependency of the project). Sources, all at the pinned release (scripts/upstream.json):
  karpenter-compatibility    hack/docs/compatibilitymatrix_gen/compatibility.yaml: the Kubernetes minors each
                             Karpenter minor supports (the input of the docs' compatibility matrix)
  karpenter-cloudformation   the getting-started CloudFormation template: the controller's IAM policies, the
                             interruption queue, its policy and the EventBridge rules feeding it
  karpenter-crd-nodepools    pkg/apis/crds/karpenter.sh_nodepools.yaml (the chart's CRD)
  karpenter-crd-ec2nodeclasses  pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (the chart's CRD)

Usage (from the repository root):
  scripts/generators/generate_karpenter_data.py --fetch
  scripts/generators/generate_karpenter_data.py --compatibility FILE --cloudformation FILE --nodepools FILE \
      --ec2nodeclasses FILE
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import upstream
import yaml

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "karpenter.json"
SCHEMAS = ROOT / "tests" / "data" / "karpenter" / "crd_schemas.json"
# The release every source is read at (tag v<RELEASE> of aws/karpenter-provider-aws); the charts carry
# the same version without the "v" (hack/release/common.sh sets chart version = app version).
RELEASE = "1.14.1"
# The controller policies the toolkit grants. ZonalShift is left out: it serves settings.enableZonalShift only.
POLICIES = ("NodeLifecyclePolicy", "IAMIntegrationPolicy", "EKSIntegrationPolicy", "InterruptionPolicy")
POLICIES += ("ResourceDiscoveryPolicy",)
# CloudFormation references in the template, and the placeholders the toolkit fills in.
PLACEHOLDERS = {
    "AWS::Partition": "${Partition}",
    "AWS::Region": "${Region}",
    "AWS::AccountId": "${AccountId}",
    "AWS::URLSuffix": "${URLSuffix}",
    "ClusterName": "${ClusterName}",
    "KarpenterNodeRole.Arn": "${NodeRoleArn}",
    "KarpenterInterruptionQueue.Arn": "${QueueArn}",
}


class _CloudFormationLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form functions (!Sub, !GetAtt, !Ref) as {"Fn::...": value}."""


def _function(loader: yaml.Loader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {f"Fn::{suffix}": value}


_CloudFormationLoader.add_multi_constructor("!", _function)


def _placeholders(text: str) -> str:
    """${AWS::Region} -> ${Region} and so on; a reference the toolkit cannot fill in is an error."""

    def swap(m: re.Match) -> str:
        if m[1] not in PLACEHOLDERS:
            raise SystemExit(f"CloudFormation template: unknown reference ${{{m[1]}}}; the upstream format changed")
        return PLACEHOLDERS[m[1]]

    return re.sub(r"\$\{([A-Za-z0-9:.]+)\}", swap, text)


def _value(node: Any) -> Any:
    """A template value with !Sub / !GetAtt turned into placeholder strings."""
    if isinstance(node, dict) and set(node) == {"Fn::Sub"}:
        return _placeholders(node["Fn::Sub"])
    if isinstance(node, dict) and set(node) == {"Fn::GetAtt"}:
        return _placeholders("${" + str(node["Fn::GetAtt"]) + "}")
    if isinstance(node, dict):
        return {k: _value(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_value(v) for v in node]
    return node


def parse_cloudformation(text: str) -> dict[str, Any]:
    """The controller policies, the node role's managed policies and the interruption queue with its rules."""
    resources = yaml.load(text, Loader=_CloudFormationLoader)["Resources"]  # a SafeLoader subclass
    policies = {}
    for name in POLICIES:
        props = resources.get(name, {}).get("Properties", {})
        document = _value(props.get("PolicyDocument"))
        if not isinstance(document, str):
            raise SystemExit(f"CloudFormation template: {name} has no PolicyDocument string; the format changed")
        policies[name.removesuffix("Policy")] = json.loads(document)
    queue = resources["KarpenterInterruptionQueue"]["Properties"]
    rules = []
    for name, res in resources.items():
        if res.get("Type") == "AWS::Events::Rule":
            props = res["Properties"]
            targets = _value(props["Targets"])
            if [t.get("Arn") for t in targets] != ["${QueueArn}"]:
                raise SystemExit(f"CloudFormation template: rule {name} does not target the interruption queue")
            rules.append({"name": name, "eventPattern": props["EventPattern"]})
    if not rules:
        raise SystemExit("CloudFormation template: no EventBridge rules; the upstream format changed")
    node_role = resources["KarpenterNodeRole"]["Properties"]
    return {
        "controllerPolicies": policies,
        "nodeRoleManagedPolicies": [_value(p).rsplit("/", 1)[-1] for p in node_role["ManagedPolicyArns"]],
        "interruptionQueue": {
            "messageRetentionSeconds": int(queue["MessageRetentionPeriod"]),
            "sqsManagedSseEnabled": bool(queue["SqsManagedSseEnabled"]),
            "policy": _value(resources["KarpenterInterruptionQueuePolicy"]["Properties"]["PolicyDocument"]),
            "rules": rules,
        },
    }


def parse_compatibility(text: str, release: str = RELEASE) -> dict[str, str]:
    """The Kubernetes minors the release's minor supports. Read as strings: YAML would make 1.30 the float 1.3."""
    doc = yaml.load(text, Loader=yaml.BaseLoader)  # BaseLoader: strings, lists, dicts only
    minor = ".".join(release.split(".")[:2])
    rows = [r for r in doc.get("compatibility", []) if r.get("appVersion") in (f"{minor}.x", release)]
    if not rows:
        raise SystemExit(f"compatibility.yaml has no row for Karpenter {minor}.x; pin a release it lists")
    row = rows[-1]
    return {"min": row["minK8sVersion"], "max": row["maxK8sVersion"]}


def crd_schema(text: str, kind: str) -> dict[str, Any]:
    """The openAPIV3Schema of the CRD's one served version (v1), with the group and version it serves."""
    crd = yaml.safe_load(text)
    if crd.get("kind") != "CustomResourceDefinition" or crd["spec"]["names"]["kind"] != kind:
        raise SystemExit(f"expected the CRD of {kind}, got {crd.get('kind')} {crd.get('metadata', {}).get('name')}")
    served = [v for v in crd["spec"]["versions"] if v.get("served")]
    if [v["name"] for v in served] != ["v1"]:
        raise SystemExit(f"{kind}: served versions {[v['name'] for v in served]}; the toolkit writes v1 only")
    return {
        "apiVersion": f"{crd['spec']['group']}/v1",
        "scope": crd["spec"]["scope"],
        "openAPIV3Schema": served[0]["schema"]["openAPIV3Schema"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--compatibility", metavar="FILE")
    p.add_argument("--cloudformation", metavar="FILE")
    p.add_argument("--nodepools", metavar="FILE")
    p.add_argument("--ec2nodeclasses", metavar="FILE")
    p.add_argument("--fetch", action="store_true", help="download the files that were not given locally")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    p.add_argument("--schemas", type=Path, default=SCHEMAS)
    args = p.parse_args(argv)
    # No --ref: every file must come from the one pinned release, or the pins would not match each other.
    compat_text, compat_src = upstream.read("karpenter-compatibility", args.compatibility, args.fetch)
    cfn_text, cfn_src = upstream.read("karpenter-cloudformation", args.cloudformation, args.fetch)
    pools_text, pools_src = upstream.read("karpenter-crd-nodepools", args.nodepools, args.fetch)
    classes_text, classes_src = upstream.read("karpenter-crd-ec2nodeclasses", args.ec2nodeclasses, args.fetch)
    today = datetime.date.today().isoformat()
    generator = "scripts/generators/generate_karpenter_data.py"

    data = {
        "generated": today,
        "generator": generator,
        "source": [compat_src, cfn_src],
        "release": RELEASE,
        "charts": {
            "karpenter": "oci://public.ecr.aws/karpenter/karpenter",
            "karpenter-crd": "oci://public.ecr.aws/karpenter/karpenter-crd",
        },
        "kubernetes": parse_compatibility(compat_text),
        **parse_cloudformation(cfn_text),
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    json.loads(text)
    args.output.write_text(text, encoding="utf-8")

    schemas = {
        "generated": today,
        "generator": generator,
        "release": RELEASE,
        "source": [pools_src, classes_src],
        "schemas": {
            "NodePool": crd_schema(pools_text, "NodePool"),
            "EC2NodeClass": crd_schema(classes_text, "EC2NodeClass"),
        },
    }
    args.schemas.parent.mkdir(parents=True, exist_ok=True)
    args.schemas.write_text(json.dumps(schemas, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"Karpenter {RELEASE} -> {args.output}, {args.schemas}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
