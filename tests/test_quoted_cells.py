"""A cell quoted in a finding's message (``q``) is one code span holding exactly the cell, also when
the cell holds backticks: in the terminal it reads as the cell, and in a posted review (through
``github.markdown.message``) cmark-gfm renders it as one ``<code>`` with the cell's text."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gfm import render
from perfbot.github.markdown import message
from perfbot.rules._util import q

CELLS = ["0.89", "`0.89`", "a `b` c", "``x``", "`", "``", "a``b`c", "3~5 mins`"]


def _codes(md: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", render(md), re.S)]


@pytest.mark.parametrize("cell", CELLS)
def test_a_quoted_cell_is_one_code_span_of_the_cell(cell: str) -> None:
    text = f"img/s {q(cell)} does not match"
    assert _codes(text) == [cell]
    # posted: the review re-fences every code span of a message, and keeps this one whole
    assert _codes(message(text)) == [cell]


@given(st.text(alphabet="`ab ~|", min_size=1, max_size=20).filter(lambda s: s.strip(" ")))
def test_any_cell_of_backticks_and_text_stays_one_span(cell: str) -> None:
    assert _codes(f"x {q(cell)} y") == [cell]


def test_a_header_with_backticks_is_quoted_whole_in_the_column_order_message() -> None:
    from perfbot.engine import check_source
    from perfbot.source import Source

    text = (
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        "| model name | `ema` | cards | batch size | resolution | jit level | graph compile "
        "| s/step | img/s |\n|---|---|---|---|---|---|---|---|---|\n"
        "| dit | `ON` | 1 | 64 | 256x256 | O2 | 3~5 mins | 0.89 | 71.91 |\n"
    )
    (order,) = [f for f in check_source(Source.from_text(text, "README.md")).findings
                if f.rule == "PB304"]  # fmt: skip
    codes = _codes(order.message)
    assert codes[0].startswith("| model name | cards |") and "| `ema` |" in codes[0]
    assert codes[1] == "`ema`"
    assert _codes(message(order.message)) == codes
