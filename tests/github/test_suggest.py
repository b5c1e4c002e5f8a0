"""perfbot.github.suggest: suggestion blocks, fingerprints and markers, body clamping."""

import re

import cmarkgfm
import mistune
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfbot.github.suggest import (
    MAX_BODY,
    clamp_body,
    fence_length,
    find_markers,
    fingerprint,
    marker,
    suggestion_block,
)

_ast = mistune.create_markdown(renderer="ast")


def _code_blocks(markdown: str) -> list[dict]:
    return [t for t in _ast(markdown) if t["type"] == "block_code"]


# ---- suggestion_block ------------------------------------------------------------------------


def test_suggestion_block_plain():
    assert suggestion_block("| dit | 8 |") == "```suggestion\n| dit | 8 |\n```"


def test_one_trailing_newline_is_dropped():
    assert suggestion_block("a\nb\n") == "```suggestion\na\nb\n```"
    assert suggestion_block("a\r\n") == "```suggestion\na\n```"
    assert suggestion_block("a\n\n") == "```suggestion\na\n\n```"  # a blank line is kept


def test_empty_suggestion_deletes_the_lines():
    assert suggestion_block("") == "```suggestion\n```"
    (block,) = _code_blocks(suggestion_block(""))
    assert block["raw"] == ""


def test_fence_outgrows_backticks_inside():
    text = "Use ``` fences or ```` longer ones: `x`"
    block = suggestion_block(text)
    assert block.startswith("`````suggestion\n") and block.endswith("\n`````")
    assert fence_length(text) == 5
    assert fence_length("no ticks") == 3


_md_text = st.lists(
    st.sampled_from([*"`~ |-ab\n\t>#*_é", "```", "````", "\n```", "\n   ````"]), max_size=40
).map("".join)


@given(_md_text)
def test_suggestion_fence_is_longer_than_any_fence_inside(text):
    block = suggestion_block(text)
    fence = block[: block.index("suggestion")]
    assert set(fence) == {"`"} and len(fence) >= 3
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    assert len(fence) > longest
    assert block.endswith("\n" + fence) or block == f"{fence}suggestion\n{fence}"


@settings(max_examples=200)
@given(_md_text)
def test_suggestion_block_renders_as_one_code_block_holding_the_text(text):
    # CommonMark's view (mistune): one fenced block, info "suggestion", content = the text.
    expected = text[:-1] if text.endswith("\n") else text
    blocks = _code_blocks(suggestion_block(text))
    assert len(blocks) == 1
    assert blocks[0]["attrs"]["info"] == "suggestion"
    assert blocks[0]["raw"] == (expected + "\n" if expected else "")


# ---- fingerprints and markers ----------------------------------------------------------------


def test_fingerprint_is_pinned():
    # Changing this breaks de-duplication of comments already posted: don't.
    fp = fingerprint("configs/dit/README.md", "performance", "dit|8", "PB001")
    assert fp == "59d17b0a52af80ae"


def test_fingerprint_ignores_path_spelling_and_has_no_line_numbers():
    a = fingerprint("configs/dit/README.md", "performance", "dit|8", "PB001")
    assert fingerprint("./configs/dit/README.md", "performance", "dit|8", "PB001") == a
    assert fingerprint("configs\\dit\\README.md", "performance", "dit|8", "PB001") == a
    assert re.fullmatch(r"[0-9a-f]{16}", a)


@pytest.mark.parametrize(
    "other",
    [
        ("configs/vit/README.md", "performance", "dit|8", "PB001"),
        ("configs/dit/README.md", "requirements", "dit|8", "PB001"),
        ("configs/dit/README.md", "performance", "dit|1", "PB001"),
        ("configs/dit/README.md", "performance", "dit|8", "PB002"),
        ("configs/dit/README.md", "performance", None, "PB001"),
        ("configs/dit/README.md", "performance\x1fdit", "8", "PB001"),
    ],
)
def test_fingerprint_changes_with_any_part(other):
    assert fingerprint(*other) != fingerprint(
        "configs/dit/README.md", "performance", "dit|8", "PB001"
    )


def test_marker_round_trip():
    fps = {fingerprint("a.md", "t", str(i), "PB001") for i in range(3)}
    body = "Intro\n" + "\n".join(f"finding {marker(fp)}" for fp in sorted(fps))
    assert find_markers(body) == fps
    assert marker("abc") == "<!-- perfbot:fp=abc -->"
    assert find_markers("<!--perfbot:fp=abc-->") == {"abc"}
    assert find_markers(None) == set() and find_markers("<!-- other:fp=abc -->") == set()


@pytest.mark.parametrize("bad", ["", "a-->b", "a b", "x" * 65, "<!--"])
def test_marker_refuses_what_could_break_the_comment(bad):
    with pytest.raises(ValueError):
        marker(bad)


def test_marker_is_hidden_when_rendered():
    assert mistune.html(f"text\n\n{marker('abc')}\n").count("perfbot") == 1  # only in the comment
    assert "<!-- perfbot:fp=abc -->" in mistune.html(f"text\n\n{marker('abc')}\n")


