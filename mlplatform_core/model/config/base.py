"""The base of every settings model: strict (unknown keys are errors), camelCase keys, frozen."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

from ..scheduling import label_value_error, qualified_name_error
from .errors import show


class SettingsModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True, str_strip_whitespace=False
    )


def _not_a_boolean(value: Any) -> Any:
    # bool is an int subclass, so pydantic would read `maxSize: yes` (a YAML 1.1 boolean) as 1.
    if isinstance(value, bool):
        raise ValueError(
            f"{show(value)} is a boolean (YAML reads yes/no, on/off and true/false as booleans), not a number; "
            "write the number"
        )
    return value


# Every number in the settings: an int that refuses booleans. Strings such as "3" stay accepted, because the
# Pulumi engine hands top-level settings to the program as text.
Count = Annotated[int, BeforeValidator(_not_a_boolean)]
# A ResourceQuota amount: a quantity string or a YAML number, never a boolean.
QuotaAmount = Annotated[str | int | float, BeforeValidator(_not_a_boolean)]


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        if err := qualified_name_error(key):
            raise ValueError(f"label key {show(key)} {err}")
        if err := label_value_error(value):
            raise ValueError(f"label {key}={show(value)}: value {err}")
    return labels
