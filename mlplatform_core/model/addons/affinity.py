"""Pod placement vocabulary the add-on models share: required node affinity and the expressions charts use."""

from __future__ import annotations

from typing import Any

COMPUTE_TYPE = "eks.amazonaws.com/compute-type"  # fargate, auto (Auto Mode), hybrid: nodes not of ours
LINUX = {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}
AMD64_ARM64 = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]}


def expression(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def not_on(*compute_types: str) -> dict[str, Any]:
    """Keep off nodes of these EKS compute types."""
    return expression(COMPUTE_TYPE, "NotIn", *compute_types)


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    """Required node affinity with these nodeSelectorTerms (ORed), each a list of expressions (ANDed)."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]
            }
        }
    }


def every_node(*expressions: dict[str, Any], host_network: bool = False) -> dict[str, Any]:
    """A node agent's placement that tolerates every taint, kept to nodes the expressions allow."""
    out: dict[str, Any] = {"tolerations": [{"operator": "Exists"}], "affinity": required(list(expressions))}
    if host_network:
        out["hostNetwork"] = True
    out["priorityClassName"] = "system-node-critical"
    return out
