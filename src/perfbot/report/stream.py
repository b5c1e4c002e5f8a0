"""Whole-document formats (JSON, SARIF, rdjson) written file by file, in bounded memory.

Each checked file becomes its *part* as soon as it is checked (in a worker process when the pool
is used): the text of its items (findings, SARIF results, rdjson diagnostics) exactly as they
appear inside the document's list, indentation included. The file's source and messages can then
be dropped; the CLI keeps the parts (packed: UTF-8, compressed, a fraction of the output's size)
and what the summary counts, and writes the document at the end: the opening (which holds the
file count, the SARIF rules and invocation, only known then), every part, the closing. The
bytes are those of ``json.dumps(document, indent=2, ensure_ascii=False)`` (each format's
``render``): ``tests/test_stream_output.py`` holds them to it.

Why the re-indenting is exact: ``json.dumps`` with ``indent`` writes an item nested ``k`` levels
down as its own dump with every line shifted by ``k`` indents, and a JSON string never holds a raw
newline (it is escaped), so shifting lines never touches a value.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..findings import FileResult
    from ..source import FileError

# the items' place in a skeleton document: a string no finding, path or message can be alone on
# a line as (a NUL is escaped; and every other string of a skeleton is a dict value)
HOLE = "\x00perfbot-items\x00"
_HOLE_LINE = re.compile(r'\n( *)"\\u0000perfbot-items\\u0000"\n')


def items(values: list[Any], indent: str) -> str:
    """``values`` as the items of a JSON list whose items are indented by ``indent``: one dump of
    the list, its brackets cut, every line shifted. "" for no values."""
    from .json import dumps

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
    from .json import dumps

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


class Document:
    """The CLI's side of a whole-document format: ``add`` each checked file's counted result and
    packed part as it comes, ``write`` the document at the end."""

    def __init__(self, fmt: str, root: str | None) -> None:
        self.fmt = fmt
        self.root = root
        self.files = 0
        self.rules: list[tuple[str, str, str]] = []  # SARIF: (id, slug, severity), first seen
        self._index: dict[str, int] = {}
        # (packed part, SARIF: its rule indexes in the run, None when they are its own)
        self._parts: list[tuple[bytes, tuple[int, ...] | None]] = []

    def add(self, result: FileResult, packed: bytes) -> None:
        """One more file: its result (only rules and severities are read) and :func:`pack`'s
        part."""
        self.files += 1
        if not result.findings:
            return
        mapping: tuple[int, ...] | None = None
        if self.fmt == "sarif":
            from .sarif import local_rules

            local = []
            for rule, slug, severity in local_rules(result.findings):
                if rule not in self._index:
                    self._index[rule] = len(self.rules)
                    self.rules.append((rule, slug, severity))
                local.append(self._index[rule])
            if any(i != j for i, j in enumerate(local)):
                mapping = tuple(local)
        self._parts.append((packed, mapping))

    @property
    def parts(self) -> Iterator[str]:
        """The parts' text, in order (SARIF: with the run's rule indexes)."""
        for packed, mapping in self._parts:
            text = unpack(packed)
            if mapping is not None:
                from .sarif import reindex

                text = reindex(text, mapping)
            yield text

    def write(self, write: Callable[[str], object], errors: list[FileError]) -> None:
        if self.fmt == "json":
            from .json import write_document
        elif self.fmt == "sarif":
            from .sarif import write_document
        elif self.fmt == "rdjson":
            from .rdjson import write_document
        else:  # github (with --statistics): the lines, then the errors'
            from .github import write_document
        write_document(write, self, errors)


def part(fmt: str, result: FileResult, root: str | None = None) -> str:
    """One checked file's share of the output in ``fmt`` (any format; text and github: its
    lines). Pure: runs in a worker process when the pool is used."""
    if fmt == "text":
        from .text import part as text_part

        return text_part(result)
    if fmt == "github":
        from .github import part as github_part

        return github_part(result, root)
    if fmt == "json":
        from .json import part as json_part

        return json_part(result)
    if fmt == "sarif":
        from .sarif import part as sarif_part

        return sarif_part(result, root)
    if fmt == "rdjson":
        from .rdjson import part as rdjson_part

        return rdjson_part(result, root)
    raise ValueError(f"unknown format {fmt!r}")
