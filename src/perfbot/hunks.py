"""Hunks of a unified diff and the filter modes that decide what is in scope.

The review uses them on a pull request file's ``patch``; ``perfbot check --diff-base`` on
``git diff`` output (:mod:`perfbot.gitdiff`).

GitHub's "list pull request files" API gives each file a ``patch``: unified diff text with no
``diff --git``/``---``/``+++`` headers, absent for binary files and for diffs too large to show.
:func:`parse_patch` turns it into :class:`Hunk` objects that know, for every line, its kind and its
old-side and new-side line numbers. Everything else here is arithmetic on those hunks:

* :func:`commentable_lines`: the lines GitHub accepts a review comment on (added and context lines
  inside hunks; a line outside every hunk makes the whole review fail with 422);
* :func:`can_suggest`: whether a multi-line comment (and so a ```suggestion) may span a range;
* :class:`FilterMode` and :func:`in_scope`: reviewdog's filter modes.

Lines are 1-based. This module is pure: no network, no PyGithub.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

__all__ = [
    "DEFAULT_FILTER_MODE",
    "DiffLine",
    "FilterMode",
    "Hunk",
    "LineKind",
    "added_lines",
    "can_suggest",
    "commentable_lines",
    "hunk_of",
    "hunks_by_path",
    "in_scope",
    "parse_patch",
]

Side = Literal["LEFT", "RIGHT"]

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_NO_NEWLINE = "\\"  # "\ No newline at end of file" (the wording is localised by some tools)


class LineKind(StrEnum):
    """What a diff line does; the value is its prefix character in the patch."""

    ADDED = "+"
    DELETED = "-"
    CONTEXT = " "


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a hunk.

    ``new_line`` is set for added and context lines, ``old_line`` for deleted and context lines.
    ``text`` is the line's content without the prefix and without a trailing ``\\r`` (files with
    CRLF endings show ``\\r`` before each ``\\n`` in GitHub's patch); ``cr`` remembers it.
    ``no_newline`` is true when the patch marks this line with ``\\ No newline at end of file``.
    """

    kind: LineKind
    old_line: int | None
    new_line: int | None
    text: str
    cr: bool = False
    no_newline: bool = False


@dataclass(frozen=True)
class Hunk:
    """A hunk: the header's numbers, the section text after the header, and its lines.

    The header numbers are kept as GitHub sent them; the line numbers of :attr:`lines` are counted
    from ``old_start``/``new_start``, so they stay right even if a malformed patch lies about the
    lengths.
    """

    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[DiffLine, ...] = ()
    section: str = ""
    _new: dict[int, DiffLine] = field(init=False, repr=False, compare=False)
    _old: dict[int, DiffLine] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        new = {ln.new_line: ln for ln in self.lines if ln.new_line is not None}
        old = {ln.old_line: ln for ln in self.lines if ln.old_line is not None}
        object.__setattr__(self, "_new", new)
        object.__setattr__(self, "_old", old)

    @property
    def header(self) -> str:
        """The ``@@ -a,b +c,d @@ section`` line (lengths always written out)."""
        return (
            f"@@ -{self.old_start},{self.old_len} +{self.new_start},{self.new_len} @@{self.section}"
        )

    @property
    def new_lines(self) -> frozenset[int]:
        """New-side line numbers in this hunk (added and context lines)."""
        return frozenset(self._new)

    @property
    def old_lines(self) -> frozenset[int]:
        """Old-side line numbers in this hunk (deleted and context lines)."""
        return frozenset(self._old)

    @property
    def added(self) -> frozenset[int]:
        """New-side line numbers of the added lines."""
        return frozenset(n for n, ln in self._new.items() if ln.kind is LineKind.ADDED)

    @property
    def new_range(self) -> range:
        """The new-side lines this hunk covers, as a range (empty for a pure deletion)."""
        if not self._new:
            return range(self.new_start, self.new_start)
        return range(min(self._new), max(self._new) + 1)

    def kind_of(self, new_line: int) -> LineKind | None:
        """ADDED or CONTEXT for a new-side line in this hunk, else None."""
        ln = self._new.get(new_line)
        return ln.kind if ln is not None else None

    def line(self, new_line: int) -> DiffLine | None:
        """The diff line at a new-side line number, or None."""
        return self._new.get(new_line)

    def contains(self, line: int, side: Side = "RIGHT") -> bool:
        """Whether ``line`` of ``side`` is a line of this hunk."""
        return line in (self._new if side == "RIGHT" else self._old)

    def text(self, *, upto_new_line: int | None = None) -> str:
        """The hunk as patch text (header included), optionally cut after a new-side line.

        With ``upto_new_line`` this is what GitHub puts in a review comment's ``diff_hunk``.
        """
        out = [self.header]
        for ln in self.lines:
            out.append(ln.kind.value + ln.text + ("\r" if ln.cr else ""))
            if ln.no_newline:
                out.append("\\ No newline at end of file")
            if upto_new_line is not None and ln.new_line == upto_new_line:
                break
        return "\n".join(out)


