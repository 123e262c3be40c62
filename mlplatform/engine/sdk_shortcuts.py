"""Speed shortcuts for runs under mocks: SDK work the mocks never need, skipped (measured in bench/RESULTS.md)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect

import pulumi.resource as resource_sdk
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import resource as resource_runtime
from pulumi.runtime.proto import source_pb2
from pulumi.runtime.sync_await import _sync_await


class _InlineExecutor(concurrent.futures.ThreadPoolExecutor):
    """Runs the SDK's monitor calls on the calling thread.

    The SDK sends every registration to a worker thread and back through the event loop's
    self-pipe; the mocks answer at once, so that round trip is pure overhead (about a sixth of
    the run time of a large stack).
    """

    def __init__(self) -> None:
        super().__init__(max_workers=1)

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[override]
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def _run_now(awaitable):
    """MockMonitor's _sync_await on the loop's own thread: finish a coroutine that never suspends
    (serializing the mocks' plain state) without re-entering the running event loop."""
    if not inspect.iscoroutine(awaitable):
        return _sync_await(awaitable)
    try:
        awaitable.send(None)
    except StopIteration as done:
        return done.value
    awaitable.close()
    raise RuntimeError(
        "offline engine: serializing mock state waited on the event loop; mocks must return plain values"
    )


def _no_stack_trace() -> source_pb2.StackTrace:
    return source_pb2.StackTrace()


_PUMP_EVERY = 32  # registrations between two turns of the event loop while the program body runs


def _pumping(loop: asyncio.AbstractEventLoop, register_resource):
    """register_resource that lets queued registrations finish while the program body still runs.

    The program body constructs every resource before the event loop turns, so each one's pending
    registration (inputs, output futures, tasks) would be alive at once: half the peak memory of a
    stack of 500 node groups. Turning the loop every few registrations keeps only a few in flight.
    """
    count = 0

    def register(*args, **kwargs):
        nonlocal count
        result = register_resource(*args, **kwargs)
        count += 1
        if count % _PUMP_EVERY == 0 and not loop.is_running():
            for _ in range(1000):
                if not getattr(loop, "_ready", None):
                    break
                loop.run_until_complete(asyncio.sleep(0))
        return result

    return register


@contextlib.contextmanager
def sdk_shortcuts(loop: asyncio.AbstractEventLoop):
    """Skip SDK work the mocks never need (measured in bench/RESULTS.md), restored afterwards.

    These reach into SDK internals, so each applies only where this SDK version has the hook:
    without one a run is slower, never different.
    """
    patches = [
        # MockMonitor serializes the mocks' plain state on the loop's thread without re-entering it.
        (pulumi_mocks, "_sync_await", lambda original: _run_now),
        # The SDK walks the Python stack of every registration for the source position the Pulumi CLI
        # shows; the mocks never read it (a tenth of the run time and ~40 KB per node group).
        (resource_runtime, "_get_stack_trace", lambda original: _no_stack_trace),
        (resource_sdk, "register_resource", lambda original: _pumping(loop, original)),
    ]
    saved = []
    for module, name, make in patches:
        if callable(getattr(module, name, None)):
            original = getattr(module, name)
            saved.append((module, name, original))
            setattr(module, name, make(original))
    executor = getattr(loop, "_default_executor", None)
    loop.set_default_executor(_InlineExecutor())
    try:
        yield
    finally:
        for module, name, original in reversed(saved):
            setattr(module, name, original)
        loop._default_executor = executor  # type: ignore[attr-defined]
