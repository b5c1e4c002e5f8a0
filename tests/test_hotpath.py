"""The work after the parse, done once (issue 11): memoised pure functions keyed right and
bounded, shared derivations, plain (not frozen) value classes that still compare and hash.

No wall-clock assertions (bench/ measures time): these tests count calls and cache sizes, and
hold the faster paths to the results of the slower ones they replace.
"""

from __future__ import annotations

import functools
import pickle
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot import registry, spec
from perfbot.config_light import DEFAULT
from perfbot.context import Context
from perfbot.engine import check_source, run_rules
from perfbot.model import Cell, Row
from perfbot.parse import segments
from perfbot.registry import Finding, Issue
from perfbot.rules import _util, derived
from perfbot.source import Source
from perfbot.spec import forms, versions

PERF = """\
# Net

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

{header}
|:-:|:-:|:-:|:-:|:-:|:-:|:-:|
{rows}
"""
HEADER = "| model name | cards | batch size | jit level | graph compile | s/step | img/s |"


def _perf(rows: list[str], header: str = HEADER) -> Source:
    return Source.from_text(PERF.format(header=header, rows="\n".join(rows)), path="README.md")


def _findings(src: Source) -> list[tuple[int, str, str]]:
    return [(f.line, f.rule, f.message) for f in check_source(src).findings]


# --- header texts: memoised per text, keyed by the whole text --------------------------------


def test_headers_differing_only_in_emphasis_or_footnote_keep_their_own_marks() -> None:
    # each spelling is its own cache entry: the marks of one never leak into another's rename
    texts = ["precision", "**precision**", "precision*", "`precision`", "precision<sup>1</sup>"]
    for _ in range(2):  # the second round is answered from the caches
        assert [spec.header_parts(t) for t in texts] == [
            ("", "precision", ""),
            ("**", "precision", "**"),
            ("", "precision", "*"),
            ("`", "precision", "`"),
            ("", "precision", "<sup>1</sup>"),
        ]
        assert {spec.header_key(t) for t in texts} == {"precision"}
    src = _perf(
        ["| net | 1 | 32 | O2 | 1~2 mins | 0.50 | 64.00 |"], HEADER.replace("cards", "**Cards**")
    )
    renames = [f.fix.edits[0] for f in check_source(src).findings if f.rule == "PB301"]
    assert [(e.start, e.end, e.text) for e in renames] == [(17, 22, "cards")]  # inside the **


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="*_`[]()<>/sup^1²† xX-", max_size=24))
def test_memoised_header_functions_answer_like_the_plain_ones(text: str) -> None:
    assert spec.header_parts(text) == spec._header_parts(text)
    assert spec.header_key(text) == spec._header_key(text)


