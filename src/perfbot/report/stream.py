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

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ._jsondoc import HOLE, Frame, frame, items, pack, unpack  # noqa: F401 - the CLI's
from .formats import FORMATS

if TYPE_CHECKING:
    from ..findings import FileResult
    from ..source import FileError


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
        """The whole document (github, with --statistics: the lines, then the errors')."""
        write_document = FORMATS[self.fmt].write_document
        if write_document is None:
            raise ValueError(f"format {self.fmt!r} is not written as one document")
        write_document(write, self, errors)


def part(fmt: str, result: FileResult, root: str | None = None) -> str:
    """One checked file's share of the output in ``fmt`` (any format; text and github: its
    lines). Pure: runs in a worker process when the pool is used."""
    return FORMATS[fmt].part(result, root)
