"""Markdown -> :class:`~perfbot.model.Document`, with exact source positions.

mistune 3 finds the block structure (fences, indented code, HTML blocks and comments, headings,
paragraphs); :mod:`.blocks` records each top-level block's source offsets and reads pipe tables
with perfbot's own block rule, :mod:`.tables` cuts a table line into cells with their columns
(and reads HTML tables' cells), :mod:`.sentence` reads the guide's sentence. Here: the builder
of the Document from the block tokens, and the last parse, remembered for :mod:`perfbot.reparse`.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from ..model import Document, Heading, HtmlTable, Row, Sentence, Table, TableKind
from ..source import Source
from ..spec import Spec, builtin_spec
from .blocks import _RawTable, block_tokens
from .sentence import (
    _SENTENCE_HINT,
    _SENTENCE_QUICK,
    _SENTENCE_WORDS,
    canonical_sentence,
    misspelt_mode,
    mode_words,
    parse_sentence,
    sentence_span,
)
from .tables import (
    _ANY_TAG,
    _HTML_TABLE,
    MAX_DOC_CELLS,
    MAX_HTML_CELLS,
    MAX_ROW_CELLS,
    MAX_TABLE_ROWS,
    MAX_TABLES,
    _align,
    _cells_end,
    _html_rows,
    segments,
    split_cells,
)

__all__ = [
    "MAX_DOC_CELLS",
    "MAX_HTML_CELLS",
    "MAX_ROW_CELLS",
    "MAX_TABLES",
    "MAX_TABLE_ROWS",
    "REMEMBER_MAX_CHARS",
    "Parsed",
    "TokensOf",
    "Walked",
    "block_tokens",
    "build_document",
    "canonical_sentence",
    "last_parsed",
    "misspelt_mode",
    "mode_words",
    "parse_document",
    "parse_sentence",
    "segments",
    "sentence_span",
    "split_cells",
]

# --- document -----------------------------------------------------------------------------------

_HTML_WRAPPER_LINE = re.compile(
    r"^\s*(?:</?(?:div|p|center|details|summary|span|br)\b[^>]*>\s*)+$", re.I
)
# `<summary>Performance on ascend 910*</summary>`: a wrapper line with words in it (no pipe)
_HTML_TEXT_LINE = re.compile(
    r"^\s*(?:</?(?:div|p|center|details|span|br)\b[^>]*>\s*){0,4}"
    r"<(?P<t>summary|p|span|center|b|strong)\b[^>]*>[^|\n]{0,300}</(?P=t)>"
    r"\s*(?:</?(?:div|p|center|details|span|br)\b[^>]*>\s*){0,4}$",
    re.I,
)


def _heading_text(tok: dict) -> str:
    text = tok.get("text", "")
    text = _ANY_TAG.sub("", text)
    return text.replace("**", "").replace("`", "").strip()


_WALKED = frozenset(("paragraph", "heading", "pipe_table", "block_html"))
_SENTENCE_WORDS_LOWER = re.compile("|".join(map(re.escape, _SENTENCE_WORDS)))


class _Builder:
    def __init__(
        self, src: Source, spec: Spec, known_rows: dict[tuple[int, str], Row] | None = None
    ):
        self.src = src
        self.spec = spec
        # rows built before, by (line number, line): a Row is a function of those two
        self.known_rows = known_rows
        self.text = src.normalized() + "\n"
        # for cheap substring looks; a few characters change length when lower-cased. "ſ" (long
        # s) is the one character that _SENTENCE_QUICK's (?i) takes for a letter of its words
        # and lower() does not: both looks must say the same, whatever else the file holds
        lower = self.text.lower().replace("ſ", "s")
        self.lower = lower if len(lower) == len(self.text) else None
        # the offset of each line's start (and one past the end), as machine integers: a list
        # held an int object per line (77 MB for a file of 2,000,000 short lines)
        self.starts = array("q", accumulate(map((1).__add__, map(len, src.lines)), initial=0))
        self.doc = Document(path=src.path)
        self.raw_tables: list[tuple[_RawTable, int, bool]] = []  # (table, heading count, in_html)
        self.paths: list[tuple[Heading, ...]] = [()]  # section_at(n), for n = 0, 1, ...
        self.unwrapping: set[tuple[int, int]] = set()  # HTML blocks being unwrapped
        self.walked: Walked | None = None

    def may_hold_sentence(self, a: int, b: int) -> bool:
        if self.lower is None:
            return _SENTENCE_QUICK.search(self.text, a, b) is not None
        # one of _SENTENCE_WORDS in lower[a:b] (one pass, no slice)
        return _SENTENCE_WORDS_LOWER.search(self.lower, a, b) is not None

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def run(
        self, tokens: list[dict], walk: Callable[[_Builder, list[dict]], None] | None
    ) -> Document:
        """The document from ``tokens``, the top-level block tokens of ``self.text``. ``walk``
        (if given) does :meth:`walk` over them its own way, with the same result."""
        if walk is None:
            self.walk(tokens, base=0, in_html=False)
        else:
            walk(self, tokens)
        doc = self.doc  # what the walk found, in its order (finish_tables sorts the sentences)
        self.walked = Walked(
            list(doc.headings), list(doc.sentences), list(self.raw_tables), list(doc.html_tables)
        )
        self.finish_tables()
        return doc

    def walk(self, tokens: list[dict], base: int, in_html: bool) -> None:
        headings = self.doc.headings
        for tok in tokens:
            t = tok["type"]
            if t not in _WALKED:
                continue  # blank lines, code, quotes, breaks: nothing of theirs is read
            span = tok.get("_span")
            if span is None:
                continue
            a, b = span[0] + base, span[1] + base
            if t == "paragraph":
                self.sentences_in(a, b)
            elif t == "heading":
                level = tok.get("attrs", {}).get("level", 1)
                headings.append(Heading(level, _heading_text(tok), self.line_of(a)))
            elif t == "pipe_table":
                raw: _RawTable = tok["_raw"]
                if base:
                    raw = _RawTable(
                        raw.start + base, raw.end + base, [o + base for o in raw.rows], raw.lines
                    )
                self.raw_tables.append((raw, len(headings), in_html))
            else:
                self.html_block(a, b)

    def sentences_in(self, a: int, b: int, only: set[int] | None = None) -> None:
        """Record the sentences on the lines of text[a:b] (on the lines in ``only``, if given)."""
        if not self.may_hold_sentence(a, b) or not _SENTENCE_HINT.search(self.text, a, b):
            return
        first = self.line_of(a)
        last = self.line_of(max(a, b - 1))
        for ln in range(first, last + 1):
            if only is not None and ln not in only:
                continue
            s = parse_sentence(self.src.line(ln), ln)
            if s:
                self.doc.sentences.append(s)

    def html_block(self, a: int, b: int) -> None:
        if (a, b) in self.unwrapping:
            # the blanked inner text gave this same block again (``<?php`` to the end, say):
            # unwrapping it again would recurse forever; it was read once already
            return
        raw = self.text[a:b]
        if raw.lstrip().startswith("<!--"):
            return  # a comment: nothing in it is published
        first = self.line_of(a)
        if _HTML_TABLE.search(raw):
            if len(self.doc.html_tables) >= MAX_TABLES:
                self.unread(first)
                return
            last = self.line_of(max(a, b - 1))
            section = self.section_at(len(self.doc.headings))
            rows = _html_rows(raw)
            kind = self.classify_texts(list(rows[0])) if rows else "other"
            self.doc.html_tables.append(HtmlTable(first, last, section, kind, rows))
            return
        if "|" not in raw:
            # `<summary>Performance tested on ascend 910* with graph mode</summary>`: a sentence
            self.sentences_in(a, b)
            return
        # <div align="center"> and friends: blank out the wrapper lines (keeping offsets) and
        # parse what is inside as Markdown.
        lines = raw.split("\n")[:-1]
        wrappers = [bool(_HTML_WRAPPER_LINE.match(ln) or _HTML_TEXT_LINE.match(ln)) for ln in lines]
        if not any(wrappers):
            return  # nothing to unwrap: raw HTML (GitHub shows no table either); parsing it
            # again would give this same block forever
        first_line = self.line_of(a)
        self.sentences_in(a, b, {first_line + i for i, w in enumerate(wrappers) if w})
        inner = "".join(
            (" " * len(ln) if w else ln) + "\n" for ln, w in zip(lines, wrappers, strict=True)
        )
        self.unwrapping.add((a, b))
        self.walk(block_tokens(inner), base=a, in_html=True)
        self.unwrapping.discard((a, b))

    def section_at(self, n_headings: int) -> tuple[Heading, ...]:
        """The heading path after the first ``n_headings`` headings. Memoised (headings are only
        ever appended), so a README with thousands of sections is not parsed in quadratic time."""
        paths = self.paths
        while len(paths) <= n_headings:
            path = list(paths[-1])
            h = self.doc.headings[len(paths) - 1]
            while path and path[-1].level >= h.level:
                path.pop()
            path.append(h)
            paths.append(tuple(path))
        return paths[n_headings]

    def unread(self, line: int) -> None:
        """A table beyond MAX_TABLES at ``line``: counted, not read."""
        doc = self.doc
        doc.unread_tables += 1
        doc.unread_line = min(doc.unread_line or line, line)

    def finish_tables(self) -> None:
        starts, src_lines, known = self.starts, self.src.lines, self.known_rows
        budget = MAX_DOC_CELLS  # cells left to read in this document
        for idx, (raw, nh, in_html) in enumerate(self.raw_tables):
            if idx >= MAX_TABLES:
                self.unread(bisect_right(starts, raw.start))
                continue
            rows = []
            oversize = ""
            if raw.lines > MAX_TABLE_ROWS + 2:
                oversize = (
                    f"it has {raw.lines - 2:,} rows (perfbot reads {MAX_TABLE_ROWS:,} at most)"
                )
            for i, o in enumerate(raw.rows[: MAX_TABLE_ROWS + 2]):
                ln = bisect_right(starts, o)
                line = src_lines[ln - 1]
                cut = _cells_end(line)
                if cut < len(line) and not oversize:
                    oversize = (
                        f"line {ln} has more than {MAX_ROW_CELLS} cells (perfbot reads "
                        f"{MAX_ROW_CELLS} at most)"
                    )
                # a Row is a function of its line number and line (cut at ``cut`` as here)
                row = known.get((ln, line)) if known else None
                cells = row.cells if row is not None else split_cells(line[:cut], ln)
                budget -= len(cells)
                if budget < 0 and i >= 2:  # the header and delimiter rows are always read
                    oversize = oversize or (
                        f"the README's tables have more than {MAX_DOC_CELLS:,} cells in all "
                        f"(perfbot reads {MAX_DOC_CELLS:,} at most)"
                    )
                    break
                rows.append(row if row is not None else Row(ln, line, cells))
            header, delim, body = rows[0], rows[1], tuple(rows[2:])
            section = self.section_at(nh)
            kind = self.classify_texts([c.value for c in header.cells])  # recognition: other
            table = Table(
                index=idx,
                header=header,
                delimiter=delim,
                rows=body,
                aligns=tuple(_align(c) for c in delim.cells),
                kind=kind,
                section=section,
                sentence=None,
                in_html=in_html,
                oversize=oversize,
            )
            self.doc.tables.append(table)
        self.doc.tables.sort(key=lambda t: t.start_line)
        self.attach_sentences()

    def classify_texts(self, texts: list[str]) -> TableKind:
        """A table's kind from its header cells (for HTML tables: its first cells)."""
        req = [r for r in self.spec.requirements.resolve_header(texts) if r.column]
        if len(req) >= 2 and any(r.column.name == "mindspore" for r in req):  # type: ignore[union-attr]
            return "requirements"
        perf = self.spec.performance.resolve_header(texts)
        if any(r.name in self.spec.signature for r in perf):
            return "performance"
        return "other"

    def attach_sentences(self) -> None:
        """Give each performance table the sentence above it (its own, or its section's)."""
        self.doc.sentences.sort(key=lambda s: s.line)
        sentences = self.doc.sentences  # in document order
        lines = [s.line for s in sentences]
        heading_lines = [h.line for h in self.doc.headings]
        # the sentences under each heading (0: above the first heading), in document order
        by_owner: dict[int, list[Sentence]] = {}
        owner_of: dict[int, int] = {}  # sentence line -> the line of its heading (0: none)
        for s in sentences:
            i = bisect_right(heading_lines, s.line)
            owner_of[s.line] = heading_lines[i - 1] if i else 0
            by_owner.setdefault(owner_of[s.line], []).append(s)
        owner_lines = {h: [s.line for s in ss] for h, ss in by_owner.items()}
        prev_end = 0
        out: list[Table] = []
        for t in self.doc.tables:
            if t.kind != "performance":
                out.append(t)
                continue
            # the last sentence between the previous performance table and this one, in the
            # table's own section or one enclosing it (a remark in another section is not it)
            j = bisect_left(lines, t.start_line)
            enclosing = {0, *(h.line for h in t.section)}
            chosen = (
                sentences[j - 1]
                if j and sentences[j - 1].line > prev_end and owner_of[lines[j - 1]] in enclosing
                else None
            )
            if chosen is None:
                # A sentence shared by several tables of one section (e.g. ## Performance with
                # ### Training and ### Inference below it) still covers them: a sentence of the
                # table's own section or of a section enclosing it, not of a sibling section.
                for h in (0, *(h.line for h in t.section)):
                    if h not in by_owner:
                        continue
                    under = by_owner[h]
                    k = bisect_left(owner_lines[h], t.start_line)
                    if k and (chosen is None or under[k - 1].line > chosen.line):
                        chosen = under[k - 1]
            t = replace(t, sentence=chosen, index=len(out))
            out.append(t)
            prev_end = t.end_line
        self.doc.tables = [t if t.index == i else replace(t, index=i) for i, t in enumerate(out)]


