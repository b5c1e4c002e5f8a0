"""fix.py: edits on line content, applied in one place; replacement() for reporters."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from perfbot import engine
from perfbot.engine import check_source, fix_source
from perfbot.fix import (
    Edit,
    Fix,
    apply_edits,
    apply_fixes,
    replacement,
    select_edits,
    select_fixes,
)
from perfbot.registry import Issue, Rule
from perfbot.source import Source, split_lines

TEXT = "alpha beta\ngamma delta\nepsilon\n"


def src(text: str = TEXT) -> Source:
    return Source.from_text(text)


def fix(*edits: Edit, title: str = "t") -> Fix:
    return Fix(title, edits)


# --- apply_edits -------------------------------------------------------------------------------


def test_replace_one_cell_keeps_everything_else() -> None:
    assert apply_edits(src(), [Edit(1, 6, 10, "BETA")]) == "alpha BETA\ngamma delta\nepsilon\n"


def test_edits_apply_in_any_order() -> None:
    edits = [Edit(1, 0, 5, "A"), Edit(3, 0, 7, "E"), Edit(1, 6, 10, "B"), Edit(2, 6, 11, "D")]
    want = "A B\ngamma D\nE\n"
    assert apply_edits(src(), edits) == want
    assert apply_edits(src(), list(reversed(edits))) == want


def test_overlapping_edit_is_skipped_first_come_first_served() -> None:
    first, second = Edit(1, 0, 7, "X"), Edit(1, 5, 10, "Y")
    assert select_edits([first, second]) == [first]
    assert apply_edits(src(), [first, second]) == "Xeta\ngamma delta\nepsilon\n"
    assert apply_edits(src(), [second, first]) == "alphaY\ngamma delta\nepsilon\n"


def test_duplicate_edits_are_applied_once() -> None:
    e = Edit(2, 0, 5, "G")
    assert select_edits([e, e]) == [e]
    assert apply_edits(src(), [e, e]) == "alpha beta\nG delta\nepsilon\n"


def test_adjacent_edits_do_not_overlap() -> None:
    edits = [Edit(1, 0, 5, "A"), Edit(1, 5, 6, "_"), Edit(1, 6, 10, "B")]
    assert select_edits(edits) == edits
    assert apply_edits(src(), edits) == "A_B\ngamma delta\nepsilon\n"


def test_two_insertions_at_one_point_keep_the_first() -> None:
    a, b = Edit(1, 5, 5, "1"), Edit(1, 5, 5, "2")
    assert select_edits([a, b]) == [a]


def test_insertion_inside_a_replacement_overlaps_but_at_its_edge_does_not() -> None:
    rep = Edit(1, 0, 5, "A")
    inside, at_end, at_start = Edit(1, 2, 2, "!"), Edit(1, 5, 5, "!"), Edit(1, 0, 0, "!")
    assert select_edits([rep, inside]) == [rep]
    assert select_edits([inside, rep]) == [inside]
    assert apply_edits(src(), [rep, at_end, at_start]).startswith("!A! beta\n")


def test_insert_lines_after_and_before() -> None:
    s = src()
    after = Edit.insert_after(1, s.line(1), ["new 1", "new 2"])
    before = Edit.insert_before(3, ["pre"])
    out = apply_edits(s, [after, before])
    assert out == "alpha beta\nnew 1\nnew 2\ngamma delta\npre\nepsilon\n"


def test_insert_after_the_last_line_without_final_newline() -> None:
    s = src("a\nb")
    out = apply_edits(s, [Edit.insert_after(2, "b", ["c"])])
    assert out == "a\nb\nc"


def test_edit_on_the_last_line_without_final_newline() -> None:
    assert apply_edits(src("a\nb c"), [Edit(2, 2, 3, "C")]) == "a\nb C"


def test_crlf_is_kept_and_new_lines_get_the_file_newline() -> None:
    s = src(TEXT.replace("\n", "\r\n"))
    out = apply_edits(s, [Edit(2, 0, 5, "G"), Edit.insert_after(1, s.line(1), ["x", "y"])])
    assert out == "alpha beta\r\nx\r\ny\r\nG delta\r\nepsilon\r\n"


def test_lone_cr_newline_for_inserted_lines() -> None:
    s = src("a\rb\r")
    assert apply_edits(s, [Edit.insert_before(2, ["z"])]) == "a\rz\rb\r"


def test_mixed_endings_each_line_keeps_its_own() -> None:
    s = src("a\r\nb\nc\r\n")
    out = apply_edits(s, [Edit(1, 0, 1, "A"), Edit(2, 0, 1, "B"), Edit(3, 0, 1, "C")])
    assert out == "A\r\nB\nC\r\n"


def test_edit_out_of_range_is_ignored() -> None:
    assert apply_edits(src(), [Edit(99, 0, 1, "x")]) == TEXT


def test_whole_line_edit() -> None:
    s = src()
    assert apply_edits(s, [Edit(3, 0, len(s.line(3)), "E")]) == "alpha beta\ngamma delta\nE\n"


def test_no_edits_is_identity() -> None:
    for text in ("", "x", "a\r\nb", "a\rb\n\n"):
        assert apply_edits(src(text), []) == text


# --- select_fixes: a fix is all or nothing ----------------------------------------------------


def test_a_fix_that_overlaps_is_skipped_whole() -> None:
    a = fix(Edit(1, 0, 5, "A"), Edit(2, 0, 5, "G"))
    b = fix(Edit(2, 1, 2, "x"), Edit(3, 0, 7, "E"))  # line 3 alone would not overlap
    assert select_fixes([a, b]) == list(a.edits)
    assert apply_fixes(src(), [a, b]) == "A beta\nG delta\nepsilon\n"


def test_fixes_sharing_an_identical_edit_both_apply() -> None:
    shared = Edit(1, 0, 5, "A")
    a = fix(shared, Edit(2, 0, 5, "G"))
    b = fix(shared, Edit(3, 0, 7, "E"))
    assert apply_fixes(src(), [a, b]) == "A beta\nG delta\nE\n"


def test_fix_span() -> None:
    f = fix(Edit(3, 0, 1, "x"), Edit(1, 0, 1, "y"))
    assert (f.start_line, f.end_line) == (1, 3)


# --- replacement(): what reporters put in JSON / suggestions -----------------------------------


def splice(s: Source, start: int, end: int, text: str) -> str:
    """Replace whole lines start..end (with their endings) by text."""
    whole = [c + e for c, e in zip(s.lines, s.eols, strict=True)]
    return "".join(whole[: start - 1]) + text + "".join(whole[end:])


@pytest.mark.parametrize(
    ("text", "f"),
    [
        (TEXT, fix(Edit(2, 6, 11, "DELTA"))),
        (TEXT, fix(Edit(1, 0, 5, "A"), Edit(3, 0, 7, "E"))),
        (TEXT, fix(Edit.insert_after(3, "epsilon", ["zeta", "eta"]))),
        (TEXT, fix(Edit.insert_before(2, ["pre"]))),
        ("a\r\nb\r\n", fix(Edit.insert_after(1, "a", ["x"]), Edit(2, 0, 1, "B"))),
        ("a\nb", fix(Edit.insert_after(2, "b", ["c"]))),
        ("a\rb\r", fix(Edit(2, 0, 1, "B"))),
    ],
)
def test_replacement_replaces_whole_lines(text: str, f: Fix) -> None:
    s = src(text)
    start, end, new = replacement(s, f)
    assert (start, end) == (f.start_line, f.end_line)
    assert splice(s, start, end, new) == apply_fixes(s, [f])


def test_replacement_json_shape() -> None:
    s = src(TEXT.replace("\n", "\r\n"))
    f = fix(Edit(2, 6, 11, "DELTA"), Edit.insert_after(2, s.line(2), ["new"]))
    start, end, text = replacement(s, f)
    doc = {"start_line": start, "end_line": end, "replacement": text}
    assert json.loads(json.dumps(doc)) == {
        "start_line": 2,
        "end_line": 2,
        "replacement": "gamma DELTA\r\nnew\r\n",
    }
    assert type(start) is int and type(end) is int and isinstance(text, str)


def test_replacement_of_a_real_finding() -> None:
    s = src(
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        "| img/s |\n|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |\n"
    )
    (f,) = [f for f in check_source(s).findings if f.rule == "PB401"]
    assert f.fix is not None and f.fix.title == "Set img/s to 550.54"
    assert replacement(s, f.fix) == (
        3,
        3,
        "| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |\n",
    )


def test_split_lines_on_every_ending() -> None:
    assert split_lines("a\r\nb\rc")[0] == ["a", "b", "c"]
    assert split_lines("a\r\nb\rc")[1] == ["\r\n", "\r", ""]


# --- the fix loop --------------------------------------------------------------------------------

OVERLAPPING = """\
| Model Name | resolution | cards | batch size | jit level | graph compile | img/s | s/step |
|------------|:----------:|:-----:|:----------:|:---------:|:-------------:|:-----:|:------:|
| dit        | 256x256    | 1     | 64         | O2        | 3~5 mins      | 71.9  | 0.89   |
"""


def test_overlapping_fixes_settle_over_several_passes() -> None:
    """Rename (PB301), centre (PB305), 2 decimals (PB410) and reorder (PB304) touch the same
    lines; the loop applies what it can, re-checks and applies the rest. img/s is padded with a
    zero like every 2-decimal column (presentation, issue 22)."""
    text, fixed = fix_source(src(OVERLAPPING))
    assert text == (
        "| model name | cards | batch size | resolution | jit level | graph compile | s/step "
        "| img/s |\n"
        "|:----------:|:-----:|:----------:|:----------:|:---------:|:-------------:|:------:"
        "|:-----:|\n"
        "| dit        | 1     | 64         | 256x256    | O2        | 3~5 mins      | 0.89   "
        "| 71.90 |\n"  # the padded cell takes its own padding: the pipe stays (newcomer-2 18)
    )
    assert {f.rule for f in fixed} == {"PB301", "PB304", "PB305", "PB410"}
    assert not [f for f in check_source(src(text)).findings if f.fix]
    assert fix_source(src(text)) == (text, [])


def test_a_fix_that_never_settles_is_a_bug_not_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    def flip(ctx: engine.Context) -> Iterator[Issue]:
        line = ctx.source.line(1)
        yield Issue(1, "flip", Fix("flip", (Edit(1, 0, len(line), "b" if line == "a" else "a"),)))

    bad = Rule("PB999", "flip", "warning", "document", "always", flip, "structure")
    monkeypatch.setattr(engine, "all_rules", lambda: [bad])
    with pytest.raises(RuntimeError, match="did not settle"):
        fix_source(src("a\n"))


def test_a_fix_that_changes_nothing_stops_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    def same(ctx: engine.Context) -> Iterator[Issue]:
        yield Issue(1, "same", Fix("same", (Edit(1, 0, 1, "a"),)))

    rule = Rule("PB998", "same", "warning", "document", "always", same, "structure")
    monkeypatch.setattr(engine, "all_rules", lambda: [rule])
    assert fix_source(src("a\n")) == ("a\n", [])


def test_a_line_inserted_after_a_lone_cr_does_not_merge_into_crlf():
    # Mixed endings: a blank line inserted after a line that ends in "\r" must stay a blank line
    # ("\r" + "\n" would read as one CRLF, and the fix would change nothing a reader sees).
    text = '<div align="center">\n| mindspore |\n| :--: |\n</div>\r| jit level |\n| :--: |\n'
    fixed, _ = fix_source(Source.from_text(text))
    assert "\r\n" not in fixed
    assert "</div>\r\r| jit level |" in fixed
    again, _ = fix_source(Source.from_text(fixed))
    assert again == fixed


# --- an aligned table keeps its column width (newcomer-2 item 18) ------------------------------

ALIGNED = """\
# Model

