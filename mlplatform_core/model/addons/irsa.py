"""IAM roles for service accounts (IRSA): a web-identity trust for exactly one service account."""

from __future__ import annotations

import re
from typing import Any


def irsa_trust_policy(
    oidc_provider_arn: str, oidc_provider_url: str, namespace: str, service_account: str
) -> dict[str, Any]:
    """Web-identity trust for one service account of this cluster (IRSA), nothing else in the cluster."""
    issuer = re.sub(r"^https://", "", oidc_provider_url)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Federated": oidc_provider_arn},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                        f"{issuer}:aud": "sts.amazonaws.com",
                    }
                },
            }
        ],
    }
