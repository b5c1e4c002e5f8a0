"""perfbot.hunks: patches into hunks, commentable lines, filter modes."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from github_fake import GitHubFake, make_patch
from perfbot.hunks import (
    DEFAULT_FILTER_MODE,
    FilterMode,
    Hunk,
    LineKind,
    added_lines,
    can_suggest,
    commentable_lines,
    hunk_of,
    hunks_by_path,
    in_scope,
    parse_patch,
)

# Two hunks: a row added to a table (new lines 3-9), and a row changed further down (25-31).
TWO_HUNKS = "\n".join(
    [
        "@@ -3,6 +3,7 @@ ## Performance",
        " ",
        " | model name | cards | s/step |",
        " |---|---|---|",
        " | dit | 1 | 0.89 |",
        "+| dit | 8 | 0.93 |",
        " ",
        " Experiments are tested on ascend 910*.",
        "@@ -24,7 +25,7 @@ ## Requirements",
        " ",
        " | mindspore | ascend driver |",
        " |---|---|",
        "-| 2.3.0 | 24.1.RC1 |",
        "+| 2.3.1 | 24.1.RC2 |",
        " ",
        " ## Notes",
        " ",
    ]
)


def test_missing_or_empty_patch_has_no_hunks():
    assert parse_patch(None) == []
    assert parse_patch("") == []


def test_two_hunks_numbers_and_kinds():
    a, b = parse_patch(TWO_HUNKS)
    assert (a.old_start, a.old_len, a.new_start, a.new_len) == (3, 6, 3, 7)
    assert a.section == " ## Performance"
    assert [ln.new_line for ln in a.lines] == [3, 4, 5, 6, 7, 8, 9]
    assert a.kind_of(7) is LineKind.ADDED and a.kind_of(6) is LineKind.CONTEXT
    assert a.line(7).text == "| dit | 8 | 0.93 |"
    assert a.line(3).text == ""  # a context line holding an empty line
    deleted = [ln for ln in b.lines if ln.kind is LineKind.DELETED]
    assert [(ln.old_line, ln.new_line) for ln in deleted] == [(27, None)]
    assert b.added == {28}
    assert b.new_range == range(25, 32)


def test_commentable_and_added_lines():
    hunks = parse_patch(TWO_HUNKS)
    assert commentable_lines(hunks) == set(range(3, 10)) | set(range(25, 32))
    assert added_lines(hunks) == {7, 28}
    assert commentable_lines(hunks, side="LEFT") == set(range(3, 9)) | set(range(24, 31))


def test_hunk_of_and_can_suggest():
    hunks = parse_patch(TWO_HUNKS)
    assert hunk_of(hunks, 7) is hunks[0]
    assert hunk_of(hunks, 28) is hunks[1]
    assert hunk_of(hunks, 10) is None
    assert hunk_of(hunks, 27, side="LEFT") is hunks[1]
    assert can_suggest(hunks, 5, 7)
    assert can_suggest(hunks, 7, 7)
    assert not can_suggest(hunks, 8, 5)  # reversed
    assert not can_suggest(hunks, 8, 26)  # two hunks
    assert not can_suggest(hunks, 9, 10)  # 10 is outside every hunk


def test_new_file():
    patch = "@@ -0,0 +1,20 @@\n" + "\n".join(f"+line {i}" for i in range(1, 21))
    (h,) = parse_patch(patch)
    assert (h.old_start, h.old_len, h.new_start, h.new_len) == (0, 0, 1, 20)
    assert commentable_lines([h]) == added_lines([h]) == set(range(1, 21))
    assert all(ln.old_line is None for ln in h.lines)


def test_deleted_file_has_nothing_on_the_right():
    (h,) = parse_patch("@@ -1,3 +0,0 @@\n-a\n-b\n-c")
    assert commentable_lines([h]) == set()
    assert commentable_lines([h], side="LEFT") == {1, 2, 3}
    assert h.new_range == range(0, 0)


def test_header_without_counts():
    (h,) = parse_patch("@@ -1 +1 @@\n-old\n+new")
    assert (h.old_len, h.new_len) == (1, 1)
    assert added_lines([h]) == {1}


def test_no_newline_at_end_of_file_on_both_sides():
    nl = "\\ No newline at end of file"
    patch = f"@@ -1,2 +1,3 @@\n a\n-b\n{nl}\n+b\n+c\n{nl}"
    (h,) = parse_patch(patch)
    assert [(ln.kind.value, ln.text, ln.no_newline) for ln in h.lines] == [
        (" ", "a", False),
        ("-", "b", True),
        ("+", "b", False),
        ("+", "c", True),
    ]
    assert commentable_lines([h]) == {1, 2, 3}


def test_crlf_content_keeps_numbers_and_strips_cr():
    patch = "@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r"
    (h,) = parse_patch(patch)
    assert [(ln.text, ln.cr) for ln in h.lines] == [("a", True), ("b", True), ("B", True)]
    assert added_lines([h]) == {2}
    assert h.text() == "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r"


def test_full_git_diff_headers_are_skipped_and_dashes_inside_a_hunk_are_lines():
    patch = (
        "diff --git a/README.md b/README.md\n"
        "index 83db48f..bf269f4 100644\n"
        "--- a/README.md\n"
        "+++ b/README.md\n"
        "@@ -1,3 +1,3 @@\n"
        " ---\n"
        "--- old rule\n"
        "+++ new rule\n"
        " end\n"
    )
    (h,) = parse_patch(patch)
    assert [(ln.kind, ln.text) for ln in h.lines] == [
        (LineKind.CONTEXT, "---"),
        (LineKind.DELETED, "-- old rule"),
        (LineKind.ADDED, "++ new rule"),
        (LineKind.CONTEXT, "end"),
    ]


def test_text_upto_is_a_diff_hunk_and_text_reparses():
    hunks = parse_patch(TWO_HUNKS)
    assert hunks[0].text(upto_new_line=4).splitlines() == [
        "@@ -3,6 +3,7 @@ ## Performance",
        " ",
        " | model name | cards | s/step |",
    ]
    again = parse_patch("\n".join(h.text() for h in hunks))
    assert again == hunks


def test_renamed_file_and_hunks_by_path():
    files = [
        {"filename": "configs/new/README.md", "status": "renamed", "previous_filename": "x.md"},
        {"filename": "configs/dit/README.md", "patch": TWO_HUNKS},
        {"filename": "logo.png", "status": "added"},  # binary: no patch
    ]
    by_path = hunks_by_path(files)
    assert set(by_path) == {"configs/new/README.md", "configs/dit/README.md", "logo.png"}
    assert by_path["configs/new/README.md"] == [] and by_path["logo.png"] == []
    assert len(by_path["configs/dit/README.md"]) == 2


def test_garbage_inside_a_hunk_closes_it():
    hunks = parse_patch("@@ -1,3 +1,3 @@\n a\n?? not a diff line\n b\n@@ -9 +9 @@\n+x")
    assert [[ln.text for ln in h.lines] for h in hunks] == [["a"], ["x"]]


@pytest.mark.parametrize(
    ("mode", "start", "end", "in_diff", "expected"),
    [
        # diff_context: the table at lines 4-6 overlaps the first hunk's context lines
        (FilterMode.DIFF_CONTEXT, 4, 6, True, True),
        (FilterMode.DIFF_CONTEXT, 10, 24, True, False),  # between the hunks
        (FilterMode.DIFF_CONTEXT, 1, 100, True, True),
        (FilterMode.DIFF_CONTEXT, 4, 6, False, False),
        # added: only a range holding an added line
        (FilterMode.ADDED, 4, 6, True, False),
        (FilterMode.ADDED, 4, 7, True, True),
        (FilterMode.ADDED, 28, 28, True, True),
        # file: anywhere in a file of the diff
        (FilterMode.FILE, 100, 120, True, True),
        (FilterMode.FILE, 4, 7, False, False),
        # nofilter: everything
        (FilterMode.NOFILTER, 100, 120, False, True),
    ],
)
def test_in_scope(mode, start, end, in_diff, expected):
    hunks = parse_patch(TWO_HUNKS) if in_diff else []
    assert in_scope(mode, hunks, start, end, in_diff) is expected


def test_filter_mode_values_and_parsing():
    assert [m.value for m in FilterMode] == ["added", "diff_context", "file", "nofilter"]
    assert DEFAULT_FILTER_MODE is FilterMode.DIFF_CONTEXT
    assert FilterMode.parse("diff-context") is FilterMode.DIFF_CONTEXT
    assert FilterMode.parse(" NoFilter ") is FilterMode.NOFILTER
    assert in_scope("added", parse_patch(TWO_HUNKS), 7, 7, True)
    with pytest.raises(ValueError, match="choose from"):
        FilterMode.parse("everything")
    with pytest.raises(ValueError):
        in_scope(FilterMode.FILE, [], 5, 4, True)


def test_hunks_are_frozen_values():
    (h,) = parse_patch("@@ -1 +1 @@\n-a\n+b")
    assert h == Hunk(1, 1, 1, 1, h.lines, "")
    assert len({h, parse_patch("@@ -1 +1 @@\n-a\n+b")[0]}) == 1
    with pytest.raises(AttributeError):
        h.new_start = 2  # type: ignore[misc]


# ---- properties ------------------------------------------------------------------------------

_patch_lines = st.one_of(
    st.builds(
        lambda a, b, c, d, s: f"@@ -{a},{b} +{c},{d} @@{s}",
        *[st.integers(0, 40)] * 4,
        st.sampled_from(["", " ## Performance"]),
    ),
    st.builds(lambda p, t: p + t, st.sampled_from(["+", "-", " ", "\\", "", "@", "d"]), st.text()),
)


@given(st.text())
def test_parse_patch_never_raises_on_any_text(text):
    parse_patch(text)


@given(st.lists(_patch_lines, max_size=40), st.sampled_from(["\n", "\r\n"]))
def test_parse_patch_never_raises_and_numbers_are_consecutive(lines, sep):
    for h in parse_patch(sep.join(lines)):
        new = [ln.new_line for ln in h.lines if ln.new_line is not None]
        old = [ln.old_line for ln in h.lines if ln.old_line is not None]
        assert new == list(range(new[0], new[0] + len(new))) if new else True
        assert old == list(range(old[0], old[0] + len(old))) if old else True
        assert commentable_lines([h]) == set(new)


_doc_lines = st.lists(
    st.sampled_from(
        ["| a | b |", "|---|---|", "| dit | 1 |", "| dit | 8 |", "", "text", "x\r", "```"]
    ),
    max_size=30,
)


@settings(max_examples=60)
@given(_doc_lines, _doc_lines, st.booleans(), st.booleans())
def test_hunks_of_a_real_diff_show_the_new_text(old, new, old_eol, new_eol):
    old_text = "\n".join(old) + ("\n" if old and old_eol else "")
    new_text = "\n".join(new) + ("\n" if new and new_eol else "")
    new_lines = new_text.split("\n")
    hunks = parse_patch(make_patch(old_text, new_text))
    for h in hunks:
        for ln in h.lines:
            if ln.new_line is not None:
                shown = ln.text + ("\r" if ln.cr else "")
                assert shown == new_lines[ln.new_line - 1]
    # The fake GitHub (with its own patch reader) accepts a comment on exactly these lines.
    fake = GitHubFake()
    pull = fake.add_pull(changes={"README.md": (old_text, new_text)})
    if not pull.files:
        assert hunks == []
        return
    ok = commentable_lines(hunks)
    for line in range(1, len(new_lines) + 2):
        errors = fake._check_review_comments(
            pull, pull.head_sha, [{"path": "README.md", "line": line, "body": "x"}]
        )
        assert (errors == []) == (line in ok), line