## Performance

Experiments are tested on Ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:----------:|:-----:|:----------:|:----------:|:---------:|:-------------:|:------:|:-----:|
| dit-xl     | 8     | 4          | 256x256    | O0        | 1~2 mins      | 6.6    | 4.85  |
|dit-l|8|4|256x256|O0|1~2 mins|5.7|5.61|
"""


def test_a_padded_cell_takes_its_own_padding_and_the_pipe_stays() -> None:
    out, _ = fix_source(src(ALIGNED))
    lines = out.splitlines()
    row = next(x for x in lines if x.startswith("| dit-xl"))
    delim = next(x for x in lines if x.startswith("|:---"))
    assert row == (
        "| dit-xl     | 8     | 4          | 256x256    | O0        | 1~2 mins      "
        "| 6.60   | 4.85  |"
    )
    assert [i for i, c in enumerate(row) if c == "|"] == [
        i for i, c in enumerate(delim) if c == "|"
    ]
    assert "|dit-l|8|4|256x256|O0|1~2 mins|5.70|5.61|" in lines  # no room: the cell grows
    assert fix_source(src(out)) == (out, [])  # idempotent


def test_fitted_edit_gives_back_or_takes_padding_only_before_a_pipe() -> None:
    line = "| 0.123    | x |"
    grow = Edit(1, 2, 7, "0.12345", fit=True)
    assert apply_edits(src(line + "\n"), [grow]) == "| 0.12345  | x |\n"
    shrink = Edit(1, 2, 7, "0.1", fit=True)
    assert apply_edits(src(line + "\n"), [shrink]) == "| 0.1      | x |\n"
    tight = "| 0.123 | x |\n"  # one space: not aligned, so nothing is padded
    assert apply_edits(src(tight), [Edit(1, 2, 7, "0.1", fit=True)]) == "| 0.1 | x |\n"
    prose = "a 0.123    b\n"  # no pipe after the spaces: the edit is as given
    assert apply_edits(src(prose), [Edit(1, 2, 7, "0.12345", fit=True)]) == "a 0.12345    b\n"
    assert apply_edits(src(line + "\n"), [Edit(1, 2, 7, "0.12345")]) == "| 0.12345    | x |\n"