@dataclass(slots=True)
class Walked:
    """What :meth:`_Builder.walk` found over a document's top-level tokens, in its order. Each
    item lies on the lines of the token it came from (a raw table: at its offsets)."""

    headings: list[Heading]
    sentences: list[Sentence]
    raw_tables: list[tuple[_RawTable, int, bool]]  # (table, headings before it, in_html)
    html_tables: list[HtmlTable]


@dataclass(slots=True)
class Parsed:
    """What one parse of a Source leaves for :mod:`perfbot.reparse` to start from."""

    source: Source
    text: str  # the text tokenised: ``source.normalized() + "\\n"``
    starts: Sequence[int]  # the offset of each line's start (and one past the end)
    tokens: list[dict]  # the top-level block tokens (not to be changed: they may be shared)
    syncs: list[tuple[int, int]]  # (cursor, token count) after each run of blank lines
    doc: Document | None = None  # the Document built from them
    spec: Spec | None = None  # the guide the walk read HTML tables' kinds with
    walked: Walked | None = None  # and what the walk over them found


# The last document parsed (one only: its memory is bounded, whatever the run checks). `fix`
# parses the text its fixes made right after the text they were made on. A text over
# REMEMBER_MAX_CHARS is not remembered (its next parse is a whole one): a model README is a
# few kB (the corpus: 30 kB at most), and the tokens of an 8 MB file of small tables would
# double what checking it holds (tables.md: 614 MB against 323 MB for `perfbot fix`).
REMEMBER_MAX_CHARS = 1_000_000
_LAST: list[Parsed] = []


