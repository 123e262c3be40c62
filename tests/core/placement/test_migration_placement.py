"""The placement proof, `place`, cost and the plan's matrix on a stack that is migrating: the managed node groups
(keepNodeGroups) and Karpenter pools (autoMode.keepKarpenter) it keeps run next to the new pools until they are
drained, so pods land on them too and the proof offers them, by names that say they are the kept ones."""

from __future__ import annotations

from mlplatform_core.model.addons import core_services
from mlplatform_core.model.cost.capacity import stack_capacity
from mlplatform_core.model.layout import INITIAL
from mlplatform_core.placement.filters import place_spec
from mlplatform_core.placement.invariants import stack_report
from mlplatform_core.placement.templates import node_templates
from tests.conftest import stack_config
from tests.core.placement.test_automode_placement import stack as automode_stack

USER_PROFILES = {
    "mlrun-job-allow": {"jobs", "spot"},
    "mlrun-job-constrain": {"spot"},
    "mlrun-job-prevent": {"jobs"},
    "nuclio-function": {"jobs"},
    "jupyter-server": {"jupyter"},
    "gpu-training-job": {"gpu"},
    "polyaxon-spot-experiment": {"spot"},
}


def stack(base: str, **settings):
    """A shipped stack with settings changed (cached), and its invariant report."""
    cfg, layout = automode_stack(base, **settings)  # cached: the same objects for the same settings
    if id(layout) not in _REPORTS:
        _REPORTS[id(layout)] = stack_report(cfg, layout)
    return cfg, layout, _REPORTS[id(layout)]


_REPORTS: dict = {}


def from_node_groups():
    """dev-automode moving off node groups: the system pool takes over, every managed group is kept."""
    auto = stack_config("dev-automode")["ml-platform-eks:autoMode"]
    return stack("dev-automode", autoMode={**auto, "keepNodeGroups": True})


def from_karpenter():
    """dev-karpenter moving to Auto Mode: Karpenter's pools are kept, Auto Mode's are named <group>-auto."""
    auto = {"keepKarpenter": True, "nodePoolSuffix": "-auto", "initialGroup": "managedNodeGroup"}
    return stack("dev-karpenter", provisioner="autoMode", autoMode=auto)


def proven(report, kept: str) -> dict[str, set[str]]:
    """Where each profile lands, after checking the proof holds and every user workload lands on its roles' new
    pools and on the kept ones (`kept`: the suffix of their names)."""
    assert report.ok, report.errors
    found = {p.name: set(r.reachable) for p, r in report.placements}
    for profile, groups in USER_PROFILES.items():
        assert found[profile] == groups | {f"{g} ({kept})" for g in groups}, profile
    return found


def test_moving_off_node_groups_the_proof_holds_and_every_workload_may_land_on_the_kept_groups_too():
    _, layout, report = from_node_groups()
    found = proven(report, "kept node group")
    # CoreDNS and the EBS CSI controller keep selecting the initial role: the kept initial group, not the system
    # pool, until the migration hands the core services over.
    assert found["core-platform-service"] == found["ebs-csi-controller"] == {"initial (kept node group)"}
    # The kept groups' nodes still need their add-ons' DaemonSets; Auto Mode's nodes never run them.
    kept = {f"{g} (kept node group)" for g in ("initial", "jupyter", "jobs", "spot", "gpu")}
    assert found["aws-node"] == found["ebs-csi-node"] == kept
    assert found["nvidia-device-plugin"] == {"gpu (kept node group)"}
    assert layout.managed_groups  # so the node add-ons stay installed