def parse_patch(patch: str | None) -> list[Hunk]:
    """Parse a file's ``patch`` into hunks; ``None`` or ``""`` (binary, too large, pure rename or
    mode change) gives ``[]``.

    The parser is lenient and never raises: text before the first hunk header (such as
    ``diff --git``/``---``/``+++`` headers, should a caller pass a full diff) is skipped, a hunk
    ends when both of its header's counts are used up or at the next header, and a line that fits no
    hunk is ignored. Within a hunk an empty line counts as an empty context line (some tools strip
    the prefix space), but only while the header says more lines are due.
    """
    if not patch:
        return []
    hunks: list[Hunk] = []
    cur: _Building | None = None
    for raw in patch.split("\n"):
        m = _HUNK_HEADER.match(raw.rstrip("\r"))
        if m:
            if cur is not None:
                hunks.append(cur.build())
            cur = _Building(
                old_start=int(m[1]),
                old_len=int(m[2]) if m[2] is not None else 1,
                new_start=int(m[3]),
                new_len=int(m[4]) if m[4] is not None else 1,
                section=m[5],
            )
            continue
        if cur is None:
            continue
        if raw.startswith(_NO_NEWLINE):
            cur.mark_no_newline()
            continue
        if not cur.open:
            # Both counts used up: anything else until the next header is not part of a hunk.
            continue
        prefix, body = (raw[:1], raw[1:]) if raw else (" ", "")
        if prefix not in ("+", "-", " "):
            # Garbage inside a hunk: close it here rather than guess.
            hunks.append(cur.build())
            cur = None
            continue
        cur.add(LineKind(prefix), body)
    if cur is not None:
        hunks.append(cur.build())
    return hunks


class _Building:
    __slots__ = (
        "lines",
        "new_len",
        "new_next",
        "new_seen",
        "new_start",
        "old_len",
        "old_next",
        "old_seen",
        "old_start",
        "section",
    )

    def __init__(self, old_start: int, old_len: int, new_start: int, new_len: int, section: str):
        self.old_start, self.old_len = old_start, old_len
        self.new_start, self.new_len = new_start, new_len
        self.section = section
        self.lines: list[DiffLine] = []
        # A zero-length side starts "after" line N: its first real line would be N+1, but a
        # zero-length side has none, so the start itself is never used as a line number.
        self.old_next = old_start if old_len else old_start + 1
        self.new_next = new_start if new_len else new_start + 1
        self.old_seen = 0
        self.new_seen = 0

    @property
    def open(self) -> bool:
        return self.old_seen < self.old_len or self.new_seen < self.new_len

    def add(self, kind: LineKind, body: str) -> None:
        cr = body.endswith("\r")
        text = body[:-1] if cr else body
        old = new = None
        if kind is not LineKind.ADDED:
            old = self.old_next
            self.old_next += 1
            self.old_seen += 1
        if kind is not LineKind.DELETED:
            new = self.new_next
            self.new_next += 1
            self.new_seen += 1
        self.lines.append(DiffLine(kind, old, new, text, cr))

    def mark_no_newline(self) -> None:
        if self.lines:
            self.lines[-1] = dataclasses.replace(self.lines[-1], no_newline=True)

    def build(self) -> Hunk:
        return Hunk(
            self.old_start,
            self.old_len,
            self.new_start,
            self.new_len,
            tuple(self.lines),
            self.section,
        )


