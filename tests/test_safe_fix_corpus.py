"""Safe means safe (issue 22, item 4): every safe fix on ../shared/corpus (real READMEs, read at
test time, never copied here) changes presentation only.

For each README, `perfbot fix` (safe fixes only) is applied and the text before and after is
compared:

- prose (every line outside a table, the sentence above a table excepted): the same words, none
  added or lost, numbers and versions included;
- the sentence above a table: a rewrite keeps its device, MindSpore version and mode, and its
  language (a Chinese sentence is never replaced by an English one);
- each table row, in order: the same numbers (equal within the rounding rule: padding with zeros
  is exact, rounding moves a value by at most 0.5 % of itself), the same versions and the same
  words (case, `ON`/`true`, `fp16`/`FP16` and a unit the header already gives aside);
- the fixed text has no error the text before did not have;
- fixing the fixed text changes nothing.

Header cells are the guide's names (a rename to them is the point of a fix) and are not compared.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from perfbot.engine import check_source, fix_source
from perfbot.parse import parse_sentence
from perfbot.source import FileError, Source, read_source

ROOT = Path(__file__).resolve().parents[1]
CORPUS = next(
    (
        p
        for p in (
            Path(os.environ.get("PERFBOT_CORPUS", "/nonexistent")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if p.is_dir() and any(p.rglob("*.md"))
    ),
    None,
)
FILES = sorted(CORPUS.rglob("*.md")) if CORPUS else []
TOLERANCE = 0.005  # the rounding rule: at most 0.5 % of the value

_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d{1,2}(?!\d))")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_CELL_WORD = re.compile(r"[^\W\d_][^\W_]*", re.UNICODE)  # `bfloat16`, `o2`, `rc2`: one word
_ZERO_FOR_O = re.compile(r"(?<![\w.])0([0-3])(?![\w.])")  # jit level `02` is `O2`
_MARKS = {"✓": " on ", "✔": " on ", "√": " on ", "✗": " off ", "✘": " off "}
# cell words a safe fix may respell: the same value in the guide's spelling
_SAME = {
    "true": "on", "yes": "on", "enabled": "on", "enable": "on", "y": "on",
    "false": "off", "no": "off", "disabled": "off", "disable": "off", "n": "off",
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32",
    "minutes": "mins", "minute": "mins", "min": "mins",
}  # fmt: skip
# what the header already says: `1.42s` under s/step, `CANN 8.0.RC3` under cann toolkit/kernel,
# `v2.3.1` under mindspore
_UNIT_GIVEN_BY_HEADER = {"s", "cann", "v"}


def _is_table_line(line: str) -> bool:
    return line.lstrip().startswith("|")


def _split(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    """(prose lines, table body rows as lists of cells, sentence lines) of a document."""
    lines = text.splitlines()
    prose: list[str] = []
    rows: list[list[str]] = []
    sentences: list[str] = []
    fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and _is_table_line(line):
            if _DELIMITER.match(line):
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if _DELIMITER.match(nxt):
                continue  # a header row: the guide's names, not compared
            cells = line.strip().strip("|").split("|")
            rows.append([c.strip() for c in cells])
            continue
        if not fence and parse_sentence(line, i + 1) is not None:
            sentences.append(line)
            continue
        prose.append(line)
    return prose, rows, sentences


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text)) + Counter(_NUMBER.findall(text))


def _cell_tokens(cells: list[str]) -> tuple[list[float], Counter[str]]:
    numbers: list[float] = []
    words: Counter[str] = Counter()
    for c in cells:
        c = _ZERO_FOR_O.sub(r"O\1", _THOUSANDS.sub("", _DECIMAL_COMMA.sub(".", c)))
        for mark, word in _MARKS.items():
            c = c.replace(mark, word)
        c = re.sub(r"(?i)(?<=\d)\s*x\s*(?=\d)", " ", c)  # `1024 X 1024`, `1024x1024`
        numbers.extend(float(n) for n in _NUMBER.findall(c))
        for w in _CELL_WORD.findall(c.lower()):
            w = _SAME.get(w, w)
            if w not in _UNIT_GIVEN_BY_HEADER:
                words[w] += 1
    return sorted(numbers), words


def _same_number(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= TOLERANCE * max(abs(a), abs(b))


def _facts(line: str) -> tuple[str | None, tuple[str, ...], str | None, bool]:
    s = parse_sentence(line, 1)
    assert s is not None
    return s.device, s.versions, s.mode, bool(_CJK.search(s.text))


def presentation_only(before: str, after: str) -> list[str]:
    """What a fix changed beyond presentation (empty when nothing)."""
    problems: list[str] = []
    p0, r0, s0 = _split(before)
    p1, r1, s1 = _split(after)
    w0, w1 = _words("\n".join(p0)), _words("\n".join(p1))
    if w0 != w1:
        problems.append(f"prose words lost {dict(w0 - w1)}, added {dict(w1 - w0)}")
    if len(s0) != len(s1):
        problems.append(f"{len(s0)} sentences became {len(s1)}")
    for a, b in zip(s0, s1, strict=False):
        if a != b and _facts(a) != _facts(b):
            problems.append(f"sentence {a!r} became {b!r}")
    if len(r0) != len(r1):
        problems.append(f"{len(r0)} table rows became {len(r1)}")
    for a, b in zip(r0, r1, strict=False):
        if a == b:
            continue
        (n0, t0), (n1, t1) = _cell_tokens(a), _cell_tokens(b)
        if len(n0) != len(n1) or not all(map(_same_number, n0, n1)):
            problems.append(f"row numbers changed: {a} -> {b}")
        if t0 != t1:
            problems.append(f"row words changed: {a} -> {b}")
    return problems


def test_the_comparison_sees_a_change_of_value_and_of_prose():
    """The checker itself (no corpus needed): each kind of damage is seen, presentation is not."""
    table = "| model name | s/step | img/s |\n|:--:|:--:|:--:|\n| dit | {} | {} |\n"
    sentence = "All experiments are tested on Ascend 910B with MindSpore 2.3.1 graph mode.\n\n"
    good = "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
    assert presentation_only(table.format("0.9", "71"), table.format("0.90", "71.00")) == []
    assert presentation_only(table.format("0.8999", "7"), table.format("0.90", "7.00")) == []
    assert presentation_only(table.format("0.025", "40"), table.format("0.03", "40.00"))
    assert presentation_only(table.format("0.8949", "7"), table.format("0.89", "7.00"))
    assert presentation_only("a b c\n", "a b\n")
    assert presentation_only(sentence, good) == []
    assert presentation_only(sentence, good.replace("2.3.1", "2.3.0"))
    zh = "实验在 Ascend 910* 上以图模式运行，MindSpore 版本 2.3.1\n\n"
    assert presentation_only(zh, good)  # another language


@pytest.mark.skipif(not FILES, reason="../shared/corpus is absent")
def test_safe_fixes_on_the_corpus_change_presentation_only():
    damaged: list[str] = []
    for f in FILES:
        src = read_source(f)
        if isinstance(src, FileError):
            continue
        fixed, _ = fix_source(src, unsafe=False)
        # a safe fix brings no new error (padding img/s `399.3` to `399.30` where the row
        # computes 399.26 would: a precision the other cells contradict)
        errors = Counter(f.rule for f in check_source(src).findings if f.severity == "error")
        after = check_source(Source.from_text(fixed, path=str(f))).findings
        new = Counter(x.rule for x in after if x.severity == "error") - errors
        if new:
            damaged.append(f"{f.relative_to(CORPUS)}: the safe fixes brought errors {dict(new)}")
        if fixed != src.text:
            where = f.relative_to(CORPUS)  # type: ignore[arg-type]
            damaged.extend(f"{where}: {p}" for p in presentation_only(src.text, fixed))
        again, _ = fix_source(Source.from_text(fixed, path=str(f)), unsafe=False)
        if again != fixed:
            damaged.append(f"{f.relative_to(CORPUS)}: fixing twice changed the text again")
    assert not damaged, "\n".join(damaged[:40])
