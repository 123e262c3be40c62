"""The generators of GPU capacity data: EFA and network cards (catalog), MIG profiles, EKS service quotas."""

from __future__ import annotations

import json

from tests.scripts.test_generators import load

DOC = {
    "p5.48xlarge": {"labels": {}, "resources": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}},
    "g5.xlarge": {"labels": {}, "resources": {"nvidia.com/gpu": "1"}},
}
VPC_GO = """
\t"p5.48xlarge": {
\t\tInterface:               64,
\t\tIPv4PerInterface:        50,
\t\tNetworkCards: []NetworkCard{
\t\t\t{
\t\t\t\tMaximumNetworkInterfaces: 2,
\t\t\t\tNetworkCardIndex:         0,
\t\t\t},
\t\t\t{
\t\t\t\tMaximumNetworkInterfaces: 2,
\t\t\t\tNetworkCardIndex:         1,
\t\t\t},
\t\t},
\t},
"""


def test_efa_interfaces_come_from_the_doc_and_network_cards_from_the_vpc_limits():
    gen = load("generate_instance_catalog")
    vpc = gen.parse_vpclimits(VPC_GO)
    assert gen.network_facts("p5.48xlarge", DOC, vpc) == {"efa_interfaces": 32, "network_cards": 2}
    # No EFA resource in the doc: no efa_interfaces key (the toolkit reads a missing key as "no EFA").
    assert gen.network_facts("g5.xlarge", DOC, vpc) == {}


def test_the_shipped_catalog_knows_p5_efa_and_network_cards():
    from mlplatform_core.model import instances

    p5 = instances.lookup("p5.48xlarge")
    assert (p5.efa_interfaces, p5.network_cards, p5.efa_interfaces_per_node) == (32, 32, 32)
    p4d = instances.lookup("p4d.24xlarge")
    assert p4d.efa and p4d.efa_interfaces_per_node == 4
    assert not instances.lookup("g5.xlarge").efa


MIG_CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: default-mig-parted-config
data:
  config.yaml: |
    version: v1
    mig-configs:
      all-disabled:
        - devices: all
          mig-enabled: false

      # A100-40GB
      all-1g.5gb:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.5gb": 7

      all-1g.5gb.me:
        - devices: all
          mig-enabled: true
          mig-devices:
            "1g.5gb+me": 1

      all-2g.10gb:
        - devices: all
          mig-enabled: true
          mig-devices:
            "2g.10gb": 3

      # A100-40GB, H100-80GB
      all-balanced:
        # H100-80GB
        - device-filter: ["0x233010DE"]
          devices: all
          mig-enabled: true
          mig-devices:
            "1g.10gb": 2
            "2g.20gb": 1
        # A100-40GB
        - device-filter: "0x20B010DE"
          devices: all
          mig-enabled: true
          mig-devices:
            "1g.5gb": 2
"""


def test_the_mig_generator_reads_profiles_counts_and_the_comments_naming_gpus(tmp_path):
    gen = load("generate_mig_profiles")
    gpus, profiles = gen.build(MIG_CONFIGMAP)
    assert gpus == [
        {"names": ["H100-80GB"], "deviceFilter": ["0x233010DE"], "balanced": {"1g.10gb": 2, "2g.20gb": 1}},
        {"names": ["A100-40GB"], "deviceFilter": ["0x20B010DE"], "balanced": {"1g.5gb": 2}},
    ]
    # Media-extension variants are left out; a config without its own comment keeps the section's names.
    assert set(profiles) == {"1g.5gb", "2g.10gb"}
    assert profiles["1g.5gb"] == [{"count": 7, "deviceFilter": [], "gpus": ["A100-40GB"], "namedBy": "config"}]
    assert profiles["2g.10gb"][0]["namedBy"] == "section" and profiles["2g.10gb"][0]["count"] == 3
    src = tmp_path / "cm.yaml"
    src.write_text(MIG_CONFIGMAP)
    assert gen.main(["--configmap", str(src), "-o", str(tmp_path / "out.json")]) == 0


QUOTAS_PAGE = """
| Name | Default | Adjustable | Description |
| --- | --- | --- | --- |
| Managed node groups per cluster | Each supported Region: 30 | Yes | The maximum number of managed node groups. |
| Public endpoint access CIDR ranges per cluster | Each supported Region: 40 | No | The maximum number of CIDRs. |
"""
QUOTAS_GUIDE = """
* Pod Identity associations per cluster is [.noloc]`1000` in each supported region and this quota isn't adjustable.
"""
# The pod-identities page's "Limits" (docs.aws.amazon.com/eks/latest/userguide/pod-identities.md, 2026-11-28).
POD_IDENTITIES_PAGE = """
## Limits

