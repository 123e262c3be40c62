"""Storage as plain data: the EBS CSI add-on's configuration, its IAM policy and the default StorageClass."""

from __future__ import annotations

from mlplatform_core.model.addons import ebs_csi
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from mlplatform_core.model.scheduling import Taint, Toleration
from tests.conftest import stack_config


def tolerated(tolerations, taint: Taint) -> bool:
    return any(Toleration.from_dict(t).tolerates(taint) for t in tolerations)


def test_controller_runs_on_the_initial_group_and_keeps_the_charts_tolerations():
    config = ebs_csi.configuration("us-east-1")
    controller = config["controller"]
    initial = build_layout(parse(stack_config("prod")), "prod").group("initial")
    assert controller["nodeSelector"].items() <= initial.labels.items()
    assert all(tolerated(controller["tolerations"], t) for t in initial.taints)
    # Setting the list replaces the chart's: its NoExecute grace is kept.
    assert {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300} in controller["tolerations"]
    assert controller["region"] == "us-east-1"  # no instance metadata needed (hop limit 1)


def test_node_pods_tolerate_every_taint_and_read_metadata_on_the_host_network():
    config = ebs_csi.configuration("us-east-1")
    assert config["node"] == {"tolerateAllTaints": True, "hostNetwork": True}
    placement = ebs_csi.node_pod_placement()
    for taint in (Taint("anything", "x", "NoSchedule"), Taint("other", "", "NoExecute")):
        assert tolerated(placement["tolerations"], taint)
    # Only these keys: the add-on's schema refuses unknown ones.
    assert set(config) == {"controller", "node"}
    assert set(config["controller"]) == {"nodeSelector", "tolerations", "region"}


def test_the_driver_role_gets_the_scoped_managed_policy_of_the_regions_partition():
    assert ebs_csi.policy_arn("us-east-1") == "arn:aws:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"
    assert ebs_csi.policy_arn("cn-north-1") == "arn:aws-cn:iam::aws:policy/AmazonEBSCSIDriverPolicyV2"
    assert (ebs_csi.NAMESPACE, ebs_csi.CONTROLLER_SERVICE_ACCOUNT) == ("kube-system", "ebs-csi-controller-sa")


def test_the_default_storage_class_is_encrypted_gp3_bound_where_the_pod_lands():
    sc = ebs_csi.storage_class()
    assert sc["provisioner"] == "ebs.csi.aws.com"
    assert sc["parameters"]["type"] == "gp3" and sc["parameters"]["encrypted"] == "true"
    assert sc["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer" and sc["allowVolumeExpansion"] is True
