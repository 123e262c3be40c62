"""The configuration reference (docs/configuration.md), generated from the settings model.

Every key of StackConfig and the models under it: its type, allowed values (Literal choices, ranges,
patterns, lengths) and default come from the pydantic fields; defaults that depend on the environment are
computed from the core (a minimal dev and prod stack parsed, the layout defaults, the namespace defaults).
What a key means and an example are written in MEANINGS below, next to nothing else; a field's own
`description` wins. A key without either fails the docs test, so a new setting cannot go undocumented.
"""

from __future__ import annotations

import datetime
import json
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from mlplatform_core.model.config import PROJECT, REGION_KEY, kubernetes_layer_of, parse
from mlplatform_core.model.config.node_groups import NodeGroupSettings
from mlplatform_core.model.config.stack import StackConfig
from mlplatform_core.model.layout.defaults import DEFAULTS
from mlplatform_core.model.network import DEFAULT_VPC_CIDR, DEFAULT_ZONES, nat_per_az
from mlplatform_core.model.workloads.spec import DEFAULT_NAMESPACES, SYSTEM_CLASS_DEFAULTS, WORKLOAD_CLASS_DEFAULTS

ENVIRONMENTS = ("dev", "prod")
PER_GROUP = "per group: [built-in node groups](#built-in-node-groups)"
PER_NAMESPACE = "per namespace: [namespace defaults](#namespace-defaults)"


class Doc(typing.NamedTuple):
    meaning: str
    example: str
    default: str | None = None


# Examples of group settings, in an additional group of their own.
TRAIN_GROUP = "additionalNodeGroups: [{{name: train, gpu: true, instanceTypes: [p5.48xlarge], {}}}]"
BLOCK_GROUP = (
    "additionalNodeGroups: [{name: block, gpu: true, instanceTypes: [p5.48xlarge], minSize: 0, availabilityZone: "
    "us-east-1b, capacityReservation: {id: cr-0a1b2c3d4e5f60718, type: capacity-block, instanceCount: 2}}]"
)
MIG_GROUP = (
    "additionalNodeGroups: [{name: mig, gpu: true, instanceTypes: [p5.4xlarge], gpuSharing: {mig: {strategy: "
    "mixed, profile: 1g.10gb}}}]"
)