def test_a_header_is_taken_apart_once_however_many_tables_repeat_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec._header_parts_memo.cache_clear()
    spec._header_key_memo.cache_clear()
    calls: list[str] = []
    real = spec._header_parts

    def counting(text: str) -> tuple[str, str, str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(spec, "_header_parts", counting)
    monkeypatch.setattr(spec, "_header_parts_memo", functools.lru_cache(4096)(counting))
    table = "\n".join(
        [HEADER, "|:-:|:-:|:-:|:-:|:-:|:-:|:-:|", "| n | 1 | 2 | O2 | 1 min | 0.50 | 4.00 |"]
    )
    text = PERF.format(header=HEADER, rows="| n | 1 | 2 | O2 | 1 min | 0.50 | 4.00 |")
    text += "".join(f"\n## Run {i}\n\n{table}\n" for i in range(30))
    check_source(Source.from_text(text, path="README.md"))
    assert calls and len(calls) == len(set(calls))  # each distinct text once, not per table


def test_the_header_caches_are_bounded() -> None:
    for i in range(spec._MEMO_SIZE + 500):
        spec.header_key(f"column {i}")
    assert spec._header_key_memo.cache_info().currsize <= spec._MEMO_SIZE
    assert spec._header_parts_memo.cache_info().currsize <= spec._MEMO_SIZE
    long = "x" * (spec._MEMO_MAX_LEN + 1)
    before = spec._header_parts_memo.cache_info().currsize
    spec.header_parts(long)
    spec.header_parts(long + "y")
    assert spec._header_parts_memo.cache_info().currsize == before  # long texts are not kept


def test_a_schemas_header_memos_are_bounded() -> None:
    # the built-in Schema lives for the whole run: a tree of countless distinct headers must
    # not grow its memos without bound
    schema = spec.builtin_spec().performance
    for i in range(spec._MEMO_SIZE + 100):
        schema.resolve_header(["model name", f"column {i}"])
    assert len(schema._headers) <= spec._MEMO_SIZE
    assert len(schema._keys) <= spec._MEMO_SIZE
    names = [c.name for c in schema.resolve_header(["model name", "cards"])]
    assert names == ["model name", "cards"]


def test_cell_parsers_are_memoised_bounded_and_answer_like_the_plain_ones() -> None:
    for v in ["8", "**8**", "1,024", "47,34", "0.89s", "89 ms", "~0.5", "x", ""]:
        assert forms.parse_number(v) == forms._parse_number(v)
        assert forms.parse_time(v) == forms._parse_time(v)
    for i in range(forms._MEMO_SIZE + 100):
        forms.parse_number(str(i))
    assert forms._parse_number_memo.cache_info().currsize <= forms._MEMO_SIZE


def test_mindspore_versions_gives_a_new_list_each_time() -> None:
    first = versions.mindspore_versions("2.3.0/2.3.1")
    first.append(first[0])  # a caller's list is its own
    again = versions.mindspore_versions("2.3.0/2.3.1")
    assert [v.canonical for v in again] == ["2.3.0", "2.3.1"]
    assert [v.text for v in versions.mindspore_versions(" 2.3.1 ")] == [" 2.3.1 "]


# --- derived once per table ------------------------------------------------------------------


def test_the_img_s_rows_are_worked_out_once_per_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # PB401 and PB406 (and PB402, PB403 in inference tables) read the same rows; the numbers
    # of a row are worked out once, not once per rule
    calls: list[int] = []
    real = derived._numbers

    def counting(ctx, table, row):  # type: ignore[no-untyped-def]
        calls.append(row.line)
        return real(ctx, table, row)

    monkeypatch.setattr(derived, "_numbers", counting)
    rows = [f"| net | {c} | 32 | O2 | 1~2 mins | 0.50 | {c * 64 + 10}.00 |" for c in range(1, 7)]
    got = _findings(_perf(rows))
    assert sorted(calls) == sorted(set(calls)) and len(calls) == 6
    assert [r for _, r, _ in got].count("PB401") == 6  # every row still checked


def test_a_text_that_passed_one_form_is_still_checked_under_another() -> None:
    # the remembered passes are per form: `O2` is a jit level, not a number of cards
    rows = [
        "| net | O2 | 32 | O2 | 1~2 mins | 0.50 | 64.00 |",
        "| net | 1 | 32 | O2 | 1 min | 0.50 | 64.00 |",
    ]
    for _ in range(2):
        assert [(line, rule) for line, rule, _ in _findings(_perf(rows)) if rule == "PB411"] == [
            (9, "PB411")
        ]


# --- the rules that run: worked out once, while the registry is the same ----------------------


def test_a_rule_registered_or_removed_after_a_check_is_seen_by_the_next() -> None:
    src = _perf(["| net | 1 | 32 | O2 | 1~2 mins | 0.50 | 64.00 |"])
    assert "PB696" not in {f.rule for f in check_source(src).findings}

    @registry.rule("PB696", "test-hotpath-rule", severity="info", scope="document")
    def _hot(ctx):  # type: ignore[no-untyped-def]
        yield Issue(1, "hello")

    try:
        assert "PB696" in {f.rule for f in check_source(src).findings}
    finally:
        registry.RULES.pop("PB696")
        registry._BY_SLUG.pop("test-hotpath-rule")
    assert "PB696" not in {f.rule for f in check_source(src).findings}


def test_a_replaced_rule_list_is_used_after_a_check_with_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from perfbot import engine

    src = _perf(["| net | 1 | 32 | O2 | 1~2 mins | 0.50 | 1.00 |"])
    assert "PB401" in {f.rule for f in check_source(src).findings}  # the registry's plan, kept
    monkeypatch.setattr(engine, "all_rules", lambda: [registry.get_rule("PB601")])
    assert check_source(src).findings == []  # the replacement's rules, not the kept plan
    monkeypatch.undo()
    assert "PB401" in {f.rule for f in check_source(src).findings}


def test_a_given_rule_list_runs_only_those() -> None:
    ctx = Context(
        _perf(["| net | 1 | 32 | O2 | 1~2 mins | 0.50 | 1.00 |"]),
        DEFAULT,
    )
    only = [registry.get_rule("PB401")]
    assert {f.rule for f in run_rules(ctx, only)} == {"PB401"}  # type: ignore[list-item]


# --- the matrix checks: memoised for one matrix at a time --------------------------------------

REQ = """\
# Net

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:-:|:-:|:-:|:-:|
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |
"""


def test_a_row_checked_against_the_builtin_matrix_is_checked_again_against_a_config_one() -> None:
    from perfbot.config import Config

    src = Source.from_text(REQ, path="README.md")
    assert "PB501" in {f.rule for f in check_source(src).findings}
    row = {"mindspore": "2.3.1", "driver": "24.1.RC2", "firmware": "7.3.0.1.231",
           "cann": "8.0.RC3.beta1"}  # fmt: skip
    config = Config.model_validate({"matrix": [row]})
    assert "PB501" not in {f.rule for f in check_source(src, config).findings}
    assert "PB501" in {f.rule for f in check_source(src).findings}


# --- the spec's memo belongs to one Spec ---------------------------------------------------------


def test_a_configured_spec_has_its_own_memo() -> None:
    base = spec.builtin_spec()
    assert base.required(False) == base.required(False)
    base.required(False).append("x")  # a caller's list is its own
    assert "x" not in base.required(False)
    other = base.with_config([spec.Column("fps2", ("f2",), "decimal2")], {})
    assert other._memo is not base._memo
    names = ["img/s", "model name", None]
    assert base.expected_order(names, False) == base._expected_order(names, False) == [1, 2, 0]


# --- a table line's cells, without a regular expression ----------------------------------------


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=" \t|ab\\*-:\u3000", max_size=30))
def test_cell_pieces_are_the_parsers_segments(line: str) -> None:
    segs = segments(line)
    want = (line[: segs[0][0]], [line[a:b] for a, b in segs], line[segs[-1][1] :])
    assert _util._cell_pieces(line) == want


