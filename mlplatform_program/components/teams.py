"""Teams on one cluster: the Kueue release and the teams' Kueue objects (mlplatform_core.model.teams).

Created only for a stack with `teams`. Order: the release first (Helm installs the chart's CRDs before the
manager, and `atomic` waits for the manager, whose webhooks validate the objects); then the objects in the order
teams.manifests lists them (flavors, cohorts, priority classes, ClusterQueues, LocalQueues), each after what it
names, the LocalQueues after their namespaces (`depends_on`: the workload layer's objects).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from mlplatform_core.model.addons.kueue import kueue_release
from mlplatform_core.model.layout import Layout
from mlplatform_core.model.teams import Teams, manifests


class _KueueObject(pulumi.CustomResource):
    """A Kueue object with fields beside `spec` (a WorkloadPriorityClass's `value` and `description`), which
    pulumi_kubernetes' CustomResource cannot carry: the same `kubernetes:<apiVersion>:<kind>` type, every field."""

    def __init__(self, name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> None:
        super().__init__(f"kubernetes:{obj['apiVersion']}:{obj['kind']}", name, dict(obj), opts)


def _resource(obj: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    meta = obj["metadata"]
    name = f"{obj['kind'].lower()}-" + (f"{meta['namespace']}-{meta['name']}" if "namespace" in meta else meta["name"])
    if "spec" in obj:
        return k8s.apiextensions.CustomResource(
            name, api_version=obj["apiVersion"], kind=obj["kind"], metadata=meta, spec=obj["spec"], opts=opts
        )
    return _KueueObject(name, obj, opts)


class TeamQueues(pulumi.ComponentResource):
    """Kueue (its Helm release) and the teams' flavors, cohorts, priority classes, ClusterQueues and LocalQueues."""

    def __init__(
        self,
        name: str,
        layout: Layout,
        teams: Teams,
        provider: k8s.Provider,
        image_registry: str | None = None,
        after: Sequence[pulumi.Resource] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """`after`: what the release and the objects wait for (the workload layer's namespaces and the core
        services' nodes, through the Platform's objects and storage)."""
        super().__init__("mlplatform:teams:TeamQueues", name, None, opts)
        release = kueue_release(layout, teams, image_registry)
        assert release is not None  # a stack with teams
        chart = release.chart
        on_cluster = pulumi.ResourceOptions(parent=self, provider=provider)
        self.release = k8s.helm.v3.Release(
            "kueue",
            name=release.name,
            chart=chart.name,
            version=chart.version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=chart.repo),
            namespace=chart.namespace,
            values=dict(release.values),
            atomic=True,
            cleanup_on_fail=True,
            create_namespace=True,
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=list(after))),
        )
        created: dict[tuple[str, str], pulumi.Resource] = {}
        self.objects: list[pulumi.CustomResource] = []
        for obj in manifests(teams):
            needs: list[pulumi.Resource] = [self.release]
            spec = obj.get("spec", {})
            if obj["kind"] == "ClusterQueue":
                needs += [created[("ResourceFlavor", f["name"])] for g in spec["resourceGroups"] for f in g["flavors"]]
                needs.append(created[("Cohort", spec["cohortName"])])
            elif obj["kind"] == "LocalQueue":
                needs += [created[("ClusterQueue", spec["clusterQueue"])], *after]
            res = _resource(obj, pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=needs)))
            created[(obj["kind"], obj["metadata"]["name"])] = res
            self.objects.append(res)
        self.register_outputs(
            {
                "kueueRelease": self.release.name,
                "clusterQueues": [t.name for t in teams.teams],
                "localQueues": {ns: t.queue_name for t in teams.teams for ns in t.namespaces},
            }
        )
