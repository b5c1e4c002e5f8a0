"""Fixes as edits on line content, applied in one place.

An :class:`Edit` replaces columns ``[start, end)`` of one line's content (the line without its
ending). ``\\n`` in an edit's text starts a new line, written with the file's own line ending.
:func:`apply_edits` sorts edits bottom-up and right-to-left, drops duplicates and skips edits that
overlap one already taken, so no rule needs to know about another's edits; every byte outside the
edited columns (padding, line endings, BOM, surrounding HTML) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .source import Source, join_lines


@dataclass(frozen=True, slots=True)
class Edit:
    line: int  # 1-based
    start: int
    end: int
    text: str
    fit: bool = False  # a table cell's text: keep the next pipe where it is when there is room

    def fitted(self, old: str) -> Edit:
        """This edit on ``old`` (its line) with the cell's own padding taken or given back so
        that an aligned table keeps its column width: a longer value takes spaces before the next
        pipe (one stays), a shorter one in a padded cell (two spaces or more) gives them back."""
        if not self.fit or "\n" in self.text:
            return self
        j = self.end
        while j < len(old) and old[j] == " ":
            j += 1
        if j >= len(old) or old[j] != "|":
            return self
        trailing = j - self.end
        delta = len(self.text) - (self.end - self.start)
        if delta > 0 and trailing > 1:
            return Edit(self.line, self.start, self.end + min(delta, trailing - 1), self.text)
        if delta < 0 and trailing >= 2:
            return Edit(self.line, self.start, self.end, self.text + " " * -delta)
        return self

    @staticmethod
    def insert_after(line: int, old: str, new_lines: list[str]) -> Edit:
        return Edit(line, len(old), len(old), "".join("\n" + x for x in new_lines))

    @staticmethod
    def insert_before(line: int, new_lines: list[str]) -> Edit:
        return Edit(line, 0, 0, "".join(x + "\n" for x in new_lines))


Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True, slots=True)
class Fix:
    """A fix: its edits, and whether it is safe (ruff's model).

    A *safe* fix changes presentation only (a header's spelling, alignment, the decimals of a
    number as shown, `ON`/`OFF`, the sentence's words, the order of understood columns). An
    *unsafe* fix changes a measured or declared fact (a recomputed img/s, a CANN or driver
    version, a value deleted or invented): `perfbot fix` applies it only with `--unsafe-fixes`,
    and the review still offers it, saying that either of the disagreeing cells may be wrong.
    """

    title: str  # what the fix does, for a contributor ("Set img/s to 550.54")
    edits: tuple[Edit, ...]
    applicability: Applicability = "safe"

    @property
    def safe(self) -> bool:
        return self.applicability == "safe"

    @property
    def start_line(self) -> int:
        return min(e.line for e in self.edits)

    @property
    def end_line(self) -> int:
        return max(e.line for e in self.edits)


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.line != b.line:
        return False
    if a.start == a.end == b.start == b.end:
        return True  # two insertions at one point: keep the first only
    return (a.start < b.end and b.start < a.end) or (a.start == a.end and b.start < a.start < b.end)


def _clashes(e: Edit, on_line: list[Edit]) -> bool:
    """``e`` overlaps one of ``on_line`` (the edits taken on its line)."""
    return any(_overlaps(e, t) or _overlaps(t, e) for t in on_line)


def select_edits(edits: list[Edit]) -> list[Edit]:
    """Edits that can be applied together: first come, first served; duplicates dropped."""
    taken: list[Edit] = []
    by_line: dict[int, list[Edit]] = {}  # only edits on one line can overlap (see _overlaps)
    for e in edits:
        on_line = by_line.setdefault(e.line, [])
        if e in on_line or _clashes(e, on_line):
            continue
        taken.append(e)
        on_line.append(e)
    return taken


def select_fixes(fixes: list[Fix]) -> list[Edit]:
    """Edits of the fixes that can be applied together. A fix is all or nothing: one that
    overlaps an edit already taken waits for the next pass (the engine re-checks and re-fixes)."""
    taken: list[Edit] = []
    by_line: dict[int, list[Edit]] = {}  # the edits taken, by line
    for fx in fixes:
        new = [e for e in fx.edits if e not in by_line.get(e.line, ())]
        if any(_clashes(e, by_line.get(e.line, [])) for e in new):
            continue
        for e in select_edits(new):
            taken.append(e)
            by_line.setdefault(e.line, []).append(e)
    return taken


def apply_to_lines(lines: list[str], eols: list[str], edits: list[Edit], newline: str) -> str:
    """Apply non-overlapping edits to lines; returns the new text."""
    lines = list(lines)
    eols = list(eols)
    for e in sorted(edits, key=lambda e: (e.line, e.start, e.end), reverse=True):
        i = e.line - 1
        if not 0 <= i < len(lines):
            continue
        old = lines[i]
        e = e.fitted(old)
        new = old[: e.start] + e.text + old[e.end :]
        parts = new.split("\n")
        if len(parts) == 1:
            lines[i] = new
            continue
        last_eol = eols[i]
        # an inserted line ends like the file; but "\n" right after a lone "\r" would read as one
        # CRLF (the blank line would vanish), so there the inserted lines end in "\r" too
        before = eols[i - 1] if i > 0 else ""
        added = "\r" if newline == "\n" and before == "\r" else newline
        lines[i : i + 1] = parts
        eols[i : i + 1] = [added] * (len(parts) - 1) + [last_eol]
        if not last_eol and parts[-1] == "":
            # an insertion after the last line of a file with no final newline
            lines.pop(i + len(parts) - 1)
            eols.pop(i + len(parts) - 1)
            eols[i + len(parts) - 2] = ""
    return join_lines(lines, eols)


def apply_edits(src: Source, edits: list[Edit]) -> str:
    return apply_to_lines(src.lines, src.eols, select_edits(edits), src.newline)


def apply_fixes(src: Source, fixes: list[Fix]) -> str:
    return apply_to_lines(src.lines, src.eols, select_fixes(fixes), src.newline)


def replacement(src: Source, fix: Fix) -> tuple[int, int, str]:
    """The fix as (start_line, end_line, text replacing those whole lines, with line endings)."""
    start, end = fix.start_line, fix.end_line
    lines = src.lines[start - 1 : end]
    eols = src.eols[start - 1 : end]
    shifted = [replace(e, line=e.line - start + 1) for e in fix.edits]
    text = apply_to_lines(lines, eols, select_edits(shifted), src.newline)
    return start, end, text