# ---- clamp_body --------------------------------------------------------------------------------


def _outside_code(markdown: str, needle: str) -> bool:
    """``needle`` is in the HTML GitHub renders (cmark-gfm) and not inside a <pre> block."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown)
    html = re.sub(r"<pre.*?</pre>", "", rendered, flags=re.S)
    return needle in html


def test_short_bodies_are_untouched():
    assert clamp_body("hello") == "hello"
    body = "x" * MAX_BODY
    assert clamp_body(body) is body


def test_long_text_is_cut_after_a_line_with_a_note():
    body = "".join(f"line {i}\n" for i in range(20000))
    out = clamp_body(body)
    assert len(out) <= MAX_BODY
    kept = out[: out.index("> [!NOTE]")]
    assert kept.endswith("\n\n") and body.startswith(kept[:-1])
    omitted = int(re.search(r"(\d+) characters were left out", out)[1])
    assert omitted == len(body) - len(kept) + 1


def test_a_cut_inside_a_code_fence_closes_the_fence():
    body = "Log:\n\n````text\n" + "".join(f"step {i}: ``ok``\n" for i in range(500)) + "````\nend"
    out = clamp_body(body, limit=2000)
    assert len(out) <= 2000
    assert "\n````\n" in out
    assert _outside_code(out, "characters were left out")


def test_a_cut_inside_a_suggestion_drops_the_whole_block():
    rows = "".join(f"| dit | {i} |\n" for i in range(300))
    body = "Fix the table:\n\n```suggestion\n" + rows + "```\n" + marker("abc")
    out = clamp_body(body, limit=1000)
    assert "suggestion" not in out and "| dit |" not in out
    assert out.startswith("Fix the table:\n")
    assert find_markers(out) == {"abc"}
    assert _outside_code(out, "characters were left out")


def test_markers_of_the_dropped_part_are_kept():
    body = "".join(f"- finding {i}: {'detail ' * 20}{marker(f'fp{i}')}\n" for i in range(100))
    out = clamp_body(body, limit=6000)
    assert len(out) <= 6000 < len(body)
    assert find_markers(out) == {f"fp{i}" for i in range(100)}


def test_markers_that_cannot_fit_are_given_up_before_the_note():
    body = "".join(f"- {marker(f'fp{i}')}\n" for i in range(400))
    out = clamp_body(body, limit=3000)
    assert len(out) <= 3000
    assert _outside_code(out, "characters were left out")


def test_open_details_are_closed():
    body = "<details>\n<summary>More</summary>\n\n" + "row\n" * 2000 + "</details>\n"
    out = clamp_body(body, limit=500)
    assert out.count("<details>") == out.count("</details>") == 1
    assert len(out) <= 500


def test_never_cuts_inside_an_html_comment():
    body = "a\n" * 10 + "<!-- " + "hidden " * 200 + "-->\n" + "b\n" * 10
    out = clamp_body(body, limit=400)
    assert out.count("<!--") == out.count("-->")
    assert _outside_code(out, "characters were left out")


def test_tiny_limits_still_fit():
    assert clamp_body("x" * 100, limit=10) == "x" * 10
    assert clamp_body("x" * 100, limit=0) == ""


_pieces = st.lists(
    st.one_of(
        st.sampled_from(["text line\n", "\n", "<details>\n", "</details>\n", "| a | b |\n"]),
        st.builds(
            lambda f, body: f"{f}\n{body}{f}\n",
            st.sampled_from(["```", "````", "~~~"]),
            st.text(alphabet="ab`\n ", max_size=300),
        ),
        st.builds(
            lambda body: f"```suggestion\n{body}```\n", st.text(alphabet="ab|\n", max_size=300)
        ),
        st.builds(marker, st.from_regex(r"[a-f0-9]{16}", fullmatch=True)),
        st.text(alphabet="xyz `~\n", max_size=200),
    ),
    max_size=40,
)


def test_a_fence_inside_an_html_block_is_not_a_fence():
    # After `<details>` with no blank line, CommonMark reads the following lines as HTML up to a
    # blank line: the ``` lines there open nothing, and the one after the blank line does.
    pieces = ["text line\n"] * 15 + ["<details>\n", "```\n``````\n", "```\n```` `\n\n```\n"]
    pieces += ["```suggestion\naaaaaa```\n", marker("0" * 16)]
    body = "".join(pieces) + "x" * 200
    out = clamp_body(body, 400)
    assert len(out) <= 400
    assert _outside_code(out, "characters were left out")


@settings(max_examples=150, deadline=None)
@given(_pieces, st.integers(400, 4000))
def test_clamp_body_properties(pieces, limit):
    body = "".join(pieces)
    out = clamp_body(body, limit)
    assert len(out) <= limit
    if len(body) <= limit:
        assert out == body
        return
    assert _outside_code(out, "characters were left out")
    markers = find_markers(body)
    if sum(len(marker(m)) for m in markers) < limit // 4:
        assert find_markers(out) == markers
