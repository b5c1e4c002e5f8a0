"""Untrusted text in everything perfbot posts, rendered the way GitHub renders it (cmark-gfm with
the GFM extensions, then mentions and references found in the rendered text): one escaping path
(:mod:`perfbot.github.markdown`), and every posted surface checked against a body built from
harmless words (:func:`gfm.assert_inert`)."""

from __future__ import annotations

import html
import re

from hypothesis import example, given, settings

from gfm import hostile, render, shape
from perfbot.github.markdown import ZWJ, block, code, inert, message

OURS_URL = "https://github.com/org/models/blob/"


def ours(href: str) -> bool:
    return href.startswith((OURS_URL, "https://github.com/mindspore-lab/perfbot/blob/main/docs"))


def visible(md: str) -> str:
    """The text of a rendering, tags dropped and entities decoded, ZWJ removed."""
    return html.unescape(re.sub(r"<[^>]+>", "", render(md))).replace(ZWJ, "").strip()


def words(s: str) -> str:
    return " ".join(s.split())


# ---- the fragments -----------------------------------------------------------------------------


@settings(max_examples=200)
@given(hostile)
@example("_@.www.evil.example")  # an e-mail autolink whose domain starts with a dot
def test_text_renders_as_exactly_its_words(s):
    md = inert(s)
    sh = shape(md)
    assert set(sh.tags) <= {"p"}, md
    assert sh.hrefs == [] and sh.mentions == 0 and sh.references == 0 and "<!--" not in md
    want = words("".join(c if c.isprintable() or c.isspace() else "\ufffd" for c in s))
    assert visible(md) == want.strip()


@settings(max_examples=200)
@given(hostile)
def test_code_renders_as_one_code_span_of_its_text(s):
    md = code(s)
    got = render(md)
    assert got.startswith("<p><code>") and got.endswith("</code></p>\n"), (md, got)
    assert got.count("<code>") == 1 and "<!--" not in md
    want = words("".join(c if c.isprintable() or c.isspace() else "\ufffd" for c in s))
    assert visible(md) == want or not want.strip(" ")


@settings(max_examples=200)
@given(hostile, hostile)
def test_a_table_cell_stays_one_cell(a, b):
    for cell in (inert(a, cell=True), code(a, cell=True), message(a, cell=True)):
        md = f"| h | i | j |\n|---|---|---|\n| {cell} | {inert(b, cell=True)} | z |\n"
        sh = shape(md)
        assert sh.tags["td"] == 3 and sh.tags["th"] == 3, md
        assert set(sh.tags) <= {"table", "thead", "tbody", "tr", "th", "td", "code"}, md
        assert sh.hrefs == [] and sh.mentions == 0 and sh.references == 0


@settings(max_examples=200)
@given(hostile)
def test_a_message_keeps_code_spans_and_nothing_else(s):
    md = message(s)
    sh = shape(md)
    assert set(sh.tags) <= {"p", "code"}, md
    assert sh.hrefs == [] and sh.mentions == 0 and sh.references == 0 and "<!--" not in md


@settings(max_examples=300)
@given(hostile)
def test_a_block_shows_the_lines_verbatim(s):
    md = block(s, "text")
    got = render(md)
    assert got.count("<pre") == 1 and "<!--" not in md
    assert set(shape(md).tags) <= {"pre", "code"}