def test_kept_node_groups_look_like_managed_node_groups_to_the_scheduler():
    _, layout, _ = from_node_groups()
    t = {t.group: t for t in node_templates(layout)}
    kept = t["jobs (kept node group)"]
    assert kept.kept and kept.provisioner == "nodeGroups" and kept.source == "jobs"
    assert kept.labels["eks.amazonaws.com/capacityType"] == "ON_DEMAND"
    assert "eks.amazonaws.com/compute-type" not in kept.labels
    assert t["jobs"].provisioner == "autoMode" and not t["jobs"].kept
    selector = {"eks.amazonaws.com/capacityType": "ON_DEMAND"}  # a managed node group's label
    spec = {"containers": [{"name": "c", "image": "i"}], "nodeSelector": selector}
    assert place_spec(spec, layout).reachable == ("jobs (kept node group)",)


def test_moving_off_karpenter_the_proof_holds_and_the_kept_pools_keep_their_device_plugin():
    _, layout, report = from_karpenter()
    found = proven(report, "kept Karpenter pool")
    assert found["karpenter"] == found["core-platform-service"] == {"initial"}
    # Auto Mode's GPU pool brings its own plugin; Karpenter's AL2023 nodes need the toolkit's.
    assert found["nvidia-device-plugin"] == {"gpu (kept Karpenter pool)"}
    assert found["aws-node"] == {"initial"} | {f"{g} (kept Karpenter pool)" for g in ("jupyter", "jobs", "spot", "gpu")}
    # A pod pinned to Karpenter's pool by name lands only there: Auto Mode's pool of the group is jobs-auto.
    pinned = {"containers": [{"name": "c", "image": "i"}], "nodeSelector": {"karpenter.sh/nodepool": "jobs"}}
    assert place_spec(pinned, layout).reachable == ("jobs (kept Karpenter pool)",)
    pinned["nodeSelector"] = {"karpenter.sh/nodepool": "jobs-auto"}
    assert place_spec(pinned, layout).reachable == ("jobs",)
    kept = {t.group: t for t in node_templates(layout)}["gpu (kept Karpenter pool)"]
    assert kept.provisioner == "karpenter" and "karpenter.k8s.aws/instance-gpu-name" in kept.variants[0].labels


def test_a_karpenter_stack_keeping_its_node_groups_offers_them_too():
    karpenter = stack_config("dev-karpenter")["ml-platform-eks:karpenter"]
    _, _, report = stack("dev-karpenter", karpenter={**karpenter, "keepNodeGroups": True})
    found = proven(report, "kept node group")
    assert found["mlrun-job-prevent"] == {"jobs", "jobs (kept node group)"}
    assert found["nvidia-device-plugin"] == {"gpu", "gpu (kept node group)"}


def test_no_autoscaler_runs_next_to_auto_mode_so_no_kept_group_is_autoscaled():
    """The kept groups' sizes range (spot 0..10) but nothing moves them: Auto Mode stacks run no Cluster
    Autoscaler, so the plan, the tags (none of the autoscaler's) and the cost say `not autoscaled`."""
    _, layout, _ = from_node_groups()
    spot = next(g for g in layout.retained_groups if g.name == "spot")
    assert spot.min_size != spot.max_size and not layout.runs_cluster_autoscaler
    assert "node group (kept, not autoscaled)" in {c.kind for c in stack_capacity(layout) if c.name == "spot"}
    _, dev = automode_stack("dev")
    assert dev.runs_cluster_autoscaler


def test_while_the_initial_group_is_kept_the_core_add_ons_wait_for_it_not_for_the_system_pool():
    """The system pool replaces the initial group, but while keepNodeGroups holds CoreDNS and the EBS CSI controller
    select the kept group's role: the platform waits for that node group, and the plan says they run there."""
    _, layout, report = from_node_groups()
    assert core_services.core_services_groups(layout) == (INITIAL,)
    assert core_services.core_services_sources(layout) == (f"{INITIAL} (kept node group)",)
    assert {p.name: r.reachable for p, r in report.placements}[
        "core-platform-service"
    ] == core_services.core_services_sources(layout)
    # Once the groups are gone, the system pool runs them (and what the layout places, like the GPU operator, too).
    _, done, _ = stack("dev-automode")
    assert core_services.core_services_groups(done) == core_services.placement_groups(done) == ("system",)
    assert core_services.placement_groups(layout) == ("system",)