- Up to 5,000 EKS Pod Identity associations per cluster to map IAM roles to Kubernetes service accounts are supported.
"""


def test_the_quota_generator_reads_the_table_and_the_notes_outside_service_quotas(tmp_path):
    gen = load("generate_eks_quotas")
    assert gen.parse_page(QUOTAS_PAGE) == {
        "Managed node groups per cluster": {
            "default": 30,
            "adjustable": True,
            "description": "The maximum number of managed node groups.",
        },
        "Public endpoint access CIDR ranges per cluster": {
            "default": 40,
            "adjustable": False,
            "description": "The maximum number of CIDRs.",
        },
    }
    assert gen.parse_user_guide(QUOTAS_GUIDE)["Pod Identity associations per cluster"]["default"] == 1000
    assert gen.parse_user_guide(QUOTAS_GUIDE)["Pod Identity associations per cluster"]["adjustable"] is False
    page, guide, pods = tmp_path / "page.md", tmp_path / "guide.adoc", tmp_path / "pods.md"
    page.write_text(QUOTAS_PAGE)
    guide.write_text(QUOTAS_GUIDE)
    pods.write_text(POD_IDENTITIES_PAGE)
    out = tmp_path / "q.json"
    assert (
        gen.main(["--page", str(page), "--user-guide", str(guide), "--pod-identities", str(pods), "-o", str(out)]) == 0
    )
    # The pod-identities page's 5,000 overrides the stale note's 1000; the note's "isn't adjustable" stands.
    written = json.loads(out.read_text())["quotas"]["Pod Identity associations per cluster"]
    assert (written["default"], written["adjustable"]) == (5000, False)
    assert gen.parse_pod_identities("Pod Identity associations per cluster: 2,500 (not adjustable).") == {
        "Pod Identity associations per cluster": {
            "default": 2500,
            "adjustable": False,
            "description": "not in Service Quotas (the pod-identities page)",
        }
    }
    # A page that no longer gives the quota fails the generator rather than keeping a stale number.
    pods.write_text("## Limits\n\nNone.\n")
    assert (
        gen.main(["--page", str(page), "--user-guide", str(guide), "--pod-identities", str(pods), "-o", str(out)]) == 1
    )


def test_the_shipped_pod_identity_quota_is_the_pod_identities_pages():
    from mlplatform_core.model import quotas

    data = quotas.snapshot()
    assert data["quotas"]["Pod Identity associations per cluster"] == {
        "adjustable": False,
        "default": 5000,
        "description": "not in Service Quotas (the pod-identities page)",
    }
    assert any(s.get("role") == "eks-pod-identities" for s in data["source"])


def test_the_shipped_quotas_have_the_defaults_a_stack_can_reach():
    from mlplatform_core.model import quotas
    from mlplatform_core.model.config.quotas import QuotaSettings

    groups = quotas.quota(quotas.MANAGED_NODE_GROUPS, QuotaSettings())
    nodes = quotas.quota(quotas.NODES_PER_GROUP, QuotaSettings(nodes_per_managed_node_group=1000))
    assert (groups.default, groups.adjustable, groups.applied) == (30, True, 30)
    assert (nodes.default, nodes.applied, nodes.raised) == (450, 1000, True)
    assert quotas.source()["source"][0]["url"].startswith("https://docs.aws.amazon.com/eks/")
