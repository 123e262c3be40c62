#!/usr/bin/env python3
"""Generate mlplatform_core/data/replacement.json: which inputs of which resource type force a replacement.

Standard library only. `mlplatform diff` reads the result. Sources (pinned in scripts/upstream.json):
  tf-*                     terraform-provider-aws resource schemas (pulumi-aws is bridged from them): every
                           attribute with `ForceNew: true`, by its Pulumi property path (camelCase; list
                           blocks pluralised, one-item blocks flattened to objects, as the bridge names them)
  pulumi-aws-overrides     pulumi-aws provider/resource_overrides.go: `DeleteBeforeReplace`, auto-named
                           properties (`tfbridge.AutoName`) and any ForceNew the bridge adds
  pulumi-eks-schema        pulumi-eks provider/cmd/pulumi-resource-eks/schema.json: `replaceOnChanges` inputs
  k8s-scheduling-validation kubernetes/kubernetes pkg/apis/scheduling/validation/validation.go: the fields
                           `ValidatePriorityClassUpdate` refuses to change (immutable: a change needs a new object)

The generator checks itself against what it read: every resource's schema function must be found, known
ForceNew inputs (aws_eks_node_group's instance_types, ...) must come out, and each top-level Pulumi property
must exist in the installed pulumi_aws SDK (read as text, not imported). A source that was not given is
not guessed: its resource types are listed under `notRead`, and the diff says it cannot tell.

Usage (from the repository root; --fetch reads the pinned commits, CI cannot):
  scripts/generate_replacement.py --fetch
  scripts/generate_replacement.py --local DIR   # DIR/<repo path> copies (or excerpts of the schema functions)
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import re
import sys
from pathlib import Path

import goschema
import upstream

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "mlplatform_core" / "data" / "replacement.json"

# Pulumi type token -> (upstream.json role, Terraform resource, schema function, pulumi_aws module file).
TERRAFORM = {
    "aws:eks/nodeGroup:NodeGroup": (
        "tf-eks-node-group",
        "aws_eks_node_group",
        "resourceNodeGroup",
        "eks/node_group.py",
    ),
    "aws:eks/cluster:Cluster": ("tf-eks-cluster", "aws_eks_cluster", "resourceCluster", "eks/cluster.py"),
    "aws:ec2/vpc:Vpc": ("tf-vpc", "aws_vpc", "ResourceVPC", "ec2/vpc.py"),
    "aws:ec2/subnet:Subnet": ("tf-subnet", "aws_subnet", "resourceSubnet", "ec2/subnet.py"),
    "aws:kms/key:Key": ("tf-kms-key", "aws_kms_key", "resourceKey", "kms/key.py"),
    "aws:iam/role:Role": ("tf-iam-role", "aws_iam_role", "ResourceRole", "iam/role.py"),
    "aws:autoscaling/tag:Tag": (
        "tf-autoscaling-group-tag",
        "aws_autoscaling_group_tag",
        "ResourceGroupTag",
        "autoscaling/tag.py",
    ),
}
# Types whose override block is read from pulumi-aws (order, auto-naming) even where the schema was not.
OVERRIDDEN = {
    **{token: tf for token, (_, tf, _, _) in TERRAFORM.items()},
    "aws:ec2/securityGroupRule:SecurityGroupRule": "aws_security_group_rule",
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": "aws_iam_role_policy_attachment",
    "aws:cloudwatch/eventRule:EventRule": "aws_cloudwatch_event_rule",
    "aws:cloudwatch/eventTarget:EventTarget": "aws_cloudwatch_event_target",
    "aws:sqs/queue:Queue": "aws_sqs_queue",
}
# What the generator must find, or it is reading the sources wrong (terraform-provider-aws names).
KNOWN_FORCE_NEW = {
    "aws:eks/nodeGroup:NodeGroup": {
        "amiType",
        "capacityType",
        "diskSize",
        "instanceTypes",
        "launchTemplate.id",
        "nodeRoleArn",
        "subnetIds",
        "remoteAccess",
    },
    "aws:eks/cluster:Cluster": {"name", "roleArn", "kubernetesNetworkConfig.ipFamily"},
    "aws:ec2/vpc:Vpc": {"cidrBlock"},
    "aws:kms/key:Key": {"keyUsage", "customerMasterKeySpec"},
    "aws:autoscaling/tag:Tag": {"autoscalingGroupName", "tag.key"},
}
KNOWN_UPDATABLE = {
    "aws:eks/nodeGroup:NodeGroup": {"labels", "taints", "scalingConfig", "version", "tags"},
    "aws:eks/cluster:Cluster": {"version", "upgradePolicy", "vpcConfig"},
}
# Kubernetes kinds whose update validation is read: Pulumi type token -> (role, Go function, kind).
KUBERNETES = {
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": ("k8s-scheduling-validation", "ValidatePriorityClassUpdate"),
}


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def pulumi_name(attr: goschema.Attribute, renames: dict[str, str]) -> str:
    """The bridge's property name: renamed by pulumi-aws, else camelCase, list blocks of many items plural."""
    if attr.name in renames:
        return renames[attr.name]
    name = camel(attr.name)
    many = attr.type in ("schema.TypeList", "schema.TypeSet") and attr.max_items != 1
    if many and not name.endswith("s"):
        name += "s"
    return name


