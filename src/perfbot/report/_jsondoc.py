"""The JSON framing every whole-document format shares (JSON, SARIF, rdjson): one encoder
(:func:`dumps`), a file's items cut from a dump of its list (:func:`items`), the document around
them (:func:`frame`), and a part packed while it waits (:func:`pack`). A leaf of
:mod:`perfbot.report`: the formats import it, it imports no format. Why the re-indenting is exact:
see :mod:`perfbot.report.stream`."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol


class Parts(Protocol):
    """What a format's ``write_document`` reads of :class:`perfbot.report.stream.Document`."""

    root: str | None
    files: int
    rules: list[tuple[str, str, str]]

    @property
    def parts(self) -> Iterator[str]: ...


def dumps(data: Any) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False)``: with orjson when it is installed (the
    same text, several times faster: ``pip install 'perfbot[fast]'``), else, and for what orjson
    refuses (a lone surrogate from an undecodable byte, an integer beyond 64 bits), the standard
    library's encoder. ``tests/test_speed.py`` holds the two to the same text."""
    try:
        import orjson
    except ImportError:
        pass
    else:
        try:
            return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError is one
            pass
    return json.dumps(data, indent=2, ensure_ascii=False)


# the items' place in a skeleton document: a string no finding, path or message can be alone on
# a line as (a NUL is escaped; and every other string of a skeleton is a dict value)
HOLE = "\x00perfbot-items\x00"
_HOLE_LINE = re.compile(r'\n( *)"\\u0000perfbot-items\\u0000"\n')


def items(values: list[Any], indent: str) -> str:
    """``values`` as the items of a JSON list whose items are indented by ``indent``: one dump of
    the list, its brackets cut, every line shifted. "" for no values."""
    if not values:
        return ""
    text = dumps(values)  # "[\n  item,\n  item\n]"
    body = text[2:-2]
    extra = indent[2:]
    return extra + body.replace("\n", "\n" + extra) if extra else body


@dataclass(frozen=True)
class Frame:
    """A document around one list of items: ``head`` ends with its ``[``, ``tail`` starts with
    the newline before its ``]``."""

    head: str
    indent: str
    tail: str

    def write(self, write: Callable[[str], object], parts: Iterable[str]) -> None:
        write(self.head)
        first = True
        for p in parts:
            if not p:
                continue
            write(("\n" if first else ",\n") + p)
            first = False
        if first:  # no items: `[]`, as json.dumps writes an empty list
            write(self.tail[self.tail.index("]") :])
        else:
            write(self.tail)


def frame(skeleton: dict[str, Any], indent: str) -> Frame:
    """The frame of ``skeleton``, a document with ``[HOLE]`` where the items go (the first such
    list); ``indent`` is what the parts were indented with (checked)."""
    text = dumps(skeleton)
    m = _HOLE_LINE.search(text)
    if m is None or m.group(1) != indent:  # a perfbot bug, not an input problem
        raise AssertionError("the items' place in the document is not where the parts expect it")
    return Frame(text[: m.start()], indent, text[m.end() - 1 :])


def pack(text: str) -> bytes:
    """A part as it waits for the document: UTF-8 (lone surrogates kept), compressed (zlib's
    fastest level: JSON shrinks 5-10x, for ~1 % of a check's CPU; made in the worker)."""
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)


def unpack(data: bytes) -> str:
    return zlib.decompress(data).decode("utf-8", "surrogatepass")
