"""`mlplatform plan` on the EKS Auto Mode example stack: the cluster with Auto Mode on, one NodePool per group
pointing at an Auto Mode NodeClass, no add-on Auto Mode runs, and the dev stack's placement."""

from __future__ import annotations

from functools import cache

from rich.console import Console

from mlplatform.plan import Plan
from mlplatform.reports.plan_document import plan_document
from mlplatform.reports.plan_view import render
from mlplatform_core.model.config import parse
from mlplatform_core.model.layout import build_layout
from tests.conftest import stack_config
from tests.core.placement.test_automode_placement import REPLACED
from tests.runs import shipped_run

STACK = "dev-automode"


@cache
def plan(stack: str = STACK) -> Plan:
    cfg = parse(stack_config(stack))
    return Plan(stack, f"stacks/Pulumi.{stack}.yaml", cfg, build_layout(cfg, stack), shipped_run(stack))


@cache
def document(stack: str = STACK) -> dict:
    return plan_document(plan(stack))


def test_plan_json_shows_the_cluster_with_compute_block_storage_and_load_balancing_on():
    doc = document()
    auto = doc["deployment"]["autoMode"]
    assert (auto["compute"], auto["blockStorage"], auto["loadBalancing"]) == (True, True, True)
    assert auto["builtInNodePools"] == ["system"] and auto["initialGroup"] == "systemPool"
    assert auto["nodeRoleAccessEntry"].startswith("EKS creates it")
    assert {"CoreDNS", "EBS CSI driver", "NVIDIA device plugin", "Karpenter"} <= auto["runByAws"].keys()
    assert doc["provisioner"] == "autoMode" and "autoMode" not in document("dev")["deployment"]


def test_plan_json_has_one_node_pool_per_group_with_its_labels_and_taints_on_an_auto_mode_node_class():
    doc = document()
    layout = plan().layout
    pools = {p["name"]: p for p in doc["nodePools"]}
    assert list(pools) == [p.name for p in layout.node_pools] == ["jupyter", "jobs", "spot", "gpu"]
    for name, pool in pools.items():
        group = layout.group(name)
        assert pool["labels"] == dict(sorted(group.labels.items()))
        assert pool["taints"] == [
            {"key": t.key, "value": t.value, "effect": t.effect} if t.value else {"key": t.key, "effect": t.effect}
            for t in group.taints
        ]
        assert pool["nodeClass"]["kind"] == "NodeClass" and pool["nodeClass"]["name"] == name
        assert pool["nodeClass"]["ephemeralStorage"]["size"] == f"{group.disk_size_gib}Gi"
    refs = {
        r["inputs"]["spec"]["template"]["spec"]["nodeClassRef"]["group"]
        for r in doc["resources"]
        if r["type"] == "kubernetes:karpenter.sh/v1:NodePool"
    }
    assert refs == {"eks.amazonaws.com"}


def test_plan_json_has_no_autoscaler_device_plugin_or_ebs_csi_add_on():
    doc = document()
    assert doc["kubernetes"]["addons"] == []
    assert doc["storage"]["addon"] is None and doc["storage"]["blockStorage"] == "EKS Auto Mode"
    types = {r["type"] for r in doc["resources"]}
    assert "aws:eks/addon:Addon" not in types and "kubernetes:helm.sh/v3:Release" not in types
    dev_addons = {a["name"] for a in document("dev")["kubernetes"]["addons"]}
    assert {"cluster-autoscaler", "nvidia-device-plugin", "aws-ebs-csi-driver"} <= dev_addons


def test_plan_json_places_every_dev_profile_on_the_same_roles():
    def roles(stack: str) -> dict[str, set[str]]:
        doc, layout = document(stack), plan(stack).layout
        matrix = doc["placement"]["matrix"]
        return {
            row["profile"]: {layout.group(g).role for g, cell in row["cells"].items() if cell["schedulable"]}
            for row in matrix["rows"]
        }

    dev, auto = roles("dev"), roles(STACK)
    assert auto == {p: r for p, r in dev.items() if p not in REPLACED}  # the add-ons Auto Mode runs itself
    assert document()["placement"]["ok"] is True


def test_plan_tables_say_what_aws_runs(tmp_path):
    console = Console(width=160, record=True, file=(tmp_path / "out.txt").open("w"))
    render(plan(), console)
    out = console.export_text()
    assert "EKS Auto Mode: compute, block storage, load balancing enabled; built-in pools: system" in out
    assert "EKS Auto Mode NodePools" in out and "image and IMDS: Auto Mode's" in out
    assert "Node groups: none" in out and "Add-ons: none installed by the stack" in out
    assert "EKS Auto Mode launches them for pending pods" in out
    assert "EKS Auto Mode fee, NodePool jupyter" in out  # one fee line per NodePool, named unknown below
    assert "dev-automode: 0 node groups, 4 NodePools" in out
