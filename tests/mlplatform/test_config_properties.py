"""Properties over generated stack configs, checked with the offline engine.

1. A config the model accepts (parse, layout and workload checks pass) plans without error:
   `mlplatform plan` shows every layout group, `mlplatform check` reaches a verdict.
2. Placement: a config that tunes the layout (sizes, instance types, labels, extra groups and
   namespaces, preemption mode prevent/allow/none) keeps the placement invariants. A config that
   disables, dedicates or taints groups, or sets preemptionMode constrain without a spot GPU
   group, may break them (e.g. dev without its jobs group leaves MLRun jobs nowhere to run):
   the model accepts it, so `mlplatform check` must fail it with the mandatory
   placement-invariants rule rather than let it pass.
3. Random mutations of a valid config (values replaced by other types, keys dropped, unknown
   keys added, structures nested) either plan or fail with ConfigError, never another exception;
   so do stack files mangled as text (stray characters, lost or doubled lines, bad indentation).

Example counts are modest: every accepted example of 1 is a plan and a check (~0.5 s).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import string
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from mlplatform.check import placement_violations
from mlplatform.cli import main
from mlplatform.engine import run_stack
from mlplatform.plan import Plan
from mlplatform_core.model.config import ConfigError, parse, read_stack_file, to_pulumi_config
from mlplatform_core.model.layout import DEFAULTS, build_layout
from mlplatform_core.model.workloads import build_workloads
from mlplatform_core.placement.invariants import stack_report
from tests.conftest import ROOT, stack_config

P = "ml-platform-eks:"
# Examples per property: each accepted example runs the whole program (plan and check), so the counts keep
# the suite within its two minutes; derandomize makes every run try the same ones. Which ones also follows the
# constants Hypothesis collects from the code under test, so a change elsewhere may draw a run of refused configs
# first: filtering them (assume) is the point, not a health problem.
PROPERTY_SETTINGS = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

CPU_TYPES = ["m5.xlarge", "m5.2xlarge", "m5a.2xlarge", "m6i.2xlarge", "c5.2xlarge", "r5.xlarge", "t3.large"]
SPOT_CLASSES = [["m5.2xlarge", "m5a.2xlarge"], ["m5.xlarge", "m5a.xlarge", "m6i.xlarge"], ["c5.2xlarge"]]
GPU_TYPES = ["g5.xlarge", "g5.2xlarge", "g4dn.xlarge", "g6.xlarge"]

label_name = st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?\Z")
label_key = st.one_of(label_name, st.builds(lambda p, n: f"{p}.io/{n}", label_name, label_name))
label_value = st.one_of(st.just(""), label_name, st.just("x" * 63))
labels = st.dictionaries(label_key, label_value, max_size=3)
taints = st.lists(
    st.fixed_dictionaries(
        {
            "key": label_key,
            "value": label_value,
            "effect": st.sampled_from(["NoSchedule", "NoExecute", "PreferNoSchedule"]),
        }
    ),
    max_size=2,
    unique_by=lambda t: (t["key"], t["effect"]),
)


@st.composite
def sizes(draw) -> dict[str, int]:
    """min <= desired <= max most of the time; occasionally any order (the model must then refuse it)."""
    if draw(st.integers(0, 9)) == 0:
        return {
            "minSize": draw(st.integers(0, 6)),
            "maxSize": draw(st.integers(1, 6)),
            "desiredSize": draw(st.integers(0, 6)),
        }
    low = draw(st.integers(0, 4))
    high = draw(st.integers(max(low, 1), 8))
    return {"minSize": low, "maxSize": high, "desiredSize": draw(st.integers(low, high))}


@st.composite
def group_settings(draw, gpu: bool, spot_ok: bool = True, reshape: bool = True) -> dict[str, Any]:
    """Settings of one group; `reshape` also allows taints and dedicated, which can close a group to workloads."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out.update(draw(sizes()))
    capacity = draw(st.sampled_from(["ON_DEMAND", "SPOT"])) if spot_ok and not gpu else "ON_DEMAND"
    if draw(st.booleans()):
        out["capacityType"] = capacity
    if gpu:
        out["instanceTypes"] = draw(st.lists(st.sampled_from(GPU_TYPES), min_size=1, max_size=2, unique=True))
    elif capacity == "SPOT":
        out["instanceTypes"] = draw(st.sampled_from(SPOT_CLASSES))
    elif draw(st.booleans()):
        out["instanceTypes"] = draw(st.lists(st.sampled_from(CPU_TYPES), min_size=1, max_size=2, unique=True))
    if draw(st.booleans()):
        out["labels"] = draw(labels)
    if reshape and draw(st.integers(0, 3)) == 0:
        out["taints"] = draw(taints)
    if reshape and draw(st.integers(0, 3)) == 0:
        out["dedicated"] = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        out["diskSizeGib"] = draw(st.integers(20, 500))
    return out


