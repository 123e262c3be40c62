"""Kubernetes quantities: the grammar apimachinery accepts and the rounding the scheduler uses."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mlplatform_core.model.quantity import (
    QuantityError,
    format_bytes,
    format_cpu,
    int_value,
    milli_value,
    parse_quantity,
)


@pytest.mark.parametrize(
    "text, value",
    [
        ("500m", Fraction(1, 2)),
        ("2", Fraction(2)),
        ("1.5", Fraction(3, 2)),
        (".5", Fraction(1, 2)),
        ("1.", Fraction(1)),
        ("+2k", Fraction(2000)),
        ("1Ki", Fraction(1024)),
        ("4Gi", Fraction(4 * 2**30)),
        ("1M", Fraction(10**6)),
        ("100n", Fraction(1, 10**7)),
        ("5u", Fraction(5, 10**6)),
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),  # E followed by digits is an exponent ...
        ("1E", Fraction(10**18)),  # ... alone it is exa
        ("2e-3", Fraction(2, 1000)),
        (" 1Gi ", Fraction(2**30)),  # the API trims JSON strings
        (2, Fraction(2)),
        (0.5, Fraction(1, 2)),
        (0.1, Fraction(1, 10)),  # the decimal written in YAML, not the binary float
    ],
)
def test_parses_the_kubernetes_grammar(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("bad", ["1K", "abc", "", "1.2.3", "1e", "1 Gi", "Gi", "1gi", "--1", True, None, [], "1e99"])
def test_rejects_what_the_api_server_rejects(bad):
    with pytest.raises(QuantityError):
        parse_quantity(bad)


def test_rounding_follows_milli_value_and_value():
    assert milli_value("0.0001") == 1  # MilliValue rounds up
    assert milli_value("250m") == 250
    assert int_value("1.2") == 2  # Value rounds up
    assert int_value("1Mi") == 2**20


def test_formatting():
    assert format_cpu(2000) == "2" and format_cpu(7910) == "7910m"
    assert format_bytes(16 * 2**30) == "16Gi"
    assert format_bytes(15391 * 2**20) == "15391Mi"
    assert format_bytes(1536) == "1.5Ki" and format_bytes(100) == "100"


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["", "m", "k", "Ki", "Mi", "Gi"]))
def test_suffixes_scale_exactly(n, suffix):
    scale = {"": 1, "m": Fraction(1, 1000), "k": 1000, "Ki": 1024, "Mi": 2**20, "Gi": 2**30}[suffix]
    assert parse_quantity(f"{n}{suffix}") == n * scale
