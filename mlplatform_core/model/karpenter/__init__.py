"""Karpenter NodePools and EC2NodeClasses as plain data (pure Python, no Pulumi import).

- `release`: the pinned Karpenter release and the Kubernetes minors it supports (generated data);
- `capacity`: EC2 instance types as Karpenter's scheduler sees them (capacity, labels, family matching);
- `spec`: NodePoolSpec, one per Karpenter-provisioned group of the layout;
- `pools`: the layout's groups turned into NodePoolSpecs, with every Karpenter rule checked;
- `manifests`: the NodePool and EC2NodeClass objects (karpenter.sh/v1, karpenter.k8s.aws/v1).

The layout (model/layout) calls `pools.build_node_pools` for stacks with `provisioner: karpenter`; the
controller's chart, values and IAM documents live in model/addons/karpenter.py.
"""
