"""EFA, placement groups, zones and reservations as NodePools (Karpenter 1.14), and the settings it cannot take."""

from __future__ import annotations

import pytest

from mlplatform_core.model.config import ConfigError, parse
from mlplatform_core.model.karpenter import manifests
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.validation import validate_stack
from mlplatform_core.placement.templates import node_template
from tests.conftest import stack_config
from tests.core.model.karpenter.test_karpenter_manifests import errors

P = "ml-platform-eks:"
BLOCK = {"id": "cr-0a1b2c3d4e5f60718", "type": "capacity-block", "instanceCount": 2}


def raw(*extra: dict) -> dict:
    config = stack_config("dev-karpenter")
    config[P + "additionalNodeGroups"] = list(extra)
    return config


def layout(*extra: dict):
    return build_layout(parse(raw(*extra)), "dev-karpenter")


def test_an_efa_pool_selects_its_placement_group_security_group_and_zone():
    lay = layout({"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2})
    (pool,) = [p for p in lay.node_pools if p.name == "train"]
    assert pool.efa and pool.placement_group and pool.single_zone
    node_class = manifests.ec2_node_class(pool, "role", lay.cluster_name, {})
    node_class["spec"] = manifests.node_class_spec(
        pool, "role", lay.cluster_name, {}, placement_group="pg-name", efa_security_group="sg-0123456789abcdef0"
    )
    spec = node_class["spec"]
    assert spec["placementGroupSelector"] == {"name": "pg-name"}
    assert {"id": "sg-0123456789abcdef0"} in spec["securityGroupSelectorTerms"]
    # No zone of its own: the program passes the stack's first AZ.
    node_pool = manifests.node_pool(pool)
    node_pool["spec"] = manifests.node_pool_spec(pool, zone="us-east-1a")
    zone = [
        r for r in node_pool["spec"]["template"]["spec"]["requirements"] if r["key"] == "topology.kubernetes.io/zone"
    ]
    assert zone == [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]
    assert not errors(node_pool) and not errors(node_class)
    # Karpenter attaches every EFA interface for a pod that requests one; the pool's nodes advertise them.
    template = node_template(lay.group("train"))
    assert template.variants[0].allocatable["vpc.amazonaws.com/efa"] == 32


def test_a_reservation_pool_is_reserved_capacity_selecting_the_reservation():
    lay = layout(
        {
            "name": "block",
            "gpu": True,
            "instanceTypes": ["p5.48xlarge"],
            "availabilityZone": "us-east-1b",
            "capacityReservation": BLOCK,
        }
    )
    (pool,) = [p for p in lay.node_pools if p.name == "block"]
    assert pool.capacity_type == "reserved" and pool.limits["nodes"] == "2"
    node_pool, node_class = manifests.node_pool(pool), manifests.ec2_node_class(pool, "role", lay.cluster_name, {})
    requirements = {r["key"]: r for r in node_pool["spec"]["template"]["spec"]["requirements"]}
    assert requirements["karpenter.sh/capacity-type"]["values"] == ["reserved"]
    assert requirements["topology.kubernetes.io/zone"]["values"] == ["us-east-1b"]
    assert node_class["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0a1b2c3d4e5f60718"}]
    assert not errors(node_pool) and not errors(node_class)
    assert node_template(lay.group("block")).labels["karpenter.sh/capacity-type"] == "reserved"


def test_karpenter_refuses_gpu_sharing_and_a_pool_of_its_own_node_repair_naming_why():
    with pytest.raises(ConfigError) as err:
        validate_stack(
            raw(
                {
                    "name": "shared",
                    "gpu": True,
                    "instanceTypes": ["g5.xlarge"],
                    "gpuSharing": {"timeSlicing": {"replicas": 4}},
                    "nodeRepair": False,
                }
            ),
            "dev-karpenter",
        )
    text = "\n".join(map(str, err.value.problems))
    assert "additionalNodeGroups[0].gpuSharing: is not supported with provisioner: karpenter" in text
    assert "NodeOverlay" in text
    assert (
        "additionalNodeGroups[0].nodeRepair: false: Karpenter's node repair is one controller-wide feature gate" in text
    )


def test_an_efa_pool_by_family_needs_efa_in_every_type():
    config = raw({"name": "train", "gpu": True, "efa": True, "maxSize": 2})
    config[P + "karpenter"] = {"nodePools": {"train": {"instanceFamilies": ["g5"]}}}
    with pytest.raises(ConfigError) as err:
        validate_stack(config, "dev-karpenter")
    assert any(
        "additionalNodeGroups[0].efa: true, but the pool may launch types without EFA (g5.xlarge" in str(p)
        for p in err.value.problems
    )


def test_an_efa_pool_lists_aws_efa_layout_in_its_ec2nodeclass_valid_against_the_crd():
    """efaInterfaces efaOnly (default): Karpenter v1.14.1 `networkInterfaces`, checked against its CRD (schema and
    CEL: a primary `interface` on card 0 device 0, at most one efa-only per card)."""
    lay = layout({"name": "train", "gpu": True, "instanceTypes": ["p5.48xlarge"], "efa": True, "maxSize": 2})
    (pool,) = [p for p in lay.node_pools if p.name == "train"]
    node_class = manifests.ec2_node_class(pool, "role", lay.cluster_name, {})
    interfaces = node_class["spec"]["networkInterfaces"]
    assert interfaces[:2] == [
        {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
        {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"},
    ]
    assert sum(i["interfaceType"] == "efa-only" for i in interfaces) == 32
    assert not errors(node_class)


def test_an_efa_only_pool_needs_types_with_the_same_number_of_efa_interfaces():
    """A pool by families may launch types with different EFA counts; one networkInterfaces list cannot fit them
    (Karpenter would never launch the types with fewer: compatibility.go)."""
    config = raw({"name": "train", "gpu": True, "efa": True, "maxSize": 2})
    config[P + "karpenter"] = {
        "nodePools": {"train": {"instanceFamilies": ["p5"], "instanceSizes": ["4xlarge", "48xlarge"]}}
    }
    with pytest.raises(ConfigError) as err:
        validate_stack(config, "dev-karpenter")
    (problem,) = [str(p) for p in err.value.problems if "efaInterfaces" in str(p)]
    assert "p5.4xlarge (1)" in problem and "p5.48xlarge (32)" in problem and "efaInterfaces: efa" in problem
    # With efa, Karpenter attaches each type's own interfaces: no list in the node class, nothing to refuse.
    config[P + "additionalNodeGroups"][0]["efaInterfaces"] = "efa"
    lay = build_layout(parse(config), "dev-karpenter")
    (pool,) = [p for p in lay.node_pools if p.name == "train"]
    assert "networkInterfaces" not in manifests.ec2_node_class(pool, "role", lay.cluster_name, {})["spec"]
