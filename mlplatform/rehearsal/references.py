"""References between recorded resources: the offline run's made-up values, resolved to what moto returns.

Under the mocks a role's ARN, a subnet's id or an OIDC issuer is a stand-in (engine/mocks.py,
engine/remote/pulumi_eks.py: `<name>-<7 hex>`, `<physical>-id`, ARNs in account 123456789012). A dependent
resource's inputs hold those stand-ins. Like the engine, the rehearsal creates each resource after the ones it
refers to and substitutes the real value the API answered for each stand-in (`Tokens`); a stand-in nobody
resolved is an error, never passed on to the API.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.mocks import physical_name
from ..engine.recording import Recorded

MIN_TOKEN = 8  # shorter output strings ("1", "ipv4") are not stand-ins but echoed or literal values


def mock_id(r: Recorded) -> str:
    """The id the mocks answered for the resource (engine/mocks.py Mocks.provider_outputs)."""
    return f"{physical_name(r.type, r.name)}-id"


def flatten(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in `value` with its dotted path (`identities.0.oidcs.0.issuer`)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from flatten(v, f"{path}.{i}" if path else str(i))
    elif isinstance(value, str):
        yield path, value


def stand_ins(r: Recorded) -> dict[str, str]:
    """The values the mocks made up for `r`, by output path ("id" for its id): the outputs that are not an echo
    of its own inputs."""
    echoed = {v for _, v in flatten(r.inputs)}
    made_up = {"id": mock_id(r)}
    for path, value in flatten(r.outputs):
        if len(value) >= MIN_TOKEN and value not in echoed:
            made_up[path] = value
    return made_up


def _scheme_less(token: str) -> str | None:
    """An https URL's host and path: how IAM trust conditions name an OIDC issuer (`oidc.eks.../id/X:sub`)."""
    return token[len("https://") :] if token.startswith("https://") else None


@dataclass(frozen=True)
class Origin:
    """Who made a stand-in up: a resource (its URN) or a data source's answer (`invoke:<token>`)."""

    urn: str
    type: str
    name: str


class Tokens:
    """Every stand-in of a run, who made it, and (once created) the real value it stands for.

    `answered`: the stand-ins data sources answered (availability zone names...) and their real values, None
    for one the emulator has no real value for.
    """

    def __init__(self, resources: Sequence[Recorded], answered: Mapping[str, tuple[Origin, str | None]] = {}):
        self.owner: dict[str, tuple[Origin, str]] = {}
        self.real: dict[str, str] = {}
        for token, (origin, real) in answered.items():
            self.owner[token] = (origin, "answer")
            if real is not None:
                self.real[token] = real
        # Only custom resources make values up: a component's outputs echo its children's (pulumi_eks.Cluster's
        # clusterSecurityGroup is its security group's id).
        for r in (r for r in resources if r.custom):
            for path, value in stand_ins(r).items():
                origin = Origin(r.urn, r.type, r.name)
                self.owner.setdefault(value, (origin, path))
                bare = _scheme_less(value)
                if bare:
                    self.owner.setdefault(bare, (origin, f"{path}#host"))
        # Longest first: a physical name is a prefix of its `-id`, an issuer of the OIDC provider's ARN.
        alternatives = sorted(self.owner, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(t) for t in alternatives)) if alternatives else None

    def referenced_by(self, r: Recorded) -> set[str]:
        """The URNs of the resources whose stand-ins `r`'s inputs hold."""
        if self._pattern is None:
            return set()
        found = self._pattern.findall(json.dumps(r.inputs))
        return {self.owner[t][0].urn for t in found} - {r.urn}

    def resolve(self, r: Recorded, real: dict[str, str]) -> None:
        """Record the real values `r`'s API calls answered, by output path (as in `stand_ins`)."""
        for token, (owner, path) in self.owner.items():
            if owner.urn != r.urn:
                continue
            key, _, host = path.partition("#")
            if key in real:
                self.real[token] = _scheme_less(real[key]) or real[key] if host else real[key]

    def substitute(self, value: Any, unresolved: list[str]) -> Any:
        """`value` with every stand-in replaced by its real value; those not resolved go to `unresolved`."""
        if isinstance(value, dict):
            return {k: self.substitute(v, unresolved) for k, v in value.items()}
        if isinstance(value, list):
            return [self.substitute(v, unresolved) for v in value]
        if isinstance(value, str) and self._pattern is not None:

            def one(m: re.Match[str]) -> str:
                token = m.group(0)
                if token in self.real:
                    return self.real[token]
                owner, path = self.owner[token]
                unresolved.append(f"{owner.type} {owner.name} ({path})")
                return token

            return self._pattern.sub(one, value)
        return value


def creation_order(resources: Sequence[Recorded], tokens: Tokens) -> list[Recorded]:
    """The custom resources in an order the engine could create them: each after the ones it refers to (its
    stand-ins) and the ones it depends on (the SDK's dependencies, a component meaning all its resources),
    otherwise in construction order. A cycle is an error."""
    index = {r.urn: i for i, r in enumerate(resources)}
    custom = [r for r in resources if r.custom]
    descendants: dict[str, set[str]] = {}
    for r in custom:
        parent = r.parent
        while parent:
            descendants.setdefault(parent, set()).add(r.urn)
            parent = next((p.parent for p in resources if p.urn == parent), None)
    needs: dict[str, set[str]] = {}
    for r in custom:
        wanted = tokens.referenced_by(r)
        for dep in r.dependencies:
            wanted |= descendants.get(dep, {dep})
        own_ancestors = {a for a, kids in descendants.items() if r.urn in kids}
        needs[r.urn] = {u for u in wanted if u in index and u != r.urn and u not in own_ancestors}
        needs[r.urn] = {u for u in needs[r.urn] if any(c.urn == u for c in custom)}
    waiting = {urn: set(deps) for urn, deps in needs.items()}
    ready = [(index[r.urn], r.urn) for r in custom if not waiting[r.urn]]
    heapq.heapify(ready)
    by_urn = {r.urn: r for r in custom}
    order: list[Recorded] = []
    while ready:
        _, urn = heapq.heappop(ready)
        order.append(by_urn[urn])
        for other, deps in waiting.items():
            if urn in deps:
                deps.discard(urn)
                if not deps and other not in {o.urn for o in order}:
                    heapq.heappush(ready, (index[other], other))
    if len(order) != len(custom):
        stuck = sorted(urn for urn, deps in waiting.items() if deps)
        raise ValueError(f"rehearsal: resources wait on each other (a cycle): {stuck[:5]}")
    return order
