"""Pod specs out of Kubernetes manifests, for `mlplatform place`.

Pure Python. Accepts YAML with one or more documents, as `helm template` or `kubectl get all -o yaml`
write them: Pod, Deployment, StatefulSet, ReplicaSet, ReplicationController, DaemonSet, Job, CronJob,
PodTemplate, a List (or PodList, DeploymentList, ...) of those, a bare PodSpec (a mapping with
`containers`), or an operator's custom resource whose pods workload_kinds.py knows (Kubeflow training
jobs, KubeRay, JobSet, LeaderWorkerSet, Spark, Dask, Argo Workflows): one pod spec per role, with its
replica count. Objects of kinds without pods (Service, ConfigMap, ...) are skipped and counted; custom
resources of other kinds are noted. What cannot be read raises ManifestError naming the document
(1-based, as editors count `---` sections), the item of a List (items[i]) and the kind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import IO, TYPE_CHECKING, Any

import yaml

from ..model.config.errors import escaped
from .admission import DEFAULT_NAMESPACE, Admission, ClusterObjects, admit
from .claims import API_GROUP, KINDS, ClaimCatalog, ClaimError, references
from .manifest_yaml import ManifestLoader
from .pod_template import KindError
from .pods import Pod, PodSpecError
from .validation import pod_spec_problems
from .workload_kinds import ELSEWHERE, api_group, known_kinds, pod_templates

if TYPE_CHECKING:
    from .schema import KubernetesSchema

# Documents are read one at a time and their pods placed as they come, so memory stays flat however long the
# manifest; the byte limit only keeps a runaway stream (a device, an endless pipe) from running for ever.
MAX_MANIFEST_BYTES = 1_000_000_000


# kind -> path from the object to its PodSpec
POD_SPEC_PATHS: Mapping[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "PodTemplate": ("template", "spec"),
}
SUPPORTED = ", ".join([*POD_SPEC_PATHS, "List", "a bare PodSpec"]) + (
    f" (or an operator's: {', '.join(known_kinds())})"
)


class ManifestError(ValueError):
    """Input `place` cannot use: not YAML, not a workload, or a malformed PodSpec."""

    def __init__(self, message: str, document: int | None = None, kind: str | None = None, item: str = ""):
        self.document = document
        self.kind = kind
        where = ""
        if document is not None:
            where = f"document {document}" + (f" {item}" if item else "") + (f" ({kind})" if kind else "") + ": "
        super().__init__(where + message)


class SchemaError(ManifestError):
    """Fields the API server would refuse (unknown, of the wrong type, missing; values its validation refuses), in
    every document at once."""

    def __init__(self, problems: list[str], schema: KubernetesSchema | None, then: str | None = None):
        self.problems = problems
        version = f"the Kubernetes {schema.version} schema" if schema is not None else "the schema"
        lines = [
            f"{len(problems)} field problem(s) the API server would refuse (kubectl apply validates fields "
            f"strictly), checked against {version} and the API server's validation of the fields placement reads:"
        ]
        lines += [f"  - {p}" for p in problems]
        if then:
            lines.append(f"and then: {then}")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class ManifestPod:
    name: str  # Kind/name, e.g. Deployment/nuclio-fn; podspec-<n> for bare specs
    kind: str
    document: int
    spec: Mapping[str, Any]
    namespace: str | None = None  # metadata.namespace of the object; None: wherever it is applied
    item: str = ""  # where in a List the object is, e.g. items[3]
    replicas: int | None = None  # an operator's role: how many pods of this spec run at once (None: one object)
    notes: tuple[str, ...] = ()  # how the spec was read (an operator's defaults, what is not modelled)
    # The manifest's ResourceClaims, templates and DeviceClasses (all of them once the pod is handed out).
    catalog: ClaimCatalog | None = field(default=None, compare=False, repr=False)
    # The labels Kueue reads the queue name from (placement/queues.py): the job's or operator object's own, a
    # CronJob's job template's, a Deployment's (or other controller's) pod template's.
    labels: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def pod(self) -> Pod:
        try:
            return Pod.from_spec(self.spec, self.name)
        except PodSpecError as exc:
            raise ManifestError(f"{self.name}: {exc}", self.document, self.kind, self.item) from None

    def admit(self, cluster: ClusterObjects, namespace: str | None = None) -> Admission:
        """The pod as the API server would admit it: in its own namespace, else `namespace` (kubectl -n)."""
        try:
            admission = admit(self.spec, cluster, self.name, self.namespace or namespace)
        except PodSpecError as exc:
            raise ManifestError(f"{self.name}: {exc}", self.document, self.kind, self.item) from None
        if not admission.pod.resource_claims or admission.rejected:
            return admission
        catalog = self.catalog or ClaimCatalog()
        claims = catalog.resolve(admission.pod.resource_claims, admission.namespace, namespace or DEFAULT_NAMESPACE)
        return dataclasses.replace(admission, claims=claims)


@dataclass(frozen=True)
class Manifest:
    """What a manifest holds: the pod specs, and how many objects of each kind without pods were skipped."""

    pods: tuple[ManifestPod, ...]
    skipped: Mapping[str, int]

    @property
    def note(self) -> str | None:
        """The skipped kinds in one sentence, or None when nothing was skipped."""
        if not self.skipped:
            return None
        total = sum(self.skipped.values())
        kinds = ", ".join(f"{kind} ({n})" for kind, n in sorted(self.skipped.items()))
        return f"skipped {total} object(s) of kinds without pods: {kinds}"


def _dig(obj: Any, path: tuple[str, ...], document: int, kind: str, item: str) -> Any:
    node = obj
    walked = []
    for part in path:
        walked.append(part)
        if not isinstance(node, Mapping) or part not in node:
            raise ManifestError(
                f"has no {'.'.join(walked)}; a {kind} keeps its PodSpec at {'.'.join(path)}", document, kind, item
            )
        node = node[part]
    if not isinstance(node, Mapping):
        raise ManifestError(f"{'.'.join(path)} must be a mapping (got {type(node).__name__})", document, kind, item)
    return node


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, Mapping) else None
    return obj


# Where the labels Kueue reads a queue name from sit (default: the pod template's, as the pod integration reads them).
QUEUE_LABELS_PATHS: Mapping[str, tuple[str, ...]] = {
    "Pod": ("metadata",),
    "Job": ("metadata",),
    "CronJob": ("spec", "jobTemplate", "metadata"),
    "PodTemplate": ("template", "metadata"),
}


def _labels(obj: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, str]:
    labels = _at(obj, (*path, "labels"))
    if not isinstance(labels, Mapping):
        return MappingProxyType({})
    return MappingProxyType({str(k): str(v) for k, v in labels.items() if isinstance(v, str | int | float)})


def _where(document: int, item: str, kind: str | None, obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = meta.get("name") or meta.get("generateName")
    what = f"{kind}/{name}" if kind and isinstance(name, str) else kind
    return f"document {document}" + (f" {item}" if item else "") + (f" ({escaped(what)})" if what else "")


class _Reader:
    def __init__(self, schema: KubernetesSchema | None = None) -> None:
        self.pods: list[ManifestPod] = []
        self.skipped: dict[str, int] = {}
        self.schema = schema
        self.problems: list[str] = []  # every field the API server would refuse, in every document
        self.unchecked: dict[str, int] = {}  # custom resources: kind -> count
        self.elsewhere: list[str] = []  # custom resources whose pods another object describes
        self.catalog = ClaimCatalog()  # resource.k8s.io claims, templates and device classes, for the pods' claims

    def check(self, obj: Mapping[str, Any], kind: str | None, document: int, item: str) -> str:
        """The verdict on `obj`'s fields: "refused" when the API server would refuse them (each problem recorded),
        "custom" for a custom resource (a group of its own, which the built-in schema does not know: counted as
        unchecked), else "ok"."""
        schema = self.schema
        if schema is None:
            return "ok"
        found = schema.refusals(obj, kind)
        if found is None:
            return "custom"
        if not found and (kind is None or kind in POD_SPEC_PATHS):  # well-typed: now the values the proof reads
            path = () if kind is None else POD_SPEC_PATHS[kind]
            spec = _at(obj, path)
            if isinstance(spec, Mapping):
                found = [f"{'.'.join((*path, str(p)))}" for p in pod_spec_problems(spec, kind)]
        where = _where(document, item, kind or "PodSpec", obj)
        self.problems.extend(f"{where}: {problem}" for problem in found)
        return "refused" if found else "ok"

    def read(self, obj: Mapping[str, Any], document: int, item: str = "", depth: int = 0) -> None:
        kind = obj.get("kind")
        if kind is None:
            if "containers" in obj:  # a bare PodSpec
                if self.check(obj, None, document, item) == "refused":
                    return
                name = f"podspec-{document}" + (f"/{item}" if item else "")
                self.pods.append(ManifestPod(name, "PodSpec", document, obj, item=item))
                return
            raise ManifestError(f"has no 'kind' and no 'containers'; give a {SUPPORTED}", document, item=item)
        if not isinstance(kind, str):
            raise ManifestError(f"'kind' must be a string (got {kind!r})", document, item=item)
        if kind == "List" or (kind.endswith("List") and "items" in obj):  # List, PodList, DeploymentList, ...
            items = obj.get("items")
            if not isinstance(items, list):
                raise ManifestError(f"a {kind} needs an 'items' list", document, kind, item)
            if depth > 5:
                raise ManifestError("Lists nest more than 5 deep", document, kind, item)
            for i, entry in enumerate(items):
                where = f"{item}items[{i}]"
                if not isinstance(entry, Mapping):
                    raise ManifestError(f"{where} must be a mapping (got {type(entry).__name__})", document, kind)
                self.read(entry, document, where, depth + 1)
            return
        verdict = self.check(obj, kind, document, item)
        if verdict == "refused":
            return
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        name = meta.get("name") or meta.get("generateName") or f"document-{document}" + (f"/{item}" if item else "")
        namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        if kind in KINDS and api_group(obj) == API_GROUP:  # what pods' claims ask for (claims.py)
            try:
                self.catalog.add(obj)
            except ClaimError as exc:
                raise ManifestError(str(exc), document, kind, item) from None
            return
        if verdict == "custom" or kind not in POD_SPEC_PATHS:  # an operator's workload, or a Service, ConfigMap...
            if not self.operator_pods(obj, kind, f"{kind}/{name}", namespace, document, item):
                counts = self.unchecked if verdict == "custom" else self.skipped
                counts[escaped(kind)] = counts.get(escaped(kind), 0) + 1
            return
        spec = _dig(obj, POD_SPEC_PATHS[kind], document, kind, item)
        labels = _labels(obj, QUEUE_LABELS_PATHS.get(kind, ("spec", "template", "metadata")))
        self.pods.append(ManifestPod(f"{kind}/{name}", kind, document, spec, namespace, item, labels=labels))

    def operator_pods(
        self, obj: Mapping[str, Any], kind: str, name: str, namespace: str | None, document: int, item: str
    ) -> bool:
        """The pods of a custom resource of a kind workload_kinds knows, each role's PodSpec checked as the API
        server checks the pods its operator creates; False for any other kind."""
        if (api_group(obj), kind) in ELSEWHERE:
            self.elsewhere.append(f"{name}: {ELSEWHERE[api_group(obj), kind]}")
            return True
        try:
            templates = pod_templates(obj, kind)
        except KindError as exc:
            raise ManifestError(str(exc), document, kind, item) from None
        if templates is None:
            return False
        if not templates:  # e.g. a RayJob on an existing cluster, a Workflow of steps only: said, never dropped
            self.elsewhere.append(f"{name}: no pod template place can read (none of its roles has a PodSpec)")
        for t in templates:
            if self.schema is not None:
                found = [f"{t.path}.{p}" for p in self.schema.refusals(t.spec, None) or []]
                found = found or [f"{t.path}.{p}" for p in pod_spec_problems(t.spec, None)]
                if found:
                    where = _where(document, item, kind, obj)
                    self.problems.extend(f"{where}: {problem}" for problem in found)
                    continue
            labels = _labels(obj, ("metadata",))
            self.pods.append(
                ManifestPod(
                    f"{name} {t.role}", kind, document, t.spec, namespace, item, t.replicas, t.notes, labels=labels
                )
            )
        return True


class _Limited:
    """A text stream that refuses to be read past MAX_MANIFEST_BYTES characters."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.read_so_far = stream, 0

    def read(self, size: int = -1) -> str:
        chunk = self.stream.read(size)
        self.read_so_far += len(chunk)
        if self.read_so_far > MAX_MANIFEST_BYTES:
            raise ManifestError(f"the manifest is larger than {MAX_MANIFEST_BYTES:,} bytes")
        return chunk


