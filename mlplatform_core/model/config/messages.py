"""How the settings model's refusals read: the expected type in words, the value as written, the fix.

Every settings model is strict (base.py): nothing is converted, so `maxSize: "3"`, `maxSize: 10.0` and
`enabled: yes` are refused rather than read as 3, 10 and true. These messages say what was written,
what it is, and how to write what was meant.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from .errors import escaped, show
from .scalars import AsWritten, contains_as_written

# pydantic's strict type errors -> what the setting takes, in words
_EXPECTED = {
    "bool_type": "true or false",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "string_type": "text",
    "dict_type": "a mapping (key: value lines)",
    "list_type": "a list",
    "model_type": "a mapping of settings",
    "model_attributes_type": "a mapping of settings",
}


def kind_of(value: Any) -> str:
    """What a value from a stack file is, as a user would say it."""
    if isinstance(value, AsWritten):
        return f"ambiguous: {value.readings()}"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "text (quoted)" if _looks_typed(value) else "text"
    if value is None:
        return "empty (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _looks_typed(text: str) -> bool:
    return text in ("true", "false", "True", "False") or text.lstrip("-+").replace(".", "", 1).isdigit()


def _shown(value: Any) -> str:
    return value.text if isinstance(value, AsWritten) else show(value)


def _fix(expected_type: str, value: Any) -> str:
    """How to write what was probably meant."""
    if isinstance(value, AsWritten):
        if expected_type == "bool_type":
            return "write true or false"
        if expected_type in ("int_type", "float_type"):
            numbers = [str(v) for v in dict.fromkeys((value.yaml11, value.yaml12)) if _number(v)]
            if not numbers:
                return "write the number"
            return f"write {' or '.join(numbers)} in plain decimal digits, whichever you mean"
        return f'quote it ("{value.text}") to mean the text'
    if expected_type in ("int_type", "int_from_float") and isinstance(value, float) and value.is_integer():
        return f"write {int(value)}"
    if expected_type in ("int_type", "float_type", "bool_type") and isinstance(value, str) and _looks_typed(value):
        return f"write {value} without quotes"
    if expected_type == "string_type" and isinstance(value, (bool, int, float)):
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return f'quote it ("{text}") to mean the text'
    return ""


def type_message(err: dict[str, Any]) -> str | None:
    """The message of a strict type error, or None when `err` is not one."""
    expected = _EXPECTED.get(err["type"])
    near = None
    if err["type"] == "literal_error":
        wording = str(err.get("ctx", {}).get("expected", ""))
        expected = f"one of {wording}"
        if isinstance(err.get("input"), str):
            near = did_you_mean(err["input"], re.findall(r"'([^']*)'", wording))
    if expected is None:
        return None
    value = err.get("input")
    if err["type"] == "literal_error" and isinstance(value, str):
        message = f"{show(value)} is not {expected}"
    else:
        message = f"expected {expected}, but {_shown(value)} is {kind_of(value)}"
    fix = f"did you mean {near}?" if near else _fix(err["type"], value)
    return f"{message}; {fix}" if fix else message


def ambiguity_note(value: Any) -> str:
    """For a validator's own message about a value holding an ambiguous scalar: why, and how to fix it."""
    found = contains_as_written(value)
    if found is None:
        return ""
    return f" ({found.text} is ambiguous: {found.readings()}; quote it to mean the text, or write the value plainly)"


def refuse_as_written(value: Any) -> Any:
    """A BeforeValidator for settings typed Any or a union (quantities): an ambiguous scalar is never taken."""
    if isinstance(value, AsWritten):
        raise ValueError(
            f"{value.text} is ambiguous: {value.readings()}; quote it to mean the text, or write the number plainly"
        )
    if isinstance(value, bool):
        raise ValueError(f"{show(value)} is a boolean, not a quantity; write the amount (e.g. 4 or 16Gi)")
    return value


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The choice `word` most likely misspells (a look-alike character, a typo, another case), or None."""
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    ascii_word = "".join(c if c.isascii() else "?" for c in word).lower()
    close = difflib.get_close_matches(ascii_word, list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def unknown_key_message(key: Any, valid: list[str]) -> str:
    """An unknown key: the look-alike characters it holds, the setting it resembles, and every valid one."""
    text = str(key)
    near = did_you_mean(text, valid)
    parts = []
    if not text.isascii():
        odd = ", ".join(dict.fromkeys(escaped(c) for c in text if not c.isascii()))
        parts.append(f"it contains the non-ASCII character(s) {odd}")
    if near:
        parts.append(f"did you mean {near}?")
    hint = f" ({'; '.join(parts)})" if parts else ""
    return f"unknown setting{hint}; valid settings here: {', '.join(valid)}"