@st.composite
def stack_configs(draw, reshape: bool = True) -> tuple[str, dict[str, Any]]:
    """A stack config, valid most of the time. Without `reshape`, built-in groups stay enabled and untainted."""
    env = draw(st.sampled_from(["dev", "prod"]))
    raw: dict[str, Any] = {
        "aws:region": draw(st.sampled_from(["us-west-2", "eu-central-1", "ap-south-1"])),
        P + "environment": env,
    }
    if env == "prod" or draw(st.booleans()):  # prod must choose its EKS upgrade policy (upgrade_policy.py)
        raw[P + "upgradePolicy"] = {"supportType": draw(st.sampled_from(["STANDARD", "EXTENDED"]))}
    node_groups: dict[str, Any] = {}
    for name, base in DEFAULTS[env].items():
        if name == "initial":
            if draw(st.booleans()):
                n = draw(st.integers(2, 4))
                node_groups[name] = {"minSize": n, "maxSize": n, "desiredSize": n}
            continue
        if draw(st.booleans()):
            settings_ = draw(group_settings(base.gpu, spot_ok=name == "spot", reshape=reshape))
            if name == "spot":
                settings_["capacityType"] = "SPOT"
                settings_["instanceTypes"] = draw(st.sampled_from(SPOT_CLASSES))
            elif settings_.get("capacityType") == "SPOT":  # a built-in on-demand group stays on-demand
                settings_["capacityType"] = "ON_DEMAND"
                settings_.pop("instanceTypes", None)
            if draw(st.integers(0, 3)) == 0 and (reshape or not base.enabled):
                settings_["enabled"] = draw(st.booleans()) if reshape else True
            node_groups[name] = settings_
    if node_groups:
        raw[P + "nodeGroups"] = node_groups
    extra = []
    for name in draw(st.lists(st.from_regex(r"\A[a-z][a-z0-9]{1,8}\Z"), max_size=3, unique=True)):
        if name in DEFAULTS[env]:
            continue
        gpu = draw(st.booleans())
        group = {"name": name, "gpu": gpu, **draw(group_settings(gpu, reshape=reshape))}
        group.setdefault("instanceTypes", [draw(st.sampled_from(CPU_TYPES))])
        extra.append(group)
    if extra:
        raw[P + "additionalNodeGroups"] = extra
    if draw(st.booleans()):
        namespaces = draw(
            st.dictionaries(
                st.from_regex(r"\Ateam-[a-z0-9]{1,6}\Z"),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "labels": labels,
                        "quota": st.fixed_dictionaries(
                            {},
                            optional={
                                "requests.cpu": st.sampled_from(["8", "500m", 16]),
                                "requests.memory": st.sampled_from(["64Gi", "1Ti"]),
                                "pods": st.integers(0, 500),
                            },
                        ),
                    },
                ),
                max_size=3,
            )
        )
        # constrain sends every MLRun job, GPU ones too, to spot nodes: with only on-demand GPU groups
        # GPU jobs stay Pending, so it belongs with the reshaping settings.
        modes = ["prevent", "allow", "constrain", "none"] if reshape else ["prevent", "allow", "none"]
        raw[P + "workloads"] = {"namespaces": namespaces, "preemptionMode": draw(st.sampled_from(modes))}
    if draw(st.booleans()):
        raw[P + "network"] = {
            "vpcCidr": draw(st.sampled_from(["10.0.0.0/16", "172.20.0.0/18", "10.8.0.0/20"])),
            "availabilityZoneCount": draw(st.integers(2, 6)),
        }
    return env, raw


def accepted(stack: str, raw: dict[str, Any]):
    """The layout when the model accepts the config (what build_plan checks before running), else None."""
    try:
        cfg = parse(raw)
        layout = build_layout(cfg, stack)
        build_workloads(cfg)
    except ConfigError:
        return None
    return cfg, layout


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def stack_file(folder: str, stack: str, raw: dict[str, Any]) -> str:
    path = Path(folder) / f"Pulumi.{stack}.yaml"
    path.write_text(json.dumps({"config": raw}), encoding="utf-8")  # JSON is YAML
    return str(path)