class ManifestStream:
    """The pod specs of a manifest as they are read, one document at a time (memory stays flat however many).

    Iterate it once; then `skipped` and `note` tell the kinds without pods, like Manifest. Raises ManifestError
    (naming the document) while iterating, and at the end when the manifest held no pod spec at all."""

    def __init__(self, source: str | IO[str], schema: KubernetesSchema | None = None) -> None:
        self._source = source
        self._reader = _Reader(schema)

    @property
    def skipped(self) -> Mapping[str, int]:
        return MappingProxyType(dict(self._reader.skipped))

    @property
    def note(self) -> str | None:
        return Manifest((), self.skipped).note

    @property
    def notes(self) -> list[str]:
        """The skipped kinds, the custom resources no schema checked, the schema used if not the stack's own."""
        reader, out = self._reader, [self.note] if self.note else []
        if reader.unchecked:
            kinds = ", ".join(f"{kind} ({n})" for kind, n in sorted(reader.unchecked.items()))
            out.append(
                f"skipped custom resources (no pods place reads; their fields are not checked: their schema is in "
                f"their CustomResourceDefinition): {kinds}"
            )
        out += reader.elsewhere
        if reader.schema is not None and reader.schema.note:
            out.append(reader.schema.note)
        return out

    def __iter__(self) -> Iterator[ManifestPod]:
        reader, source = self._reader, self._source
        if isinstance(source, str) and len(source) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"the manifest is larger than {MAX_MANIFEST_BYTES:,} bytes")
        stream = source if isinstance(source, str) else _Limited(source)
        try:
            yield from self._documents(stream)
        except ManifestError as err:
            if reader.problems:  # reported with the fields already found wrong
                raise SchemaError(reader.problems, reader.schema, str(err)) from None
            raise
        if reader.problems:
            raise SchemaError(reader.problems, reader.schema)

    def with_problems(self, err: ManifestError) -> ManifestError:
        """`err` (raised placing a pod read so far) with the fields already found wrong, so none goes unsaid."""
        reader = self._reader
        if isinstance(err, SchemaError) or not reader.problems:
            return err
        return SchemaError(reader.problems, reader.schema, str(err))

    def _documents(self, stream: str | _Limited) -> Iterator[ManifestPod]:
        reader = self._reader
        document, found = 0, 0
        deferred: list[ManifestPod] = []
        try:
            for document, obj in enumerate(yaml.load_all(stream, Loader=ManifestLoader), start=1):
                if obj is None:  # an empty document, e.g. a trailing ---
                    continue
                if not isinstance(obj, Mapping):
                    raise ManifestError(
                        f"must be a mapping (a Kubernetes object or a PodSpec), got {type(obj).__name__}", document
                    )
                reader.read(obj, document)
                found += len(reader.pods)
                for pod in reader.pods:
                    pod = dataclasses.replace(pod, catalog=reader.catalog)
                    # A pod whose claim or template comes later in the file waits for the end (kubectl applies
                    # the file whole; the claim controller then finds the template).
                    if all(reader.catalog.has(kind, name) for kind, name in references(pod.spec)):
                        yield pod
                    else:
                        deferred.append(pod)
                reader.pods.clear()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ManifestError(f"is not valid YAML{where}: {problem}", document + 1) from None
        except RecursionError:
            raise ManifestError("is nested too deeply to be a Kubernetes object", document + 1) from None
        yield from deferred
        if not found and not reader.problems:
            kinds = sorted({*reader.skipped, *reader.unchecked})
            skipped = f" (only {', '.join(kinds)})" if kinds else ""
            elsewhere = "".join(f"; {e}" for e in reader.elsewhere)
            raise ManifestError(f"no pod specs found{skipped}{elsewhere}; give a {SUPPORTED}")


def read_manifest(text: str) -> Manifest:
    """Every pod spec in YAML text, in document order, and the kinds without pods it skipped.
    Raises ManifestError."""
    stream = ManifestStream(text)
    pods = tuple(stream)
    return Manifest(pods, stream.skipped)


def read_manifests(text: str) -> list[ManifestPod]:
    """Every pod spec in YAML text, in document order (kinds without pods skipped). Raises ManifestError."""
    return list(read_manifest(text).pods)


def read_pods(text: str) -> list[Pod]:
    """read_manifests, then each spec parsed into a Pod model. Raises ManifestError."""
    return [m.pod() for m in read_manifests(text)]
