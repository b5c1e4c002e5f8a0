"""PB2xx: the sentence above each performance table (SPEC §2)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..fix import Edit, Fix
from ..model import Sentence, Table
from ..parse import canonical_sentence, misspelt_mode, mode_words, sentence_span
from ..spec.versions import mindspore_versions, normalize_mindspore
from ._util import floor_table, q
from .registry import Issue, rule


def _differs(text: str, want: str, width: int = 60) -> str:
    """``text`` quoted for a message; when it is too long to show whole, the part where it
    differs from ``want`` is kept (a final `:` for `.` must not be cut off)."""
    if len(text) <= width:
        return q(text)
    # the length of their common prefix, by halving (slices compare in C)
    n, hi = 0, min(len(text), len(want))
    while n < hi:
        mid = (n + hi + 1) // 2
        if text[:mid] == want[:mid]:
            n = mid
        else:
            hi = mid - 1
    if n < width - 3:
        return q(text)
    start = max(0, min(n - width // 2, len(text) - (width - 3)))
    tail = text[start : start + width - 3]
    return f"`...{tail}{'...' if start + width - 3 < len(text) else ''}`"


def _sentences(ctx: Context) -> list[tuple[Sentence, Table]]:
    """Each sentence that governs a performance table, once, with the first table it governs
    (not the sentences of benchmarks on other hardware: a GPU, an Ascend 310P). Worked out once
    per document (PB202, PB203 and PB204 read it)."""
    found = ctx.memo.get("sentences")
    if found is None:
        seen: set[int] = set()
        found = []
        for t in ctx.doc.of_kind("performance"):
            if t.sentence and t.sentence.line not in seen and not ctx.recognised(t).hardware:
                seen.add(t.sentence.line)
                found.append((t.sentence, t))
        ctx.memo["sentences"] = found
    return list(found)  # type: ignore[call-overload]


@rule("PB201", "sentence-missing", severity="error", scope="performance")
def sentence_missing(ctx: Context, table: Table) -> Iterator[Issue]:
    """A performance table has no sentence above it naming the machine, MindSpore and mode.

    Example:
        ## Performance

        | model name | cards | ... |

    Use instead:
        ## Performance

        Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

        | model name | cards | ... |
    """
    if table.sentence is None and not ctx.recognised(table).hardware:
        # (a table its heading says was measured on a 310P or a GPU: not the guide's 910 sentence)
        above = _paragraph_above(ctx, table.header.line)
        mode, version = mode_words(above)
        if mode or version:  # said in other words: quote them, and keep what they say
            shown = q(above) if len(above) <= 60 else f"`...{above[-57:]}`"
            yield Issue(
                table.header.line,
                f"the text above this table ({shown}) says how it was measured, but not in the "
                "guide's sentence; the guide wants `Experiments are tested on ascend 910* with "
                f"mindspore {version or '2.3.1'} {mode or 'graph'} mode.` (your device, version "
                "and mode) on its own line above it",
                table=table.index,
            )
            return
        yield Issue(
            table.header.line,
            "no sentence above this table says where it was measured; the guide wants "
            "`Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.` "
            "(your device, version and mode) on its own line above it",
            table=table.index,
        )


def _paragraph_above(ctx: Context, line: int) -> str:
    """The text of the paragraph that ends right above ``line`` (blank lines between allowed;
    at most 5 lines, none of them a heading, a table row or HTML)."""
    n = line - 1
    while n >= 1 and n > line - 4 and not ctx.source.line(n).strip():
        n -= 1
    got: list[str] = []
    while n >= 1 and len(got) < 5:
        text = ctx.source.line(n).strip()
        if not text or text.startswith(("#", "|", "<")):
            break
        got.append(text[:500])
        n -= 1
    return " ".join(reversed(got))


def _completions(ctx: Context, version: str) -> list[str]:
    """The Requirements table's versions that an incomplete one (`2.4`) may stand for."""
    v = normalize_mindspore(version)
    if v is None or not v.partial:
        return []
    out: list[str] = []
    for x in _listed_versions(ctx):
        full = normalize_mindspore(x)
        same_minor = full is not None and not full.partial and full.key[:2] == v.key[:2]
        if same_minor and full.canonical not in out:  # type: ignore[union-attr]
            out.append(full.canonical)  # type: ignore[union-attr]
    return out


# a sentence written in Chinese (or Japanese, Korean): the README's own language, never replaced by
# the English one
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _partial(version: str) -> bool:
    v = normalize_mindspore(version)
    return v is not None and v.partial


