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
