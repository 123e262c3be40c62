"""The mock resource monitor the offline engine runs the program against."""

from __future__ import annotations

import threading

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime.proto import resource_pb2

from .mocks import Mocks
from .urn import make_urn


class Monitor(pulumi_mocks.MockMonitor):
    """A mock monitor that does not announce resource references.

    With references on, a resource passed to a multi-language component
    (pulumi_eks) is rebuilt on another thread's event loop and the run fails
    with "attached to a different loop"; without them it travels as its id.
    """

    def __init__(self, mocks: Mocks, local: threading.local):
        super().__init__(mocks)
        self.local = local

    def SupportsFeature(self, request):
        has = request.id not in ("outputValues", "resourceReferences")
        return type("SupportsFeatureResponse", (object,), {"hasSupport": has})

    def GetDeploymentInfo(self, request):
        info = super().GetDeploymentInfo(request)
        features = [f for f in info.supportedFeatures if f != resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES]
        return resource_pb2.DeploymentInfo(supportedFeatures=features)

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        # The engine's URNs, not MockMonitor's (which keeps only the parent's last type).
        return make_urn(pulumi.get_stack(), pulumi.get_project(), parent, type_, name)

    def RegisterResource(self, request):
        self.local.request = request
        try:
            return super().RegisterResource(request)
        finally:
            self.local.request = None
