"""Recognition: what each table is and what its columns mean, decided once, with reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot.cli import main
from perfbot.config import Config
from perfbot.context import Context
from perfbot.engine import check_source, fix_source
from perfbot.source import Source

RULES = Path(__file__).parent / "fixtures" / "rules"

REQ = (
    "| mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
    "| :-: | :-: | :-: | :-: |\n"
    "| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |\n"
)
PERF = (
    "| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |"
    "\n"
    "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
    "| toy | 1 | 8 | 512x512 | O2 | 5 mins | 0.50 | 16.00 |\n"
)


def ctx_of(text: str) -> Context:
    return Context(Source.from_text(text, path="README.md"), Config())


def kinds(text: str) -> list[str]:
    ctx = ctx_of(text)
    return [ctx.recognition[t.index].kind for t in ctx.doc.tables]


def test_kinds_from_the_tables_own_evidence():
    text = (
        "# Toy: Video Generation\n\n## Requirements\n\n" + REQ + "\n## Training\n\n" + PERF
        + "\n## Inference\n\n" + PERF + "\n## Results\n\n" + PERF
    )  # fmt: skip
    # the title's "Generation" decides nothing; each table's own heading does
    assert kinds(text) == ["requirements", "training", "inference", "training"]


def test_a_scheduler_column_makes_an_inference_table_under_any_heading():
    perf = PERF.replace("| jit level |", "| scheduler | jit level |", 1).replace(
        "|:--:|", "|:--:|:--:|", 1
    )
    perf = perf.replace("| O2 |", "| ddim | O2 |")
    assert kinds("# Toy\n\n## Training\n\n" + perf) == ["inference"]


@pytest.mark.parametrize(
    "header",
    [
        "| ToyKit version | MindSpore | CANN | Driver/Firmware |",  # a product's version mapping
        "| application | MindSpore | CANN | ascend driver |",  # an index of applications
        "| mindspore | gpu driver | cuda version | gpu type |",  # another machine
    ],
)
def test_tables_that_are_not_the_guides_requirements(header):
    table = header + "\n|---|---|---|---|\n| 2.3.1 | 8.0.RC3.beta1 | 24.1.RC2 | x |\n"
    # (a mapping or an index with MindSpore and CANN is read for its versions only: no rule but
    # the CANN check runs on it, and the rules see a table of another kind)
    ctx = ctx_of("# Toy\n\n## Requirements\n\n" + table)
    assert [t.kind for t in ctx.doc.tables] == ["other"]
    assert check_source(Source.from_text("# Toy\n\n" + table, path="R.md")).findings == []


def test_a_requirements_table_needs_three_columns_or_a_requirements_heading():
    two = "| mindspore | cann |\n|---|---|\n| 2.3.1 | 8.0.RC2.beta1 |\n"
    assert kinds("# Toy\n\n## Notes\n\n" + two) == ["other"]
    assert kinds("# Toy\n\n## Requirements\n\n" + two) == ["requirements"]
    three = "| mindspore | ascend driver | cann |\n|---|---|---|\n| 2.3.1 | 24.1.RC2 | 8.0.0 |\n"
    assert kinds("# Toy\n\n## Notes\n\n" + three) == ["requirements"]


def test_column_meanings_are_recorded_with_reasons():
    text = (
        "# Toy\n\n## Performance\n\n"
        "| model name | cards | batch size | recall | precision | f-score | s/step | tokens/s |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| toy | 1 | 8 | 80.00% | 85.00% | 82.00% | 0.50 | 16.00 |\n"
    )
    ctx = ctx_of(text)
    (t,) = ctx.doc.tables
    cols = ctx.columns(t)
    assert cols[4].column is None and "metric" in cols[4].note  # precision: a score
    assert cols[7].column is None and cols[7].slot == "img/s"  # tokens/s: the tail's throughput
    assert ctx.column(t, "precision") is None


def test_explain_tables_prints_kind_reasons_and_columns(tmp_path, capsys):
    f = tmp_path / "README.md"
    f.write_text(
        "# Toy\n\n## Requirements\n\n" + REQ + "\n## Versions\n\n"
        "| ToyKit version | MindSpore | CANN |\n|---|---|---|\n| 0.4 | 2.6.0 | 8.1.RC1 |\n"
        "\n## Sampling\n\n"
        "| model name | cards | sample time | s/step | img/s |\n|---|---|---|---|---|\n"
        "| toy | 1 | 50s | 0.50 | 2.00 |\n",
        encoding="utf-8",
    )
    assert main(["check", "--explain-tables", str(f)]) == 0
    out = capsys.readouterr().out
    assert "line 5: requirements" in out
    assert "line 11: other" in out and "version mapping of 'ToyKit version'" in out
    assert "line 17: inference" in out and "its heading 'Sampling' says so" in out
    assert "not reordered: the timing column 'sample time' is not understood" in out
    assert "column 4 's/step': s/step" in out


def _renders_table(markdown: str) -> bool:
    """What GitHub does: cmark-gfm (a dev dependency) renders a <table>."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    html = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE
    )
    return "<table>" in html


