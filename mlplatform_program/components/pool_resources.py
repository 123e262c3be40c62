"""One pool's Kubernetes objects: its node class and its NodePool (karpenter.sh/v1), which waits for the class.

Karpenter's EC2NodeClass and Auto Mode's NodeClass alike (components/karpenter.py, components/automode.py); the
Pulumi names (`<class prefix>-<group>`, `nodepool-<group>`) are the resources' identities in the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.karpenter.spec import NODE_POOL_API, NodePoolSpec


def training_lookup(
    training: pulumi.Input[Mapping[str, Mapping[str, str]]] | None,
) -> Callable[[str, str], pulumi.Output[str | None]]:
    """`of(pool, key)`: one single-zone pool's zone, placementGroup or efaSecurityGroup (the cluster program's
    TrainingNetwork exports, or their stack output), None where the pool has none."""
    per_pool = pulumi.Output.from_input(training or {})

    def of(pool: str, key: str) -> pulumi.Output[str | None]:
        return per_pool.apply(lambda t: (t.get(pool) or {}).get(key))

    return of


def pool_resources(
    pool: NodePoolSpec,
    class_prefix: str,
    class_spec: Mapping[str, Any],
    labels: Mapping[str, str],
    opts: pulumi.ResourceOptions,
    class_depends_on: Sequence[pulumi.Resource] = (),
    pool_depends_on: Sequence[pulumi.Resource] = (),
    pool_spec: Mapping[str, Any] | None = None,
) -> k8s.apiextensions.CustomResource:
    """The node class (waiting for `class_depends_on`) and the NodePool (waiting for the class and
    `pool_depends_on`); returns the NodePool. `pool_spec`: the NodePool's spec, by default the pool's own."""
    node_class = k8s.apiextensions.CustomResource(
        f"{class_prefix}-{pool.name}",
        api_version=pool.node_class_api,
        kind=pool.node_class_kind,
        metadata={"name": pool.node_class, "labels": dict(labels)},
        spec=dict(class_spec),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=list(class_depends_on))),
    )
    return k8s.apiextensions.CustomResource(
        f"nodepool-{pool.name}",
        api_version=NODE_POOL_API,
        kind="NodePool",
        metadata={"name": pool.k8s_name, "labels": dict(labels)},
        spec=dict(pool_spec) if pool_spec is not None else manifests.node_pool_spec(pool),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[*pool_depends_on, node_class])),
    )
