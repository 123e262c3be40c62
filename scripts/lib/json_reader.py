"""Read one large JSON document member by member, holding only the member being read in memory.

Standard library only (the generators must not need a streaming-JSON dependency). An AWS Price List offer
file is one object of a few hundred MB: `products` (one small object per SKU) and `terms` (per term type,
one small object per SKU). `Reader` walks the outer objects key by key and decodes each small value with
the stdlib's C decoder (`json.JSONDecoder.raw_decode`), so memory stays at the size of one value plus a
read chunk, and whatever the caller keeps.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

CHUNK = 1 << 20  # characters read at a time
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's four (RFC 8259, section 2)


class Reader:
    """A cursor over a JSON text: `members()` walks an object, `value()` decodes one value, `skip()` drops one."""

    def __init__(self, stream: IO[str], chunk: int = CHUNK) -> None:
        self._stream, self._chunk = stream, chunk
        self._buf, self._pos, self._eof = "", 0, False
        self._decoder = json.JSONDecoder()

    def _fill(self, at_least: int) -> bool:
        """Read at least `at_least` more characters (fewer at the end); drop what was consumed. False at EOF."""
        if self._eof:
            return False
        text = self._stream.read(max(at_least, self._chunk))
        if not text:
            self._eof = True
            return False
        self._buf = self._buf[self._pos :] + text
        self._pos = 0
        return True

    def _peek(self) -> str:
        """The next character that is not whitespace, without consuming it ("" at the end of the text)."""
        while True:
            self._pos = _WHITESPACE.match(self._buf, self._pos).end()
            if self._pos < len(self._buf) or not self._fill(self._chunk):
                return self._buf[self._pos : self._pos + 1]

    def _expect(self, chars: str) -> str:
        c = self._peek()
        if not c or c not in chars:
            raise ValueError(f"expected one of {chars!r}, found {c or 'the end of the text'!r}")
        self._pos += 1
        return c

    def value(self) -> Any:
        """Decode the next value whole. Only for values that fit in memory (one product, one SKU's terms)."""
        self._peek()
        want = self._chunk
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError:
                if not self._fill(want):
                    raise
                want *= 2  # a value longer than the buffer: read in growing steps, not chunk by chunk
                continue
            # A number that ends the buffer may go on in the next chunk: decide only with a delimiter in sight.
            if end < len(self._buf) or self._eof or not self._fill(want):
                self._pos = end
                return value

    def members(self) -> Iterator[str]:
        """The keys of the object that starts here. After each key the caller reads or skips its value."""
        self._expect("{")
        if self._peek() == "}":
            self._pos += 1
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise ValueError(f"an object key must be a string, found {key!r}")
            self._expect(":")
            yield key
            if self._expect(",}") == "}":
                return

    def skip(self) -> None:
        """Drop the next value. An object is walked one level down and each member decoded whole and
        dropped: the C decoder does the work, and only one member (one SKU's reserved terms) sits in memory."""
        if self._peek() == "{":
            for _ in self.members():
                self.value()
        else:
            self.value()


def open_text(path: Path) -> IO[str]:
    """A file as text; `.gz` files are read compressed (offer files are large, and gzip well)."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")
