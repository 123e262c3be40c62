#!/usr/bin/env python3
"""Generate mlplatform_core/data/replacement.json: which inputs of which resource type force a replacement.

Standard library only. `mlplatform diff` reads the result. Sources (pinned in scripts/upstream.json):
  tf-aws-index             terraform-provider-aws's Go source at a release, one file per function (pulumi-aws is
                           bridged from it): each resource's schema, every attribute with `ForceNew: true` (SDKv2)
                           or a `RequiresReplace()` plan modifier (Plugin Framework), by its Pulumi property path
                           (camelCase; list blocks pluralised, one-item blocks objects, as the bridge names them);
                           what its CustomizeDiff or ModifyPlan may force new under a condition (`forceNewIf`);
                           what an unset ForceNew input means (`defaults`: its schema `Default:`, or for an
                           Optional+Computed one the API default the installed pulumi_aws SDK's docstring states;
                           `computed`: unset keeps the value the API computed): force_new_defaults.py
  pulumi-aws-overrides     pulumi-aws provider/resource_overrides.go: `DeleteBeforeReplace`, auto-named properties
                           (`tfbridge.AutoName...`) and renamed ones
  pulumi-aws-autonaming    pulumi-aws provider/autonaming.go: every other resource with an input `name` is auto-named
  pulumi-eks-schema        pulumi-eks provider/cmd/pulumi-resource-eks/schema.json: `replaceOnChanges` inputs
  pulumi-kubernetes-diff   pulumi-kubernetes provider/pkg/provider/diff.go (the inputs that replace each kind) and
  pulumi-kubernetes-helm   helm_release.go (a Release's name and namespace)
  k8s-scheduling-validation kubernetes/kubernetes pkg/apis/scheduling/validation/validation.go: the PriorityClass
                           fields the API server refuses to update (`immutable`: a change needs a new object)

The generator checks itself against what it read: every resource type must be registered upstream and its
schema found, known ForceNew inputs (aws_eks_node_group's instance_types, ...) must come out and known updatable
ones must not, and each top-level Pulumi property must exist in the installed pulumi_aws SDK (read as text, not
imported). A source that was not given is not guessed: its resource types are listed under `notRead`, and the
diff says it cannot tell.

Usage (from the repository root; --fetch reads the pinned commits, CI cannot):
  scripts/generators/generate_replacement.py --fetch
  scripts/generators/generate_replacement.py --local DIR   # DIR/<owner>/<repo>/<path> copies of the pinned files
  scripts/generators/generate_replacement.py --local DIR --refresh-defaults
      # only `defaults`/`computed` of the committed snapshot's AWS types, from the pinned tf-aws-index alone (its
      # ForceNew paths must already be in the snapshot: a renamed property would not match and stops it)
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))  # scripts/lib: the shared library
import force_new_defaults
import k8s_force_new
import pulumi_names
import tf_index
import upstream

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "mlplatform_core" / "data" / "replacement.json"

# Pulumi type token -> (Terraform resource type, its service folder in terraform-provider-aws). Every AWS type the
# program registers (scripts' test pins the list against the shipped stacks' plans) and those the hardening adds.
TERRAFORM = {
    "aws:autoscaling/tag:Tag": ("aws_autoscaling_group_tag", "autoscaling"),
    "aws:cloudwatch/eventRule:EventRule": ("aws_cloudwatch_event_rule", "events"),
    "aws:cloudwatch/eventTarget:EventTarget": ("aws_cloudwatch_event_target", "events"),
    "aws:cloudwatch/logGroup:LogGroup": ("aws_cloudwatch_log_group", "logs"),
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": ("aws_default_security_group", "ec2"),
    "aws:ec2/eip:Eip": ("aws_eip", "ec2"),
    "aws:ec2/flowLog:FlowLog": ("aws_flow_log", "ec2"),
    "aws:ec2/internetGateway:InternetGateway": ("aws_internet_gateway", "ec2"),
    "aws:ec2/launchTemplate:LaunchTemplate": ("aws_launch_template", "ec2"),
    "aws:ec2/natGateway:NatGateway": ("aws_nat_gateway", "ec2"),
    "aws:ec2/placementGroup:PlacementGroup": ("aws_placement_group", "ec2"),
    "aws:ec2/routeTable:RouteTable": ("aws_route_table", "ec2"),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": ("aws_route_table_association", "ec2"),
    "aws:ec2/securityGroup:SecurityGroup": ("aws_security_group", "ec2"),
    "aws:ec2/securityGroupRule:SecurityGroupRule": ("aws_security_group_rule", "ec2"),
    "aws:ec2/subnet:Subnet": ("aws_subnet", "ec2"),
    "aws:ec2/tag:Tag": ("aws_ec2_tag", "ec2"),
    "aws:ec2/vpc:Vpc": ("aws_vpc", "ec2"),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": ("aws_vpc_security_group_egress_rule", "ec2"),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ("aws_vpc_security_group_ingress_rule", "ec2"),
    "aws:eks/accessEntry:AccessEntry": ("aws_eks_access_entry", "eks"),
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ("aws_eks_access_policy_association", "eks"),
    "aws:eks/addon:Addon": ("aws_eks_addon", "eks"),
    "aws:eks/cluster:Cluster": ("aws_eks_cluster", "eks"),
    "aws:eks/nodeGroup:NodeGroup": ("aws_eks_node_group", "eks"),
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": ("aws_eks_pod_identity_association", "eks"),
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": ("aws_iam_openid_connect_provider", "iam"),
    "aws:iam/policy:Policy": ("aws_iam_policy", "iam"),
    "aws:iam/role:Role": ("aws_iam_role", "iam"),
    "aws:iam/rolePolicy:RolePolicy": ("aws_iam_role_policy", "iam"),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ("aws_iam_role_policy_attachment", "iam"),
    "aws:kms/alias:Alias": ("aws_kms_alias", "kms"),
    "aws:kms/key:Key": ("aws_kms_key", "kms"),
    "aws:kms/keyPolicy:KeyPolicy": ("aws_kms_key_policy", "kms"),
    "aws:sqs/queue:Queue": ("aws_sqs_queue", "sqs"),
    "aws:sqs/queuePolicy:QueuePolicy": ("aws_sqs_queue_policy", "sqs"),
}
# What the generator must find, or it is reading the sources wrong (Pulumi names).
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
    "aws:eks/addon:Addon": {"addonName", "clusterName"},
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": {"clusterName", "namespace", "serviceAccount"},
    "aws:ec2/vpc:Vpc": {"cidrBlock"},
    "aws:ec2/subnet:Subnet": {"cidrBlock", "availabilityZone", "vpcId"},
    "aws:ec2/launchTemplate:LaunchTemplate": {"name"},
    "aws:ec2/securityGroup:SecurityGroup": {"name", "vpcId", "description"},
    "aws:kms/key:Key": {"keyUsage", "customerMasterKeySpec"},
    "aws:autoscaling/tag:Tag": {"autoscalingGroupName", "tag.key"},
    "aws:iam/role:Role": {"name", "path"},
    "aws:sqs/queue:Queue": {"fifoQueue"},
}
KNOWN_UPDATABLE = {
    "aws:eks/nodeGroup:NodeGroup": {"labels", "taints", "scalingConfig", "version", "tags", "updateConfig"},
    "aws:eks/cluster:Cluster": {"version", "upgradePolicy", "vpcConfig", "enabledClusterLogTypes"},
    "aws:eks/addon:Addon": {"addonVersion", "configurationValues", "serviceAccountRoleArn"},
    "aws:ec2/launchTemplate:LaunchTemplate": {"imageId", "userData", "blockDeviceMappings", "metadataOptions"},
    "aws:ec2/subnet:Subnet": {"tags", "mapPublicIpOnLaunch"},
}
# Defaults of unset ForceNew inputs the generator must find (force_new_defaults.py), or it reads them wrong.
KNOWN_DEFAULTS = {
    "aws:eks/cluster:Cluster": {"kubernetesNetworkConfig.ipFamily": "ipv4", "bootstrapSelfManagedAddons": True},
    "aws:iam/role:Role": {"path": "/"},
}
# Kubernetes kinds whose update validation is read: Pulumi type token -> (role, Go function).
KUBERNETES_VALIDATION = {
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": ("k8s-scheduling-validation", "ValidatePriorityClassUpdate"),
}
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
UNSET_FIELDS = {
    "defaults": "ForceNew paths' value when unset (schema Default, or the API default the provider documents): unset "
    "and this value are the same, no diff",
    "defaultFrom": "where each default was read",
    "computed": "ForceNew paths that are Optional+Computed: left unset, the provider keeps the current value",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--local", type=Path, metavar="DIR", help="local copies under DIR/<owner>/<repo>/<path>")
    p.add_argument("--fetch", action="store_true", help="download what was not given locally")
    p.add_argument("--ref", help="with --fetch: a branch or tag instead of the pinned commits")
    p.add_argument("-o", "--output", type=Path, default=OUTPUT)
    p.add_argument("--refresh-defaults", action="store_true", help="update only defaults/computed of the snapshot")
    args = p.parse_args(argv)
    pins = upstream.manifest()
    if args.refresh_defaults:
        return refresh_defaults(args)

    def read(role: str) -> tuple[str, dict] | None:
        local = args.local / pins[role]["repo"] / pins[role]["path"] if args.local else None
        if local is not None and local.is_file():
            return upstream.read(role, str(local), False, args.ref)
        if args.fetch or (not args.ref and upstream.is_cached(role)):
            return upstream.read(role, None, args.fetch, args.ref)
        return None

    sources, resources, not_read = [], {}, []
    over, naming = read("pulumi-aws-overrides"), read("pulumi-aws-autonaming")
    if over is None or naming is None:
        raise upstream.NeedsFetch("pulumi-aws-overrides, pulumi-aws-autonaming: give local copies or pass --fetch")
    sources += [over[1], naming[1]]
    pulumi_names.check_autonaming_rule(naming[0])
    aws = aws_resources(args, sources)
    if aws is None:
        not_read += list(TERRAFORM)
    else:
        for token, schema in aws.items():
            resources[token] = aws_entry(token, schema, over[0])
    eks = read("pulumi-eks-schema")
    if eks is not None:
        sources.append(eks[1])
        for token, props in pulumi_eks_replace_on_changes(eks[0]).items():
            resources[token] = {"forceNew": props, "deleteBeforeReplace": False, "autoNamed": [], "from": "pulumi-eks"}
    kubernetes(read, sources, resources, not_read)
    head = {
        "generated": datetime.date.today().isoformat(),
        "generator": "scripts/generators/generate_replacement.py",
        "source": sources,
        "fields": {
            "forceNew": "Pulumi property paths whose change replaces the resource (null: its schema was not read)",
            "forceNewIf": "paths the provider replaces on only under a condition its Go function decides (named)",
            "immutable": "paths the API server refuses to update: the change fails unless the program replaces it",
            "deleteBeforeReplace": "pulumi-aws replaces it by deleting first (DeleteBeforeReplace in its overrides)",
            "autoNamed": "properties the provider fills with a unique name when unset (a replacement never collides)",
            **UNSET_FIELDS,
            "kubernetes:*": "what replaces any other Kubernetes kind (custom resources too): its identity",
        },
        "notRead": sorted(not_read),
    }
    upstream.write_json(args.output, head, "resources", resources)
    print(f"{len(resources)} resource types ({len(not_read)} not read) -> {args.output}", file=sys.stderr)
    return 0


def aws_resources(args: argparse.Namespace, sources: list) -> dict[str, tf_index.ResourceSchema] | None:
    pin = upstream.manifest()["tf-aws-index"]
    if args.local is None and not args.fetch:
        return None
    if args.local is not None and not (args.local / pin["repo"] / pin["path"]).is_dir():
        if not args.fetch:
            return None
        args = argparse.Namespace(**{**vars(args), "local": None})
    index = tf_index.Index(lambda rel: upstream.read_under("tf-aws-index", rel, args.local, args.fetch, args.ref))
    out = {token: index.schema(service, tf_name) for token, (tf_name, service) in TERRAFORM.items()}
    record = {"role": "tf-aws-index", **{k: pin[k] for k in ("repo", "path", "tag", "commit", "date", "license")}}
    sources.append({**record, "upstream": pin["upstream"], "files": sorted(index.read_files)})
    return out


def aws_entry(token: str, schema: tf_index.ResourceSchema, overrides_text: str) -> dict:
    o = pulumi_names.overrides(overrides_text, schema.tf_name)
    unresolved = pulumi_names.unresolved(schema.attributes)
    if unresolved:
        raise SystemExit(f"{token}: cannot follow the shared schemas of {unresolved}")
    paths = sorted(pulumi_names.force_new_paths(schema.attributes, o["renames"]))
    conditional = pulumi_names.conditional_paths(schema.attributes, o["renames"])
    for tf_path, why in schema.conditional.items():
        conditional[pulumi_names.pulumi_path(schema.attributes, tf_path, o["renames"])] = why
    conditional = {k: v for k, v in sorted(conditional.items()) if k not in paths}
    module = pulumi_names.sdk_module(token)
    for path in [*paths, *conditional]:
        if not pulumi_names.sdk_has(module, path.split(".")[0]):
            raise SystemExit(f"{token}: {path} is not a property of pulumi_aws {module}")
    missing = KNOWN_FORCE_NEW.get(token, set()) - set(paths) - set(conditional)
    wrong = KNOWN_UPDATABLE.get(token, set()) & {q.split(".")[0] for q in paths}
    if missing or wrong:
        raise SystemExit(f"{token}: expected ForceNew {sorted(missing)} and not {sorted(wrong)}; read {paths}")
    entry = {
        "terraform": schema.tf_name,
        "forceNew": paths,
        "deleteBeforeReplace": o["deleteBeforeReplace"],
        "autoNamed": pulumi_names.auto_named(schema.attributes, o),
        "schema": schema.factory,
    }
    if conditional:
        entry["forceNewIf"] = conditional
    entry.update(unset_facts(token, schema))
    return entry


def unset_facts(token: str, schema: tf_index.ResourceSchema) -> dict:
    facts = force_new_defaults.unset_facts(schema.attributes, token)
    for path, value in KNOWN_DEFAULTS.get(token, {}).items():
        if facts.get("defaults", {}).get(path) != value:
            raise SystemExit(f"{token}: expected the default {path} = {value!r}; read {facts.get('defaults')}")
    return facts


def refresh_defaults(args: argparse.Namespace) -> int:
    """The committed snapshot with every AWS type's `defaults`, `defaultFrom` and `computed` read again."""
    snapshot = json.loads(args.output.read_text(encoding="utf-8"))
    aws = aws_resources(args, [])
    if aws is None:
        raise SystemExit("--refresh-defaults reads tf-aws-index: give --local DIR or pass --fetch")
    for token, schema in aws.items():
        entry = snapshot["resources"][token]
        facts = unset_facts(token, schema)
        paths = [*entry["forceNew"], *(entry.get("forceNewIf") or {})]
        for path in [*facts.get("defaults", {}), *facts.get("computed", [])]:
            if not any(path == f or path.startswith(f + ".") for f in paths):
                raise SystemExit(f"{token}: {path} is not under a ForceNew path of the snapshot; regenerate it all")
        for key in ("defaults", "defaultFrom", "computed"):
            entry.pop(key, None)
        entry.update(facts)
    head = {k: v for k, v in snapshot.items() if k != "resources"}
    head["fields"].update(UNSET_FIELDS)
    upstream.write_json(args.output, head, "resources", snapshot["resources"])
    print(f"defaults of {len(aws)} AWS resource types -> {args.output}", file=sys.stderr)
    return 0


