"""Which pulumi-eks releases and which eks.Cluster inputs the offline model of pulumi_eks.py follows.

The model (pulumi_eks.py) maps this program's inputs to the children pulumi-eks's Construct creates
(nodejs/eks/cluster/cluster.ts). A release outside MODELLED_VERSIONS, or an input it does not follow, is
refused with a ModelError rather than guessed; tests/mlplatform/test_pulumi_eks_model.py pins the installed
SDK's inputs (CLUSTER_INPUTS_SHA256) so a pulumi-eks bump fails there until the model is re-derived.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .model import ModelError

# pulumi-eks >= 4.1 (deletionProtection, commit 9c6348ec), < 4.5 (not read yet). pyproject.toml's range must fit.
MODELLED_VERSIONS = ((4, 1, 0), (4, 5, 0))
# The provider plugin bundles @pulumi/pulumi 3.173.0 (nodejs/eks/yarn.lock at v4.1.0, v4.2.0, v4.3.0): its
# ComponentResource registers `remote || opts?.urn ? args : {}` (pulumi/pulumi sdk/nodejs/resource.ts@v3.173.0:1231),
# so the engine and every policy see the component with NO properties. From @pulumi/pulumi 3.202.0 on
# (pulumi/pulumi#20357) components send their inputs: a plugin built against that would break this model.
BUNDLED_KUBERNETES = "4.19.0"  # @pulumi/kubernetes in nodejs/eks/yarn.lock: the eks-k8s provider's version
# The inputs eks.Cluster takes in the SDK the model was derived from (pulumi_eks 4.4.0): a fingerprint of
# pulumi_eks.ClusterArgs' parameter names, recomputed from the installed SDK by
# tests/mlplatform/test_pulumi_eks_model.py.
CLUSTER_INPUTS_SHA256 = "16eac51591c3af1fd07586d3d776f548ea1732eadf7501ef7c2c073a2c556e17"


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split("-", 1)[0].split(".")[:3])
    except ValueError:
        return ()


def inputs_fingerprint(parameter_names: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(parameter_names)).encode()).hexdigest()


def check_version(version: str) -> None:
    """Refuse a pulumi-eks release the model was not derived from (the SDK asks the engine for this plugin)."""
    low, high = MODELLED_VERSIONS
    if not (low <= _version(version) < high):
        shown = ".".join(map(str, low)), ".".join(map(str, high))
        raise ModelError(
            f"pulumi-eks {version} is outside the releases the offline engine models ({shown[0]} to before "
            f"{shown[1]}): re-derive mlplatform/engine/remote/pulumi_eks.py from nodejs/eks/cluster/cluster.ts of "
            "that release, then widen MODELLED_VERSIONS"
        )


# Inputs the model follows, with the values it follows them for (None: any value).
_FOLLOWED: dict[str, Any] = {
    "name": None,
    "version": None,
    "vpcId": None,
    "privateSubnetIds": None,
    "skipDefaultNodeGroup": {True},  # a default node group would add a launch configuration, ASG, instance role
    "authenticationMode": {"API"},  # CONFIG_MAP modes add the aws-auth ConfigMap (cluster.ts:1002-1026)
    "createOidcProvider": None,
    "enabledClusterLogTypes": None,
    "encryptionConfigKeyArn": None,
    "endpointPrivateAccess": None,
    "endpointPublicAccess": None,
    "publicAccessCidrs": None,
    "deletionProtection": None,
    "upgradePolicy": None,  # passed on to the aws.eks.Cluster as it is (cluster.ts:741)
    "corednsAddonOptions": None,  # checked below: only a disabled CoreDNS add-on
    "tags": None,
}
_REQUIRED = ("name", "vpcId")  # without vpcId pulumi-eks looks up the default VPC (cluster.ts:488-499)


def check_inputs(inputs: Mapping[str, Any]) -> None:
    problems = []
    for key, value in inputs.items():
        if key not in _FOLLOWED:
            problems.append(f"{key} is not modelled")
        elif _FOLLOWED[key] is not None and value not in _FOLLOWED[key]:
            problems.append(f"{key}={json.dumps(value)} is not modelled (only {sorted(_FOLLOWED[key])})")
    coredns = inputs.get("corednsAddonOptions") or {}
    # Explicitly enabled (or configured) CoreDNS creates the add-on even without a node group (cluster.ts:1175-1185).
    if coredns.get("enabled") is True or coredns.get("configurationValues"):
        problems.append("corednsAddonOptions enabling the CoreDNS add-on is not modelled")
    problems += [f"{key} is required by the model" for key in _REQUIRED if key not in inputs]
    if problems:
        raise ModelError(
            "the offline model of pulumi_eks.Cluster does not follow these inputs: "
            + "; ".join(problems)
            + " (extend mlplatform/engine/remote/pulumi_eks.py from nodejs/eks/cluster/cluster.ts)"
        )
