"""What the API server's validation refuses in the PodSpec fields the placement proof reads.

The OpenAPI schema (schema.py) checks field names and types only: it has no enums and no rules across fields,
so `effect: NoSchedul`, `operator: in` or a request above its limit pass it, and kubectl apply still fails.
These are the rules of kube-apiserver's pkg/apis/core/validation/validation.go (checked against v1.35.0, the
newest schema kubernetes-validate ships) for exactly those fields: ValidatePodSpec's nodeSelector (ValidateLabels),
priorityClassName (ValidatePriorityClassName), restartPolicy (validateRestartPolicy, and the workload's own
rule: pkg/apis/batch/validation ValidateJobSpec, pkg/apis/apps/validation ValidatePodTemplateSpecForReplicaSet),
validateTolerations, validateNodeAffinity (ValidateNodeSelectorRequirement, validatePreferredSchedulingTerms),
validateTopologySpreadConstraints, and ValidateResourceRequirements with validateContainerResourceName and
validateInitContainerRestartPolicy / container restartPolicy. Feature-gated alpha values (toleration Gt/Lt,
container restart rules) are off by default and refused here as on a default cluster.

Paths are relative to the PodSpec (`tolerations[0].effect`); every problem is reported, none stops the walk.
Values the schema already refused by type are skipped here (they never reach these rules).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from ..model.config.errors import escaped, show
from ..model.config.messages import did_you_mean
from ..model.quantity import QuantityError, parse_quantity
from ..model.scheduling import EFFECTS, dns_subdomain_error, label_value_error, qualified_name_error
from .schema import FieldProblem

NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOLERATION_OPERATORS = ("Equal", "Exists")
POD_RESTART_POLICIES = ("Always", "OnFailure", "Never")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")  # nodeAffinityPolicy, nodeTaintsPolicy
# The restart policy each workload kind allows its pod template (empty: the API server defaults it to Always).
KIND_RESTART_POLICIES = {
    "Job": ("OnFailure", "Never"),  # batch ValidateJobSpec; CronJob validates its jobTemplate the same way
    "CronJob": ("OnFailure", "Never"),
    **dict.fromkeys(("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "ReplicationController"), ("Always",)),
}
STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")
HUGEPAGES_PREFIX = "hugepages-"
ALL = "match all values and all keys"


def _one_of(value: Any, choices: tuple[str, ...]) -> str:
    near = did_you_mean(value, list(choices)) if isinstance(value, str) else None
    return f"{show(value)} is not one of {', '.join(choices)}" + (f"; did you mean {near}?" if near else "")


def _items(spec: Mapping[str, Any], key: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    value = spec.get(key)
    for i, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, Mapping):
            yield i, item


def pod_spec_problems(spec: Mapping[str, Any], kind: str | None = None) -> list[FieldProblem]:
    """Every field of `spec` (a PodSpec, of a `kind` workload's template; None: a bare PodSpec, a pod) the API
    server's validation refuses as written. A workload's template is validated as written when it is applied; a
    Pod's requests and limits only after its namespace's LimitRange filled them in (admission.py judges them then:
    a default limit can make a GPU request valid), so for a pod only what no admission can mend is judged here."""
    return scheduling_problems(spec, kind) + resource_problems(spec, as_written=kind not in (None, "Pod"))


def scheduling_problems(spec: Mapping[str, Any], kind: str | None = None) -> list[FieldProblem]:
    """The rules on what the scheduler reads: selectors, affinity, tolerations, spread, priority, restart policy."""
    out: list[FieldProblem] = []
    selector = spec.get("nodeSelector")
    for key, value in selector.items() if isinstance(selector, Mapping) else ():
        if err := qualified_name_error(key):
            out.append(FieldProblem(f"nodeSelector.{escaped(str(key))}", f"the key is not a valid label key: it {err}"))
        if isinstance(value, str) and (err := label_value_error(value)):
            out.append(
                FieldProblem(f"nodeSelector.{escaped(key)}", f"{show(value)} is not a valid label value: it {err}")
            )
    name = spec.get("priorityClassName")
    if isinstance(name, str) and name and (err := dns_subdomain_error(name)):
        out.append(FieldProblem("priorityClassName", f"{show(name)} {err}"))
    out += _restart_policies(spec, kind)
    for i, toleration in _items(spec, "tolerations"):
        out += _toleration(toleration, f"tolerations[{i}]")
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    if isinstance(node_affinity, Mapping):
        out += _node_affinity(node_affinity, "affinity.nodeAffinity")
    out += _spread(spec)
    return out


def _restart_policies(spec: Mapping[str, Any], kind: str | None) -> list[FieldProblem]:
    out = []
    policy = spec.get("restartPolicy")
    allowed = KIND_RESTART_POLICIES.get(kind or "", POD_RESTART_POLICIES)
    if policy in (None, "") and kind in ("Job", "CronJob"):  # SetDefaults_PodSpec makes it Always
        why = f"is not set, so the API server defaults it to Always, which a {kind}'s pods may not use"
        out.append(FieldProblem("restartPolicy", f"{why}; set {' or '.join(allowed)}"))
    elif isinstance(policy, str) and policy and policy not in allowed:
        if policy in POD_RESTART_POLICIES:  # a valid pod policy the workload does not allow
            out.append(FieldProblem("restartPolicy", f"{show(policy)}: a {kind}'s pods use {' or '.join(allowed)}"))
        else:
            out.append(FieldProblem("restartPolicy", _one_of(policy, allowed)))
    for i, c in _items(spec, "initContainers"):  # validateInitContainerRestartPolicy: only sidecars set it
        value = c.get("restartPolicy")
        if isinstance(value, str) and value != "Always":
            out.append(FieldProblem(f"initContainers[{i}].restartPolicy", f"{_one_of(value, ('Always',))} (a sidecar)"))
    for i, c in _items(spec, "containers"):  # container restart rules are an alpha feature, off by default
        if c.get("restartPolicy") is not None:
            why = "may not be set for non-init containers (only an init container is a sidecar with Always)"
            out.append(FieldProblem(f"containers[{i}].restartPolicy", why))
    return out


def _toleration(t: Mapping[str, Any], path: str) -> list[FieldProblem]:
    """validateTolerations."""
    out = []
    key, op, value, effect = (t.get(k) for k in ("key", "operator", "value", "effect"))
    key, op, value, effect = (v if isinstance(v, str) else "" for v in (key, op, value, effect))
    if key and (err := qualified_name_error(key)):
        out.append(FieldProblem(f"{path}.key", f"{show(key)} {err}"))
    if not key and op != "Exists":
        out.append(FieldProblem(f"{path}.operator", f'an empty key needs operator Exists, which means "{ALL}"'))
    if t.get("tolerationSeconds") is not None and effect != "NoExecute":
        out.append(FieldProblem(f"{path}.effect", "must be NoExecute when tolerationSeconds is set"))
    if op in ("", "Equal"):
        if err := label_value_error(value):
            out.append(FieldProblem(f"{path}.value", f"{show(value)} {err}"))
    elif op == "Exists":
        if value:
            out.append(FieldProblem(f"{path}.value", f"{show(value)}: value must be empty when operator is Exists"))
    else:
        out.append(FieldProblem(f"{path}.operator", _one_of(op, TOLERATION_OPERATORS)))
    if effect and effect not in EFFECTS:  # validateTaintEffect(allowEmpty): empty matches every effect
        out.append(FieldProblem(f"{path}.effect", _one_of(effect, (*EFFECTS, "empty: every effect"))))
    return out


def _node_affinity(affinity: Mapping[str, Any], path: str) -> list[FieldProblem]:
    """validateNodeAffinity: the required terms (ValidateNodeSelector) and the preferred ones."""
    out = []
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, Mapping):
        where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        if not required.get("nodeSelectorTerms"):
            out.append(FieldProblem(where, "must have at least one node selector term"))
        for i, term in _items(required, "nodeSelectorTerms"):
            out += _term(term, f"{where}[{i}]")
    where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, preferred in _items(affinity, "preferredDuringSchedulingIgnoredDuringExecution"):
        weight = preferred.get("weight")
        if isinstance(weight, int) and not 1 <= weight <= 100:
            out.append(FieldProblem(f"{where}[{i}].weight", f"{weight} must be in the range 1-100"))
        if isinstance(preference := preferred.get("preference"), Mapping):
            out += _term(preference, f"{where}[{i}].preference")
    return out


def _term(term: Mapping[str, Any], path: str) -> list[FieldProblem]:
    out = []
    for i, req in _items(term, "matchExpressions"):
        out += _requirement(req, f"{path}.matchExpressions[{i}]")
    for i, req in _items(term, "matchFields"):  # ValidateNodeFieldSelectorRequirement
        where, key, values = f"{path}.matchFields[{i}]", req.get("key"), req.get("values") or []
        if key != "metadata.name":
            out.append(FieldProblem(f"{where}.key", f"{show(key)} is not supported; the only field is metadata.name"))
        if req.get("operator") not in ("In", "NotIn"):
            out.append(FieldProblem(f"{where}.operator", _one_of(req.get("operator"), ("In", "NotIn"))))
        elif len(values) != 1:
            out.append(FieldProblem(f"{where}.values", "must have exactly one node name"))
    return out


def _requirement(req: Mapping[str, Any], path: str) -> list[FieldProblem]:
    """ValidateNodeSelectorRequirement."""
    out = []
    key, op, values = req.get("key"), req.get("operator"), req.get("values") or []
    if isinstance(key, str) and (err := qualified_name_error(key)):
        out.append(FieldProblem(f"{path}.key", f"{show(key)} {err}"))
    if op in ("In", "NotIn") and not values:
        out.append(FieldProblem(f"{path}.values", f"must be given when operator is {op}"))
    elif op in ("Exists", "DoesNotExist") and values:
        out.append(FieldProblem(f"{path}.values", f"{show(values)}: must be empty when operator is {op}"))
    elif op in ("Gt", "Lt") and len(values) != 1:
        out.append(FieldProblem(f"{path}.values", f"{show(values)}: operator {op} takes exactly one integer"))
    elif op not in NODE_SELECTOR_OPERATORS:
        out.append(FieldProblem(f"{path}.operator", _one_of(op, NODE_SELECTOR_OPERATORS)))
    return out


def _spread(spec: Mapping[str, Any]) -> list[FieldProblem]:
    """validateTopologySpreadConstraints."""
    out, seen = [], set()
    for i, c in _items(spec, "topologySpreadConstraints"):
        path = f"topologySpreadConstraints[{i}]"
        skew, key, when = c.get("maxSkew"), c.get("topologyKey"), c.get("whenUnsatisfiable")
        if isinstance(skew, int) and skew <= 0:
            out.append(FieldProblem(f"{path}.maxSkew", f"{skew} must be greater than zero"))
        if isinstance(key, str) and (err := qualified_name_error(key)):
            out.append(FieldProblem(f"{path}.topologyKey", f"{show(key)} {err}"))
        if isinstance(when, str) and when not in WHEN_UNSATISFIABLE:
            out.append(FieldProblem(f"{path}.whenUnsatisfiable", _one_of(when, WHEN_UNSATISFIABLE)))
        elif (key, when) in seen:
            out.append(FieldProblem(path, f"duplicate pair of topologyKey {show(key)} and whenUnsatisfiable {when}"))
        seen.add((key, when))
        domains = c.get("minDomains")
        if isinstance(domains, int) and domains <= 0:
            out.append(FieldProblem(f"{path}.minDomains", f"{domains} must be greater than zero"))
        elif domains is not None and when == "ScheduleAnyway":
            out.append(FieldProblem(f"{path}.minDomains", "may only be set when whenUnsatisfiable is DoNotSchedule"))
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            if isinstance(value := c.get(policy), str) and value not in INCLUSION_POLICIES:
                out.append(FieldProblem(f"{path}.{policy}", _one_of(value, INCLUSION_POLICIES)))
    return out


# -- resources ------------------------------------------------------------------------------------------------


def resource_problems(spec: Mapping[str, Any], as_written: bool = True) -> list[FieldProblem]:
    """ValidateResourceRequirements for every container and init container, and `overhead` (limits only); without
    `as_written`, only the quantities that do not parse or are negative (what no LimitRange default can mend)."""
    out = []
    for kind in ("containers", "initContainers"):
        for i, c in _items(spec, kind):
            res = c.get("resources") if isinstance(c.get("resources"), Mapping) else {}
            requests, limits = (res.get(k) if isinstance(res.get(k), Mapping) else {} for k in ("requests", "limits"))
            out += requirements_problems(f"{kind}[{i}].resources", requests, limits, quantities_only=not as_written)
    if isinstance(overhead := spec.get("overhead"), Mapping):
        out += requirements_problems("overhead", {}, overhead, quantities_only=not as_written)
    return out


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: native resources except hugepages may have requests below limits."""
    return _is_native(name) and not name.startswith(HUGEPAGES_PREFIX)


def _resource_name_error(name: str) -> str | None:
    """validateContainerResourceName."""
    if "/" not in name:
        if name in STANDARD_CONTAINER_RESOURCES or name.startswith(HUGEPAGES_PREFIX):
            return None
        return "must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-<size>)"
    if qualified_name_error(name) is not None:
        return "is not a valid resource name"
    if not _is_native(name) and (name.startswith("requests.") or qualified_name_error("requests." + name)):
        return "doesn't follow extended resource name standard"
    return None


def _quantity(value: Any) -> Fraction | None:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _amounts(path: str, kind: str, values: Mapping[str, Any]) -> list[FieldProblem]:
    out = []
    for name, value in values.items():
        amount, where = _quantity(value), f"{path}.{kind}.{escaped(str(name))}"
        if amount is None and value is not None:  # null is zero to the API server
            out.append(FieldProblem(where, f"{show(value)} is not a quantity such as 500m, 2 or 4Gi"))
        elif amount is not None and amount < 0:
            out.append(FieldProblem(where, f"{show(value)} must be greater than or equal to 0"))
    return out


def requirements_problems(
    path: str, requests: Mapping[str, Any], limits: Mapping[str, Any], quantities_only: bool = False
) -> list[FieldProblem]:
    """ValidateResourceRequirements for one container's requests and limits (or `overhead`: limits only); with
    `quantities_only`, only values that are no quantity (resource.Quantity's decoding) or negative
    (ValidateNonnegativeQuantity)."""
    if quantities_only:
        return [
            p for kind, values in (("limits", limits), ("requests", requests)) for p in _amounts(path, kind, values)
        ]
    errs: list[FieldProblem] = []
    cpu_or_memory = hugepages = False
    for kind, values in (("limits", limits), ("requests", requests)):
        for name, value in values.items():
            where = f"{path}.{kind}.{name}"
            if err := _resource_name_error(str(name)):
                errs.append(FieldProblem(where, err))
                continue
            amount = _quantity(value)
            if amount is None or amount < 0:
                errs += _amounts(path, kind, {name: value})
            elif not _is_native(name) and amount.denominator != 1:
                errs.append(FieldProblem(where, f"{value} must be an integer"))
            cpu_or_memory |= name in ("cpu", "memory")
            hugepages |= name.startswith(HUGEPAGES_PREFIX)
    for name, value in requests.items():
        if _resource_name_error(str(name)):
            continue
        req = _quantity(value)
        if name in limits:
            lim = _quantity(limits[name])
            if req is None or lim is None:
                continue
            if req != lim and not _overcommit_allowed(name):
                errs.append(FieldProblem(f"{path}.requests", f"{value} must be equal to {name} limit {limits[name]}"))
            elif req > lim:
                errs.append(
                    FieldProblem(
                        f"{path}.requests",
                        f"{value} must be less than or equal to {name} limit {limits[name]}",
                    )
                )
        elif not _overcommit_allowed(name):
            errs.append(FieldProblem(f"{path}.limits", f"{name}: Limit must be set for non overcommitable resources"))
    if hugepages and not cpu_or_memory:
        errs.append(FieldProblem(path, "HugePages require cpu or memory"))
    return errs
