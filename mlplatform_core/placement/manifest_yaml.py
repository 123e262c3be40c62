"""The YAML reader of `mlplatform place`: PyYAML's safe loader, building each document in one pass and refusing
a key written twice in one mapping, as kubectl does."""

from __future__ import annotations

from typing import Any

import yaml

from ..model.config.errors import show

_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the same safe types


def _refuse_duplicate_keys(node: yaml.MappingNode) -> None:
    """A key written twice in one mapping, which PyYAML would settle silently by keeping the last: kubectl refuses
    it (sigs.k8s.io/yaml over go-yaml: `key "nodeSelector" already set in map`), as the API server's strict
    decoding refuses a duplicate field. Keys merged in with `<<` may be overridden, as YAML means them to be."""
    seen: set[tuple[str, str]] = set()
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
            if (key.tag, key.value) in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"the key {show(key.value)} is set twice in one mapping (kubectl refuses it)",
                    key.start_mark,
                )
            seen.add((key.tag, key.value))


class ManifestLoader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, building each document in one recursive pass: PyYAML's generic construction (a
    generator per mapping, deep-construction bookkeeping) cost more than parsing and placing the pods. The
    same values: scalars through the safe constructors, YAML aliases as shared objects, merge keys merged,
    any other tag refused as the safe loader refuses it."""

    def construct_document(self, node: yaml.Node) -> Any:
        built: dict[int, Any] = {}
        str_tag, map_tag, seq_tag = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
        scalars = self.yaml_constructors

        def build(n: yaml.Node) -> Any:
            key = id(n)
            if key in built:
                return built[key]
            if isinstance(n, yaml.ScalarNode):
                if n.tag == str_tag:
                    value = n.value
                elif n.tag in scalars:
                    value = scalars[n.tag](self, n)
                else:
                    value = self.construct_object(n, deep=True)  # refuses unknown tags, as safe_load does
            elif isinstance(n, yaml.MappingNode) and n.tag == map_tag:
                value = built[key] = {}
                _refuse_duplicate_keys(n)
                self.flatten_mapping(n)
                for k, v in n.value:
                    item = build(k)
                    try:
                        hash(item)
                    except TypeError:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", n.start_mark, "found unhashable key", k.start_mark
                        ) from None
                    value[item] = build(v)
            elif isinstance(n, yaml.SequenceNode) and n.tag == seq_tag:
                value = built[key] = []
                value.extend(build(x) for x in n.value)
            else:
                value = self.construct_object(n, deep=True)
            built[key] = value
            return value

        return build(node)
