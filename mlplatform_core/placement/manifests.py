"""Pod specs out of Kubernetes manifests, for `mlplatform place`.

Pure Python. Accepts YAML with one or more documents: Pod, Deployment,
StatefulSet, ReplicaSet, DaemonSet, Job, CronJob, a List of those, or a bare
PodSpec (a mapping with `containers`). Anything else raises ManifestError naming
the document (1-based, as editors count `---` sections) and its kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from .pods import Pod, PodSpecError

MAX_MANIFEST_BYTES = 5_000_000
MAX_PODS = 500

# kind -> path from the object to its PodSpec
POD_SPEC_PATHS: Mapping[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
SUPPORTED = ", ".join([*POD_SPEC_PATHS, "List", "a bare PodSpec"])


class ManifestError(ValueError):
    """Input `place` cannot use: not YAML, not a workload, or a malformed PodSpec."""

    def __init__(self, message: str, document: int | None = None, kind: str | None = None):
        self.document = document
        self.kind = kind
        where = ""
        if document is not None:
            where = f"document {document}" + (f" ({kind})" if kind else "") + ": "
        super().__init__(where + message)


@dataclass(frozen=True)
class ManifestPod:
    name: str  # Kind/name, e.g. Deployment/nuclio-fn; podspec-<n> for bare specs
    kind: str
    document: int
    spec: Mapping[str, Any]

    def pod(self) -> Pod:
        try:
            return Pod.from_spec(self.spec, self.name)
        except PodSpecError as exc:
            raise ManifestError(f"{self.name}: {exc}", self.document, self.kind) from None


def _dig(obj: Any, path: tuple[str, ...], document: int, kind: str) -> Any:
    node = obj
    walked = []
    for part in path:
        walked.append(part)
        if not isinstance(node, Mapping) or part not in node:
            raise ManifestError(
                f"has no {'.'.join(walked)}; a {kind} keeps its PodSpec at {'.'.join(path)}", document, kind
            )
        node = node[part]
    if not isinstance(node, Mapping):
        raise ManifestError(f"{'.'.join(path)} must be a mapping (got {type(node).__name__})", document, kind)
    return node


def _from_object(obj: Mapping[str, Any], document: int, index_hint: str = "") -> list[ManifestPod]:
    kind = obj.get("kind")
    if kind is None:
        if "containers" in obj:  # a bare PodSpec
            return [ManifestPod(f"podspec-{document}{index_hint}", "PodSpec", document, obj)]
        raise ManifestError(f"has no 'kind' and no 'containers'; give a {SUPPORTED}", document)
    if not isinstance(kind, str):
        raise ManifestError(f"'kind' must be a string (got {kind!r})", document)
    if kind == "List":
        items = obj.get("items")
        if not isinstance(items, list):
            raise ManifestError("a List needs an 'items' list", document, kind)
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise ManifestError(f"items[{i}] must be a mapping", document, kind)
            out.extend(_from_object(item, document, f"-{i + 1}"))
        return out
    if kind not in POD_SPEC_PATHS:
        raise ManifestError(f"kind {kind} has no pods to place; supported: {SUPPORTED}", document, kind)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = meta.get("name") or meta.get("generateName") or f"document-{document}{index_hint}"
    spec = _dig(obj, POD_SPEC_PATHS[kind], document, kind)
    return [ManifestPod(f"{kind}/{name}", kind, document, spec)]


def read_manifests(text: str) -> list[ManifestPod]:
    """Every pod spec in YAML text, in document order. Raises ManifestError."""
    if len(text.encode("utf-8", errors="replace")) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"the manifest is larger than {MAX_MANIFEST_BYTES:,} bytes")
    pods: list[ManifestPod] = []
    document = 0
    try:
        for document, obj in enumerate(yaml.safe_load_all(text), start=1):
            if obj is None:  # an empty document, e.g. a trailing ---
                continue
            if not isinstance(obj, Mapping):
                raise ManifestError(
                    f"must be a mapping (a Kubernetes object or a PodSpec), got {type(obj).__name__}", document
                )
            pods.extend(_from_object(obj, document))
            if len(pods) > MAX_PODS:
                raise ManifestError(f"more than {MAX_PODS} pod specs; split the file")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ManifestError(f"is not valid YAML{where}: {problem}", document + 1) from None
    except RecursionError:
        raise ManifestError("is nested too deeply to be a Kubernetes object", document + 1) from None
    if not pods:
        raise ManifestError(f"no pod specs found; give a {SUPPORTED}")
    return pods


def read_pods(text: str) -> list[Pod]:
    """read_manifests, then each spec parsed into a Pod model. Raises ManifestError."""
    return [m.pod() for m in read_manifests(text)]