def last_parsed() -> Parsed | None:
    return _LAST[0] if _LAST else None


TokensOf = Callable[
    [str, Sequence[int]],
    tuple[list[dict], list[tuple[int, int]], Callable[["_Builder", list[dict]], None] | None],
]


def build_document(
    src: Source,
    spec: Spec,
    tokens_of: TokensOf,
    known_rows: dict[tuple[int, str], Row] | None = None,
) -> Document:
    """The Document of ``src``, from ``tokens_of(text, starts)`` -> (its top-level block tokens,
    their sync points, a walk over them or None for :meth:`_Builder.walk`), reusing
    ``known_rows``; remembered as :func:`last_parsed`."""
    b = _Builder(src, spec, known_rows)
    tokens, syncs, walk = tokens_of(b.text, b.starts)
    parsed = Parsed(src, b.text, b.starts, tokens, syncs, spec=spec)
    _LAST[:] = [parsed] if len(b.text) <= REMEMBER_MAX_CHARS else []
    parsed.doc = b.run(tokens, walk)
    parsed.walked = b.walked
    return parsed.doc


def _tokens_of(text: str, starts: Sequence[int]) -> tuple[list[dict], list[tuple[int, int]], None]:
    syncs: list[tuple[int, int]] = []
    return block_tokens(text, syncs), syncs, None


def parse_document(src: Source, spec: Spec | None = None) -> Document:
    """Parse a README. Never raises for any text."""
    return build_document(src, spec or builtin_spec(), _tokens_of)