# key -> Doc(meaning, example as it sits under `config:`, default text when not the model's own)
MEANINGS: dict[str, Doc] = {
    "region": Doc(
        "AWS region of the cluster (the provider's `aws:region`).",
        "aws:region: eu-west-1",
    ),
    "environment": Doc(
        "Selects the layout and the stricter prod rules.",
        "environment: prod",
    ),
    "clusterName": Doc(
        "The EKS cluster's name: stable, IAM conditions and kubeconfigs use it.",
        "clusterName: ml-dev",
        "`mlp-<stack>`",
    ),
    "kubernetesVersion": Doc(
        "Control-plane and node minor, quoted; one minor at a time, a minor EKS still supports (standard or "
        "extended support) on the day it runs.",
        'kubernetesVersion: "1.35"',
    ),
    "upgradePolicy": Doc(
        "What EKS does when the cluster's minor leaves standard support ([the upgrade policy](diff.md)).",
        "upgradePolicy: {supportType: STANDARD}",
    ),
    "upgradePolicy.supportType": Doc(
        "STANDARD: EKS upgrades the control plane one minor when standard support ends; EXTENDED: the cluster "
        "stays on its minor up to 12 more months at the extended-support price.",
        "upgradePolicy: {supportType: EXTENDED}",
    ),
    "endpoint": Doc(
        "Who can reach the Kubernetes API.",
        "endpoint: {privateAccess: true, publicAccess: false}",
    ),
    "endpoint.privateAccess": Doc(
        "API reachable from inside the VPC.",
        "endpoint: {privateAccess: true}",
    ),
    "endpoint.publicAccess": Doc(
        "API reachable from the internet, from publicAccessCidrs only.",
        "endpoint: {publicAccess: true, publicAccessCidrs: [52.94.76.10/32]}",
    ),
    "endpoint.publicAccessCidrs": Doc(
        "Public egress ranges allowed to the public endpoint; required when public (documentation and private "
        "ranges are refused).",
        "endpoint: {publicAccess: true, publicAccessCidrs: [52.94.76.10/32]}",
    ),
    "endpoint.privateAccessCidrs": Doc(
        "Private ranges allowed to open HTTPS to the private endpoint besides the nodes: in-VPC runners, VPN clients.",
        "endpoint: {privateAccessCidrs: [10.40.0.0/16, 172.31.0.0/16]}",
        "the VPC's CIDR",
    ),
    "kubernetesLayer": Doc(
        "Where the Kubernetes layer is deployed from: with the cluster (`inline`) or from kubernetes-layer/ inside "
        "the VPC (`separate`).",
        "kubernetesLayer: separate",
    ),
    "access": Doc(
        "Who may use the cluster besides its creator: EKS access entries.",
        "access: {view: [arn:aws:iam::111122223333:user/auditor]}",
    ),
    "access.admin": Doc(
        "Cluster admins (AmazonEKSClusterAdminPolicy; with namespaces, AmazonEKSAdminPolicy there): IAM role or "
        "user ARNs, or {principal, namespaces}.",
        "access: {admin: [arn:aws:iam::111122223333:role/platform-team]}",
    ),
    "access.edit": Doc(
        "AmazonEKSEditPolicy, cluster-wide or in the namespaces given.",
        "access: {edit: [{principal: arn:aws:iam::111122223333:role/ml, namespaces: [mlrun]}]}",
    ),
    "access.view": Doc(
        "AmazonEKSViewPolicy, cluster-wide or in the namespaces given.",
        "access: {view: [arn:aws:iam::111122223333:user/auditor]}",
    ),
    "access.<level>[].principal": Doc(
        "An IAM role or user ARN (not an STS session, group or service-linked role).",
        "access: {edit: [{principal: arn:aws:iam::111122223333:role/ml}]}",
    ),
    "access.<level>[].namespaces": Doc(
        "Limit the grant to these namespaces.",
        "access: {edit: [{principal: arn:aws:iam::111122223333:role/ml, namespaces: [mlrun, jupyter]}]}",
        "cluster-wide",
    ),
    "network": Doc(
        "The VPC: one the stack creates (vpcCidr, ...), or an existing one (vpcId and privateSubnetIds).",
        "network: {vpcCidr: 10.40.0.0/16}",
    ),
    "network.vpcId": Doc(
        "Use this existing VPC instead of creating one.",
        "network: {vpcId: vpc-0123456789abcdef0, privateSubnetIds: [subnet-0123456789abcdef0, "
        "subnet-0123456789abcdef1]}",
        "a new VPC",
    ),
    "network.privateSubnetIds": Doc(
        "The existing VPC's private subnets for the nodes (two AZs at least).",
        "network: {vpcId: vpc-0123456789abcdef0, privateSubnetIds: [subnet-0123456789abcdef0, "
        "subnet-0123456789abcdef1]}",
        "with vpcId: required",
    ),
    "network.vpcCidr": Doc(
        "Address range of the VPC the stack creates (/16 to /20).",
        "network: {vpcCidr: 10.40.0.0/16}",
        f"`{DEFAULT_VPC_CIDR}`",
    ),
    "network.availabilityZoneCount": Doc(
        "Availability zones of the created VPC: a private (nodes) and a public (NAT) subnet in each.",
        "network: {availabilityZoneCount: 2}",
        str(DEFAULT_ZONES),
    ),
    "network.natGateways": Doc(
        "NAT gateways of the created VPC: one, or one per AZ.",
        "network: {natGateways: perAz}",
    ),
    "imdsHopLimit": Doc(
        "IMDSv2 hop limit of the nodes; 1 keeps pods off the node role.",
        "imdsHopLimit: 2",
    ),
    "spotTaint": Doc(
        "The taint of every spot group (MLRun's prevent mode relies on it).",
        "spotTaint: {key: spot, value: 'true', effect: NoSchedule}",
        "`app.iguazio.com/lifecycle=preemptible:NoSchedule`",
    ),
    "spotTaint.key": Doc(
        "Taint key.",
        "spotTaint: {key: spot, value: 'true', effect: NoSchedule}",
    ),
    "spotTaint.value": Doc(
        "Taint value.",
        "spotTaint: {key: spot, value: 'true', effect: NoSchedule}",
    ),
    "spotTaint.effect": Doc(
        "NoSchedule or NoExecute (PreferNoSchedule would let prevent-mode jobs onto spot).",
        "spotTaint: {key: spot, value: 'true', effect: NoExecute}",
    ),
    "nodeGroups": Doc(
        "Override a built-in group of the layout, by its name.",
        "nodeGroups: {jobs: {maxSize: 20}}",
    ),
    "nodeGroups.<group>.enabled": Doc(
        "Turn an optional group on (gpu, spot) or a built-in one off.",
        "nodeGroups: {gpu: {enabled: true}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.instanceTypes": Doc(
        "EC2 types from the instance catalog (a typo gets a did-you-mean); spot, GPU and autoscaled groups hold one"
        " size class.",
        "nodeGroups: {jobs: {instanceTypes: [m6i.2xlarge, m5.2xlarge]}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.capacityType": Doc(
        "On-demand or spot capacity.",
        "nodeGroups: {jobs: {capacityType: SPOT}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.amiType": Doc(
        "The node AMI.",
        "nodeGroups: {jobs: {amiType: BOTTLEROCKET_x86_64}}",
        "AL2023 for the types' architecture, the NVIDIA variant in GPU groups",
    ),
    "nodeGroups.<group>.minSize": Doc(
        "Fewest nodes (0 scales from zero).",
        "nodeGroups: {jobs: {minSize: 0}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.maxSize": Doc(
        "Most nodes the autoscaler may add.",
        "nodeGroups: {jobs: {maxSize: 20}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.desiredSize": Doc(
        "Nodes at creation; the autoscaler owns it afterwards (changes ignored).",
        "nodeGroups: {initial: {minSize: 3, maxSize: 3, desiredSize: 3}}",
        PER_GROUP,
    ),
    "nodeGroups.<group>.diskSizeGib": Doc(
        "Root volume (encrypted gp3) per node.",
        "nodeGroups: {jobs: {diskSizeGib: 200}}",
        "100 (GPU groups 200)",
    ),
    "nodeGroups.<group>.maxUnavailable": Doc(
        "Nodes replaced at once in a rolling update.",
        "nodeGroups: {jobs: {maxUnavailable: 2}}",
        "1",
    ),
    "nodeGroups.<group>.dedicated": Doc(
        "Taint the group `mlplatform.io/node-role=<role>:NoSchedule` so only pods that select and tolerate it land "
        "there.",
        "nodeGroups: {jobs: {dedicated: true}}",
        "`true` for jupyter, else `false`",
    ),
    "nodeGroups.<group>.labels": Doc(
        "Extra node labels.",
        "nodeGroups: {jobs: {labels: {team: ml}}}",
        "none",
    ),
    "nodeGroups.<group>.taints": Doc(
        "Extra taints, {key, value, effect} with Kubernetes effect spelling.",
        "nodeGroups: {jobs: {taints: [{key: team, value: ml, effect: NoSchedule}]}}",
        "none",
    ),
    "nodeGroups.<group>.taints[].key": Doc(
        "Taint key.",
        "nodeGroups: {jobs: {taints: [{key: team, value: ml, effect: NoSchedule}]}}",
    ),
    "nodeGroups.<group>.taints[].value": Doc(
        "Taint value.",
        "nodeGroups: {jobs: {taints: [{key: team, value: ml, effect: NoSchedule}]}}",
    ),
    "nodeGroups.<group>.taints[].effect": Doc(
        "NoSchedule, PreferNoSchedule or NoExecute.",
        "nodeGroups: {jobs: {taints: [{key: team, value: ml, effect: NoExecute}]}}",
    ),
    "nodeGroups.<group>.efa": Doc(
        "Every EFA interface the instance type has, the group in one AZ and (by default) a cluster placement "
        "group, the EFA device plugin on its nodes ([GPUs](gpu.md)).",
        TRAIN_GROUP.format("efa: true"),
        "`false`",
    ),
    "nodeGroups.<group>.placementGroup": Doc(
        "A cluster placement group for the group's nodes (`cluster`, implied by efa except on a Capacity Block "
        "group), or `none`; with an on-demand capacityReservation see its placementGroup.",
        TRAIN_GROUP.format("efa: true, placementGroup: none"),
        "`cluster` with efa, else none",
    ),
    "nodeGroups.<group>.availabilityZone": Doc(
        "The one AZ of an EFA or reserved group (an AZ name, not an id).",
        TRAIN_GROUP.format("efa: true, availabilityZone: us-east-1a"),
        "the stack's first AZ",
    ),
    "nodeGroups.<group>.capacityReservation": Doc(
        "An On-Demand Capacity Reservation or a Capacity Block for ML the group launches into.",
        BLOCK_GROUP,
        "none",
    ),
    "nodeGroups.<group>.capacityReservation.id": Doc(
        "The reservation's id.",
        BLOCK_GROUP,
    ),
    "nodeGroups.<group>.capacityReservation.type": Doc(
        "`on-demand` (an On-Demand Capacity Reservation) or `capacity-block`.",
        BLOCK_GROUP,
    ),
    "nodeGroups.<group>.capacityReservation.instanceCount": Doc(
        "The reservation's instances; maxSize defaults to it and may not exceed it.",
        BLOCK_GROUP,
        "maxSize",
    ),
    "nodeGroups.<group>.capacityReservation.endDate": Doc(
        "When the reservation ends (a date or a moment); the plan says when, a past date is refused.",
        BLOCK_GROUP.replace("instanceCount: 2}", "instanceCount: 2, endDate: 2030-01-15}"),
        "none",
    ),
    "nodeGroups.<group>.capacityReservation.placementGroup": Doc(
        "On-demand only: the existing cluster placement group the reservation was created in; the nodes launch "
        "into it and the stack creates none (a reservation cannot be used from a new one).",
        BLOCK_GROUP.replace(
            "capacity-block, instanceCount: 2}", "on-demand, instanceCount: 2, placementGroup: my-cpg}"
        ),
        "none",
    ),
    "nodeGroups.<group>.gpuSharing": Doc(
        "Share each GPU: time-slicing or MIG, one of them ([GPUs](gpu.md)).",
        "nodeGroups: {gpu: {enabled: true, gpuSharing: {timeSlicing: {replicas: 4}}}}",
        "none: one pod per GPU",
    ),
    "nodeGroups.<group>.gpuSharing.timeSlicing": Doc(
        "CUDA time-slicing: each GPU advertised `replicas` times, no memory or fault isolation.",
        "nodeGroups: {gpu: {enabled: true, gpuSharing: {timeSlicing: {replicas: 4}}}}",
    ),
    "nodeGroups.<group>.gpuSharing.timeSlicing.replicas": Doc(
        "How many pods share one GPU.", "nodeGroups: {gpu: {enabled: true, gpuSharing: {timeSlicing: {replicas: 8}}}}"
    ),
    "nodeGroups.<group>.gpuSharing.mig": Doc(
        "Multi-Instance GPU: every GPU of the group split into one profile by NVIDIA's MIG manager.",
        MIG_GROUP,
    ),
    "nodeGroups.<group>.gpuSharing.mig.strategy": Doc(
        "How the slices are advertised: `single` or `mixed`.",
        MIG_GROUP,
    ),
    "nodeGroups.<group>.gpuSharing.mig.profile": Doc(
        "The MIG profile every GPU is split into.",
        MIG_GROUP,
    ),
    "nodeGroups.<group>.nodeRepair": Doc(
        "EKS node auto repair for this managed node group.",
        "nodeGroups: {jobs: {nodeRepair: false}}",
        "the stack's nodeRepair",
    ),
    "nodeRepair": Doc(
        "EKS node auto repair on managed node groups and the node monitoring agent (Karpenter: its NodeRepair "
        "feature gate).",
        "nodeRepair: false",
    ),
    "gpuMetrics": Doc(
        "The NVIDIA DCGM exporter (GPU metrics for Prometheus) on every GPU group; with nodeRepair it uses the "
        "node monitoring agent's DCGM host engine (docs/gpu.md).",
        "gpuMetrics: true",
    ),
    "podIdentity": Doc(
        "EKS Pod Identity instead of IRSA for the add-ons' AWS roles (unset keeps IRSA, so existing clusters do "
        "not flip).",
        "podIdentity: true",
    ),
    "quotas": Doc(
        "The raised values of adjustable EKS service quotas this account has (the plan checks the stack against them).",
        "quotas: {managedNodeGroupsPerCluster: 50}",
    ),
    "quotas.managedNodeGroupsPerCluster": Doc(
        "Managed node groups per cluster, as raised in Service Quotas.",
        "quotas: {managedNodeGroupsPerCluster: 50}",
        "AWS's default quota",
    ),
    "quotas.nodesPerManagedNodeGroup": Doc(
        "Nodes per managed node group, as raised in Service Quotas.",
        "quotas: {nodesPerManagedNodeGroup: 1000}",
        "AWS's default quota",
    ),
    "additionalNodeGroups": Doc(
        "Further groups, each with a name (and role, gpu) and the group settings above.",
        "additionalNodeGroups: [{name: big-jobs, role: jobs, instanceTypes: [m5.8xlarge], maxSize: 4}]",
        "none",
    ),
    "additionalNodeGroups[].name": Doc(
        "The group's name (lowercase, digits, '-').",
        "additionalNodeGroups: [{name: big-jobs, instanceTypes: [m5.8xlarge]}]",
    ),
    "additionalNodeGroups[].role": Doc(
        "The role it serves (the node-role label); a GPU group takes `gpu`.",
        "additionalNodeGroups: [{name: big-jobs, role: jobs, instanceTypes: [m5.8xlarge]}]",
        "the group's name",
    ),
    "additionalNodeGroups[].gpu": Doc(
        "A dedicated GPU group: NVIDIA AMI, GPU taint and labels.",
        "additionalNodeGroups: [{name: a100, gpu: true, instanceTypes: [p4d.24xlarge]}]",
    ),
    "protectResources": Doc(
        "Protect the control plane, KMS key and VPC from `pulumi destroy` (and EKS deletion protection).",
        "protectResources: false",
    ),
    "tags": Doc(
        "AWS tags on every resource.",
        "tags: {cost-center: ml}",
        "none",
    ),
    "workloads": Doc(
        "The workload layer: priority classes, namespaces, job defaults, MLRun's defaults.",
        "workloads: {preemptionMode: allow}",
    ),
    "workloads.priorityClasses": Doc(
        "The user job classes (values must rank low < medium < high, <= 1e9, no `system-` prefix).",
        "workloads: {priorityClasses: {high: {value: 50000}}}",
    ),
    "workloads.priorityClasses.<tier>": Doc(
        "One class: low, medium or high.",
        "workloads: {priorityClasses: {low: {name: batch-low}}}",
    ),
    "workloads.priorityClasses.<tier>.name": Doc(
        "Class name.",
        "workloads: {priorityClasses: {low: {name: batch-low}}}",
        "`igz-workload-<tier>`",
    ),
    "workloads.priorityClasses.<tier>.value": Doc(
        "Priority value.",
        "workloads: {priorityClasses: {high: {value: 50000}}}",
        "10000 / 20000 / 30000",
    ),
    "workloads.priorityClasses.<tier>.preemptionPolicy": Doc(
        "Never: first in the queue, never evicts a running pod.",
        "workloads: {priorityClasses: {high: {preemptionPolicy: PreemptLowerPriority}}}",
        "`Never`",
    ),
    "workloads.priorityClasses.<tier>.description": Doc(
        "The class's description.",
        "workloads: {priorityClasses: {low: {description: Nightly batch}}}",
        "a sentence per tier",
    ),
    "workloads.systemPriorityClasses": Doc(
        "Platform classes above every user class.",
        "workloads: {systemPriorityClasses: {enabled: true}}",
    ),
    "workloads.systemPriorityClasses.enabled": Doc(
        "Also create igz-system-{medium,high,critical}.",
        "workloads: {systemPriorityClasses: {enabled: true}}",
    ),
    "workloads.systemPriorityClasses.<tier>": Doc(
        "One platform class (the same fields as a user class).",
        "workloads: {systemPriorityClasses: {enabled: true, critical: {value: 5000000}}}",
        "`igz-system-<tier>`, 1e6 / 2e6 / 3e6",
    ),
    "workloads.globalDefault": Doc(
        "The one class pods without priorityClassName get, cluster-wide: low, medium, high or a class name.",
        "workloads: {globalDefault: low}",
        "none",
    ),
    "workloads.defaultPriority": Doc(
        "MLRun's default class for jobs.",
        "workloads: {defaultPriority: high}",
    ),
    "workloads.preemptionMode": Doc(
        "MLRun's default preemption mode.",
        "workloads: {preemptionMode: allow}",
    ),
    "workloads.mlrunNamespace": Doc(
        "The namespace whose defaults MLRun's defaults mirror.",
        "workloads: {mlrunNamespace: mlrun}",
    ),
    "workloads.namespaces": Doc(
        "Workload namespaces: the defaults (mlrun; jupyter in dev) and your own.",
        "workloads: {namespaces: {team-a: {labels: {team: a}}}}",
        PER_NAMESPACE,
    ),
    "workloads.namespaces.<name>.enabled": Doc(
        "false drops a default namespace.",
        "workloads: {namespaces: {jupyter: {enabled: false}}}",
        "true",
    ),
    "workloads.namespaces.<name>.labels": Doc(
        "Extra namespace labels.",
        "workloads: {namespaces: {mlrun: {labels: {team: ml}}}}",
        "none",
    ),
    "workloads.namespaces.<name>.limits": Doc(
        "The LimitRange: per-container defaults and bounds (min <= defaultRequest <= default <= max).",
        "workloads: {namespaces: {mlrun: {limits: {max: {cpu: '15', memory: 56Gi}}}}}",
        PER_NAMESPACE,
    ),
    "workloads.namespaces.<name>.limits.<bound>": Doc(
        "One bound: min, defaultRequest, default or max.",
        "workloads: {namespaces: {mlrun: {limits: {defaultRequest: {cpu: 500m, memory: 1Gi}}}}}",
        PER_NAMESPACE,
    ),
    "workloads.namespaces.<name>.limits.<bound>.cpu": Doc(
        "CPU quantity (500m, 2; no finer than 1m).",
        "workloads: {namespaces: {mlrun: {limits: {default: {cpu: '2'}}}}}",
        PER_NAMESPACE,
    ),
    "workloads.namespaces.<name>.limits.<bound>.memory": Doc(
        "Memory quantity in whole bytes (512Mi, 4Gi, 1G).",
        "workloads: {namespaces: {mlrun: {limits: {default: {memory: 4Gi}}}}}",
        PER_NAMESPACE,
    ),
    "workloads.namespaces.<name>.quota": Doc(
        "A ResourceQuota: requests.cpu, limits.memory, pods, requests.nvidia.com/gpu, count/...",
        "workloads: {namespaces: {mlrun: {quota: {requests.cpu: '64', pods: 500}}}}",
        "none",
    ),
    "provisioner": Doc(
        "Managed node groups and the Cluster Autoscaler, or NodePools for every group but the initial one: "
        "Karpenter's (`karpenter`) or [EKS Auto Mode's](automode.md) (`autoMode`, AWS runs the nodes).",
        "provisioner: karpenter",
    ),
    "imageRegistry": Doc(
        "A mirror registry the add-ons' images are pulled from instead of their upstream registries (required in "
        "the China regions by every stack that installs the charts; [the add-ons](addons.md) lists the image paths).",
        "imageRegistry: 123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror",
        "none: the upstream registries",
    ),
    "karpenter": Doc(
        "Karpenter settings (only with provisioner: karpenter, or autoMode with autoMode.keepKarpenter).",
        "karpenter: {replicas: 1}",
    ),
    "karpenter.amiVersion": Doc(
        "The EKS AMI release of Karpenter's nodes (`latest`, or pinned: v20251120).",
        "karpenter: {amiVersion: v20251120}",
    ),
    "karpenter.replicas": Doc(
        "Controller replicas on the initial group.",
        "karpenter: {replicas: 1}",
    ),
    "karpenter.keepNodeGroups": Doc(
        "Keep the managed node groups while migrating to Karpenter, until drained; no autoscaler runs: they keep "
        "the nodes they have.",
        "karpenter: {keepNodeGroups: true}",
    ),
    "karpenter.nodePools": Doc(
        "Per pool (by group name) overrides of the NodePool.",
        "karpenter: {nodePools: {spot: {instanceFamilies: [m5, m6i]}}}",
        "none",
    ),
    "karpenter.nodePools.<pool>.instanceFamilies": Doc(
        "EC2 families the pool may launch.",
        "karpenter: {nodePools: {spot: {instanceFamilies: [m5, m6i]}}}",
        "from the group's types",
    ),
    "karpenter.nodePools.<pool>.instanceSizes": Doc(
        "EC2 sizes the pool may launch.",
        "karpenter: {nodePools: {spot: {instanceFamilies: [m5, m6i], instanceSizes: [2xlarge, 4xlarge]}}}",
        "from the group's types",
    ),
    "karpenter.nodePools.<pool>.consolidationPolicy": Doc(
        "When Karpenter removes nodes.",
        "karpenter: {nodePools: {jobs: {consolidationPolicy: WhenEmpty}}}",
        "WhenEmpty for job, GPU and notebook pools, WhenEmptyOrUnderutilized for spot",
    ),
    "karpenter.nodePools.<pool>.consolidateAfter": Doc(
        "Wait before consolidating an empty or underused node (30s, 10m, 1h): at most 168h, no Never.",
        "karpenter: {nodePools: {jobs: {consolidateAfter: 30m}}}",
        "10m",
    ),
    "karpenter.nodePools.<pool>.expireAfter": Doc(
        "Replace nodes after this age: at most 8760h, or Never.",
        "karpenter: {nodePools: {jobs: {expireAfter: 168h}}}",
        "720h",
    ),
    "karpenter.nodePools.<pool>.limits": Doc(
        "Most cpu, memory, nvidia.com/gpu or nodes the pool may hold.",
        "karpenter: {nodePools: {jobs: {limits: {cpu: '64', memory: 256Gi}}}}",
        "from the group's maxSize",
    ),
    "karpenter.nodePools.<pool>.weight": Doc(
        "Which pool Karpenter tries first (1-100).",
        "karpenter: {nodePools: {spot: {weight: 50}}}",
        "spot pools 50, on-demand 10",
    ),
    "autoMode": Doc(
        "[EKS Auto Mode](automode.md) settings (only with provisioner: autoMode).",
        "autoMode: {generalPurposePool: false}",
    ),
    "autoMode.initialGroup": Doc(
        "Where the core services run: Auto Mode's built-in `system` pool, or the initial managed node group "
        "(then the cluster asks for no built-in pool).",
        "autoMode: {initialGroup: managedNodeGroup}",
    ),
    "autoMode.generalPurposePool": Doc(
        "Turn on Auto Mode's built-in `general-purpose` pool, which takes any pod without a selector.",
        "autoMode: {generalPurposePool: true}",
    ),
    "autoMode.ephemeralStorageKmsKey": Doc(
        "The KMS key (id, key ARN, alias name or alias ARN) of every Auto Mode node's volumes; its key policy must "
        "let the cluster role use it.",
        "autoMode: {ephemeralStorageKmsKey: alias/eks-nodes}",
        "none: the account's aws/ebs key",
    ),
    "autoMode.keepNodeGroups": Doc(
        "Keep the managed node groups (and the initial one) while migrating to Auto Mode, until drained; no "
        "autoscaler runs: they keep the nodes they have.",
        "autoMode: {keepNodeGroups: true}",
    ),
    "autoMode.keepKarpenter": Doc(
        "Keep Karpenter's controller, IAM, queue and pools (from the `karpenter` settings) while migrating from "
        "Karpenter, until drained; needs nodePoolSuffix and the initial managed node group.",
        "autoMode: {keepKarpenter: true, nodePoolSuffix: -auto, initialGroup: managedNodeGroup}",
    ),
    "autoMode.nodePoolSuffix": Doc(
        "Appended to every Auto Mode NodePool's and NodeClass's name (needed with keepKarpenter; keep it after).",
        "autoMode: {nodePoolSuffix: -auto}",
        "none",
    ),
    "autoMode.nodePools": Doc(
        "Per pool (by group name) overrides of the Auto Mode NodePool, as karpenter.nodePools.",
        "autoMode: {nodePools: {spot: {instanceFamilies: [m5, m6i]}}}",
        "none",
    ),
    "autoMode.nodePools.<pool>.instanceFamilies": Doc(
        "EC2 families the pool may launch (of the types Auto Mode launches).",
        "autoMode: {nodePools: {spot: {instanceFamilies: [m5, m6i]}}}",
        "from the group's types",
    ),
    "autoMode.nodePools.<pool>.instanceSizes": Doc(
        "EC2 sizes the pool may launch.",
        "autoMode: {nodePools: {spot: {instanceFamilies: [m5, m6i], instanceSizes: [2xlarge, 4xlarge]}}}",
        "from the group's types",
    ),
    "autoMode.nodePools.<pool>.consolidationPolicy": Doc(
        "When Auto Mode removes nodes.",
        "autoMode: {nodePools: {jobs: {consolidationPolicy: WhenEmpty}}}",
        "WhenEmpty for job, GPU and notebook pools, WhenEmptyOrUnderutilized for spot",
    ),
    "autoMode.nodePools.<pool>.consolidateAfter": Doc(
        "Wait before consolidating an empty or underused node (30s, 10m, 1h): at most 168h, no Never.",
        "autoMode: {nodePools: {jobs: {consolidateAfter: 30m}}}",
        "10m",
    ),
    "autoMode.nodePools.<pool>.expireAfter": Doc(
        "Replace nodes after this age: at most 480h (Auto Mode replaces every node within 21 days), no Never.",
        "autoMode: {nodePools: {jobs: {expireAfter: 168h}}}",
        "336h",
    ),
    "autoMode.nodePools.<pool>.limits": Doc(
        "Most cpu, memory, nvidia.com/gpu or nodes the pool may hold.",
        "autoMode: {nodePools: {jobs: {limits: {cpu: '64', memory: 256Gi}}}}",
        "from the group's maxSize",
    ),
    "autoMode.nodePools.<pool>.weight": Doc(
        "Which pool Auto Mode tries first (1-100).",
        "autoMode: {nodePools: {spot: {weight: 50}}}",
        "spot pools 50, on-demand 10",
    ),
}

# Where a dict of models or a list of models sits, the reference names its key like this.
DICT_KEYS = {"nodeGroups": "<group>", "namespaces": "<name>", "nodePools": "<pool>"}
FIELD_KEYS = {
    "low": "<tier>",
    "medium": "<tier>",
    "high": "<tier>",
    "critical": "<tier>",
    "min": "<bound>",
    "defaultRequest": "<bound>",
    "default": "<bound>",
    "max": "<bound>",
    "admin": "<level>",
    "edit": "<level>",
    "view": "<level>",
}  # access levels: only in the paths of their entries


@dataclass(frozen=True)
class Key:
    path: str  # e.g. nodeGroups.<group>.minSize
    field: FieldInfo
    annotation: Any
    section: bool  # holds settings of its own


def _models(annotation: Any) -> list[type[BaseModel]]:
    out = []
    for a in typing.get_args(annotation) or (annotation,):
        for b in typing.get_args(a) or (a,):
            if isinstance(b, type) and issubclass(b, BaseModel):
                out.append(b)
    return out


def _container(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _container(inner[0]) if len(inner) == 1 else None
    return origin


def _shown(prefix: str, key: str) -> str:
    """A field's name in a path: tiers and bounds that share one shape are named once (<tier>, <bound>)."""
    if prefix.lower().endswith(("priorityclasses.", "limits.")) and key in FIELD_KEYS:
        return FIELD_KEYS[key]
    return key


def settings(model: type[BaseModel] = StackConfig, prefix: str = "", seen: set[str] | None = None) -> Iterator[Key]:
    """Every key, depth first, in the model's order; repeated shapes (three priority tiers, the access
    levels, an additional group's settings it shares with nodeGroups.<group>) once."""
    seen = set() if seen is None else seen
    inherited = set(NodeGroupSettings.model_fields) if prefix == "additionalNodeGroups[]." else set()
    for name, field in model.model_fields.items():
        if name in inherited:
            continue  # documented under nodeGroups.<group>
        key = field.alias or name
        path = f"{prefix}{_shown(prefix, key)}"
        nested = _models(field.annotation)
        if path not in seen:
            seen.add(path)
            yield Key(path, field, field.annotation, bool(nested))
        for sub in nested:
            container = _container(field.annotation)
            if container is dict:
                inner = f"{path}.{DICT_KEYS.get(key, '<key>')}."
            elif container is list:
                inner = f"{prefix}{FIELD_KEYS.get(key, key)}[]." if prefix == "access." else f"{path}[]."
            else:
                inner = f"{path}."
            if prefix.startswith("workloads.systemPriorityClasses.") or inner in seen:
                continue  # the same fields as a user class, or a shape already listed
            seen.add(inner)
            yield from settings(sub, inner, seen)


def _type(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type(args[0])
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if all(_type(a) in ("string", "integer", "number") for a in inner) and len(inner) > 1:
            return "quantity (string or number)"
        return " or ".join(_type(a) for a in inner)
    if origin is typing.Literal:
        return "string" if all(isinstance(a, str) for a in args) else "literal"
    if origin is list:
        return f"list of {_type(args[0])}s".replace("ys", "ies") if args else "list"
    if origin is dict:
        return f"mapping of {_type(args[1])}s" if args else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    names |= {datetime.datetime: "date-time", datetime.date: "date (ISO 8601)"}
    return names.get(annotation, str(annotation))


def _literals(annotation: Any) -> list[str]:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if origin in (typing.Union, types.UnionType, typing.Annotated):
        return [v for a in typing.get_args(annotation) for v in _literals(a)]
    return []


def allowed(key: Key) -> str:
    parts = []
    choices = _literals(key.annotation)
    if choices:
        parts.append(", ".join(f"`{c}`" for c in choices))
    for m in key.field.metadata:
        for attr, text in (
            ("ge", ">= {}"),
            ("le", "<= {}"),
            ("min_length", "at least {} item"),
            ("max_length", "at most {} item"),
            ("pattern", "matches `{}`"),
        ):
            value = getattr(m, attr, None)
            if value is not None:
                parts.append(text.format(value) + ("s" if attr.endswith("length") and value != 1 else ""))
    return "; ".join(parts) or "-"


def minimal_stack(environment: str) -> dict[str, Any]:
    """The fewest settings a stack of the environment needs (prod must choose its upgrade policy)."""
    config: dict[str, Any] = {REGION_KEY: "us-east-1", f"{PROJECT}:environment": environment}
    if environment == "prod":
        config[f"{PROJECT}:upgradePolicy"] = {"supportType": "EXTENDED"}
    return config


def _minimal(environment: str) -> StackConfig:
    return parse(minimal_stack(environment))


def environment_defaults(path: str) -> dict[str, str] | None:
    """Defaults computed per environment from the core, where they differ by environment."""
    configs = {env: _minimal(env) for env in ENVIRONMENTS}
    if path == "protectResources":
        return {env: f"`{str(cfg.protected).lower()}`" for env, cfg in configs.items()}
    if path == "upgradePolicy.supportType":
        return {"dev": "`STANDARD`", "prod": "required (no default: choose)"}
    if path == "network.natGateways":
        return {env: "`perAz`" if nat_per_az(cfg.network, env) else "`single`" for env, cfg in configs.items()}
    if path == "kubernetesLayer":
        return {
            env: f"`{kubernetes_layer_of(cfg)}` (the endpoint is private; `inline` with a public one)"
            for env, cfg in configs.items()
        }
    return None


def default(key: Key) -> str:
    per_env = environment_defaults(key.path)
    if per_env:
        if len(set(per_env.values())) == 1:
            return next(iter(per_env.values()))
        return "; ".join(f"{env}: {text}" for env, text in per_env.items())
    doc = MEANINGS.get(key.path)
    if doc is not None and doc.default is not None:
        return doc.default
    value = key.field.default
    if value is PydanticUndefined:
        if key.field.is_required():
            return "required"
        factory = key.field.default_factory
        value = None if key.section or factory is None else factory()
        if value in (None, [], {}):
            return "-" if key.section else ("`[]`" if value == [] else "none")
    if value is None:
        return "none"
    return f"`{json.dumps(value) if not isinstance(value, str) else value}`"


def undocumented() -> list[str]:
    """Keys with neither a MEANINGS entry nor a field description (the docs test fails on any)."""
    return [k.path for k in settings() if k.path not in MEANINGS and not k.field.description]


def _groups_table() -> list[str]:
    out = [
        "| environment | group | enabled | capacity | instance types | min / desired / max | disk GiB | dedicated |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for env, groups in DEFAULTS.items():
        for name, d in groups.items():
            out.append(
                f"| {env} | `{name}` | {'yes' if d.enabled else 'no'} | {d.capacity_type} | "
                f"{', '.join(d.instance_types)} | {d.min_size} / {d.desired_size} / {d.max_size} | {d.disk_size_gib} | "
                f"{'yes' if d.dedicated else 'no'} |"
            )
    return out


def _namespaces_table() -> list[str]:
    out = ["| environment | namespace | for | defaultRequest | default (limit) | max |", "|---|---|---|---|---|---|"]
    for env, namespaces in DEFAULT_NAMESPACES.items():
        for name, (purpose, limits) in namespaces.items():
            cells = [
                " / ".join(v for v in limits[b].to_dict().values()) if b in limits else "-"
                for b in ("defaultRequest", "default", "max")
            ]
            out.append(f"| {env} | `{name}` | {purpose} | {' | '.join(cells)} |")
    return out


def _classes_table() -> list[str]:
    out = ["| setting | name | value | description |", "|---|---|---|---|"]
    for prefix, classes in (
        ("priorityClasses", WORKLOAD_CLASS_DEFAULTS),
        ("systemPriorityClasses", SYSTEM_CLASS_DEFAULTS),
    ):
        for tier, (name, value, text) in classes.items():
            out.append(f"| `workloads.{prefix}.{tier}` | `{name}` | {value:,} | {text} |")
    return out


def _anchor(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def reference() -> str:
    """The Markdown of the reference: every key, then the per-environment tables."""
    missing = undocumented()
    if missing:
        raise SystemExit(f"config_reference: describe these keys in MEANINGS: {', '.join(missing)}")
    out = []
    for key in settings():
        meaning = key.field.description or MEANINGS[key.path].meaning
        example = MEANINGS[key.path].example
        shown = key.path if key.path == "region" else f"{PROJECT}:{key.path}"
        if key.path == "region":
            shown = REGION_KEY
        out += [
            f"### `{shown}` {{#{_anchor(key.path)}}}",
            "",
            meaning,
            "",
            f"- type: {_type(key.annotation)}",
            f"- allowed: {allowed(key)}",
            f"- default: {default(key)}",
            f"- example: `{example if key.path == 'region' else f'{PROJECT}:{example}'}`",
            "",
        ]
    out += [
        "### Built-in node groups",
        "",
        *_groups_table(),
        "",
        "### Namespace defaults",
        "",
        *_namespaces_table(),
        "",
        "### Priority classes",
        "",
        *_classes_table(),
    ]
    return "\n".join(out) + "\n"
