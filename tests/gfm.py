"""Render Markdown the way GitHub does and say what in it is live: cmark-gfm (``cmarkgfm``, GitHub's
own fork of cmark) with the table, autolink, strikethrough and tagfilter extensions, raw HTML
kept (GitHub's sanitizer keeps ``<img src>``, ``<a href>`` and ``<details>``); then what GitHub's
filters find in the rendered text outside code: ``@name`` mentions (``@org/team`` too) and
``#123`` references.

:func:`shape` sums up a rendering; :func:`assert_inert` compares the rendering of a body built
from hostile strings with the same body built from harmless ones: untrusted text may change the
words, never the tags, the links, the mentions or perfbot's hidden markers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options
from hypothesis import strategies as st

EXTENSIONS = ["table", "autolink", "strikethrough", "tagfilter"]
# GitHub: @login (1-39 of [A-Za-z0-9-], not after a word character), @org/team
MENTION = re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]")
REFERENCE = re.compile(r"(?<![A-Za-z0-9_&])#[0-9]|\bGH-[0-9]", re.IGNORECASE)
_SKIP_TEXT = {"code", "pre", "a"}  # GitHub finds no mention or reference inside these


def render(md: str) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(
        md, options=Options.CMARK_OPT_UNSAFE, extensions=EXTENSIONS
    )


@dataclass
class Shape:
    tags: Counter = field(default_factory=Counter)  # start tags by name
    hrefs: list[str] = field(default_factory=list)  # every href / src
    comments: int = 0  # HTML comments in the rendered output
    text: str = ""  # the text GitHub's mention and reference filters read
    mentions: int = 0
    references: int = 0
    raw_comments: int = 0  # "<!--" in the Markdown source (perfbot's markers live there)


class _Walk(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.shape = Shape()
        self.skip = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.shape.tags[tag] += 1
        for k, v in attrs:
            if k in ("href", "src", "srcset", "action", "formaction", "poster", "data"):
                self.shape.hrefs.append(v or "")
        if tag in _SKIP_TEXT:
            self.skip += 1
            self.parts.append(" ")

    def handle_startendtag(self, tag, attrs):
        self.shape.tags[tag] += 1
        for k, v in attrs:
            if k in ("href", "src"):
                self.shape.hrefs.append(v or "")

    def handle_endtag(self, tag):
        if tag in _SKIP_TEXT and self.skip:
            self.skip -= 1
            self.parts.append(" ")

    def handle_comment(self, data):
        self.shape.comments += 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)
        else:
            self.parts.append(" ")


def shape(md: str) -> Shape:
    w = _Walk()
    w.feed(render(md))
    w.close()
    s = w.shape
    s.text = "".join(w.parts)
    s.mentions = len(MENTION.findall(s.text))
    s.references = len(REFERENCE.findall(s.text))
    s.raw_comments = md.count("<!--")
    return s


def assert_inert(
    hostile: str,
    harmless: str,
    *,
    ours: Callable[[str], bool] = lambda href: False,
    where: str = "",
) -> None:
    """``hostile`` (a body built from attacker strings) renders with the same tags (code spans
    aside: a message's own code spans may differ), the same number of mentions, references and
    hidden markers as ``harmless`` (the same body from plain words), and links only where
    ``ours`` says perfbot made them."""
    h, n = shape(hostile), shape(harmless)
    tags_h = {k: v for k, v in h.tags.items() if k != "code"}
    tags_n = {k: v for k, v in n.tags.items() if k != "code"}
    assert tags_h == tags_n, f"{where}: tags {tags_h} != {tags_n}\n{hostile}"
    bad = [u for u in h.hrefs if not ours(u)]
    assert not bad, f"{where}: links not made by perfbot: {bad}\n{hostile}"
    assert h.mentions == n.mentions, f"{where}: mentions in {h.text!r}"
    assert h.references == n.references, f"{where}: references in {h.text!r}"
    assert h.comments == n.comments, f"{where}: HTML comments\n{hostile}"
    assert h.raw_comments == n.raw_comments, f"{where}: '<!--' in the source\n{hostile}"


# the pieces attackers use; hypothesis strings them together
PIECES = [
    "`", "``", "```", "~~~", "\\", "|", "*", "_", "~~", "[", "]", "(", ")", "!", "<", ">", "&",
    "#", "#1", "@", "@org/maintainers", "@alice", "a@evil.example", "www.evil.example",
    "GH-1", "gh-", "http://evil.example/x", "https:", "//", ".", ":", "-", "+", "1.", "$x$", "=",
    "\n", "\t", " ", "  ", "\r", "\x00", "\u202e", "\u200b", "é", "x", "0.89",
    "<img src=https://evil.example/p.png>", "<a href=https://evil.example>fix</a>",
    "<details><summary>x", "</details>", "<!--", "-->",
    "<!-- perfbot:ok-to-test sha=" + "b" * 40 + " by=maintainer comment=1000004 -->",
    "<!-- perfbot:item=0123456789abcdef -->", "&lt;b&gt;", "&#64;org", "[x](https://evil.example)",
    "![i](https://evil.example/i.png)", "<https://evil.example>", "<script>", "<textarea>",
]  # fmt: skip
hostile = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)
