"""The API as the provider calls it: boto3 clients on the emulator's endpoint, every request's shape validated.

botocore validates each request against the service model before sending it (client-side parameter
validation, on by default and kept on). An operation the emulator does not implement (gaps.py) is validated
the same way and not sent: its shape is proven, AWS's answer is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import boto3
from botocore.config import Config
from botocore.validate import ParamValidator

from .gaps import SHAPE_ONLY_OPERATIONS

# The emulator's stand-in credentials (any value is accepted; moto's default account is the mocks' 123456789012).
CREDENTIALS = {"aws_access_key_id": "rehearsal", "aws_secret_access_key": "rehearsal"}
_CONFIG = Config(retries={"max_attempts": 1, "mode": "standard"}, parameter_validation=True)


class ShapeError(ValueError):
    """A request botocore refuses: a parameter missing, unknown or of the wrong type."""


@dataclass
class Call:
    service: str
    operation: str
    params: dict[str, Any]
    sent: bool  # False: validated only (the emulator does not implement the operation)


@dataclass
class Api:
    endpoint: str
    region: str
    calls: list[Call] = field(default_factory=list)
    _clients: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def account(self) -> str:
        """The account the emulator answers for (the mocks' 123456789012 by default)."""
        return self.client("sts").get_caller_identity()["Account"]

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = boto3.client(
                service, endpoint_url=self.endpoint, region_name=self.region, config=_CONFIG, **CREDENTIALS
            )
        return self._clients[service]

    def __call__(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        """Send `operation` (its API name, e.g. CreateRole) with `params`; a ClientError propagates."""
        params = {k: v for k, v in params.items() if v is not None}  # an unset argument is not sent
        client = self.client(service)
        if (service, operation) in SHAPE_ONLY_OPERATIONS:
            model = client.meta.service_model.operation_model(operation)
            report = ParamValidator().validate(params, model.input_shape)
            if report.has_errors():
                raise ShapeError(f"Parameter validation failed:\n{report.generate_report()}")
            self.calls.append(Call(service, operation, params, sent=False))
            return {}
        method = client.meta.method_to_api_mapping
        name = next(py for py, api in method.items() if api == operation)
        answer = getattr(client, name)(**params)
        self.calls.append(Call(service, operation, params, sent=True))  # the calls AWS (moto) accepted
        return answer
