"""scripts/lib/rendered_facts.py: how a helm rendering is read (workloads, the RBAC bound to them, where values land).

The real renderings are checked against the facts in tests/core/model/addons/test_chart_proof.py; these are the
reader's rules on small hand-made objects.
"""

from __future__ import annotations

from tests.scripts.test_generators import load

renderer = load("rendered_facts")

DEPLOYMENT = {
    "kind": "Deployment",
    "metadata": {"name": "ctl", "namespace": "kube-system"},
    "spec": {
        "replicas": 2,
        "template": {
            "spec": {
                "serviceAccountName": "ctl",
                "nodeSelector": {"role": "initial"},
                "hostNetwork": False,
                "volumes": [{"name": "s", "hostPath": {"path": "/var/run"}}, {"name": "e", "emptyDir": {}}],
                "containers": [{"name": "c", "image": "r/c:v1", "resources": {}, "securityContext": {"a": 1}}],
            }
        },
    },
}
ROLE = {"kind": "ClusterRole", "metadata": {"name": "ctl"}, "rules": [{"apiGroups": [""], "resources": ["pods"]}]}
BINDING = {
    "kind": "ClusterRoleBinding",
    "metadata": {"name": "ctl"},
    "roleRef": {"kind": "ClusterRole", "name": "ctl"},
    "subjects": [{"kind": "ServiceAccount", "name": "ctl", "namespace": "kube-system"}],
}
OTHER = {**BINDING, "subjects": [{"kind": "ServiceAccount", "name": "someone-else", "namespace": "kube-system"}]}


def test_a_workload_keeps_what_placement_and_hardening_read_and_drops_empty_fields():
    (w,), grants = renderer.facts_of([DEPLOYMENT, ROLE, BINDING, OTHER], "kube-system")
    assert w["pod"] == {"nodeSelector": {"role": "initial"}, "hostPaths": ["/var/run"]}  # hostNetwork false: absent
    assert w["containers"] == [{"name": "c", "image": "r/c:v1", "securityContext": {"a": 1}}]
    assert (w["replicas"], w["serviceAccount"]) == (2, "ctl")
    # Only roles bound to the workload's service account count.
    assert [(g["serviceAccount"], g["name"], g["namespace"]) for g in grants] == [("kube-system/ctl", "ctl", None)]


def test_a_string_value_is_bound_only_where_putting_it_in_gives_the_rendering():
    # repository:tag with a repository sharing a first letter with the marker (the bug of a prefix match).
    assert renderer._span("public.ecr.aws/k/c:1.0", "probe3:1.0", "probe3", "public.ecr.aws/k/c") == (0, 18)
    assert renderer._span("r/c:v1", "r/c:v1@probe4", "probe4", "") is None  # a digest appended: not a binding
    assert renderer._span("r/c:v1", "r/c:probe5", "probe5", "v1") == (4, 6)
