"""What every part of the plan document shares: camelCase keys, open to extra keys, keys written only when given.

The tooling builds these models and dumps them (`dump`); `change/` and the schema read the same models. A part is
open (extra="allow"): a document of an older or newer release keeps what this one does not know. Some keys are
in a part only where they apply (the Auto Mode section, a reservation, what a pool's node class sets): a field
listed in a `SparsePart`'s `_WHEN_GIVEN` is written only when the producer gave it, so absent stays absent and
the JSON is what it was before the model existed (null is never written in its place).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel


class Part(BaseModel):
    model_config = ConfigDict(extra="allow", alias_generator=to_camel, populate_by_name=True, frozen=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if "_WHEN_GIVEN" in vars(cls) and "_written" not in cls.__pydantic_decorators__.model_serializers:
            raise TypeError(f"{cls.__name__}: keys written only when given need a SparsePart")


class SparsePart(Part):
    """A part with keys that are written only where they apply: the Python names in `_WHEN_GIVEN` are dumped
    only when the producer gave them (model_fields_set), so an absent key stays absent instead of becoming null.
    (A serializer of its own, so the parts without such keys dump at pydantic's own speed.)"""

    _WHEN_GIVEN: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in self._WHEN_GIVEN - self.model_fields_set:
                data.pop(name, None)
                data.pop(type(self).model_fields[name].alias or name, None)
        return data


def dump(part: BaseModel) -> Any:
    """A part as its JSON form: camelCase keys, in the fields' order, then the extra keys."""
    return part.model_dump(by_alias=True)


class Taint(Part):
    """A node taint as Kubernetes spells it (key, value, effect NoSchedule/PreferNoSchedule/NoExecute)."""

    key: str
    value: str = ""
    effect: str
