"""A throw-away control plane for the differential test: etcd, kube-apiserver and kube-scheduler v1.20.

Standard library only. Everything listens on 127.0.0.1 on free ports, every wait has a deadline, a
timer stops the processes after `max_runtime` seconds whatever happens, and children die with the test
process (PR_SET_PDEATHSIG). The binaries come from scripts/build_kube.sh (Debian's kubernetes 1.20
source package); etcd is Debian's etcd-server.

Configuration (after the recipe in the kube-build research report): no kube-controller-manager runs,
so the ServiceAccount and TaintNodesByCondition admission plugins are off (they need its controllers),
ResourceQuotas are never enforced, nodes are Node objects with a hand-written status and no kubelet,
and pods are deleted with grace period 0.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
DEFAULT_BIN_DIR = Path.home() / ".cache" / "ml-platform-eks" / "kube-v1.20.2" / "bin"
# The admission plugins EKS runs that matter to scheduling, with NamespaceLifecycle; see the module docstring.
ADMISSION = "NamespaceLifecycle,LimitRanger,Priority,DefaultTolerationSeconds,ExtendedResourceToleration,RuntimeClass"


def bin_dir() -> Path:
    return Path(os.environ.get("KUBE_BIN_DIR") or DEFAULT_BIN_DIR)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def _child_setup() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    os.setpgid(0, 0)


class ClusterError(RuntimeError):
    pass


class Cluster:
    """`with Cluster() as c:` starts etcd, the API server and the scheduler; `c.api` talks to the API."""

    def __init__(self, binaries: Path | None = None, max_runtime: float = 900.0, startup_timeout: float = 120.0):
        self.bin = binaries or bin_dir()
        self.max_runtime = max_runtime
        self.startup_timeout = startup_timeout
        self.workdir = Path(tempfile.mkdtemp(prefix="mlplatform-kube-"))
        self.token = secrets.token_hex(16)
        self.procs: dict[str, subprocess.Popen] = {}
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.api: Api | None = None

    def _etcd(self) -> str:
        marker = self.bin / "etcd.path"
        if marker.is_file():
            for line in marker.read_text().splitlines():
                if line.startswith("ETCD_BIN="):
                    return line.split("=", 1)[1].strip()
        found = shutil.which("etcd")
        if not found:
            raise ClusterError("etcd not found; scripts/build_kube.sh installs Debian's etcd-server")
        return found

    def _spawn(self, name: str, argv: list[str]) -> None:
        with open(self.workdir / f"{name}.log", "wb") as log:
            self.procs[name] = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_child_setup
            )

    def log_tail(self, name: str, lines: int = 20) -> str:
        path = self.workdir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def _wait(self, url: str, context: ssl.SSLContext | None, headers: dict[str, str], deadline: float) -> None:
        last = ""
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise ClusterError(f"{name} exited with {proc.returncode}:\n{self.log_tail(name)}")
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers), context=context, timeout=3):
                    return
            except (urllib.error.URLError, OSError) as exc:
                last = repr(exc)
            time.sleep(0.2)
        raise ClusterError(f"timed out waiting for {url}: {last}")

    def _pki(self) -> Path:
        pki = self.workdir / "pki"
        pki.mkdir()

        def openssl(*args: str) -> None:
            subprocess.run(["openssl", *args], cwd=pki, check=True, capture_output=True, timeout=60)

        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
                "-subj", "/CN=mlplatform-test-ca")  # fmt: skip
        (pki / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "api.key", "-out", "api.csr", "-subj", "/CN=api")
        openssl("x509", "-req", "-in", "api.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "api.crt", "-days", "1", "-extfile", "san.ext")  # fmt: skip
        openssl("genrsa", "-out", "sa.key", "2048")
        openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub")
        return pki

    def start(self) -> Cluster:
        for name in ("kube-apiserver", "kube-scheduler"):
            if not os.access(self.bin / name, os.X_OK):
                raise ClusterError(f"{self.bin / name} is missing: run `make test-scheduler` (it builds them)")
        self._timer = threading.Timer(self.max_runtime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        pki = self._pki()
        ports = {k: _free_port() for k in ("client", "peer", "api", "scheduler")}
        etcd = f"http://{LOOPBACK}:{ports['client']}"
        peer = f"http://{LOOPBACK}:{ports['peer']}"
        self._spawn("etcd", [self._etcd(), "--name", "test", "--data-dir", str(self.workdir / "etcd"),
                             "--listen-client-urls", etcd, "--advertise-client-urls", etcd,
                             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                             "--initial-cluster", f"test={peer}", "--log-level", "warn"])  # fmt: skip
        self._wait(f"{etcd}/health", None, {}, deadline)
        (self.workdir / "tokens.csv").write_text(f'{self.token},admin,admin,"system:masters"\n')
        api_url = f"https://{LOOPBACK}:{ports['api']}"
        self._spawn("kube-apiserver", [
            str(self.bin / "kube-apiserver"), f"--etcd-servers={etcd}",
            f"--bind-address={LOOPBACK}", f"--advertise-address={LOOPBACK}",
            f"--secure-port={ports['api']}", "--insecure-port=0",
            f"--tls-cert-file={pki}/api.crt", f"--tls-private-key-file={pki}/api.key", f"--client-ca-file={pki}/ca.crt",
            f"--token-auth-file={self.workdir}/tokens.csv", "--authorization-mode=RBAC", "--anonymous-auth=false",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki}/sa.pub", f"--service-account-signing-key-file={pki}/sa.key",
            "--service-cluster-ip-range=10.96.0.0/24", "--endpoint-reconciler-type=none",
            f"--enable-admission-plugins={ADMISSION}",
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,ResourceQuota",
            f"--cert-dir={pki}", "--profiling=false",
        ])  # fmt: skip
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        auth = {"Authorization": f"Bearer {self.token}"}
        self._wait(f"{api_url}/readyz", context, auth, deadline)
        kubeconfig = self.workdir / "kubeconfig"
        kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [
                        {"name": "t", "cluster": {"server": api_url, "certificate-authority": f"{pki}/ca.crt"}}
                    ],
                    "users": [{"name": "t", "user": {"token": self.token}}],
                    "contexts": [{"name": "t", "context": {"cluster": "t", "user": "t"}}],
                    "current-context": "t",
                }
            )
        )
        self._spawn("kube-scheduler", [
            str(self.bin / "kube-scheduler"), f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
            "--authentication-skip-lookup=true", f"--bind-address={LOOPBACK}",
            f"--secure-port={ports['scheduler']}", "--port=0", f"--cert-dir={self.workdir / 'scheduler'}",
            "--leader-elect=false", "--profiling=false",
        ])  # fmt: skip
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE
        self._wait(f"https://{LOOPBACK}:{ports['scheduler']}/healthz", insecure, {}, deadline)
        self.api = Api(api_url, self.token, context)

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            for name in ("kube-scheduler", "kube-apiserver", "etcd"):
                proc = self.procs.pop(name, None)
                if proc is None or proc.poll() is not None:
                    continue
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Api:
    """JSON over HTTPS with the admin token; every call has a timeout."""

    def __init__(self, url: str, token: str, context: ssl.SSLContext):
        self.url, self.token, self.context = url, token, context

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": content_type, "Accept": "application/json"}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, context=self.context, timeout=30) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                return exc.code, json.loads(raw)
            except ValueError:
                return exc.code, {"message": raw.decode(errors="replace")}

    def ok(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> dict:
        status, obj = self.request(method, path, body, content_type)
        if status >= 300:
            raise ClusterError(f"{method} {path} -> {status}: {obj.get('message', obj)}")
        return obj


class PodWatch:
    """Pod events of every namespace from one watch: when a pod was bound, found unschedulable or deleted."""

    def __init__(self, api: Api, seconds: int = 600):
        self.api = api
        version = api.ok("GET", "/api/v1/pods")["metadata"]["resourceVersion"]
        parts = urllib.parse.urlsplit(api.url)
        self.conn = http.client.HTTPSConnection(parts.hostname, parts.port, context=api.context, timeout=seconds + 10)
        self.conn.request(
            "GET",
            f"/api/v1/pods?watch=true&resourceVersion={version}&timeoutSeconds={seconds}",
            headers={"Authorization": f"Bearer {api.token}"},
        )
        self.response = self.conn.getresponse()
        self.state: dict[
            tuple[str, str], tuple[str, str]
        ] = {}  # (namespace, name) -> (bound|unschedulable|deleted, detail)
        self.changed = threading.Condition()
        self.closing = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with contextlib.suppress(Exception):
            while line := self.response.readline():
                event = json.loads(line)
                pod = event.get("object") or {}
                meta = pod.get("metadata") or {}
                key = (meta.get("namespace"), meta.get("name"))
                with self.changed:
                    if event.get("type") == "DELETED":
                        self.state[key] = ("deleted", "")
                    elif node := (pod.get("spec") or {}).get("nodeName"):
                        self.state[key] = ("bound", node)
                    else:
                        for cond in (pod.get("status") or {}).get("conditions") or []:
                            if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
                                self.state[key] = ("unschedulable", cond.get("message", ""))
                    self.changed.notify_all()

    def wait(self, namespace: str, name: str, states: tuple[str, ...], timeout: float = 30.0) -> tuple[str, str]:
        end = time.monotonic() + timeout
        with self.changed:
            while (found := self.state.get((namespace, name))) is None or found[0] not in states:
                left = end - time.monotonic()
                if left <= 0:
                    raise ClusterError(f"pod {namespace}/{name}: no {'/'.join(states)} within {timeout:.0f}s")
                self.changed.wait(left)
            return found

    def close(self) -> None:
        # An open watch holds the API server's shutdown: end it first.
        with contextlib.suppress(Exception):
            if self.conn.sock:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
            self.conn.close()
        self.thread.join(5)
