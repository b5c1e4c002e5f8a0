"""The pure half of ``perfbot review``: findings and fixed text -> items, scope, comment text."""

import itertools

import pytest
from review_kit import BROKEN, REORDER, suggestion_of

from perfbot.config import Config
from perfbot.engine import check_source, fix_source
from perfbot.github.event import CIEnv
from perfbot.github.review import (
    Existing,
    FindingsFile,
    Plan,
    comment_body,
    decide,
    fix_with_map,
    from_file,
    md_text,
    plan_file,
    summary_comment,
    to_file,
)
from perfbot.github.review.render import resolved_body
from perfbot.github.suggest import find_markers
from perfbot.hunks import FilterMode, parse_patch
from perfbot.source import Source

REQUIREMENTS = (
    "## Requirements\n\n"
    "| mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
    "| :-------: | :-----------: | :------: | :-----------------: |\n"
    "| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |\n\n"
)


def plan(text: str, path: str = "m/README.md"):
    src = Source.from_text(text, path=path)
    return src, plan_file(check_source(src, Config()), Config())


def apply(src: Source, items) -> str:
    lines = list(src.lines)
    for it in sorted(items, key=lambda it: -it.start_line):
        if it.suggestion is not None:
            lines[it.start_line - 1 : it.end_line] = (
                it.suggestion.split("\n") if it.suggestion else []
            )
    eol = src.newline
    return eol.join(lines) + (eol if src.text.endswith(("\n", "\r")) else "")


def test_one_item_per_row():
    src, p = plan(BROKEN)
    assert [(it.start_line, it.end_line, it.kind) for it in p.items] == [
        (7, 7, "row"),
        (15, 15, "row"),
        (16, 16, "row"),
        (17, 17, "row"),
    ]
    assert [r.rule for r in p.items[1].reports] == ["PB401", "PB410"]
    assert apply(src, p.items) == fix_source(src)[0]


def test_table_wide_fixes_make_one_item_over_the_table():
    text = REORDER.replace("# ToyGAN\n\n", "# ToyGAN\n\n" + REQUIREMENTS)
    text = text.replace("| cards | bs | resolution |", "| cards | resolution | bs |")
    text = text.replace("| toygan | 1 | 8 | 256 x 256 |", "| toygan | 1 | 256 x 256 | 8 |")
    src, p = plan(text)
    (it,) = p.items
    assert (it.start_line, it.end_line, it.kind) == (13, 15, "table")
    assert {r.rule for r in it.reports} == {"PB302", "PB304", "PB412"}
    assert apply(src, p.items) == fix_source(src)[0]


def test_a_header_fix_and_row_fixes_stay_apart():
    text = REORDER.replace("# ToyGAN\n\n", "# ToyGAN\n\n" + REQUIREMENTS)
    _src, p = plan(text)
    assert [(it.start_line, it.end_line, it.kind) for it in p.items] == [
        (13, 13, "table"),
        (15, 15, "row"),
    ]


def test_inserted_lines_belong_to_the_item_that_adds_them():
    src, p = plan(REORDER)  # no Requirements table: PB101 adds one above the Performance heading
    added = next(it for it in p.items if any(r.rule == "PB101" for r in it.reports))
    assert added.start_line == added.end_line
    assert "| mindspore | ascend driver |" in added.suggestion
    assert added.suggestion.count("\n") >= 5
    assert apply(src, p.items) == fix_source(src)[0]


def test_findings_without_a_fix_join_their_row_or_stand_alone():
    text = BROKEN.replace(
        "| toynet-l | 8 | 32 | 512x512 | o2 | 5~8 mins | 1.60 | 160.00 |",
        "| toynet-l | 8 | 32 | 512x512 | o2 | 5~8 mins | 1.60 | 160.00 | extra |",
    ).replace(
        "| toynet-xl | 8 | 32 | 512x512 | O2 | 8~10 mins | 2.40 | 106.67 |",
        "| toynet-xl | 8 | 32 | 512x512 | O2 | 8~10 mins | 2.40 | 106.67 | extra |",
    )
    _src, p = plan(text)
    row17 = next(it for it in p.items if it.start_line == 17)
    assert {r.rule for r in row17.reports} >= {"PB413", "PB601"} and row17.suggestion
    row18 = next(it for it in p.items if it.start_line == 18)
    assert [r.rule for r in row18.reports] == ["PB601"] and row18.suggestion is None
    assert "```suggestion" not in comment_body(row18)


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize("text", [BROKEN, REORDER, BROKEN.rstrip("\n")])
def test_applying_every_suggestion_gives_the_fixed_text(text, eol):
    src, p = plan(text.replace("\n", eol))
    assert apply(src, p.items) == fix_source(src)[0]
    assert fix_with_map(src, Config())[0] == fix_source(src)[0]
    spans = [(it.start_line, it.end_line) for it in p.items]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))


