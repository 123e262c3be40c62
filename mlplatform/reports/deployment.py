"""Day one in the plan: how the stack is deployed and from where, who may use the cluster, storage, support phase.

Read back from the recording where the program decides (access entries, the storage add-on and its
StorageClass), from the core where it is a property of the settings (the deployment path, the EKS
support calendar).
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mlplatform_core.model import eks_versions
from mlplatform_core.model.addons import ebs_csi
from mlplatform_core.model.automode import cluster as auto_mode
from mlplatform_core.model.cost.extended_support import upgrade_policy_view
from mlplatform_core.model.deployment import cluster_stack_reference
from mlplatform_core.model.plan_document import (
    AccessEntry,
    AccessPolicy,
    AutoModeSection,
    DeploymentSection,
    KubernetesSupport,
    StorageSection,
)
from mlplatform_core.model.resource_types import EKS_CLUSTER as EKS_CLUSTER_TYPE

from ..engine.run import ORGANIZATION
from ..plan import Plan
from .tables import print_table

ACCESS_ENTRY_TYPE = "aws:eks/accessEntry:AccessEntry"
ACCESS_POLICY_TYPE = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
EKS_ADDON_TYPE = "aws:eks/addon:Addon"
STORAGE_CLASS_TYPE = "kubernetes:storage.k8s.io/v1:StorageClass"
CREATOR = "the identity that creates the cluster"


def deployment_section(plan: Plan, auto_mode: AutoModeSection | None = None) -> DeploymentSection:
    """The programs the stack runs, in order, what each deploys and what its machine must reach; on EKS Auto Mode
    also `autoMode`: what the cluster enables and what AWS runs (reports/auto_mode.py)."""
    doc = plan.deployment.to_dict()
    if auto_mode is not None:
        doc["autoMode"] = auto_mode
    runs = {run.directory: run for run in plan.run.programs}
    for program in doc["programs"]:
        run = runs.get(program["directory"])
        program["command"] = f"pulumi up --stack {plan.stack} --cwd {program['directory']}"
        program["resources"] = len(run.resources) if run else 0
        program["project"] = run.project if run else program["project"]  # the project's own name (Pulumi.yaml)
    if len(doc["programs"]) > 1:
        doc["clusterStackReference"] = cluster_stack_reference(
            ORGANIZATION, plan.stack, doc["programs"][0]["project"]
        ).replace(ORGANIZATION, "<organization>", 1)
    return DeploymentSection.model_validate(doc)


def _creator_entries(plan: Plan) -> list[AccessEntry]:
    """The creator's admin entry, and Auto Mode's node role named by the cluster: EKS makes both
    (model/automode/cluster.py)."""
    out = [
        AccessEntry(
            principal=CREATOR,
            type="STANDARD",
            policies=[AccessPolicy(policy="AmazonEKSClusterAdminPolicy", scope="cluster", namespaces=[])],
            managed_by="EKS (pulumi-eks bootstrapClusterCreatorAdminPermissions); not an access setting",
        )
    ]
    for cluster in plan.run.of_type(EKS_CLUSTER_TYPE):
        role = (cluster.inputs.get("computeConfig") or {}).get("nodeRoleArn")
        if role:
            out.append(
                AccessEntry(
                    principal=role,
                    type=auto_mode.ACCESS_ENTRY_TYPE,
                    policies=[AccessPolicy(policy=auto_mode.AUTO_NODE_ACCESS_POLICY, scope="cluster", namespaces=[])],
                    managed_by="EKS (EKS Auto Mode's node role, computeConfig.nodeRoleArn)",
                )
            )
    return out


def access_section(plan: Plan) -> list[AccessEntry]:
    """Every access entry the stack creates with its policies, and the creator's admin entry EKS makes."""
    policies: dict[str, list[tuple[str, AccessPolicy]]] = {}
    for r in plan.run.of_type(ACCESS_POLICY_TYPE):
        scope = r.inputs.get("accessScope", {})
        policy = AccessPolicy(
            policy=str(r.inputs.get("policyArn", "")).rsplit("/", 1)[-1],
            policy_arn=r.inputs.get("policyArn"),
            scope=scope.get("type"),
            namespaces=scope.get("namespaces", []),
        )
        policies.setdefault(r.parent or "", []).append((r.name, policy))
    out = _creator_entries(plan)
    for entry in plan.run.of_type(ACCESS_ENTRY_TYPE):
        mine = [p for name, p in policies.get(entry.parent or "", []) if name.startswith(f"{entry.name}-")]
        out.append(
            AccessEntry(
                principal=entry.inputs.get("principalArn"),
                type=entry.inputs.get("type", "STANDARD"),
                policies=mine,
                managed_by="this stack (access)",
            )
        )
    return out


POD_IDENTITY_ASSOCIATION_TYPE = "aws:eks/podIdentityAssociation:PodIdentityAssociation"


