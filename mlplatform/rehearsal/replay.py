"""Replay a recorded stack against the emulator: every AWS resource, in dependency order, references resolved.

The recording is the offline engine's (mlplatform.engine: what `mlplatform plan` shows): every resource the
program registers with its inputs. Each custom AWS resource goes through its type's mapper (mapping.MAPPERS);
an AWS type with no mapper fails the rehearsal, a type moto does not implement is validated only
(gaps.NOT_IMPLEMENTED), and a resource whose reference could not be resolved is reported, never sent half-made.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from botocore.exceptions import ClientError

from ..engine.mocks import physical_name
from ..engine.recording import ProgramRun, Recorded
from . import ec2_compute, ec2_network, eks, iam, services  # noqa: F401  (register their mappers)
from .api import Api, Call
from .gaps import NOT_AWS_PREFIXES, NOT_IMPLEMENTED
from .mapping import MAPPERS, Inputs, Resource
from .references import Origin, Tokens, creation_order


@dataclass(frozen=True)
class Failure:
    type: str
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.type} {self.name}: {self.message}"


@dataclass
class Rehearsal:
    """What one stack's replay did: the calls made, the resources created or only validated, the failures."""

    stack: str
    region: str
    partition: str
    created: Counter = field(default_factory=Counter)  # resource type -> how many the emulator created
    validated_only: Counter = field(default_factory=Counter)  # NOT_IMPLEMENTED types: request shape checked
    not_aws: Counter = field(default_factory=Counter)  # Kubernetes objects, providers: no AWS API call
    failures: list[Failure] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        sent = sum(c.sent for c in self.calls)
        lines = [
            f"{self.stack} ({self.region}, {self.partition}): {sum(self.created.values())} resources created with "
            f"{sent} API calls; {sum(self.validated_only.values())} validated only (moto lacks the API); "
            f"{sum(self.not_aws.values())} not AWS resources"
        ]
        for type_, count in sorted(self.validated_only.items()):
            lines.append(f"  validated only: {count} × {type_} ({NOT_IMPLEMENTED[type_].reason})")
        lines += [f"  FAILED {f}" for f in self.failures]
        return "\n".join(lines)


def _error(err: Exception) -> str:
    if isinstance(err, ClientError):
        e = err.response.get("Error", {})
        return f"{err.operation_name}: {e.get('Code')}: {e.get('Message')}"
    return str(err)


def replay(run: ProgramRun, endpoint: str, region: str, partition: str) -> Rehearsal:
    """Create every AWS resource of `run` on the emulator at `endpoint` (its state should be fresh)."""
    api = Api(endpoint, region)
    result = Rehearsal(run.stack, region, partition, calls=api.calls)
    tokens = Tokens(run.resources, answered(api, run))
    failed: set[str] = set()
    for r in creation_order(run.resources, tokens):
        if r.type.startswith(NOT_AWS_PREFIXES):
            result.not_aws[r.type] += 1
            continue
        if r.type not in MAPPERS:
            result.failures.append(Failure(r.type, r.name, "no mapping to the AWS API and not on the gap list"))
            failed.add(r.urn)
            continue
        waiting = sorted(u for u in tokens.referenced_by(r) | set(r.dependencies) if u in failed)
        if waiting:
            result.failures.append(Failure(r.type, r.name, f"not created: it refers to failed {waiting[0]}"))
            failed.add(r.urn)
            continue
        _one(api, r, tokens, partition, result, failed)
    return result


AVAILABILITY_ZONES = "aws:index/getAvailabilityZones:getAvailabilityZones"


def answered(api: Api, run: ProgramRun) -> dict[str, tuple[Origin, str | None]]:
    """The data sources' stand-ins and what the emulator answers for them: the mocks' zone names (the region
    and a..f) by position in the region's available zones, as the provider's data source lists them
    (internal/service/ec2/ec2_availability_zones_data_source.go: DescribeAvailabilityZones, state filter)."""
    out: dict[str, tuple[Origin, str | None]] = {}
    for invoke in run.invokes:
        if invoke.token != AVAILABILITY_ZONES:
            continue
        origin = Origin(f"invoke:{invoke.token}", invoke.token, "availability zones")
        state = invoke.args.get("state")
        filters = [{"Name": "state", "Values": [state]}] if state else None
        zones = api("ec2", "DescribeAvailabilityZones", Filters=filters)["AvailabilityZones"]
        real = sorted(z["ZoneName"] for z in zones)
        for i, mock in enumerate(invoke.result.get("names") or []):
            out.setdefault(mock, (origin, real[i] if i < len(real) else None))
    return out


def _one(api: Api, r: Recorded, tokens: Tokens, partition: str, result: Rehearsal, failed: set[str]) -> None:
    unresolved: list[str] = []
    inputs = tokens.substitute(r.inputs, unresolved)
    if unresolved:
        message = f"unresolved references to {sorted(set(unresolved))} (their resources gave no such value)"
        result.failures.append(Failure(r.type, r.name, message))
        failed.add(r.urn)
        return
    resource = Resource(r.type, r.name, physical_name(r.type, r.name), Inputs(r.type, inputs), partition)
    try:
        real = MAPPERS[r.type].mapper(api, resource)
    except Exception as err:  # every refusal, shape error or emulator fault fails this resource, named
        result.failures.append(Failure(r.type, r.name, _error(err)))
        failed.add(r.urn)
        return
    tokens.resolve(r, real)
    if r.type in NOT_IMPLEMENTED:
        result.validated_only[r.type] += 1
    else:
        result.created[r.type] += 1
