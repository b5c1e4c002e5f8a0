"""``perfbot check --add-noqa``: write the inline directives that silence today's findings.

ruff's ``--add-noqa`` for READMEs, an alternative to a baseline file: above each table with
findings, ``<!-- perfbot-disable-next-table PB304 PB306 -->`` naming the rules found on it (placed
above the table's sentence, when it has one, so the sentence stays right above its table, and
above the first line of the sentence's paragraph: a comment never splits a paragraph); for
findings outside every table, one ``<!-- perfbot-disable-file ... -->`` on the first line. The
comments render as nothing on GitHub; each one is a visible, reviewable decision in the diff.
Running it again adds nothing (the findings are silenced).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .fix import Edit, apply_edits

if TYPE_CHECKING:
    from .config import Config
    from .engine import FileResult


# a line that ends the paragraph above it (or is no paragraph text): a comment may go right below
_NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:#|\||<|```|~~~|[-=*_]{3,}\s*$|>)|^\s*$")


def _paragraph_start(lines: list[str], line: int) -> int:
    """The first line of the paragraph holding ``line`` (1-based): a comment inserted between two
    lines of a paragraph would split it in two (an HTML comment line interrupts a paragraph)."""
    while line > 1 and not _NOT_PARAGRAPH.match(lines[line - 2]):
        line -= 1
    return line


def directives(result: FileResult, config: Config) -> tuple[str, int] | None:
    """(new text, number of directives added) for one checked file, or None if nothing to add."""
    from .engine import Context

    src = result.source
    if src is None or not result.findings:
        return None
    doc = Context(src, config).doc
    tables = {t.index: t for t in doc.tables}
    per_table: dict[int, set[str]] = {}
    whole_file: set[str] = set()
    for f in result.findings:
        t = tables.get(f.table) if f.table is not None else None
        if t is None:
            t = next((x for x in doc.tables if x.start_line <= f.line <= x.end_line), None)
        if t is None:
            whole_file.add(f.rule)
        else:
            per_table.setdefault(t.index, set()).add(f.rule)
    edits: list[Edit] = []
    ordered = sorted(doc.tables, key=lambda t: t.start_line)
    for index, rules in per_table.items():
        t = tables[index]
        line = t.start_line
        # above the table's own sentence: one with no other table between it and this table
        # (two tables can share the sentence above the first)
        before = [x.end_line for x in ordered if x.start_line < t.start_line]
        if t.sentence is not None and t.sentence.line > max(before, default=0):
            line = min(line, t.sentence.line)
            line = _paragraph_start(src.lines, line)  # never between two lines of a paragraph
        indent = src.lines[line - 1][: len(src.lines[line - 1]) - len(src.lines[line - 1].lstrip())]
        names = " ".join(sorted(rules))
        edits.append(
            Edit.insert_before(line, [f"{indent}<!-- perfbot-disable-next-table {names} -->"])
        )
    if whole_file:
        names = " ".join(sorted(whole_file))
        edits.append(Edit.insert_before(1, [f"<!-- perfbot-disable-file {names} -->"]))
    if not edits:
        return None
    # two tables sharing a first line cannot happen; one insertion per line is kept
    return apply_edits(src, edits), len(edits)