def storage_section(plan: Plan) -> StorageSection | None:
    """The EBS CSI add-on (version, role, configuration) and the StorageClasses, the default among them. On EKS
    Auto Mode without the add-on: Auto Mode's block storage and its StorageClass."""
    addons = [r for r in plan.run.of_type(EKS_ADDON_TYPE) if r.inputs.get("addonName") == ebs_csi.ADDON_NAME]
    classes = [
        {k: v for k, v in r.inputs.items() if k not in ("apiVersion", "kind")}
        for r in plan.run.of_type(STORAGE_CLASS_TYPE)
    ]
    if not addons:
        if not classes:
            return None
        return StorageSection(addon=None, block_storage="EKS Auto Mode", storage_classes=classes)
    addon = addons[0].inputs
    values = addon.get("configurationValues")
    # The controller's role: IRSA (the add-on annotates its service account) or a Pod Identity association.
    associations = [
        r.inputs
        for r in plan.run.of_type(POD_IDENTITY_ASSOCIATION_TYPE)
        if r.inputs.get("serviceAccount") == ebs_csi.CONTROLLER_SERVICE_ACCOUNT
    ]
    return StorageSection(
        addon=addon.get("addonName"),
        version=addon.get("addonVersion"),
        preserve=addon.get("preserve", False),
        service_account_role_arn=addon.get("serviceAccountRoleArn"),
        role_through="Pod Identity" if associations else "IRSA",
        role_arn=associations[0].get("roleArn") if associations else addon.get("serviceAccountRoleArn"),
        configuration=json.loads(values) if isinstance(values, str) else values,
        storage_classes=classes,
    )


def support_section(plan: Plan) -> KubernetesSupport:
    """The EKS support phase of the stack's Kubernetes minor today (extended support costs more per hour)."""
    minor = plan.config.kubernetes_version
    version = eks_versions.calendar().get(minor)
    policy = upgrade_policy_view(plan.config, eks_versions.today())
    if version is None:
        return KubernetesSupport(minor=minor, phase=None, upgrade_policy=policy)
    phase = version.phase(eks_versions.today())
    notes = {
        "standard": f"standard support until {version.end_of_standard_support.isoformat()}; plan the next "
        "upgrade (one minor at a time) before then",
        "extended": f"EXTENDED support since {version.end_of_standard_support.isoformat()}: the control plane "
        f"bills at the extended-support price; EKS upgrades it itself on "
        f"{version.end_of_extended_support.isoformat()}",
    }
    return KubernetesSupport(
        minor=minor,
        phase=phase,
        upgrade_policy=policy,
        end_of_standard_support=version.end_of_standard_support.isoformat(),
        end_of_extended_support=version.end_of_extended_support.isoformat(),
        note=notes.get(phase, ""),
    )


def render_day_one(plan: Plan, doc: dict[str, Any], console: Console) -> None:
    """Tables for the deployment path, the access entries and storage."""
    dep = doc["deployment"]
    table = Table(
        title=f"Deployment path (kubernetesLayer: {dep['kubernetesLayer']}; {dep['order']})",
        title_justify="left",
        show_lines=True,
    )
    for col in ("step", "run", "deploys", "the machine must reach", "run it from"):
        table.add_column(col)
    for i, p in enumerate(dep["programs"], 1):
        table.add_row(
            str(i),
            escape(f"{p['command']}\n(project {p['project']}, {p['resources']} resources)"),
            escape(p["deploys"]),
            escape("\n".join(f"- {r}" for r in p["reaches"])),
            escape(f"{p['runsFrom']}\n\nidentity: {p['identity']}"),
        )
    print_table(console, table)
    if "clusterStackReference" in dep:
        console.print(f"  the Kubernetes layer reads the cluster stack {dep['clusterStackReference']}")
    console.print()

    access = Table(title="Who may use the cluster (EKS access entries)", title_justify="left", show_lines=True)
    for col in ("principal", "Kubernetes permissions", "managed by"):
        access.add_column(col)
    for entry in doc["access"]:
        perms = "\n".join(
            f"{p['policy']} ({'namespaces ' + ', '.join(p['namespaces']) if p['namespaces'] else 'cluster'})"
            for p in entry["policies"]
        )
        principal = plan.placeholders.show(str(entry["principal"]))  # a role the stack creates: <...> parts
        access.add_row(escape(principal), escape(perms or "-"), escape(entry["managedBy"]))
    print_table(console, access)

    storage = doc.get("storage")
    if storage:
        console.print()
        classes = ", ".join(_storage_class(c) for c in storage["storageClasses"])
        driver = (
            f"EKS add-on {storage['addon']} {storage['version']} "
            f"(preserve={storage['preserve']}, role through {storage['roleThrough']})"
            if storage["addon"]
            else "EKS Auto Mode's block storage (no add-on)"
        )
        console.print(escape(f"Storage: {driver}, StorageClass {classes or 'none'}"))


def _storage_class(c: dict[str, Any]) -> str:
    params = c.get("parameters", {})
    default = c["metadata"].get("annotations", {}).get(ebs_csi.DEFAULT_CLASS_ANNOTATION) == "true"
    return (
        f"{c['metadata']['name']} ({c.get('provisioner')}, {params.get('type')}, encrypted={params.get('encrypted')}, "
        f"{c.get('volumeBindingMode')}{', the default' if default else ''})"
    )