@rule("PB202", "sentence-format", severity="warning", scope="document", fix="sometimes",
      safety="mixed")  # fmt: skip
def sentence_format(ctx: Context) -> Iterator[Issue]:
    """The sentence is not in the guide's words.

    The guide's sentence is `Experiments are tested on ascend {910|910*} with mindspore
    {version} {graph|pynative} mode.` 910B and Atlas 800T A2 machines are written `910*`; other
    English forms (`Test results on Ascend 910* with MindSpore 2.2.14 graph mode`, `All
    experiments are tested on ...`, a `<summary>` line) are the sentence in other words. The fix
    rewrites the whole sentence when the device, one version and the mode can be read from it (a
    safe fix). An incomplete version (`mindspore 2.4`) is completed from the Requirements
    table's one 2.4.x row: an unsafe fix, it declares a version.

    A sentence in the README's own language (`在采用图模式的ascend 910*上实验结果，mindspore版本为
    2.5.0`) that names the device, one version and the mode is accepted; a fix never replaces
    it with the English one.

    Example:
        Experiments are tested on Ascend Atlas 800T A2 machines with mindspore 2.5.0 graph mode.

    Use instead:
        Experiments are tested on ascend 910* with mindspore 2.5.0 graph mode.
    """
    for s, t in _sentences(ctx):
        partial = len(s.versions) == 1 and _partial(s.versions[0])
        if s.canonical and not partial:
            continue
        other_language = _CJK.search(s.text) is not None
        if other_language and s.device and len(s.versions) == 1 and s.mode and not partial:
            continue  # the README's own language, naming device, version and mode: accepted
        missing = [
            what
            for what, ok in (
                ("the device (910 or 910*)", s.device),
                ("one MindSpore version", len(s.versions) == 1),
                ("the mode (graph or pynative)", s.mode),
            )
            if not ok
        ]
        fix = None
        if not missing and partial:
            full = _completions(ctx, s.versions[0])
            listed = " or ".join(f"`{x}`" for x in full)
            msg = (
                f"sentence {q(s.text)} names an incomplete MindSpore version "
                f"(`{s.versions[0]}`); write the version you tested with"
                + (f" ({listed}, as the Requirements table lists)" if full else "")
            )
            if len(full) == 1 and not other_language:
                want = canonical_sentence(s.device, full[0], s.mode, continues=s.continues)  # type: ignore[arg-type]
                span = sentence_span(ctx.source.line(s.line))
                if span:
                    fix = Fix(f"Write MindSpore {full[0]} in the guide's sentence",
                              (Edit(s.line, span[0], span[1], want),), "unsafe")  # fmt: skip
                msg += f"; perfbot suggests `{want}`"
        elif not missing:  # (an English sentence: one in another language is accepted above)
            want = canonical_sentence(s.device, s.versions[0], s.mode, continues=s.continues)  # type: ignore[arg-type]
            line = ctx.source.line(s.line)
            span = sentence_span(line)
            if span:
                fix = Fix("Rewrite the sentence in the guide's words",
                          (Edit(s.line, span[0], span[1], want),))  # fmt: skip
            msg = f"sentence {_differs(s.text, want)} is not in the guide's words; perfbot suggests `{want}`"
        else:
            # quote the end of a long sentence: the version and the mode are written there
            shown = q(s.text) if len(s.text) <= 60 else f"`...{s.text[-57:]}`"
            msg = f"sentence {shown} does not name {' and '.join(missing)}"
            typo = misspelt_mode(s.text) if s.mode is None else None
            if typo:
                msg += f" (`{typo[0]}`: did you mean `{typo[1]}`?)"
            msg += (
                "; the guide wants "
                "`Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.`"
            )
        yield Issue(s.line, msg, fix, table=t.index)


def _listed_versions(ctx: Context) -> list[str]:
    found = ctx.memo.get("listed-versions")
    if found is None:  # once per document
        found = []
        for t in ctx.doc.of_kind("requirements"):
            col = ctx.column(t, "mindspore")
            for row in t.rows:
                cell = ctx.cell(row, col)
                if cell:
                    found.extend(v.text for v in mindspore_versions(cell.value))
        ctx.memo["listed-versions"] = found
    return list(found)  # type: ignore[call-overload]


@rule("PB203", "sentence-version-unlisted", severity="error", scope="document", fix="sometimes",
      safety="unsafe")  # fmt: skip
