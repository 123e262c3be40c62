"""Speed measures for runs under mocks, on public APIs only (each one measured in bench/RESULTS.md).

- `young_collections_only`: the garbage collector's young generation only while a run lasts;
- `Pump`: let queued registrations finish while the program body still runs (peak memory);
- `Freezer`: the run's objects frozen once it ends, for processes that exit after their runs.

Earlier versions also replaced SDK internals (the mock monitor's `_sync_await`, the loop's default
executor, the SDK's `_get_stack_trace`, a pump reading `loop._ready`). Measured one by one they bought
nothing on the shipped stacks (bench/RESULTS.md), and each tied the engine to one SDK version's
internals, so they are gone. Nothing here changes what a run records, only its time and memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc

import pulumi


@contextlib.contextmanager
def young_collections_only():
    """Only young-generation collections while the block runs; the thresholds are restored afterwards.

    A run allocates a few hundred thousand futures, tasks and protobuf objects that live until it
    ends. Full collections would rescan them again and again (about half the run time of a stack of
    500 node groups); young-generation collections alone still free the short-lived cycles the SDK
    makes for every registration, and never look at the survivors again.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0] or 700, 10**9, 10**9)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


# Frozen objects beyond which the next run first unfreezes and collects them: a run of a shipped stack
# leaves ~11k objects of garbage (~2 MB), a full collection costs ~0.2 s; a run of 500 node groups leaves
# far more, worth freeing before the next one.
COLLECT_ABOVE = 1_000_000


class Freezer:
    """gc.freeze after a run, for a process that runs programs and exits.

    The runtime leaves a run's objects in reference cycles; the first full collection after the run,
    and the one at interpreter exit, would walk all of them (seconds for 500 node groups). Frozen, the
    collector skips them. A later run in the same process (`check --all`) leaves them frozen while they
    are few (a full collection would cost more than the next run itself) and unfreezes and collects
    them once more than COLLECT_ABOVE are frozen, so many runs in one process stay within bounds.
    """

    def __init__(self) -> None:
        self.enabled = False  # set by a process that exits after its runs (the mlplatform command)
        self.frozen = False

    def before_run(self) -> None:
        if self.frozen and gc.get_freeze_count() > COLLECT_ABOVE:
            gc.unfreeze()
            self.frozen = False
            gc.collect()

    def after_run(self) -> None:
        if self.enabled:
            gc.freeze()
            self.frozen = True


PUMP_EVERY = 32  # constructions between two turns of the event loop while the program body runs
PUMP_TIMEOUT_S = 2.0  # a batch's registrations finish in milliseconds under mocks


class Pump:
    """A stack transformation that lets the registrations queued so far finish every PUMP_EVERY constructions.

    The program body constructs every resource before the event loop turns, so each one's pending
    registration (inputs, output futures, tasks) would be alive at once: half the peak memory of a
    stack of 500 node groups. Waiting, every few constructions, for the URNs of the resources built
    since the last wait keeps only a few in flight. A program whose registration waits on something it
    builds later would time out the wait: the pump then stops, the run goes on as without it.
    Public API only: pulumi.runtime.register_stack_transformation, Output.future and asyncio.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.batch: list[pulumi.Resource] = []
        self.active = True

    def __call__(self, args: pulumi.ResourceTransformationArgs) -> None:
        if self.active:
            self.batch.append(args.resource)
            if len(self.batch) > PUMP_EVERY and not self.loop.is_running():
                # The last one is the resource being constructed now: not registered yet.
                built, self.batch = self.batch[:-1], self.batch[-1:]
                self._wait_for(built)
        return None

    def _wait_for(self, resources: list[pulumi.Resource]) -> None:
        async def registered() -> bool:
            # Failures are returned, not raised: they surface where the run awaits its registrations.
            urns = asyncio.gather(*(r.urn.future() for r in resources if hasattr(r, "urn")), return_exceptions=True)
            _, pending = await asyncio.wait([urns], timeout=PUMP_TIMEOUT_S)  # never cancels: they are the URNs
            return not pending

        if not self.loop.run_until_complete(registered()):
            self.active = False