def commentable_lines(hunks: Iterable[Hunk], side: Side = "RIGHT") -> set[int]:
    """Lines a review comment may sit on.

    RIGHT (the default, and perfbot's side): added and context lines. LEFT: deleted and context
    lines (old-side numbers).
    """
    out: set[int] = set()
    for h in hunks:
        out |= h.new_lines if side == "RIGHT" else h.old_lines
    return out


def added_lines(hunks: Iterable[Hunk]) -> set[int]:
    """New-side line numbers of every added line."""
    out: set[int] = set()
    for h in hunks:
        out |= h.added
    return out


def hunk_of(hunks: Iterable[Hunk], line: int, side: Side = "RIGHT") -> Hunk | None:
    """The hunk holding ``line`` (new-side by default), or None if no hunk does."""
    for h in hunks:
        if h.contains(line, side):
            return h
    return None


def can_suggest(hunks: Iterable[Hunk], start_line: int, end_line: int) -> bool:
    """Whether one RIGHT-side comment may span ``start_line..end_line``.

    True when ``start_line <= end_line`` and both lines are in the same hunk (a hunk's new-side
    lines are contiguous, so every line between is too). When ``start_line == end_line`` post a
    single-line comment: GitHub rejects a ``start_line`` that does not precede ``line``.
    """
    if start_line > end_line:
        return False
    h = hunk_of(hunks, start_line)
    return h is not None and h.contains(end_line)


class FilterMode(StrEnum):
    """reviewdog's filter modes: which findings are reported on a pull request.

    * ``added``: a line of the finding's range was added by the PR;
    * ``diff_context`` (the default): a line of the range is in a hunk (added or context), so a
      finding on a whole table counts when the PR touched any line of it;
    * ``file``: the file is in the PR's diff, wherever the finding is;
    * ``nofilter``: everything.
    """

    ADDED = "added"
    DIFF_CONTEXT = "diff_context"
    FILE = "file"
    NOFILTER = "nofilter"

    @classmethod
    def parse(cls, value: str) -> FilterMode:
        """Accept the value in any case and with ``-`` for ``_`` (``diff-context``)."""
        try:
            return cls(value.strip().lower().replace("-", "_"))
        except ValueError:
            choices = ", ".join(m.value for m in cls)
            raise ValueError(f"unknown filter mode {value!r} (choose from {choices})") from None


DEFAULT_FILTER_MODE = FilterMode.DIFF_CONTEXT


def in_scope(
    mode: FilterMode | str,
    hunks: Iterable[Hunk],
    start_line: int,
    end_line: int,
    file_in_diff: bool,
) -> bool:
    """Whether a finding on new-side lines ``start_line..end_line`` is reported under ``mode``.

    ``hunks`` are the file's hunks (empty when the file is not in the diff, or when its patch is
    missing); ``file_in_diff`` says whether the PR changed the file at all. In ``added`` and
    ``diff_context`` modes a file outside the diff is never in scope.
    """
    if start_line > end_line:
        raise ValueError(f"start_line {start_line} is after end_line {end_line}")
    mode = FilterMode.parse(mode) if not isinstance(mode, FilterMode) else mode
    if mode is FilterMode.NOFILTER:
        return True
    if not file_in_diff:
        return False
    if mode is FilterMode.FILE:
        return True
    lines = added_lines(hunks) if mode is FilterMode.ADDED else commentable_lines(hunks)
    if end_line - start_line < len(lines):
        return any(n in lines for n in range(start_line, end_line + 1))
    return any(start_line <= n <= end_line for n in lines)


def hunks_by_path(files: Iterable[Any]) -> dict[str, list[Hunk]]:
    """Map each PR file's ``filename`` to its parsed hunks.

    ``files`` are PyGithub ``File`` objects or the API's JSON dicts (anything with ``filename``
    and an optional ``patch``). A renamed file is keyed by its new name; its hunks are those of
    the rename's patch (none for a pure rename). Every file of the PR gets a key, so ``path in
    result`` answers ``file_in_diff``.
    """
    out: dict[str, list[Hunk]] = {}
    for f in files:
        if isinstance(f, Mapping):
            name, patch = f["filename"], f.get("patch")
        else:
            name, patch = f.filename, getattr(f, "patch", None)
        out[name] = parse_patch(patch)
    return out
