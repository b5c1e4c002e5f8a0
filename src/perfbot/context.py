"""What rules see: the source, its parsed and recognised document, the guide and the config.

Rules import :class:`Context` from here (not from :mod:`perfbot.engine`, which imports the
registry that imports the rules).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from .model import Document, Row, Table
from .parse import parse_document
from .recognise import Recognition, recognise, recognise_table
from .source import Source
from .spec import Column, Resolved, Spec, builtin_spec

if TYPE_CHECKING:
    from .config import Config

try:  # CPython's own SHA-1 (~0.2 ms to import; hashlib loads OpenSSL: ~2.5 ms of a cold check)
    from _sha1 import sha1
except ImportError:  # a Python built without it
    from hashlib import sha1


def spec_for(config: Config) -> Spec:
    extra = [Column(c.name, tuple(c.aliases), c.form) for c in config.columns]
    return builtin_spec().with_config(extra, config.aliases)


class Context:
    """What rules see: the source, its parsed document, the guide and the repository's config."""

    def __init__(
        self, source: Source, config: Config, spec: Spec | None = None, doc: Document | None = None
    ):
        """``doc``: ``source`` already parsed with ``spec`` (instead of parsing it here)."""
        self.source = source
        self.config = config
        self.spec = spec or spec_for(config)
        parsed = doc if doc is not None else parse_document(source, self.spec)
        self.doc: Document
        self.doc, self.recognition = recognise(parsed, self.spec)
        self._cols: dict[int, list[Resolved]] = {}
        self._by_name: dict[int, dict[str, Resolved]] = {}
        self._table_keys: dict[int, str] = {}
        # what several rules derive from one table; each key is one rule family's, which knows
        # the type of its value
        self.memo: dict[object, Any] = {}
        self._row_keys: dict[int, dict[int, str]] = {}

    @cached_property
    def matrix(self):  # -> perfbot.spec.matrix.Matrix
        from .spec.matrix import Matrix

        rows = [r.model_dump() for r in self.config.matrix]
        return Matrix.builtin().merged(rows) if rows else Matrix.builtin()

    # --- tables ---------------------------------------------------------------------------------
    def recognised(self, table: Table) -> Recognition:
        """What recognition decided about ``table`` (its kind, column meanings, and why)."""
        rec = self.recognition.get(table.index)
        if rec is None:  # a view of a table read for its numbers (one pair of its columns)
            views = {v.index: v for r in self.recognition.values() for v in r.views}
            rec = views.get(table.index)
        if rec is None:  # a table built by hand, not parsed from this source
            rec = recognise_table(table, self.doc, self.spec)
            self.recognition[table.index] = rec
        return rec

    def columns(self, table: Table) -> list[Resolved]:
        """What each header cell means, as recognition decided (unknown: ``column`` None)."""
        cols = self._cols.get(table.index)
        if cols is None:
            cols = list(self.recognised(table).columns)
            self._cols[table.index] = cols
        return cols

    def column(self, table: Table, name: str) -> Resolved | None:
        """The first column of ``table`` that means ``name`` (a canonical column name)."""
        by_name = self._by_name.get(table.index)
        if by_name is None:
            by_name = {}
            for c in self.columns(table):
                if c.column is not None:
                    by_name.setdefault(c.column.name, c)
            self._by_name[table.index] = by_name
        return by_name.get(name)

    def is_inference(self, table: Table) -> bool:
        return self.recognised(table).kind == "inference"

    @staticmethod
    def cell(row: Row, col: Resolved | None):
        if col is None or col.index >= len(row.cells):
            return None
        return row.cells[col.index]

    def table_key(self, table: Table) -> str:
        """Identity of a table that survives edits elsewhere: its kind, section and ordinal."""
        if not self._table_keys:  # all at once: one pass over the tables, not one per table
            seen: dict[tuple[str, str], int] = {}
            for t in self.doc.tables:
                k = (t.kind, t.heading)
                n = seen.get(k, 0)
                seen[k] = n + 1
                self._table_keys[t.index] = f"{k[0]}:{k[1]}#{n}"
        key = self._table_keys.get(table.index)
        if key is None:
            same = [
                t for t in self.doc.tables if t.kind == table.kind and t.heading == table.heading
            ]
            key = f"{table.kind}:{table.heading}#{same.index(table)}"
            self._table_keys[table.index] = key
        return key

    def _row_ident(self, table: Table, r: Row) -> str:
        cells = r.cells
        n = len(cells)
        return "|".join(
            [(cells[i].text.lower() if i < n else "") for i in self._ident_columns(table)]
        )

    def _ident_columns(self, table: Table) -> list[int]:
        """Indices of the columns that identify a row: not the measured ones, nor recipe and
        weight (once per table)."""
        key = ("ident-columns", table.index)
        found = self.memo.get(key)
        if found is None:
            skip = self.spec.measured | set(self.spec.order["last"])  # recipe, weight
            found = [c.index for c in self.columns(table) if c.name not in skip]
            self.memo[key] = found
        return found  # type: ignore[return-value]

    def row_key(self, table: Table, row: Row) -> str:
        """Identity of a row: its configuration cells (not the measured ones), and its ordinal
        among the rows of the table with the same configuration. Computed once per table: rules
        ask for it row by row, and a table can have thousands of rows."""
        keys = self._row_keys.get(table.index)
        if keys is None:
            keys = {}
            seen: dict[str, int] = {}
            for r in table.rows:
                ident = self._row_ident(table, r)
                n = seen.get(ident, 0)
                seen[ident] = n + 1
                keys[r.line] = sha1(f"{ident}#{n}".encode()).hexdigest()[:12]
            self._row_keys[table.index] = keys
        key = keys.get(row.line)
        if key is None:  # not one of the table's rows
            key = sha1(f"{self._row_ident(table, row)}#0".encode()).hexdigest()[:12]
        return key