def sentence_version_unlisted(ctx: Context) -> Iterator[Issue]:
    """The MindSpore version in the sentence is not a row of the Requirements table.

    The fix adds the matrix's row for that version to the Requirements table. A Requirements
    table of minimum versions (`>=2.6.0`, PB103) lists no version: then a sentence naming a
    MindSpore below the minimum is reported (the table was measured on a version the README
    does not support), and one at or above it is not.

    Example:
        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

        Experiments are tested on ascend 910* with mindspore 2.5.0 graph mode.

    Use instead:
        | mindspore | ascend driver | firmware | cann toolkit/kernel |
        | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
        | 2.5.0 | 24.1.0 | 7.5.0.3.220 | 8.0.0.beta1 |
    """
    req = ctx.doc.of_kind("requirements")
    if not req:
        return  # PB101 reports the missing table
    if all(floor_table(ctx, t) for t in req):
        # minimum versions only: PB103 asks for the tested ones; a table measured below the
        # minimum is still wrong (the README requires a MindSpore its numbers were not made on)
        yield from _below_floor(ctx, req)
        return
    # what same_mindspore(v, x) compares: the canonical spellings of the versions that parse
    listed = {
        p.canonical
        for p in (normalize_mindspore(x) for x in _listed_versions(ctx))
        if p is not None
    }
    target = req[0]
    ordered = [c.name for c in ctx.columns(target)] == list(ctx.spec.requirements_order)
    for s, t in _sentences(ctx):
        for v in s.versions:
            pv = normalize_mindspore(v)
            if pv is not None and pv.canonical in listed:  # any(same_mindspore(v, x) ...)
                continue
            if _completions(ctx, v):
                continue  # `2.4` for the listed 2.4.1: PB202 says it is incomplete
            fix = None
            row = ctx.matrix.canonical_row(v)
            values = [row.get(k) for k in ("mindspore", "driver", "firmware", "cann")]
            if row and ordered and all(values) and target.rows and not _partial(v):
                last = target.rows[-1]
                new = "| " + " | ".join(values) + " |"  # type: ignore[arg-type]
                fix = Fix(f"Add the matrix's row for MindSpore {values[0]}",
                          (Edit.insert_after(last.line, last.raw, [new]),), "unsafe")  # fmt: skip
            incomplete = " (an incomplete version: write the one you tested with)" * _partial(v)
            yield Issue(
                s.line,
                f"the sentence names MindSpore `{v}`{incomplete}, which the Requirements table "
                "does not list; add its row (driver, firmware, CANN) to the Requirements table",
                fix,
                table=t.index,
            )


_FLOOR_VERSION = re.compile(r"(?<![0-9])[0-9]+(?:\.[0-9A-Za-z]+){1,4}")


def _below_floor(ctx: Context, req: list[Table]) -> Iterator[Issue]:
    """Sentences naming a MindSpore below every minimum of the Requirements tables."""
    floors = []
    for t in req:
        for f in ctx.recognised(t).floors:
            m = _FLOOR_VERSION.search(f[:80])
            v = normalize_mindspore(m.group(0)) if m else None
            if v is not None:
                floors.append((v, f))
    if not floors:
        return
    low, text = min(floors, key=lambda p: p[0])
    for s, t in _sentences(ctx):
        for named in s.versions:
            pv = normalize_mindspore(named)
            if pv is None:
                continue
            # `2.6` under `>=2.6.0`: an incomplete version is below only in what it gives
            if pv < low if not pv.partial else pv.key[:2] < low.key[:2]:
                yield Issue(
                    s.line,
                    f"the sentence names MindSpore `{named}`, below the Requirements table's minimum "
                    f"{q(text)}: this table was measured on a MindSpore the README does not "
                    "support; measure it again on a supported version, or correct the minimum",
                    table=t.index,
                )


@rule("PB204", "one-version-per-table", severity="error", scope="document")
def one_version_per_table(ctx: Context) -> Iterator[Issue]:
    """One sentence names several MindSpore versions; the guide wants one table per version.

    Example:
        Experiments are tested on ascend 910* with mindspore 2.3.0/2.3.1 graph mode.

    Use instead:
        Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

        (a second table, with its own sentence, for 2.3.0)
    """
    for s, t in _sentences(ctx):
        if len(s.versions) > 1:
            vs = ", ".join(f"`{v}`" for v in s.versions)
            yield Issue(
                s.line,
                f"the sentence names several MindSpore versions ({vs}); the guide wants one "
                "table, with its own sentence, per version",
                table=t.index,
            )