@PROPERTY_SETTINGS
@given(stack_configs())
def test_an_accepted_config_plans(case):
    """`mlplatform plan` shows every layout group; `mlplatform check` runs to a verdict (0 or 1, never 2)."""
    stack, raw = case
    result = accepted(stack, raw)
    event("accepted" if result else "refused")
    assume(result is not None)
    _, layout = result
    with tempfile.TemporaryDirectory() as folder:
        path = stack_file(folder, stack, raw)
        code, out, err = cli("plan", "--config-file", path, "--json")
        assert code == 0, err
        doc = json.loads(out)
        assert [g["name"] for g in doc["nodeGroups"]] == [g.name for g in layout.groups]
        assert set(doc["exports"]["nodeGroups"]) == {g.name for g in layout.groups}
        code, out, err = cli("check", "--config-file", path)
        assert code in (0, 1), err
        assert "Traceback" not in out + err


@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(stack_configs(reshape=False))
def test_a_tuned_layout_keeps_the_placement_invariants(case):
    stack, raw = case
    result = accepted(stack, raw)
    assume(result is not None)
    cfg, layout = result
    report = stack_report(cfg, layout)
    assert report.ok, "\n".join(str(f) for f in report.errors)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(stack_configs())
def test_broken_placement_never_passes_the_check(case):
    """Whatever the model accepts, a broken placement invariant is a mandatory violation of `mlplatform check`."""
    stack, raw = case
    result = accepted(stack, raw)
    assume(result is not None)
    cfg, layout = result
    report = stack_report(cfg, layout)
    event("invariants hold" if report.ok else "invariants broken")
    violations = placement_violations(Plan(stack, "generated", cfg, layout, run=None))  # the rule reads the layout
    if report.ok:
        assert violations == []
    else:
        assert violations and all(v.mandatory for v in violations)
        flagged = " ".join(v.message for v in violations)
        assert all(f.profile in flagged for f in report.errors)


# --- mutations ----------------------------------------------------------------------------------

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=string.printable + "üß中\u200b", max_size=80),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3),
    st.just("{not json"),
    st.just("[1, 2"),
    st.just("x" * 5000),
)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _container(root: Any, path: tuple) -> Any:
    for part in path[:-1]:
        root = root[part]
    return root


@st.composite
def mutated_configs(draw) -> tuple[str, dict[str, Any]]:
    stack = draw(st.sampled_from(["dev", "prod"]))
    raw = copy.deepcopy(stack_config(stack))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from([p for p in _paths(raw) if p]))
        parent = _container(raw, path)
        action = draw(st.sampled_from(["replace", "drop", "add-key", "wrap", "duplicate"]))
        if action == "replace":
            parent[path[-1]] = draw(JUNK)
        elif action == "drop":
            del parent[path[-1]]
        elif action == "add-key" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=20))] = draw(JUNK)
        elif action == "wrap":
            parent[path[-1]] = [parent[path[-1]]] if draw(st.booleans()) else {"value": parent[path[-1]]}
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
    return stack, raw


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_configs())
def test_a_mutated_config_plans_or_fails_with_config_error(case):
    stack, raw = case
    try:
        result = accepted(stack, raw)
    except ConfigError:
        result = None
    event("accepted" if result else "refused")
    if result is not None:
        run_stack(stack, raw)  # must not raise


# --- text-level mutations: what a bad edit or merge does to a stack file -----------------------------

YAML_NOISE = st.text(alphabet=" \t\n:-[]{}&*!|>#'\",?%@`~\\0123456789abcxyzTN.\u00fc\u200b", min_size=1, max_size=12)


@st.composite
def mangled_stack_files(draw) -> str:
    lines = (
        (ROOT / "stacks" / f"Pulumi.{draw(st.sampled_from(['dev', 'prod']))}.yaml")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["insert", "delete", "duplicate", "indent", "dedent", "splice"]))
        if action == "insert":
            lines.insert(i, draw(YAML_NOISE))
        elif action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "indent":
            lines[i] = "  " + lines[i]
        elif action == "dedent":
            lines[i] = lines[i][2:]
        else:
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(YAML_NOISE) + lines[i][pos:]
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mangled_stack_files())
def test_a_mangled_stack_file_is_read_or_refused_cleanly(text):
    """Stray characters, lost or doubled lines, bad indentation: ConfigError or a valid config, nothing else."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "Pulumi.mangled.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            raw = read_stack_file(path)
            result = accepted("dev" if raw.get(P + "environment") == "dev" else "prod", raw)
        except ConfigError as err:
            event("refused")
            assert str(err).startswith("invalid stack configuration")
            return
    event("accepted" if result else "refused")
    if result is not None:
        to_pulumi_config(raw)  # what the engine hands the program
