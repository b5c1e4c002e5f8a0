"""Issue 7, the second look: cases found by hand-judging perfbot on READMEs nobody tuned it to."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot.engine import check_source
from perfbot.source import Source

RULES = Path(__file__).parent / "fixtures" / "rules"


def _renders_table(markdown: str) -> bool:
    """Whether GitHub renders a table under `## Performance`."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    html = cmarkgfm.github_flavored_markdown_to_html(markdown.split("## Performance")[1])
    return "<table>" in html


def test_summary_fixtures_agree_with_cmark_gfm():
    bad = (RULES / "PB603" / "summary_no_blank_line.md").read_text(encoding="utf-8")
    fixed = (RULES / "PB603" / "summary_no_blank_line.fixed.md").read_text(encoding="utf-8")
    good = (RULES / "PB603" / "pass_summary_blank_line.md").read_text(encoding="utf-8")
    assert not _renders_table(bad)
    assert _renders_table(fixed)
    assert _renders_table(good)


def test_table_under_summary_is_found_with_its_sentence():
    text = (RULES / "PB603" / "summary_no_blank_line.md").read_text(encoding="utf-8")
    findings = check_source(Source.from_text(text, path="README.md")).findings
    assert [f.line for f in findings if f.rule == "PB603"] == [13, 21]
    assert not [f for f in findings if f.rule == "PB201"]  # the <summary> sentence is its own


def _recognition(text: str):
    from perfbot.config import Config
    from perfbot.context import Context

    ctx = Context(Source.from_text(text, path="README.md"), Config())
    return ctx, [ctx.recognised(t) for t in ctx.doc.tables]


REQ_HEAD = "| mindspore | ascend driver | cann |\n|:-:|:-:|:-:|\n"


def test_minimum_versions_are_decided_by_recognition():
    text = "# Toy\n\n## Requirements\n\n" + REQ_HEAD + "| >=2.6.0 | >=24.1.RC1 | >=8.1.RC1 |\n"
    _, (rec,) = _recognition(text)
    assert rec.kind == "requirements"
    assert rec.floors == (">=2.6.0",)
    assert any("minimum versions" in r for r in rec.reasons)  # --explain-tables says why
    # tested versions (a `+` inside a CANN beta is no floor), and a floor on a 310P row only
    tested = REQ_HEAD + "| 2.6.0 | 24.1.RC3 | 8.1.RC1 |\n| >=2.6.0 (310P) | 23.0.0 | 7.0.0 |\n"
    _, (rec,) = _recognition("# Toy\n\n## Requirements\n\n" + tested)
    assert rec.kind == "requirements"
    assert rec.floors == ()


PERF = (
    "| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s "
    "|\n"
    "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
    "| toy | 1 | 64 | 32x100 | O2 | 3~5 mins | 0.89 | 71.91 |\n"
)


@pytest.mark.parametrize(
    ("above", "hardware"),
    [
        ("在采用图模式的ascend 310P上实验结果，mindspore lite版本为2.5.0\n\n", "310P"),
        (
            "Experiments are tested on Orange Pi AIpro with mindspore 2.3.1 graph mode.\n\n",
            "Orange Pi",
        ),
        ("### Inference on Ascend 310P\n\n", "310P"),
        # near misses: 910 in the sentence wins over a GPU named beside it; a heading naming
        # only Ascend is the guide's machine
        (
            "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode (not GPU).\n\n",
            "",
        ),
        ("### Inference on Ascend\n\n", ""),
    ],
)
def test_other_hardware_performance_tables(above, hardware):
    _, (rec,) = _recognition("# Toy\n\n## Performance\n\n" + above + PERF)
    assert rec.kind in ("training", "inference")  # still checked for form
    assert rec.hardware == hardware
    assert any("not Ascend 910" in r for r in rec.reasons) == bool(hardware)
