"""The values an offline run makes up: what only exists once the stack is deployed, and how to show it.

The mocks answer every create with stand-ins (mocks.py): a physical name `<name>-<7 hex>` where Pulumi's
auto-naming appends a random suffix at deploy, an id `<physical>-id`, ARNs in account 123456789012;
the pulumi-eks model adds the OIDC issuer's and the API endpoint's ids (remote/pulumi_eks.py), and
StackReferences name the organization `organization` (run.py). The recording keeps them (tests and the
policy pack read them); the reports show them as `<...>` and list them, so nobody copies one as real.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mlplatform_core.model.resource_types import EKS_CLUSTER as EKS_CLUSTER_TYPE

from .mocks import ACCOUNT, physical_name
from .recording import ProgramRun
from .run import ORGANIZATION

GET_CLUSTER = "aws:eks/getCluster:getCluster"
_SUFFIX = re.compile(r"-([0-9a-f]{7})(?![0-9A-Za-z])")  # the 7 hex digits of a stand-in physical name


def _fixed(run: ProgramRun) -> dict[str, str]:
    """Stand-ins that are not physical names: the account, the pulumi-eks model's OIDC issuer and API
    endpoint ids, the cluster security group the Karpenter component looks up."""
    out = {f":{ACCOUNT}:": ":<account-id>:"}
    for cluster in run.of_type(EKS_CLUSTER_TYPE):
        for identity in cluster.outputs.get("identities") or []:
            for oidc in identity.get("oidcs") or []:
                issuer = str(oidc.get("issuer", ""))
                if "/id/" in issuer:
                    out[f"/id/{issuer.rsplit('/id/', 1)[1]}"] = "/id/<oidc-id>"
        endpoint = str(cluster.outputs.get("endpoint", ""))
        if endpoint.startswith("https://") and "." in endpoint:
            out[endpoint.split(".", 1)[0]] = "https://<endpoint-id>"
    for invoke in run.invokes:
        group = (invoke.result.get("vpcConfig") or {}).get("clusterSecurityGroupId")
        if invoke.token == GET_CLUSTER and group:
            out[str(group)] = "sg-<id>"
    return out


@dataclass(frozen=True)
class Placeholders:
    """The made-up parts of a run's values, and the `<...>` text the reports show in their place."""

    names: dict[str, frozenset[str]]  # a physical name's 7 hex digits -> the resource names it is made for
    fixed: dict[str, str]

    @classmethod
    def of(cls, run: ProgramRun) -> Placeholders:
        names: dict[str, set[str]] = {}
        for r in run.resources:
            names.setdefault(physical_name(r.type, r.name)[-7:], set()).add(r.name)
        return cls({k: frozenset(v) for k, v in names.items()}, _fixed(run))

    def show(self, text: str) -> str:
        """`text` with each made-up part replaced by its `<...>` stand-in (`initial-<suffix>`)."""

        def suffix(m: re.Match[str]) -> str:
            before = m.string[: m.start()]
            return "-<suffix>" if any(before.endswith(n) for n in self.names.get(m.group(1), ())) else m.group(0)

        out = _SUFFIX.sub(suffix, text)
        for fragment, shown in self.fixed.items():
            if fragment in out:
                out = out.replace(fragment, shown)
        if out.startswith(f"{ORGANIZATION}/"):  # a StackReference's <organization>/<project>/<stack>
            out = "<organization>/" + out[len(ORGANIZATION) + 1 :]
        return out

    def find(self, value: Any, pointer: str = "") -> Iterator[dict[str, str]]:
        """Every string in `value` holding a made-up part: its JSON Pointer (RFC 6901), value and stand-in."""
        if isinstance(value, dict):
            for key, item in value.items():
                yield from self.find(item, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from self.find(item, f"{pointer}/{i}")
        elif isinstance(value, str):
            shown = self.show(value)
            if shown != value:
                yield {"pointer": pointer, "value": value, "atDeploy": shown}