# --- value classes: not frozen, still values --------------------------------------------------


def test_model_and_finding_classes_compare_hash_and_pickle_as_values() -> None:
    a, b = Cell("x", 1, 2, 3), Cell("x", 1, 2, 3)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert replace(a, text="y") != a
    row = Row(1, "| x |", (a,))
    assert hash(row) == hash(Row(1, "| x |", (b,)))
    i = Issue(3, "m", table=1)
    assert i == Issue(3, "m", table=1) and hash(i) == hash(Issue(3, "m", table=1))
    f = Finding("p", 1, 1, "PB401", "img-s-mismatch", "error", "m")
    assert pickle.loads(pickle.dumps(f)) == f
    assert pickle.loads(pickle.dumps(row)) == row
    with pytest.raises(TypeError):
        hash(f)  # its `extra` dict is not hashable, as when it was frozen
    r = spec.Resolved(0, "Cards", spec.Column("cards"), "case")
    assert r.name == "cards" and replace(r, column=None).name is None
    assert r == spec.Resolved(0, "Cards", spec.Column("cards"), "case")
    assert pickle.loads(pickle.dumps(r)).name == "cards"


# --- the sentence rules ---------------------------------------------------------------------


def _differs_by_loop(text: str, want: str, width: int = 60) -> str:
    """sentence._differs as it was: the common prefix found one character at a time."""
    if len(text) <= width:
        return _util.q(text)
    n = 0
    while n < min(len(text), len(want)) and text[n] == want[n]:
        n += 1
    if n < width - 3:
        return _util.q(text)
    start = max(0, min(n - width // 2, len(text) - (width - 3)))
    tail = text[start : start + width - 3]
    return f"`...{tail}{'...' if start + width - 3 < len(text) else ''}`"


GUIDE = "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode."


@settings(max_examples=1000, deadline=None)
@given(
    st.integers(0, 80), st.text("ab. ", max_size=40), st.integers(0, 80),
    st.text("ab. ", max_size=40), st.integers(5, 80),
)  # fmt: skip
def test_differs_quotes_like_the_character_loop(i: int, a: str, j: int, b: str, w: int) -> None:
    from perfbot.rules.sentence import _differs

    text, want = GUIDE[:i] + a, GUIDE[:j] + b
    assert _differs(text, want, w) == _differs_by_loop(text, want, w)


@pytest.mark.parametrize(
    ("listed", "said", "unlisted"),
    [("2.6.0rc1", "v2.6.0-rc1", False), ("2.3.0/2.3.1", "2.3.1", False), ("2.5", "2.5.0", True),
     ("2.2.10~2.2.12", "2.2.12", False), ("2.3.1", "2.3.0", True)],
)  # fmt: skip
def test_a_sentence_version_is_listed_when_it_is_the_same_mindspore(
    listed: str, said: str, unlisted: bool
) -> None:
    text = (
        "# Net\n\n## Requirements\n\n"
        "| mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
        f"|:-:|:-:|:-:|:-:|\n| {listed} | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |\n\n"
        f"## Performance\n\nExperiments are tested on ascend 910* with mindspore {said} graph mode."
        "\n\n"
        + HEADER
        + "\n|:-:|:-:|:-:|:-:|:-:|:-:|:-:|\n| n | 1 | 2 | O2 | 1 min | 0.50 | 4.00 |\n"
    )
    rules = {f.rule for f in check_source(Source.from_text(text, path="README.md")).findings}
    assert ("PB203" in rules) is unlisted
