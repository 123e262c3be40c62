"""The policy pack's quantity reader agrees with the core's parser on every quantity Kubernetes accepts.

The pack runs in its own venv (pulumi_policy and the stdlib only), so it keeps a copy of the reader; a rule
and the plan must read "500m" or "4Gi" the same way.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from mlplatform_core.model.quantity import parse_quantity
from mlplatform_policies.props import quantity

SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2"]
NUMBERS = st.one_of(
    st.integers(min_value=0, max_value=10**6).map(str),
    st.tuples(st.integers(0, 10**4), st.integers(0, 999)).map(lambda p: f"{p[0]}.{p[1]}"),
)


@given(NUMBERS, st.sampled_from(SUFFIXES))
def test_the_pack_reads_every_quantity_as_the_core_does(number, suffix):
    text = number + suffix
    assert quantity(text) == parse_quantity(text), text


@given(st.integers(min_value=0, max_value=10**12))
def test_integers_read_the_same(n):
    assert quantity(n) == parse_quantity(n) == Fraction(n)
