"""`plan --quotas live`: the EC2 instance quotas applied in the account, read through Service Quotas.

boto3's `service-quotas` client in the stack's region: GetServiceQuota answers the value applied to the account
(the default or a granted increase). botocore's model of GetServiceQuota (data/service-quotas, its documentation
and errors): "If the applied quota value is not available for a quota, the quota is not retrieved", answered as
NoSuchResourceException; then GetAWSDefaultServiceQuota answers AWS's default. Only the codes the stack reaches
are asked. Needs AWS credentials allowed
servicequotas:GetServiceQuota and servicequotas:GetAWSDefaultServiceQuota; without them the plan stops (exit 2)
with what to do, and the offline default (`--quotas snapshot`: the generated defaults and `quotas.ec2`) needs none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mlplatform_core.model.config import ConfigError, Problem
from mlplatform_core.model.ec2_quotas import SERVICE_CODE

NOT_APPLIED = "NoSuchResourceException"


class LiveQuotasError(ConfigError):
    """Service Quotas could not answer (no credentials, denied, throttled): the plan stops, exit 2."""

    def __str__(self) -> str:
        return "; ".join(f"{p.path}: {p.message}" for p in self.problems)


def _client(region: str) -> Any:
    import boto3  # only when live quotas are asked for

    return boto3.client("service-quotas", region_name=region)


def _value(client: Any, code: str) -> float:
    from botocore.exceptions import ClientError

    try:
        return client.get_service_quota(ServiceCode=SERVICE_CODE, QuotaCode=code)["Quota"]["Value"]
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != NOT_APPLIED:
            raise
    return client.get_aws_default_service_quota(ServiceCode=SERVICE_CODE, QuotaCode=code)["Quota"]["Value"]


def read_live_quotas(region: str, codes: Iterable[str], client: Any = None) -> dict[str, int]:
    """The account's value of each EC2 quota code in `region` (whole vCPUs or blocks). Raises LiveQuotasError
    when AWS cannot be asked."""
    from botocore.exceptions import BotoCoreError, ClientError

    codes = list(dict.fromkeys(codes))
    if not codes:
        return {}
    try:
        client = client or _client(region)
        return {code: int(_value(client, code)) for code in codes}
    except (BotoCoreError, ClientError) as exc:
        raise LiveQuotasError(
            [
                Problem(
                    "--quotas live",
                    f"Service Quotas could not be read in {region} ({type(exc).__name__}: {exc}); it needs AWS "
                    "credentials allowed servicequotas:GetServiceQuota and servicequotas:GetAWSDefaultServiceQuota, "
                    "or drop --quotas live for the generated defaults and the values under quotas.ec2",
                )
            ]
        ) from None
