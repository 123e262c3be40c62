"""Checks of EKS Auto Mode: the control plane's three capabilities, the NodeClasses (eks.amazonaws.com/v1), and
the subnets node classes of either Karpenter select.

Auto Mode owns what EC2NodeClass rules check elsewhere: nodes always run IMDSv2 with a hop limit of 1 and their
volumes are always encrypted (EKS user guide, automode/automode-learn-instances.adoc "Instance Metadata
Service"; auto-kms.adoc: the aws/ebs key, or the NodeClass's ephemeralStorage.kmsKeyID). What a stack still
decides is checked here: that the three capabilities go on together, which subnets nodes land in, whether they
get public addresses, and (when the policy config asks) a customer managed key for their storage.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mlplatform_core.model.resource_types import AUTO_MODE_NODE_CLASS, EC2_NODE_CLASS, SUBNET

from .props import MISSING, UNKNOWN, entries, fmt, get, items, known

# The subnets EKS's own convention marks public: load balancers facing the internet go there
# (components/network.py tags the created VPC's public subnets so).
PUBLIC_SUBNET_TAG = "kubernetes.io/role/elb"
# ephemeralStorage.kmsKeyID accepts a key id, key ARN, alias name or alias ARN (auto-kms.adoc).
KMS_KEY = re.compile(
    r"^(arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/[A-Za-z0-9/_-]+|alias/[A-Za-z0-9/_-]+"
    r"|(mrk-)?[0-9a-f-]{32,36})$"
)
_CAPABILITIES = (
    ("computeConfig.enabled", ("computeConfig", "enabled")),
    ("storageConfig.blockStorage.enabled", ("storageConfig", "blockStorage", "enabled")),
    (
        "kubernetesNetworkConfig.elasticLoadBalancing.enabled",
        ("kubernetesNetworkConfig", "elasticLoadBalancing", "enabled"),
    ),
)


def capabilities_together(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    """EKS: "The compute, block storage, and load balancing capabilities must all be enabled or disabled in the
    same request" (automode/auto-enable-existing.adoc)."""
    state = {name: get(args.props, *path) for name, path in _CAPABILITIES}
    if any(v is UNKNOWN for v in state.values()):
        return  # pulumi-eks resolves all three together: unknown in a preview, all or none
    on = sorted(name for name, v in state.items() if v is True)
    if on and len(on) < len(state):
        off = sorted(name for name in state if name not in on)
        yield (
            f"EKS cluster {args.name} turns on {', '.join(on)} but not {', '.join(off)}; EKS Auto Mode needs "
            "compute, block storage and load balancing enabled together (EKS refuses the request otherwise)"
        )
    compute = get(args.props, "computeConfig")
    pools, role = get(compute, "nodePools"), get(compute, "nodeRoleArn")
    if known(pools) and known(role) and bool(list(items(pools))) != (role not in (MISSING, None)):
        named = "node pools but no nodeRoleArn" if list(items(pools)) else "a nodeRoleArn but no node pools"
        yield (
            f"EKS cluster {args.name}: computeConfig names {named}; EKS takes the two together (a cluster without "
            "built-in pools has neither)"
        )


def _subnet_tags(args: Any) -> list[tuple[Any, dict[str, Any]]]:
    return [(r, entries(get(r.props, "tags", default={}))) for r in args.resources if r.resource_type == SUBNET]


def private_subnets(args: Any, cfg: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """Node classes (EC2NodeClass, Auto Mode's NodeClass) select subnets explicitly, only private ones of the
    stack, and ask for no public address."""
    subnets = _subnet_tags(args)
    for r in args.resources:
        if r.resource_type not in (EC2_NODE_CLASS, AUTO_MODE_NODE_CLASS):
            continue
        kind = "NodeClass" if r.resource_type == AUTO_MODE_NODE_CLASS else "EC2NodeClass"
        name = get(r.props, "metadata", "name", default=r.name)
        if get(r.props, "spec", "advancedNetworking", "associatePublicIPAddress") is True or (
            get(r.props, "spec", "associatePublicIPAddress") is True
        ):
            yield f"{kind} {fmt(name)} gives its nodes public IP addresses; nodes stay private behind NAT", r.urn
        terms = get(r.props, "spec", "subnetSelectorTerms")
        if terms is UNKNOWN:
            continue
        if terms in (MISSING, None) or not list(items(terms)):
            yield (
                f"{kind} {fmt(name)} selects no subnets itself; its nodes would go wherever the cluster's subnets "
                "are, public ones included: select the private subnets (the toolkit's discovery tag)",
                r.urn,
            )
            continue
        for term in items(terms):
            wanted = entries(get(term, "tags", default={}))
            if not wanted or any(not known(v) for v in wanted.values()):
                continue
            for subnet, tags in subnets:
                matches = all(tags.get(k) == v or (v == "*" and k in tags) for k, v in wanted.items())
                if matches and tags.get(PUBLIC_SUBNET_TAG) is not None:
                    yield (
                        f"{kind} {fmt(name)} selects public subnet {subnet.name} (tagged {PUBLIC_SUBNET_TAG}); "
                        "tag only private subnets with the node class's selector",
                        r.urn,
                    )


def storage_encryption(args: Any, cfg: Mapping[str, Any]) -> Iterator[str]:
    """Auto Mode encrypts node storage always; the key is the stack's choice."""
    key = get(args.props, "spec", "ephemeralStorage", "kmsKeyID")
    if key is UNKNOWN:
        return
    if key in (MISSING, None):
        if cfg["customerManagedKey"]:
            yield (
                f"NodeClass {args.name} encrypts its nodes' storage with the account's aws/ebs key; this stack's "
                "policy asks for a customer managed key (ephemeralStorage.kmsKeyID)"
            )
        return
    if not isinstance(key, str) or not KMS_KEY.match(key):
        yield f"NodeClass {args.name}: ephemeralStorage.kmsKeyID {fmt(key)} is not a KMS key id, key ARN or alias"
