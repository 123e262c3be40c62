"""The base of every settings model: strict types and keys, camelCase keys, frozen.

Strict means nothing the stack file says is converted: "3" (quoted) is not a number, 10.0 is not a whole
number, 1 is not true, and a plain scalar YAML versions read differently (yes, on, 010, 1:30: scalars.py)
is nothing until written plainly. Every model built on SettingsModel inherits it, so a new setting is
strict without a word. The one conversion is Pulumi's own: the engine hands top-level settings to the
program as text (pulumi_format.py), and `split_keys` reads those the way Pulumi writes them.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

from ..scheduling import label_value_error, qualified_name_error
from .errors import show
from .messages import refuse_as_written


class SettingsModel(BaseModel):
    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        str_strip_whitespace=False,
    )


# Every count in the settings: a whole number (strict: never "3", 3.0 or true).
Count = int
# A Kubernetes quantity (quota amounts, NodePool limits): a quantity string or a YAML number, never a boolean
# or an ambiguous scalar.
QuotaAmount = Annotated[str | int | float, BeforeValidator(refuse_as_written)]


def Pattern(regex: str, words: str) -> object:
    """Text matching `regex`; refused in `words` (what is allowed, as a user would say it), never as a regex."""
    compiled = re.compile(regex)

    def check(value: str) -> str:
        if not compiled.match(value):
            raise ValueError(f"{show(value)} is not {words}")
        return value

    return Annotated[str, AfterValidator(check)]


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        if err := qualified_name_error(key):
            raise ValueError(f"label key {show(key)} {err}")
        if err := label_value_error(value):
            raise ValueError(f"label {key}={show(value)}: value {err}")
    return labels