@pytest.mark.parametrize(
    "wrapper",
    [
        '<div align="center">\n',
        '<p align="center">\n',
        "<details>\n",
    ],
)
def test_pb603_is_what_github_does_not_render(wrapper):
    text = (
        "# Toy\n\n## Requirements\n\n" + REQ + "\n## Performance\n\n" + wrapper + PERF + "</div>\n"
    )
    src = Source.from_text(text, path="README.md")
    rules = {f.rule for f in check_source(src).findings}
    assert not _renders_table(text.split("## Performance")[1])
    assert "PB603" in rules
    fixed, _ = fix_source(src)
    assert _renders_table(fixed.split("## Performance")[1])
    assert "PB603" not in {f.rule for f in check_source(Source.from_text(fixed)).findings}


def test_pb603_fixtures_agree_with_cmark_gfm():
    bad = (RULES / "PB603" / "div_no_blank_line.md").read_text(encoding="utf-8")
    good = (RULES / "PB603" / "div_no_blank_line.fixed.md").read_text(encoding="utf-8")
    assert not _renders_table(bad)
    assert _renders_table(good)


def test_other_hardware_beside_910_is_still_checked():
    table = REQ
    assert kinds("# Toy\n\n## Requirements (Ascend 910* and GPU)\n\n" + table) == ["requirements"]
    assert kinds("# Toy\n\n## Requirements (GPU)\n\n" + table) == ["other"]
    rows = table + "| 2.3.1 (310P) | 23.0.0 | 7.1.0.3.220 | 7.0.0.beta1 |\n"
    ctx = ctx_of("# Toy\n\n## Requirements\n\n" + rows)
    (t,) = ctx.doc.tables
    assert [r.line for r in t.rows] == [7]  # the 310P row is not one the rules see
    assert ctx.recognised(t).skipped_rows == (8,)


@pytest.mark.parametrize(
    ("cell", "fixed"),
    [
        ("**Model Name**", "**model name**"),
        ("<b>Model Name</b>", "<b>model name</b>"),
        ("`Model Name`", "`model name`"),
    ],
)
def test_a_rename_keeps_the_emphasis_of_the_header_cell(cell, fixed):
    text = "# Toy\n\n## Performance\n\n" + PERF.replace("| model name |", f"| {cell} |", 1)
    src = Source.from_text(text, path="README.md")
    (f,) = [f for f in check_source(src).findings if f.rule == "PB301"]
    assert "model name" in f.message
    new, _ = fix_source(src)
    assert new.splitlines()[4].startswith(f"| {fixed} |")


def test_emphasis_alone_is_not_a_finding():
    bold = "| " + " | ".join(f"**{c.strip()}**" for c in PERF.splitlines()[0].strip("|").split("|"))
    text = "# Toy\n\n## Performance\n\n" + bold + " |\n" + "\n".join(PERF.splitlines()[1:]) + "\n"
    rules = {f.rule for f in check_source(Source.from_text(text, path="README.md")).findings}
    assert not rules & {"PB301", "PB302", "PB303", "PB304"}


def test_a_device_column_first_is_still_a_requirements_table():
    table = (
        "| device | mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
        "|---|---|---|---|---|\n"
        "| Atlas 800T A2 | 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC3.beta1 |\n"
        "| Atlas 300I Duo | 2.3.1 | 23.0.0 | 7.1.0.3.220 | 7.0.0.beta1 |\n"
    )
    ctx = ctx_of("# Toy\n\n## Requirements\n\n" + table)
    (t,) = ctx.doc.tables
    assert ctx.recognised(t).kind == "requirements"
    findings = check_source(Source.from_text("# Toy\n\n## Requirements\n\n" + table)).findings
    assert [f.line for f in findings if f.rule == "PB501"] == [7]  # not the 300I (310P) row


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("**model name**", ("**", "model name", "**")),
        ("precision*", ("", "precision", "*")),
        ("**precision**\\*", ("**", "precision", "**\\*")),
        ("<b>img/s</b>†", ("<b>", "img/s", "</b>†")),
        ("a*b", ("", "a*b", "")),
    ],
)
def test_header_parts_separate_emphasis_and_footnote_marks_from_the_name(text, parts):
    from perfbot.spec import header_parts

    assert header_parts(text) == parts
