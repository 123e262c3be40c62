"""`plan --quotas live`: the account's EC2 quota values through boto3's Service Quotas client (botocore's
Stubber with answers of the real GetServiceQuota shape; no network), and a clear error without credentials."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import Stubber

from mlplatform.live_quotas import read_live_quotas
from mlplatform_core.model.config import ConfigError

P, G = "L-417A185B", "L-DB2E81BA"


def quota(code: str, value: float) -> dict:
    return {
        "Quota": {
            "ServiceCode": "ec2",
            "ServiceName": "Amazon Elastic Compute Cloud (Amazon EC2)",
            "QuotaArn": f"arn:aws:servicequotas:eu-west-1::ec2/{code}",
            "QuotaCode": code,
            "QuotaName": "Running On-Demand P instances",
            "Value": value,
            "Unit": "None",
            "Adjustable": True,
            "GlobalQuota": False,
        }
    }


def client():
    return boto3.client("service-quotas", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y")


def test_the_applied_value_is_read_and_the_default_where_none_is_applied():
    c = client()
    stub = Stubber(c)
    stub.add_response("get_service_quota", quota(P, 1536.0), {"ServiceCode": "ec2", "QuotaCode": P})
    asked_g = {"ServiceCode": "ec2", "QuotaCode": G}
    stub.add_client_error("get_service_quota", "NoSuchResourceException", "not applied", expected_params=asked_g)
    stub.add_response("get_aws_default_service_quota", quota(G, 0.0), {"ServiceCode": "ec2", "QuotaCode": G})
    with stub:
        assert read_live_quotas("eu-west-1", [P, G, P], client=c) == {P: 1536, G: 0}
    stub.assert_no_pending_responses()


def test_a_denied_read_is_bad_input_naming_what_to_do():
    c = client()
    stub = Stubber(c)
    stub.add_client_error("get_service_quota", "AccessDeniedException", "User is not authorized")
    with stub, pytest.raises(ConfigError, match="--quotas live: Service Quotas could not be read in eu-west-1"):
        read_live_quotas("eu-west-1", [P], client=c)


def test_without_credentials_the_error_says_so(monkeypatch, tmp_path):
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", raising=False)
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", raising=False)
    with pytest.raises(ConfigError) as info:
        read_live_quotas("eu-west-1", [P])
    text = str(info.value)
    assert "NoCredentialsError" in text and "servicequotas:GetServiceQuota" in text and "drop --quotas live" in text


def test_plan_quotas_live_assumes_the_account_s_values(tmp_path, monkeypatch, capsys):
    from mlplatform import live_quotas
    from mlplatform.cli import main
    from tests.conftest import ROOT

    stack = tmp_path / "Pulumi.eu.yaml"
    stack.write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace("us-east-1", "eu-west-1"))
    c = client()
    stub = Stubber(c)
    # the dev stack reaches G and VT On-Demand (its GPU group) and Standard Spot (its spot group), in code order
    spot = "L-34B43A08"
    stub.add_response("get_service_quota", quota(spot, 256.0), {"ServiceCode": "ec2", "QuotaCode": spot})
    stub.add_response("get_service_quota", quota(G, 8.0), {"ServiceCode": "ec2", "QuotaCode": G})
    asked = []
    monkeypatch.setattr(live_quotas, "_client", lambda region: asked.append(region) or c)
    with stub:
        assert main(["plan", "--config-file", str(stack), "--quotas", "live", "--json"]) == 0
    assert asked == ["eu-west-1"]
    section = json.loads(capsys.readouterr().out)["capacityQuotas"]
    by_code = {q["code"]: q for q in section["quotas"]}
    assert section["values"] == "live"
    assert (by_code[G]["value"], by_code[G]["assumed"], by_code[G]["over"]) == (8, "live", True)
    assert by_code["L-34B43A08"]["over"] is False
    assert next(w for w in section["warnings"] if G in w).count("the account's value 8 (read live)") == 1
