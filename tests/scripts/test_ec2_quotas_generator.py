"""scripts/generators/generate_ec2_quotas.py: codes and defaults from the published ListAWSDefaultServiceQuotas answers,
cross-checked against AWS's own CLI example, families read from the quotas' names."""

from __future__ import annotations

import json

from tests.scripts.test_generators import load

EC2 = "| Amazon Elastic Compute Cloud (Amazon EC2) | ec2 |"
DEFAULTS = f"""| Service Name | Service Code | Quota Name | Quota Code | Default |
{EC2} Running On-Demand P instances | L-417A185B | 0.0 |
{EC2} Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances | L-1216C47A | 5.0 |
{EC2} All P5 Spot Instance Requests | L-C4BD4855 | 0.0 |
{EC2} Running On-Demand Inf instances | L-1945791B | 0.0 |
"""
NAMES = """
variable "ec2_p" {
  description = "Quota for [ec2]: Running On-Demand P instances (L-417A185B)"
}
variable "ec2_std" {
  description = "Quota for [ec2]: Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances (L-1216C47A)"
}
variable "ec2_p5_spot" {
  description = "Quota for [ec2]: All P5 Spot Instance Requests (L-C4BD4855)"
}
variable "ec2_p5_blocks" {
  description = "Quota for [ec2]: Concurrent P5 Capacity Blocks per account (L-DA6814F2)"
}
variable "ec2_p5_blocks_org" {
  description = "Quota for [ec2]: Concurrent P5 Capacity Blocks per organization (L-8131B2C6)"
}
variable "ec2_inf" {
  description = "Quota for [ec2]: Running On-Demand Inf instances (L-1945791B)"
}
variable "ec2_eips" {
  description = "Quota for [ec2]: EC2-VPC Elastic IPs (L-0263D0A3)"
}
"""
EXAMPLE = """Output::

    {
        "Quota": {
            "ServiceCode": "ec2",
            "QuotaCode": "L-1216C47A",
            "QuotaName": "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
            "Value": %s,
            "Adjustable": true,
"""


def run(tmp_path, example_value: str = "5.0"):
    gen = load("generate_ec2_quotas")
    files = {"defaults": DEFAULTS, "names": NAMES, "example": EXAMPLE % example_value}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = tmp_path / "ec2_quotas.json"
    args = [f"--{k}={tmp_path / k}" for k in files] + ["-o", str(out)]
    return gen.main(args), out


def test_the_generator_keeps_instance_quotas_with_defaults_and_families(tmp_path):
    code, out = run(tmp_path)
    assert code == 0
    quotas = json.loads(out.read_text())["quotas"]
    # not the per-organization block quota, not Elastic IPs
    assert set(quotas) == {"L-417A185B", "L-1216C47A", "L-C4BD4855", "L-DA6814F2", "L-1945791B"}
    p = quotas["L-417A185B"]
    assert (p["kind"], p["default"], p["unit"]) == ("onDemand", 0, "vCPUs")
    assert {"p4d", "p5", "p5en"} <= set(p["families"]) and "m5" not in p["families"]
    assert set(quotas["L-C4BD4855"]["families"]) == {"p5", "p5e", "p5en"}
    # a Capacity Block quota names one family exactly; its default is not in the listing
    assert quotas["L-DA6814F2"]["families"] == ["p5"] and quotas["L-DA6814F2"]["default"] is None
    standard = set(quotas["L-1216C47A"]["families"])
    assert {"m5", "c7i", "r8g", "im4gn", "t3"} <= standard and not {"inf2", "p5"} & standard
    assert quotas["L-1945791B"]["families"] == ["inf1", "inf2"]


def test_the_generator_refuses_data_that_disagrees_with_aws_s_example(tmp_path, capsys):
    code, _ = run(tmp_path, example_value="32.0")
    assert code == 1
    assert "disagrees" in capsys.readouterr().err


def test_the_shipped_data_is_what_the_generator_writes_from_its_pins():
    from mlplatform_core.model import ec2_quotas

    src = {s["role"]: s for s in ec2_quotas.source()["source"]}
    assert set(src) == {"ec2-default-quotas", "ec2-quota-names", "awscli-service-quotas-example"}
    assert src["ec2-default-quotas"]["commit"] == "04f58839c5610804899dfcd815df374aea681ffd"
