"""moto's server on loopback, with AWS's managed policies loaded: the rehearsal's stand-in for AWS."""

from __future__ import annotations

import logging
import os
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

# moto reads it when an account's IAM backend is first created: AWS's ~1,500 managed policies, each with its
# path (so `arn:aws:iam::aws:policy/service-role/X` and `.../X` are different policies, as in IAM).
MANAGED_POLICIES = "MOTO_IAM_LOAD_MANAGED_POLICIES"
# Not needed (no launch template or node group names an AMI id: node groups take an amiType) and the slowest
# part of a fresh region's EC2 backend, which every stack's replay starts.
DEFAULT_AMIS = "MOTO_EC2_LOAD_DEFAULT_AMIS"


@contextmanager
def moto_server() -> Iterator[str]:
    """A moto server on 127.0.0.1 on a free port (port 0: the OS picks it); yields its endpoint URL."""
    os.environ[MANAGED_POLICIES] = "true"
    os.environ.setdefault(DEFAULT_AMIS, "false")
    from moto.server import ThreadedMotoServer  # the test extra; imported only where a rehearsal runs

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def reset(endpoint: str) -> None:
    """Forget every resource (moto's reset API), so that each stack replays into an empty account."""
    request = urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        answer.read()