def force_new_paths(schema: dict[str, goschema.Attribute], renames: dict[str, str], prefix: str = "") -> list[str]:
    out = []
    for attr in schema.values():
        if attr.computed_only:
            continue
        path = prefix + pulumi_name(attr, renames if not prefix else {})
        if attr.force_new:
            out.append(path)  # the whole block: any change under it replaces
        elif attr.nested:
            out += force_new_paths(attr.nested, {}, path + ".")
    return out


def override_block(text: str, tf_name: str) -> str:
    m = re.search(rf'^\t\t"{re.escape(tf_name)}":\s*\{{', text, flags=re.M)
    if m is None:
        return ""
    start = m.end() - 1
    return text[start : goschema._close(text, start) + 1]


def overrides(text: str, tf_name: str) -> dict:
    block = override_block(text, tf_name)
    auto = re.findall(r'"(\w+)":\s*tfbridge\.AutoName\w*\(\s*"(\w+)"', block)
    renames = dict(re.findall(r'"(\w+)":\s*\{\s*Name:\s*"(\w+)"', block))
    if re.search(r"ForceNew:\s*tfbridge\.True\(\)|ForceNew:\s*true", block):
        raise SystemExit(f"pulumi-aws overrides ForceNew on {tf_name}: teach the generator to read it")
    return {
        "found": bool(block),
        "deleteBeforeReplace": bool(re.search(r"DeleteBeforeReplace:\s*true", block)),
        "autoNamed": sorted(camel(tf) for tf, _ in auto),
        "renames": renames,
    }


def sdk_has(module_file: str, prop: str) -> bool:
    """Whether the installed pulumi_aws SDK's resource module declares the property (read as text)."""
    spec = importlib.util.find_spec("pulumi_aws")
    if spec is None or spec.origin is None:
        return True  # no SDK here: nothing to check against
    text = (Path(spec.origin).parent / module_file).read_text(encoding="utf-8")
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", prop).lower()
    return f'name="{prop}"' in text or f"def {snake}(self)" in text


def kubernetes_immutable(text: str, function: str) -> list[str]:
    """The fields an update validator forbids changing: `field.NewPath("value")` next to a refusal."""
    m = re.search(rf"func {function}\(", text)
    if m is None:
        raise SystemExit(f"no func {function} in the Kubernetes validation source")
    body = text[m.end() : goschema._close(text, text.index("{", m.end()))]
    paths = re.findall(r'(?:Forbidden|ValidateImmutableField)\([^\n]*?field\.NewPath\("(\w+)"\)', body)
    return sorted(set(paths))


