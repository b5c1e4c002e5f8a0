"""Inline suppression: ``<!-- perfbot-disable ... -->`` comments (perfbot.suppress)."""

from __future__ import annotations

from perfbot.engine import check_source, fix_source
from perfbot.source import Source

REQ = """\
## Requirements

| MindSpore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |
"""

PERF = """\
## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
| :--------: | :---: | :--------: | :--------: | :-------: | :-----------: | :----: | :---: |
| dit | 1 | 64 | 256x256 | o2 | 3~5 mins | 0.89 | 71.91 |
"""


def found(text: str) -> list[tuple[int, str]]:
    """The findings left (PB002, a directive that silences nothing, is tested below)."""
    return [
        (f.line, f.rule)
        for f in check_source(Source.from_text(text, "README.md")).findings
        if f.rule != "PB002"
    ]


def unused(text: str) -> list[tuple[int, str]]:
    return [
        (f.line, f.message)
        for f in check_source(Source.from_text(text, "README.md")).findings
        if f.rule == "PB002"
    ]


def test_without_directives_both_tables_report():
    assert found(REQ + "\n" + PERF) == [(3, "PB301"), (13, "PB413")]


def test_disable_file_all_and_named():
    assert found("<!-- perfbot-disable-file -->\n" + REQ + "\n" + PERF) == []
    got = found("<!-- perfbot-disable-file jit-level-format -->\n" + REQ + "\n" + PERF)
    assert got == [(4, "PB301")]


def test_disable_enable_range_by_id_and_slug():
    text = "<!-- perfbot-disable PB301 PB413 -->\n" + REQ + "<!-- perfbot-enable -->\n\n" + PERF
    assert found(text) == [(15, "PB413")]
    # enable one of two: the other stays off
    text = (
        "<!-- perfbot-disable header-case, PB413 -->\n"
        + REQ
        + "<!-- perfbot-enable PB301 -->\n\n"
        + REQ
        + "\n"
        + PERF
    )
    assert found(text) == [(11, "PB301")]


def test_disable_all_then_enable_one():
    text = "<!-- perfbot-disable -->\n<!-- perfbot-enable PB413 -->\n" + REQ + "\n" + PERF
    assert found(text) == [(15, "PB413")]


def test_disable_next_table_only_touches_the_next_table():
    text = "<!-- perfbot-disable-next-table PB301 PB413 -->\n\n" + REQ + "\n" + REQ + "\n" + PERF
    assert found(text) == [(11, "PB301"), (21, "PB413")]
    # above the sentence of a performance table: the sentence's table is still the next one
    text = REQ + "\n<!-- perfbot-disable-next-table -->\n" + PERF
    assert found(text) == [(3, "PB301")]


def test_a_suppressed_finding_is_not_fixed():
    text = REQ + "\n<!-- perfbot-disable-next-table PB413 -->\n" + PERF
    new, fixed = fix_source(Source.from_text(text, "README.md"))
    assert [f.rule for f in fixed] == ["PB301"]
    assert "| MindSpore |" not in new and "| mindspore |" in new
    assert "| o2 |" in new  # the suppressed PB413 fix was not applied


def test_directives_in_code_fences_and_prose_are_not_directives():
    fenced = "```markdown\n<!-- perfbot-disable-file -->\n```\n"
    assert found(fenced + REQ) == [(6, "PB301")]
    assert found("`perfbot-disable-file` is written in a comment\n" + REQ) == [(4, "PB301")]


def test_unknown_names_are_warnings_and_known_names_still_apply():
    text = "<!-- perfbot-disable-file PB301 nope -->\n" + REQ
    res = check_source(Source.from_text(text, "README.md")).findings
    assert [(f.line, f.rule, f.severity) for f in res] == [(1, "PB001", "warning")]
    assert "`nope`" in res[0].message


def test_hostile_directives_are_bounded():
    from perfbot.rules import resolve
    from perfbot.suppress import MAX_DIRECTIVES, MAX_UNKNOWN, parse_directives

    many = [f"<!-- perfbot-disable nope{i} -->" for i in range(MAX_DIRECTIVES + 50)]
    got = parse_directives(many, resolve)
    assert len(got.items) == MAX_DIRECTIVES and len(got.unknown) == MAX_UNKNOWN
    # a comment that never closes is no directive; a comment runs to its first -->
    assert parse_directives(["<!-- perfbot-disable " + " " * 100_000], resolve).items == []
    assert parse_directives(["<!-- perfbot-disable PB301" * 1000], resolve).items == []
    line = "<!-- x --> <!-- perfbot-enable --> <!-- perfbot-disable PB301 <!-- -->"
    got = parse_directives([line], resolve)
    assert [d.kind for d in got.items] == ["enable", "disable"] and got.unknown == [(1, "<!--")]


def test_a_directive_that_silences_nothing_is_reported():
    # PB301 is silenced in the range (the `MindSpore` header); PB413 is not on the Requirements
    text = "<!-- perfbot-disable PB301 PB413 -->\n" + REQ + "<!-- perfbot-enable -->\n\n" + PERF
    assert [line for line, _ in unused(text)] == [1]
    assert "names PB413, which finds nothing here" in unused(text)[0][1]
    # near misses: each named rule silences something; a range naming no rule that silences
    # something; an enable is never reported
    assert unused("<!-- perfbot-disable PB301 -->\n" + REQ + "<!-- perfbot-enable -->\n") == []
    assert unused("<!-- perfbot-disable -->\n" + REQ + "\n<!-- perfbot-enable -->\n") == []
    assert unused("<!-- perfbot-enable PB301 -->\n" + REQ) == []


def test_an_unused_directive_is_judged_only_on_the_rules_that_ran():
    from perfbot.config import Config

    text = "<!-- perfbot-disable-file PB502 -->\n" + REQ
    src = Source.from_text(text, "README.md")
    assert [f.rule for f in check_source(src).findings] == ["PB002", "PB301"]
    off = Config.model_validate({"rules": {"PB502": "off"}})
    assert [f.rule for f in check_source(src, off).findings] == ["PB301"]
    quiet = Config.model_validate({"rules": {"PB002": "off"}})
    assert [f.rule for f in check_source(src, quiet).findings] == ["PB301"]