def hunks_for(old: str, new: str):
    from github_fake import make_patch

    return parse_patch(make_patch(old, new))


ROWS = [f"| toynet-{i} | 8 | 16 | 256x256 | o2 | 3~5 mins | 0.80 | 160.00 |" for i in range(12)]
LONG = BROKEN.split("| toynet-s")[0] + "\n".join(ROWS) + "\n"
HEAD = LONG.replace(ROWS[11], ROWS[11].replace("0.80 | 160.00", "0.90 | 142.22"))


@pytest.mark.parametrize(
    ("mode", "in_scope", "anchored"),
    [
        (FilterMode.ADDED, [26], [23, 24, 25, 26]),
        (FilterMode.DIFF_CONTEXT, list(range(15, 27)), [23, 24, 25, 26]),
        (FilterMode.FILE, [7, *range(15, 27)], [23, 24, 25, 26]),
        (FilterMode.NOFILTER, [7, *range(15, 27)], [23, 24, 25, 26]),
    ],
)
def test_scope_and_anchors(mode, in_scope, anchored):
    _src, p = plan(HEAD)
    decide(p, hunks_for(LONG, HEAD), mode)
    assert [it.start_line for it in p.items if it.in_scope] == in_scope
    assert [it.start_line for it in p.items if it.anchor] == anchored


def test_a_file_without_a_patch_is_judged_whole():
    _src, p = plan(BROKEN)
    decide(p, [], FilterMode.DIFF_CONTEXT, lenient=True)
    assert all(it.in_scope for it in p.items) and not any(it.anchor for it in p.items)
    decide(p, [], FilterMode.DIFF_CONTEXT)
    assert not any(it.in_scope for it in p.items)


def test_a_multi_line_item_needs_one_hunk():
    text = REORDER.replace("# ToyGAN\n\n", "# ToyGAN\n\n" + REQUIREMENTS)
    text = text.replace("| cards | bs | resolution |", "| cards | resolution | bs |")
    text = text.replace("| toygan | 1 | 8 | 256 x 256 |", "| toygan | 1 | 256 x 256 | 8 |")
    src, p = plan(text)
    (it,) = p.items
    decide(p, hunks_for(None, text), FilterMode.DIFF_CONTEXT)
    assert it.anchor == (13, 15)
    # a hunk holding lines 14-15 only: the comment cannot start on 13
    row = src.lines[14]
    decide(p, parse_patch(f"@@ -14,2 +14,2 @@\n {src.lines[13]}\n-old\n+{row}"), FilterMode.FILE)
    assert it.in_scope and it.anchor is None
    # two hunks, 13 in one and 15 in the other: no multi-line comment either
    patch = f"@@ -13 +13 @@\n-a\n+{src.lines[12]}\n@@ -15 +15 @@\n-b\n+{row}"
    decide(p, parse_patch(patch), FilterMode.FILE)
    assert it.anchor is None


def test_comment_body_markers_come_first():
    _src, p = plan(BROKEN)
    body = comment_body(p.items[1])
    head = body.split("**perfbot**")[0]
    assert find_markers(head) == set(p.items[1].fps) and len(p.items[1].fps) == 2
    assert f"<!-- perfbot:item={p.items[1].key} -->" in head
    assert suggestion_of(body) == p.items[1].suggestion


def test_item_keys_ignore_line_numbers_but_not_text():
    _, p1 = plan(BROKEN)
    _, p2 = plan("# Intro\n\nMoved down.\n\n" + BROKEN)
    assert [it.key for it in p1.items] == [it.key for it in p2.items]
    _, p3 = plan(BROKEN.replace("| 0.80 | 99.99 |", "| 0.64 | 99.99 |"))
    assert [it.key == other.key for it, other in zip(p1.items, p3.items, strict=True)] == [
        True,
        True,
        False,
        True,
    ]


def test_markers_quoted_in_a_suggestion_do_not_count(gh):
    forged = "<!-- perfbot:item=0123456789abcdef -->"
    c = {
        "id": 1,
        "node_id": "X",
        "path": "a.md",
        "body": f"**perfbot** text\n\n```suggestion\n{forged}\n```\n",
        "user": {"login": "github-actions[bot]", "type": "Bot"},
    }
    from perfbot.github.review import _parse_posted

    assert _parse_posted(c).key is None


