"""The policy pack driven through its real interface, the way the Pulumi CLI drives it.

The CLI (pulumi/pulumi sdk/go/common/resource/plugin/analyzer_plugin.go:105-283 NewPolicyAnalyzer, and the
Python language host's RunPlugin) runs `venv/bin/python -u -m pulumi.policy <engine address> .` from the
pack directory with the pack's own venv, reads the port from the first line of stdout and talks to the
Analyzer gRPC service: GetAnalyzerInfo, Configure with the reconciled policy config, then per resource
Remediate and Analyze (inputs), AnalyzeStack (state) at the end, Cancel when done. This module does the
same, with the venv built from policies/requirements.txt and cached outside the repository.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import select
import signal
import site
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2 as proto
from pulumi.runtime.proto import analyzer_pb2_grpc

from mlplatform_policies import offline
from tests.conftest import ROOT

PACK_DIR = ROOT / "policies"
REQUIREMENTS = PACK_DIR / "requirements.txt"
PROJECT = "ml-platform-eks"
# The pack never dials the engine (pulumi/policy/__main__.py only parses the address): any address works.
ENGINE_ADDRESS = "127.0.0.1:1"
TIMEOUT = 30  # seconds for one RPC
START_TIMEOUT = 120  # seconds until the pack prints its port (importing pulumi on a busy machine)
STOP_TIMEOUT = 90  # seconds for its server to stop on SIGINT (20 was too short with other suites running)

LEVELS = {"advisory": proto.ADVISORY, "mandatory": proto.MANDATORY, "disabled": proto.DISABLED}
LEVELS["remediate"] = proto.REMEDIATE
LEVEL_NAMES = {v: k for k, v in LEVELS.items()}


def policy_venv() -> Path:
    """The pack's venv, as the Pulumi CLI runs it: `venv/bin/python -u -m pulumi.policy` in the pack's folder.

    By default the venv is linked to this test run's environment, which holds everything the pack's
    requirements.txt installs (pulumi, pulumi-policy and this checkout, editable): a `.pth` file adds its
    site-packages, so the venv takes seconds to make instead of a 450 MB install on every fresh clone.
    With MLPLATFORM_PACK_VENV=pip it is built as the CLI builds it, `pip install -r requirements.txt` in the
    pack's folder (test_requirements_name_what_the_pack_imports keeps the two in step).
    Cached under $XDG_CACHE_HOME (default ~/.cache)/ml-platform-eks per requirements, Python, checkout and
    way of building; a lock file keeps concurrent test workers from building it twice or using it half-built.
    """
    how = os.environ.get("MLPLATFORM_PACK_VENV", "linked")
    requirements = REQUIREMENTS.read_bytes()
    key = hashlib.sha256(requirements + sys.version.encode() + str(ROOT).encode() + how.encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ml-platform-eks"
    venv, ready = cache / f"policy-venv-{key}", cache / f"policy-venv-{key}" / ".ready"
    if ready.exists():
        return venv
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"policy-venv-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not ready.exists():
            if how == "pip":
                subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=300)
                subprocess.run(
                    [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
                    + ["-r", REQUIREMENTS.name],
                    cwd=PACK_DIR,
                    check=True,
                    timeout=900,
                )
            else:
                _linked_venv(venv)
            ready.write_bytes(requirements)
    return venv


def _linked_venv(venv: Path) -> None:
    """A venv whose site-packages reach this run's (addsitedir also runs its .pth files: the editable install)."""
    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(venv)], check=True, timeout=300)
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    python = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import site; print(site.getsitepackages()[0])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in ours)
    (Path(python.stdout.strip()) / "mlplatform-test-run.pth").write_text(lines)


@dataclass(frozen=True)
class Diagnostic:
    policy: str
    urn: str  # "" for a stack-level diagnostic
    level: str
    message: str


def _struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(dict(values))  # every number becomes a double, as the engine's structpb marshalling does
    return s


def reconcile(policies: Iterable[proto.PolicyInfo], config: Mapping[str, Any] | None) -> dict[str, tuple[str, dict]]:
    """The policy config the CLI sends: every policy at its own level with its schema's defaults, then
    the --policy-pack-config file applied, "all" first (pulumi/pulumi pkg/resource/analyzer/config.go:
    ReconcilePolicyPackConfig :307, createConfigWithDefaults :276, applyConfig :337, the file parsed by
    parsePolicyPackConfig :93; sent by pkg/engine/update.go:312-322). Schema validation is left out.
    """
    result: dict[str, tuple[str, dict]] = {}
    for p in policies:
        schema = json_format.MessageToDict(p.configSchema.properties) if p.HasField("configSchema") else {}
        defaults = {k: v["default"] for k, v in schema.items() if "default" in v}
        result[p.name] = (LEVEL_NAMES[p.enforcementLevel], defaults)
    given: dict[str, tuple[str, dict]] = {}
    for name, value in (config or {}).items():
        if isinstance(value, str):
            given[name] = (value, {})
        else:
            props = {k: v for k, v in value.items() if k != "enforcementLevel"}
            given[name] = (value.get("enforcementLevel", ""), props)
    if "all" in given and given["all"][0]:
        result = {name: (given["all"][0], props) for name, (_, props) in result.items()}
    for name, (level, props) in given.items():
        old_level, old_props = result.get(name, ("", {}))
        result[name] = (level or old_level, {**old_props, **props})
    return result


