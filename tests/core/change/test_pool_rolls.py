"""NodePools under a Kubernetes upgrade: Karpenter's EC2NodeClass alias resolves per cluster version and Auto Mode
replaces its nodes with the new version's, so both roll with no change to the pool; the consequence for the
workloads on them is the proof's, named like a node group roll's. And a migrating stack's kept groups and pools are
matched to the proof by name."""

from __future__ import annotations

import copy

from mlplatform_core.change.diff import AUTO_MODE_UPGRADE, diff_documents
from tests.core.change.test_resources import res

BUDGETS = {"budgets": [{"nodes": "10%"}, {"nodes": "2", "reasons": ["Drifted"]}]}


def pool(name, node_class):
    return {"name": name, "disruption": BUDGETS, "nodeClass": {"name": name, **node_class}}


def template(name, provisioner, source, pool_name=None, kept=False):
    labels = {"karpenter.sh/nodepool": pool_name} if pool_name else {}
    return {"name": name, "provisioner": provisioner, "source": source, "kept": kept, "labels": labels}


def profile(name, reaches, mode=None):
    return {"name": name, "reaches": reaches, "preemptionMode": mode, "perNode": False, "description": name}


def doc(version, pools, templates, profiles, groups=(), auto_mode=False):
    inputs = {"version": version, **({"computeConfig": {"enabled": True}} if auto_mode else {})}
    return {
        "kubernetesVersion": version,
        "resources": [res("aws:eks/cluster:Cluster", "eks", inputs)],
        "nodeGroups": list(groups),
        "nodePools": pools,
        "placement": {"nodeTemplates": templates, "profiles": profiles},
    }


KARPENTER_POOLS = [
    pool("jobs", {"kind": "EC2NodeClass", "amiSelectorTerms": [{"alias": "al2023@v20260714"}]}),
    pool("pinned", {"kind": "EC2NodeClass", "amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]}),
]
KARPENTER_TEMPLATES = [
    template("initial", "nodeGroups", "initial"),
    template("jobs", "karpenter", "jobs", "jobs"),
    template("pinned", "karpenter", "pinned", "pinned"),
]
PROFILES = [profile("mlrun-job-prevent", ["jobs"], "prevent"), profile("batch", ["jobs", "pinned"])]


def test_a_new_minor_rolls_karpenter_pools_whose_ami_alias_follows_the_cluster_version():
    before = doc("1.35", KARPENTER_POOLS, KARPENTER_TEMPLATES, PROFILES)
    after = doc("1.36", KARPENTER_POOLS, KARPENTER_TEMPLATES, PROFILES)
    pools = {p["name"]: p for p in diff_documents(before, after)["nodePools"]}
    jobs = pools["jobs"]
    assert jobs["action"] == "roll" and jobs["fields"] == ["kubernetesVersion"] and jobs["batch"] == "2"
    assert "al2023@v20260714" in jobs["note"] and "AMIDrift" in jobs["note"]
    displaced = {d["workload"]: d for d in jobs["displaced"]}
    assert displaced["mlrun-job-prevent"]["evicted"]  # MLRun's prevent mode: evicted by the roll
    assert displaced["batch"]["elsewhere"] == ["pinned"] and not displaced["batch"]["waits"]
    # An AMI chosen by id does not follow the cluster's version: no drift.
    assert pools["pinned"]["action"] == "same"
    # The same minor: nothing rolls.
    same = diff_documents(before, copy.deepcopy(before))["nodePools"]
    assert {p["action"] for p in same} == {"same"}


def test_a_new_minor_rolls_auto_mode_pools_and_says_what_auto_mode_does():
    pools = [pool("jobs-auto", {"kind": "NodeClass"})]
    templates = [template("jobs", "autoMode", "jobs", "jobs-auto")]
    profiles = [profile("nuclio-function", ["jobs"])]
    before = doc("1.35", pools, templates, profiles, auto_mode=True)
    after = doc("1.36", pools, templates, profiles, auto_mode=True)
    after["resources"][0]["inputs"]["version"] = "1.36"
    diff = diff_documents(before, after)
    (jobs,) = diff["nodePools"]
    assert jobs["action"] == "roll" and "new Kubernetes version" in jobs["note"]
    # The suffixed pool (jobs-auto) is found in the proof by its nodepool label: its workloads are named.
    assert [d["workload"] for d in jobs["displaced"]] == ["nuclio-function"]
    (cluster,) = diff["resources"]
    assert cluster["action"] == "update" and AUTO_MODE_UPGRADE in cluster["note"]


def test_a_changed_node_class_rolls_its_pool_with_the_drift_consequence():
    after_pools = copy.deepcopy(KARPENTER_POOLS)
    after_pools[0]["nodeClass"]["amiSelectorTerms"] = [{"alias": "al2023@v20260801"}]
    before = doc("1.35", KARPENTER_POOLS, KARPENTER_TEMPLATES, PROFILES)
    after = doc("1.35", after_pools, KARPENTER_TEMPLATES, PROFILES)
    spec = {"spec": {"amiSelectorTerms": [{"alias": "al2023@v20260714"}]}}
    newer = {"spec": {"amiSelectorTerms": [{"alias": "al2023@v20260801"}]}}
    before["resources"].append(res("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "ec2nodeclass-jobs", spec))
    after["resources"].append(res("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "ec2nodeclass-jobs", newer))
    jobs = next(p for p in diff_documents(before, after)["nodePools"] if p["name"] == "jobs")
    assert jobs["action"] == "roll" and jobs["fields"] == ["spec.amiSelectorTerms"] and "drifted" in jobs["note"]
    assert "al2023@v20260801" in jobs["note"]  # the alias the pool's EC2NodeClass selects after the change


def test_a_migrating_stacks_kept_node_group_is_matched_to_its_own_proof_name():
    group = {"name": "jobs", "maxSize": 4, "maxUnavailable": 1}
    templates = [
        template("jobs", "autoMode", "jobs", "jobs"),
        template("jobs (kept node group)", "nodeGroups", "jobs", kept=True),
    ]
    profiles = [
        profile("nuclio-function", ["jobs", "jobs (kept node group)"]),
        profile("aws-node-helper", ["jobs (kept node group)"]),  # an add-on Auto Mode runs itself: gone after
    ]
    before = doc("1.35", [pool("jobs", {"kind": "NodeClass"})], templates, profiles, groups=[group])
    after = doc("1.35", [pool("jobs", {"kind": "NodeClass"})], templates[:1], [profile("nuclio-function", ["jobs"])])
    (kept,) = diff_documents(before, after)["nodeGroups"]
    assert kept["action"] == "delete"  # keepNodeGroups removed: the drained group goes
    moved, gone = kept["displaced"]
    assert moved["elsewhere"] == ["jobs"] and not moved["waits"]  # Auto Mode's pool takes the work
    assert gone["removed"] and not gone["waits"]


def test_check_against_names_each_pool_roll_as_advisory():
    from mlplatform_core.change.rules import change_violations

    before = doc("1.35", KARPENTER_POOLS, KARPENTER_TEMPLATES, PROFILES)
    after = {**doc("1.36", KARPENTER_POOLS, KARPENTER_TEMPLATES, PROFILES), "environment": "prod"}
    rolls = [v for v in change_violations(diff_documents(before, after), before, after) if v.resource_name == "jobs"]
    assert [(v.rule, v.level) for v in rolls] == [("change-node-group-roll", "advisory")]
    assert "2 at a time" in rolls[0].message