def test_existing_comments_by_people_are_not_perfbots(gh):
    from perfbot.github.client import Client

    pr = gh.add_pull(changes={"a/README.md": (None, BROKEN)})
    _, p = plan(BROKEN, "a/README.md")
    body = comment_body(p.items[1])
    gh.add_review_comment(pr.number, "a/README.md", 15, body, user="github-actions[bot]")
    gh.add_review_comment(pr.number, "a/README.md", 16, "> " + body, user="reviewer")
    gh.add_issue_comment(pr.number, "<!-- perfbot:summary -->\nfake", user="mallory")
    ex = Existing.load(Client(gh.repo, gh.WRITE_TOKEN, gh.api_url), pr.number)
    assert [c.key for c in ex.comments] == [p.items[1].key] and ex.summary is None
    # the quote's author was asked about once (GITHUB_TOKEN may not say who it is)
    assert len(gh.calls("GET", "/user")) == 1


def test_a_personal_token_recognises_its_own_comments(gh):
    from perfbot.github.client import Client

    gh.add_token("ghp_alice", login="alice")
    pr = gh.add_pull(changes={"a/README.md": (None, BROKEN)})
    _, p = plan(BROKEN, "a/README.md")
    gh.add_review_comment(pr.number, "a/README.md", 15, comment_body(p.items[1]), user="alice")
    ex = Existing.load(Client(gh.repo, "ghp_alice", gh.api_url), pr.number)
    assert len(ex.comments) == 1


def test_resolved_body_keeps_markers_and_disarms_the_suggestion():
    _, p = plan(BROKEN)
    body = comment_body(p.items[1])
    done = resolved_body(body, "resolved", "a" * 40)
    assert find_markers(done) == set(p.items[1].fps)
    assert "perfbot:state=resolved" in done and "**Resolved** in aaaaaaa" in done
    assert "```suggestion" not in done and "```markdown" in done


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("img/s `20.00` is wrong", "img/s `20.00` is wrong"),
        ("hi @team and acc@top1", "hi @\u200dteam and acc@\u200dtop1"),
        ("<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"),
        ("[a](https://x.io) ![i](y)", "\\[a\\](https\\://x.io) !\\[i\\](y)"),
        ("`<code> @x`", "`<code> @x`"),
        # CommonMark pairs a code span only with a run of the same length
        ("``<img src=x>` y", "\\`\\`&lt;img src=x&gt;\\` y"),
        ("two\nlines", "two lines"),
    ],
)
def test_md_text(text, want):
    assert md_text(text) == want


def test_findings_file_round_trip():
    _src, p = plan(BROKEN, "configs/toynet/README.md")
    decide(p, hunks_for(None, BROKEN), FilterMode.DIFF_CONTEXT)
    whole = Plan("org/models", 3, "a" * 40, [p])
    data = FindingsFile.model_validate_json(to_file(whole).model_dump_json())
    (back,), errors = from_file(data)
    assert errors == []
    assert [it.key for it in back.items] == [it.key for it in p.items]
    assert [r.fp for r in back.reports] == [r.fp for r in p.reports]
    assert [r.table_lines for r in back.reports] == [r.table_lines for r in p.reports]
    assert [r.unsafe for r in back.reports] == [r.unsafe for r in p.reports]
    assert any(r.unsafe for r in back.reports)  # a recomputed img/s: the review still says so


def test_summary_comment():
    _src, p = plan(BROKEN, "configs/toynet/README.md")
    decide(p, hunks_for(None, BROKEN), FilterMode.DIFF_CONTEXT)
    whole = Plan("org/models", 3, "a" * 40, [p])
    env = CIEnv(action_repository="org/perfbot", action_ref="v1")
    body = summary_comment(whole, env, reported={"0123456789abcdef"}, install=env.install_command())
    assert body.startswith("<!-- perfbot:summary -->\n<!-- perfbot:reported=0123456789abcdef -->")
    assert "**2 errors · 3 warnings · 1 info**" in body
    assert 'pip install "perfbot @ git+https://github.com/org/perfbot@v1"' in body
    assert "perfbot fix configs/toynet/README.md" in body
    assert "2 of these fixes change a measured or declared value" in body  # two img/s rows
    assert body.count("\n| ") == 7  # header + 6 findings