def pulumi_eks_replace_on_changes(text: str) -> dict[str, list[str]]:
    schema = json.loads(text)
    out = {}
    for token, res in sorted(schema.get("resources", {}).items()):
        props = sorted(k for k, p in res.get("inputProperties", {}).items() if p.get("replaceOnChanges"))
        if props:
            out[token] = props
    return out


def kubernetes(read, sources: list, resources: dict, not_read: list) -> None:
    diff, helm = read("pulumi-kubernetes-diff"), read("pulumi-kubernetes-helm")
    if diff is None or helm is None:
        not_read += ["kubernetes:*", HELM_RELEASE]
        return
    sources += [diff[1], helm[1]]
    by_kind = k8s_force_new.force_new(diff[0])
    for token, paths in by_kind.items():
        if "metadata.name" not in paths:
            raise SystemExit(f"pulumi-kubernetes-diff: {token} should replace on metadata.name; read {paths}")
        # pulumi-kubernetes names an object `<resource name>-<random>` when metadata.name is unset.
        resources[f"kubernetes:{token}" if token == "*" else token] = {
            "forceNew": paths,
            "deleteBeforeReplace": False,
            "autoNamed": ["metadata.name"],
            "from": "pulumi-kubernetes",
        }
    deployment = by_kind.get("kubernetes:apps/v1:Deployment", [])
    if "spec.selector" not in deployment or "parameters" not in by_kind.get(
        "kubernetes:storage.k8s.io/v1:StorageClass", []
    ):
        raise SystemExit("pulumi-kubernetes-diff: a Deployment's spec.selector and a StorageClass's parameters replace")
    resources[HELM_RELEASE] = {
        "forceNew": k8s_force_new.helm_release_force_new(helm[0]),
        "deleteBeforeReplace": False,
        "autoNamed": [],
        "from": "pulumi-kubernetes",
    }
    for token, (role, function) in KUBERNETES_VALIDATION.items():
        got = read(role)
        if got is None:
            not_read.append(token)
            continue
        sources.append(got[1])
        immutable = k8s_force_new.validation_immutable(got[0], function)
        if "value" not in immutable:
            raise SystemExit(f"{role}: {function} should refuse changes to value; read {immutable}")
        entry = resources.setdefault(token, dict(resources["kubernetes:*"]))
        entry["immutable"] = immutable


if __name__ == "__main__":
    sys.exit(main())
