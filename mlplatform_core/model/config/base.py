"""The base of every settings model: strict (unknown keys are errors), camelCase keys, frozen."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..scheduling import label_value_error, qualified_name_error
from .errors import show


class SettingsModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True, str_strip_whitespace=False
    )


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    for key, value in labels.items():
        if err := qualified_name_error(key):
            raise ValueError(f"label key {show(key)} {err}")
        if err := label_value_error(value):
            raise ValueError(f"label {key}={show(value)}: value {err}")
    return labels