class PolicyPack:
    """`policies/` started as the CLI starts it, for one stack; use as a context manager."""

    def __init__(self, stack: str, preview: bool = True, project: str = PROJECT) -> None:
        self.stack, self.preview, self.project = stack, preview, project

    def __enter__(self) -> PolicyPack:
        venv = policy_venv()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(
            {
                "PULUMI_PROJECT": self.project,
                "PULUMI_STACK": self.stack,
                "PULUMI_ORGANIZATION": "organization",
                "PULUMI_DRY_RUN": "true" if self.preview else "false",
                "PYTHONDONTWRITEBYTECODE": "1",
            }
        )
        # No preexec_fn: it makes Python fork() a process whose gRPC threads are running, and gRPC's fork
        # handlers then abort the child now and then before it execs ("epoll_wait error: Bad file
        # descriptor", SIGABRT). Without one Python uses vfork, which runs no fork handlers; the pack asks
        # to be stopped with its parent itself, then runs `python -m pulumi.policy` with the CLI's argv.
        self.process = subprocess.Popen(
            [str(venv / "bin" / "python"), "-u", "-c", _RUN_PACK, ENGINE_ADDRESS, "."],
            cwd=PACK_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.closed = False
        try:
            ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT)
            line = self.process.stdout.readline() if ready else b""
            port = int(line.strip())
        except ValueError:
            self.process.kill()
            _, err = self.process.communicate(timeout=10)
            raise RuntimeError(f"the policy pack printed {line!r} instead of its port:\n{err.decode()}") from None
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        self.stub.ConfigureStack(
            proto.AnalyzerStackConfigureRequest(stack=self.stack, project=self.project, dry_run=self.preview),
            timeout=TIMEOUT,
        )
        self.info = self.stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=TIMEOUT)
        self.plugin_info = self.stub.GetPluginInfo(empty_pb2.Empty(), timeout=TIMEOUT)
        return self

    def configure(self, config: Mapping[str, Any] | None = None) -> None:
        """Configure replaces the pack's whole config, as the CLI sends it once per run."""
        request = proto.ConfigureAnalyzerRequest()
        for name, (level, props) in reconcile(self.info.policies, config).items():
            request.policyConfig[name].enforcementLevel = LEVELS[level]
            request.policyConfig[name].properties.CopyFrom(_struct(props))
        self.stub.Configure(request, timeout=TIMEOUT)

    def analyze(self, resources: Iterable[offline.Resource]) -> list[Diagnostic]:
        """Remediate and Analyze each resource (inputs), then AnalyzeStack (state): every diagnostic."""
        resources = list(resources)
        out = []
        for r in resources:
            request = proto.AnalyzeRequest(
                type=r.type, properties=_struct(r.props), urn=r.urn, name=r.name, options=self._options(r)
            )
            self.stub.Remediate(request, timeout=TIMEOUT)
            for d in self.stub.Analyze(request, timeout=TIMEOUT).diagnostics:
                # The engine reports a resource policy's diagnostic on the resource analyzed.
                out.append(Diagnostic(d.policyName, d.urn or r.urn, LEVEL_NAMES[d.enforcementLevel], d.message))
        stack = proto.AnalyzeStackRequest(
            resources=[
                proto.AnalyzerResource(
                    type=r.type,
                    properties=_struct(r.state if r.state is not None else r.props),
                    urn=r.urn,
                    name=r.name,
                    options=self._options(r),
                    parent=r.parent or "",
                )
                for r in resources
            ]
        )
        for d in self.stub.AnalyzeStack(stack, timeout=TIMEOUT).diagnostics:
            out.append(Diagnostic(d.policyName, d.urn, LEVEL_NAMES[d.enforcementLevel], d.message))
        return out

    @staticmethod
    def _options(r: offline.Resource) -> proto.AnalyzerResourceOptions:
        return proto.AnalyzerResourceOptions(
            protect=r.protect, ignoreChanges=list(r.ignore_changes), parent=r.parent or ""
        )

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> int:
        """Cancel (pulumi-policy does not implement it; the CLI tolerates that), then stop the process:
        the pack's server stops on SIGINT (pulumi_policy/policy.py PolicyPack, KeyboardInterrupt)."""
        if self.closed:
            return self.process.returncode
        self.closed = True
        try:
            self.stub.Cancel(empty_pb2.Empty(), timeout=TIMEOUT)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
        finally:
            self.channel.close()
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
            try:
                self.process.communicate(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.communicate(timeout=10)
        return self.process.returncode


# The pack's process: have the kernel stop it if the test process dies first (PR_SET_PDEATHSIG, Linux),
# then run pulumi.policy as `python -m pulumi.policy ENGINE PACK` would.
_RUN_PACK = """
import contextlib, ctypes, runpy, signal, sys
with contextlib.suppress(OSError, AttributeError):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
sys.argv[0] = "pulumi.policy"
runpy.run_module("pulumi.policy", run_name="__main__", alter_sys=True)
"""


def diagnostics_of(violations: Iterable[offline.Violation]) -> set[tuple[str, str, str]]:
    """(policy, urn, level) of `mlplatform check`'s violations, keyed like the analyzer's diagnostics."""
    return {(v.policy, v.urn or "", v.level) for v in violations}


def keys(diagnostics: Iterable[Diagnostic]) -> set[tuple[str, str, str]]:
    return {(d.policy, d.urn, d.level) for d in diagnostics}