def pulumi_eks_replace_on_changes(text: str) -> dict[str, list[str]]:
    schema = json.loads(text)
    out = {}
    for token, res in sorted(schema.get("resources", {}).items()):
        props = sorted(k for k, p in res.get("inputProperties", {}).items() if p.get("replaceOnChanges"))
        if props:
            out[token] = props
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--local", type=Path, metavar="DIR", help="local copies under DIR/<repo>/<path>")
    p.add_argument("--fetch", action="store_true", help="download what was not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = p.parse_args(argv)
    pins = upstream.manifest()

    def read(role: str) -> tuple[str, dict] | None:
        local = args.local / pins[role]["repo"] / pins[role]["path"] if args.local else None
        if local is not None and local.is_file():
            return upstream.read(role, str(local), False, args.ref)
        if args.fetch:
            return upstream.read(role, None, True, args.ref)
        return None

    sources, resources, not_read = [], {}, []
    # names/attr_consts_gen.go, once pinned as "tf-names": the constants' own table instead of deriving names.
    names = read("tf-names") if "tf-names" in pins else None
    head_names = "names/attr_consts_gen.go" if names else "derived from the constants' identifiers"
    table = goschema.attr_table(names[0]) if names else None
    if names:
        sources.append(names[1])
    over = read("pulumi-aws-overrides")
    if over is None:
        raise SystemExit("pulumi-aws-overrides: give a local copy or pass --fetch")
    sources.append(over[1])
    for token, tf_name in OVERRIDDEN.items():
        o = overrides(over[0], tf_name)
        resources[token] = {
            "terraform": tf_name,
            "forceNew": None,
            "deleteBeforeReplace": o["deleteBeforeReplace"],
            "autoNamed": o["autoNamed"],
        }
    for token, (role, tf_name, function, module) in TERRAFORM.items():
        got = read(role)
        if got is None:
            not_read.append(token)
            continue
        text, record = got
        sources.append(record)
        if f'"{tf_name}"' not in text and f"func {function}()" not in text:
            raise SystemExit(f"{role}: {tf_name} is not in {record['path']}")
        schema = goschema.resource_schema(text, function, table)
        renames = overrides(over[0], tf_name)["renames"]
        paths = sorted(force_new_paths(schema, renames))
        for path in paths:
            if not sdk_has(module, path.split(".")[0]):
                raise SystemExit(f"{token}: {path} is not a property of pulumi_aws {module}")
        missing = KNOWN_FORCE_NEW.get(token, set()) - set(paths)
        wrong = KNOWN_UPDATABLE.get(token, set()) & {q.split(".")[0] for q in paths}
        if missing or wrong:
            raise SystemExit(f"{token}: expected ForceNew {sorted(missing)} and not {sorted(wrong)}; read {paths}")
        resources[token]["forceNew"] = paths
    eks = read("pulumi-eks-schema")
    if eks is not None:
        sources.append(eks[1])
        for token, props in pulumi_eks_replace_on_changes(eks[0]).items():
            resources[token] = {"forceNew": props, "deleteBeforeReplace": False, "autoNamed": [], "from": "pulumi-eks"}
    for token, (role, function) in KUBERNETES.items():
        got = read(role)
        if got is None:
            not_read.append(token)
            continue
        sources.append(got[1])
        immutable = kubernetes_immutable(got[0], function)
        if "value" not in immutable:
            raise SystemExit(f"{role}: {function} should refuse changes to value; read {immutable}")
        # metadata.name is immutable for every object (ValidateObjectMetaUpdate).
        resources[token] = {"forceNew": ["metadata.name", *immutable], "deleteBeforeReplace": False, "autoNamed": []}
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generate_replacement.py",
        "source": sources,
        "fields": {
            "forceNew": "Pulumi property paths whose change replaces the resource (null: its schema was not read)",
            "deleteBeforeReplace": "pulumi-aws replaces it by deleting first (DeleteBeforeReplace in its overrides)",
            "autoNamed": "properties pulumi-aws fills with a unique name when unset (a replacement never collides)",
        },
        "notRead": sorted(not_read),
        "constantNames": head_names,
    }
    upstream.write_json(args.output, head, "resources", resources)
    print(f"{len(resources)} resource types ({len(not_read)} not read) -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
