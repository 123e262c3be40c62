"""The order of a recording: the order in which the program constructs its resources.

Registrations finish in whatever order the event loop and the SDK's executor threads interleave
them, so the order the mocks see them in changes with the SDK version, the engine's shortcuts and
thread timing. The order of construction is the program's own and changes only with the program.
Constructions are seen through the SDK's public stack transformations
(`pulumi.runtime.register_stack_transformation`, run synchronously at the start of every Resource
constructor, components and remote components included).
"""

from __future__ import annotations

import asyncio

import pulumi

from .recording import Recorded


class ConstructionOrder:
    """A stack transformation that notes each resource as it is constructed, and changes nothing."""

    def __init__(self) -> None:
        self.resources: list[pulumi.Resource] = []

    def __call__(self, args: pulumi.ResourceTransformationArgs) -> None:
        # A resource built from a URN (opts.urn) is a reference to one that exists, e.g. a remote
        # component's child read back from its outputs (`eksCluster` of pulumi_eks.Cluster): the SDK runs
        # transformations for those too (pulumi/resource.py, Resource.__init__, before `get_resource`),
        # at whatever time the reference is deserialized. It is not a construction of the program's.
        if args.opts is None or args.opts.urn is None:
            self.resources.append(args.resource)
        return None

    def sort(self, record: list[Recorded], loop: asyncio.AbstractEventLoop) -> list[Recorded]:
        """`record` in construction order, once the run has finished (every URN is resolved).

        A recorded resource the program did not construct itself (built on the engine's side, e.g. a
        remote component's child) follows its nearest constructed ancestor, in the order it was recorded.
        """

        async def urns() -> list[str]:
            return [await r.urn.future() for r in self.resources if hasattr(r, "urn")]

        rank = {urn: i for i, urn in enumerate(loop.run_until_complete(urns()))}
        by_urn = {r.urn: r for r in record}
        seen = {r.urn: i for i, r in enumerate(record)}
        keys: dict[str, tuple[int, ...]] = {}

        def key(r: Recorded) -> tuple[int, ...]:
            if r.urn not in keys:
                if r.urn in rank:
                    keys[r.urn] = (rank[r.urn],)
                else:
                    parent = by_urn.get(r.parent) if r.parent else None
                    keys[r.urn] = (*(key(parent) if parent else (len(rank),)), seen[r.urn])
            return keys[r.urn]

        return sorted(record, key=key)
