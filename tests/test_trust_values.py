"""Findings a maintainer can trust, beyond what one rule's fixture can say: which rules stay
silent together (the mindone template of minimum versions is one finding, not three)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot.engine import check_source
from perfbot.source import Source, read_source

RULES = Path(__file__).parent / "fixtures" / "rules"


@pytest.mark.parametrize("case", ["floors", "floors_bold_and_plus"])
def test_a_table_of_minimum_versions_is_one_finding(case: str) -> None:
    src = read_source(RULES / "PB103" / f"{case}.md")
    assert isinstance(src, Source)
    findings = check_source(src).findings
    assert [f.rule for f in findings] == ["PB103"], [str(f) for f in findings]


def test_a_sentence_naming_a_version_above_the_floor_is_not_unlisted() -> None:
    text = (
        (RULES / "PB103" / "floors.md")
        .read_text(encoding="utf-8")
        .replace(
            "## Inference\n",
            "## Performance\n\nExperiments are tested on ascend 910* with mindspore 2.6.0 graph "
            "mode.\n\n| model name | cards | batch size | resolution | jit level | graph compile "
            "| s/step | img/s |\n|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
            "| kimi | 1 | 1 | 448x448 | O0 | 1 mins | 0.50 | 2.00 |\n\n## Inference\n",
        )
    )
    rules = [f.rule for f in check_source(Source.from_text(text)).findings]
    assert "PB103" in rules and "PB203" not in rules and "PB101" not in rules
