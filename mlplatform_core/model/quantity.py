"""Kubernetes resource quantities ("500m", "2Gi", "1.5", "1e3") as exact numbers.

Pure Python, no Pulumi import. Follows apimachinery's resource.Quantity grammar:
a signed decimal number followed by a binary suffix (Ki..Ei), a decimal suffix
(n, u, m, "", k, M, G, T, P, E) or a decimal exponent (e3, E-2). Values are kept
as Fractions so "0.1" + "0.2" compares exactly with "300m"; rounding happens only
where Kubernetes rounds (MilliValue and Value round up).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)
_MAX_CHARS = 64  # a quantity longer than this is not a resource request


class QuantityError(ValueError):
    """A value that Kubernetes would not accept as a resource quantity."""


def parse_quantity(value: object) -> Fraction:
    """The exact value of a quantity. YAML numbers (2, 0.5) are accepted as Kubernetes accepts them.

    >>> parse_quantity("250m"), parse_quantity("1Gi"), parse_quantity(2)
    (Fraction(1, 4), Fraction(1073741824, 1), Fraction(2, 1))
    """
    if type(value) is str:  # the common case first: manifests repeat a few quantities thousands of times
        return _parse_text(value)
    if isinstance(value, bool):  # bool is an int subclass; `cpu: true` is a mistake, not 1
        raise QuantityError(f"{value!r} is not a quantity such as 500m, 2 or 4Gi")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"{value!r} is not a quantity such as 500m, 2 or 4Gi")
        return Fraction(repr(value))  # the decimal the user wrote, not the binary float
    if not isinstance(value, str):
        raise QuantityError(f"{value!r} is not a quantity such as 500m, 2 or 4Gi")
    return _parse_text(value)


@lru_cache(maxsize=4096)  # manifests repeat a few quantities thousands of times (`place` with 10,000 pods)
def _parse_text(value: str) -> Fraction:
    text = value.strip()
    match = _QUANTITY.match(text) if len(text) <= _MAX_CHARS else None
    if not match:
        raise QuantityError(
            f"{value!r} is not a quantity such as 500m, 2 or 4Gi "
            "(a number with an optional suffix Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent)"
        )
    number = Fraction(match["number"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        return number * _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * _DECIMAL[suffix]
    exponent = int(suffix[1:])
    if abs(exponent) > 30:  # keeps "1e999999" from building a huge integer
        raise QuantityError(f"{value!r} has an exponent out of range")
    return number * Fraction(10) ** exponent


def milli_value(value: object) -> int:
    """Kubernetes' MilliValue: thousandths, rounded up (how cpu requests are compared)."""
    return math.ceil(parse_quantity(value) * 1000)


def int_value(value: object) -> int:
    """Kubernetes' Value: whole units, rounded up (how memory and GPU requests are compared)."""
    return math.ceil(parse_quantity(value))


def format_cpu(millis: int) -> str:
    return f"{millis // 1000}" if millis % 1000 == 0 else f"{millis}m"


def format_bytes(n: int) -> str:
    """The largest binary unit that shows `n` exactly, else one decimal in the largest fitting unit."""
    for suffix, size in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
        if n >= size and n % size == 0:
            return f"{n // size}{suffix}"
    for suffix, size in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
        if n >= size:
            return f"{n / size:.1f}{suffix}"
    return str(n)
