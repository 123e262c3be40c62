"""EKS Auto Mode as plain data (pure Python, no Pulumi import): `provisioner: autoMode`.

AWS runs Karpenter, pod networking, cluster DNS, EBS block storage, load balancing and the GPU device
plugins; the stack keeps its layout. A group becomes the same NodePool as with Karpenter
(model/karpenter/pools.py, flavors.py), pointing at an `eks.amazonaws.com/v1` NodeClass.

- `builtin`: Auto Mode's built-in NodePools (system, general-purpose) as the layout sees them;
- `pools`: the layout's groups turned into Auto Mode NodePools, with every Auto Mode rule checked;
- `cluster`: what the control plane enables (compute, block storage, load balancing), the built-in pools
  it asks for, the node role's policies and whether the stack must create its access entry;
- `manifests`: the NodeClass objects (eks.amazonaws.com/v1); NodePools are Karpenter's (karpenter/manifests).

Which of the stack's add-ons Auto Mode replaces is model/addons/run_by_aws.py (add-ons read the layout,
which this package must not: the layout build calls `pools`).
"""
