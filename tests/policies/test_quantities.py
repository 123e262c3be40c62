"""The policy pack reads quantities, taints and tolerations with the core's own logic, exactly.

The pack's venv installs this package (policies/requirements.txt), so there is no second parser to keep in
step: whatever the core accepts or refuses, the pack does too, and a number from a preview (a float, as the
engine sends every number) is the decimal it was written as, so 0.1 CPU equals "100m".
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from mlplatform_core.model.quantity import QuantityError, parse_quantity
from mlplatform_core.model.scheduling import Taint, Toleration
from mlplatform_policies import offline
from mlplatform_policies.props import quantity, taints_of, tolerates
from tests.policies.variants import LR, edit, set_at, shipped

SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2"]
QUANTITY_TEXT = st.tuples(
    st.sampled_from(["", "+", "-", " "]),
    st.one_of(
        st.integers(0, 10**6).map(str),
        st.tuples(st.integers(0, 10**4), st.integers(0, 999)).map("{0[0]}.{0[1]}".format),
    ),
    st.sampled_from(SUFFIXES),
).map("".join)
ANYTHING = st.one_of(
    QUANTITY_TEXT,
    st.text(max_size=12),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)


def core(value):
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


@given(ANYTHING)
def test_the_pack_reads_every_value_as_the_core_does(value):
    assert quantity(value) == core(value)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_a_float_reads_as_the_decimal_it_prints_as(value):
    assert quantity(value) == Fraction(repr(value))


def test_the_pack_refuses_what_kubernetes_refuses():
    for text in ("1 Gi", "1_000", "1/2", "1.5e3Mi", "Gi", "", "1Kb"):
        assert quantity(text) is None, text
    assert quantity(0.1) == quantity("100m") == Fraction(1, 10)
    assert quantity(True) is None


def test_a_preview_float_equal_to_the_limit_is_no_violation():
    # A preview sends numbers as doubles: a default request of 0.1 cpu is the "100m" default limit.
    item = {
        "type": "Container",
        "defaultRequest": {"cpu": 0.1, "memory": "1Gi"},
        "default": {"cpu": "100m", "memory": "1Gi"},
    }
    resources = edit(shipped("prod"), LR, None, set_at(["spec", "limits"], [item]))
    assert "prod-guaranteed-qos-defaults" not in {v.policy for v in offline.evaluate(resources)}


def test_taints_and_tolerations_are_the_cores():
    (taint,) = taints_of({"taints": [{"key": "spot", "value": "yes", "effect": "NO_SCHEDULE"}]})
    assert taint == Taint("spot", "yes", "NoSchedule") and taint.repels
    assert tolerates({"key": "spot", "operator": "Exists"}, taint)
    assert tolerates({"operator": "Exists"}, taint) == Toleration(operator="Exists").tolerates(taint)
    assert not tolerates({"key": "spot", "value": "no", "effect": "NoSchedule"}, taint)
    (odd,) = taints_of({"taints": [{"key": "spot", "effect": "Sometimes"}]})
    assert not odd.repels  # an effect Kubernetes does not know keeps nobody off
