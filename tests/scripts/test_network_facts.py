"""The catalog generator's EFA and network-card facts (scripts/generate_instance_catalog.py network_facts)."""

from __future__ import annotations

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
