"""``perfbot review`` end to end through the GitHub fake, run as the Action runs it."""

import contextlib
import io
import json

import pytest
import review_kit
from review_kit import (
    BROKEN,
    HALF_FIXED,
    READ,
    README,
    REORDER,
    WRITE,
    apply_like_github,
    suggestion_of,
)

from perfbot.engine import check_source
from perfbot.github.suggest import MAX_BODY, find_markers
from perfbot.source import Source

action = review_kit.action  # the fixture

FIXED_BY_HAND = HALF_FIXED.replace("24.1rc2", "24.1.RC2").replace(
    "| 512x512 | o2 |", "| 512x512 | O2 |"
)


def assert_fixed_by(text, comments, tmp):
    """Commit every suggestion as GitHub does; `perfbot check` then finds nothing to fix."""
    from perfbot.cli import main

    path = tmp / "applied" / "README.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(apply_like_github(text, comments))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(["check", str(path), "--format", "json", "--fail-on", "never", "-q"])
    assert [f for f in json.loads(buf.getvalue())["findings"] if f["fixable"]] == []


def summary_comments(gh):
    return [c for c in gh.issue_comments if "<!-- perfbot:summary -->" in c["body"]]


def writes(requests):
    return [(r.method, r.path) for r in requests if r.method != "GET"]


def test_a_broken_readme_gets_one_review_whose_suggestions_fix_it(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(pr)
    assert r.rc == 1  # errors in scope, --fail-on error
    assert "Traceback" not in r.err
    (review,) = gh.reviews
    assert review["state"] == "COMMENTED" and review["commit_id"] == pr.head_sha
    comments = gh.comments_on(pr.number)
    # one comment per row, all of a row's fixes in one suggestion
    assert [(c["start_line"], c["line"]) for c in comments] == [
        (None, 7),
        (None, 15),
        (None, 16),
        (None, 17),
    ]
    assert all(c["pull_request_review_id"] == review["id"] for c in comments)
    row15 = comments[1]["body"]
    assert "PB401" in row15 and "PB410" in row15
    assert suggestion_of(row15) == "| toynet-s | 1 | 16 | 256x256 | O2 | 2~3 mins | 0.50 | 32.00 |"
    assert_fixed_by(BROKEN, comments, action.tmp)
    # the sticky summary, the outputs, the annotations, the job summary
    (summary,) = summary_comments(gh)
    assert (
        "6 problems" in summary["body"]
        and "perfbot fix configs/toynet/README.md" in (summary["body"])
    )
    assert r.outputs == {"findings": "6", "errors": "2", "fixable": "6"}
    assert "::error file=configs/toynet/README.md,line=15" in r.out
    assert "::notice file=configs/toynet/README.md,line=7" in r.out
    assert "): 4 inline comment(s), 0 in its body." in r.summary
    assert "| toynet-l | 8 | 32 | 512x512 | O2 |" in r.summary  # the job summary shows the fixes
    assert gh.schema_errors == [] and gh.unhandled == []


def test_every_comment_carries_fingerprints_not_line_numbers(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    first = {c["line"]: find_markers(c["body"]) for c in gh.comments_on(pr.number)}
    assert all(len(fps) >= 1 for fps in first.values())
    # the same README moved down by two lines: the same fingerprints
    gh2 = gh.add_pull(changes={"other/README.md": (None, "# Intro\n\n" + BROKEN)})
    action.run(gh2)
    second = {c["line"]: find_markers(c["body"]) for c in gh.comments_on(gh2.number)}
    assert sorted(map(sorted, second.values())) != []
    moved = {line + 2: fps for line, fps in first.items()}
    assert set(moved) == set(second)
    # fingerprints include the path, so compare the structure: same count per row
    assert [len(moved[k]) for k in sorted(moved)] == [len(second[k]) for k in sorted(second)]


def test_a_second_run_on_the_same_head_posts_nothing(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    before = (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments))
    r = action.run(pr)
    assert (len(gh.reviews), len(gh.review_comments), len(gh.issue_comments)) == before
    assert writes(r.requests) == []
    assert len(r.requests) == 3  # files, review comments, issue comments
    assert "4 comment(s) were already on the pull request" in r.summary
    assert r.rc == 1


def test_a_push_that_fixes_half_the_rows_resolves_their_comments(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    by_line = {c["line"]: c for c in gh.review_comments}
    gh.push(pr.number, changes={README: HALF_FIXED})
    r = action.run(pr)
    assert len(gh.reviews) == 1  # nothing new to say
    resolved = {m["id"] for m in gh.minimized}
    assert resolved == {by_line[15]["id"], by_line[16]["id"]}
    assert {m["classifier"] for m in gh.minimized} == {"RESOLVED"}
    for line in (15, 16):
        body = by_line[line]["body"]
        assert "**Resolved**" in body and "```suggestion" not in body
        assert "perfbot:state=resolved" in body
    for line in (7, 17):
        assert "```suggestion" in by_line[line]["body"]
    (summary,) = summary_comments(gh)
    assert "2 problems" in summary["body"] and "6 problems" not in summary["body"]
    assert "Marked 2 old comment(s) resolved" in r.summary
    assert gh.schema_errors == []
    # files, review comments, issue comments, 2 x (edit + minimize), edit summary
    assert len(r.requests) == 8
    # and a third run changes nothing
    r3 = action.run(pr)
    assert writes(r3.requests) == []


def test_when_everything_is_fixed_the_summary_says_so(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    gh.push(pr.number, changes={README: FIXED_BY_HAND})
    r = action.run(pr)
    assert r.rc == 0
    assert len(gh.minimized) == 4
    (summary,) = summary_comments(gh)
    assert "look right" in summary["body"]
    assert r.outputs == {"findings": "0", "errors": "0", "fixable": "0"}


def test_a_row_that_changed_gets_a_new_comment_and_the_old_one_is_outdated(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    old16 = next(c for c in gh.review_comments if c["line"] == 16)
    # the same fix for a different wrong value: the comment stands (same fingerprints and text)
    gh.push(pr.number, changes={README: BROKEN.replace("| 0.80 | 99.99 |", "| 0.80 | 99.98 |")})
    action.run(pr)
    assert len(gh.reviews) == 1 and gh.minimized == []
    # a new s/step: the row needs another fix, so a new comment, and the old one is outdated
    gh.push(pr.number, changes={README: BROKEN.replace("| 0.80 | 99.99 |", "| 0.64 | 99.99 |")})
    action.run(pr)
    assert len(gh.reviews) == 2
    new = [c for c in gh.review_comments if c["review_id"] == gh.reviews[1]["id"]]
    assert [c["line"] for c in new] == [16]
    assert suggestion_of(new[0]["body"]).endswith("| 0.64 | 200.00 |")
    assert gh.minimized == [
        {"node_id": old16["node_id"], "id": old16["id"], "classifier": "OUTDATED"}
    ]
    assert "**Outdated**" in old16["body"]


def test_a_fork_pr_posts_nothing_and_still_reports(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)}, fork="contributor")
    r = action.run(pr, "--fail-on=never", token=READ)
    assert r.rc == 0
    assert writes(r.requests) == []
    assert [q.path for q in r.requests] == ["/repos/org/models/pulls/1/files"]
    assert gh.reviews == [] and gh.issue_comments == []
    assert "comes from a fork" in r.summary and "| toynet-s | 1 | 16 |" in r.summary
    assert "::error file=configs/toynet/README.md,line=15" in r.out
    assert r.outputs["findings"] == "6"
    # findings still fail the job per --fail-on; the fork itself does not
    assert action.run(pr, token=READ).rc == 1


def test_a_403_on_the_first_write_falls_back_to_annotations(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(pr, "--fail-on=never", token=READ)  # same repository, read-only token
    assert r.rc == 0
    assert [(q.method, q.status) for q in r.requests if q.method != "GET"] == [("POST", 403)]
    assert gh.reviews == [] and gh.issue_comments == []
    assert "cannot write to this pull request" in r.summary
    assert "::error file=configs/toynet/README.md" in r.out
    assert "nothing posted" in r.err and "Traceback" not in r.err


def test_5xx_then_success_is_retried(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    gh.fail_next("GET", "/files", 502)
    gh.fail_next("POST", "/reviews", 502)
    r = action.run(pr)
    assert [q.status for q in gh.calls("GET", "/files")] == [502, 200]
    # the review POST failed before GitHub acted: perfbot looked, found nothing, posted again
    assert [q.status for q in gh.calls("POST", "/reviews")] == [502, 200]
    # once to see what earlier review bodies hold, once to see whether the POST landed
    assert len(gh.calls("GET", "/reviews")) == 2
    assert len(gh.reviews) == 1 and len(gh.review_comments) == 4
    assert r.rc == 1 and "could not" not in r.err


def test_a_5xx_after_github_acted_does_not_post_twice(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    gh.fail_next("POST", "/reviews", 504, after=True)
    gh.fail_next("POST", "/issues/1/comments", 502, after=True)
    action.run(pr)
    assert len(gh.reviews) == 1 and len(gh.review_comments) == 4
    assert len(summary_comments(gh)) == 1


def test_a_422_is_retried_once_with_the_comments_in_the_body(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    gh.fail_next(
        "POST",
        "/reviews",
        422,
        body={"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]},
    )
    r = action.run(pr)
    posted = gh.calls("POST", "/reviews")
    assert [q.status for q in posted] == [422, 200]
    assert "comments" not in posted[1].body
    (review,) = gh.reviews
    assert gh.review_comments == []
    body = review["body"]
    assert "GitHub refused inline comments" in body
    assert f"/blob/{pr.head_sha}/configs/toynet/README.md#L15" in body
    assert "| toynet-s | 1 | 16 | 256x256 | O2 | 2~3 mins | 0.50 | 32.00 |" in body
    assert "```suggestion" not in body
    (summary,) = summary_comments(gh)
    assert "in the review" in summary["body"]
    assert r.rc == 1 and gh.schema_errors == []
    # the items in the body are remembered by the summary: a re-run does not repeat them
    r2 = action.run(pr)
    assert writes(r2.requests) == [] and len(gh.reviews) == 1


def test_two_422s_end_with_a_message(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    gh.fail_next("POST", "/reviews", 422, times=2)
    r = action.run(pr)
    assert r.rc == 2
    assert "could not post the review" in r.err and "Traceback" not in r.err
    assert len(summary_comments(gh)) == 1  # the summary still tells the contributor


@pytest.mark.parametrize(("n_files", "expected"), [(1, 6), (100, 6), (250, 8)])
def test_request_count_of_a_review(gh, action, n_files, expected):
    files = {f"src/module_{i}.py": (None, f"x = {i}\n") for i in range(n_files - 1)}
    pr = gh.add_pull(changes={README: (None, BROKEN), **files})
    r = action.run(pr)
    # list files (1 per 100), review comments, issue comments, reviews (something is new: was it
    # in an earlier review's body?), create review, create summary
    assert len(r.requests) == expected, [(q.method, q.path) for q in r.requests]
    assert len(gh.review_comments) == 4
    again = action.run(pr)
    assert len(again.requests) == expected - 3


def test_many_findings_do_not_make_more_requests(gh, action):
    many = BROKEN + "".join(
        f"| toynet-{i} | 8 | 16 | 256 x 256 | o2 | 3~5 mins | 0.8 | 1.00 |\n" for i in range(60)
    )
    pr = gh.add_pull(changes={README: (None, many)})
    r = action.run(pr)
    assert len(r.requests) == 6
    assert len(gh.review_comments) == 50  # the default cap
    (summary,) = summary_comments(gh)
    assert "14 more suggestions (over the limit of inline comments)" in summary["body"]
    assert all(len(c["body"]) <= MAX_BODY for c in gh.review_comments)


def test_max_comments(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr, "--max-comments=2")
    comments = gh.comments_on(pr.number)
    assert [c["line"] for c in comments] == [15, 16]  # errors first
    (summary,) = summary_comments(gh)
    assert "2 more suggestions" in summary["body"]
    assert "| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |" in summary["body"]


def test_a_table_wide_fix_is_one_suggestion_over_the_table(gh, action):
    readme = "configs/toygan/README.md"
    text = REORDER.replace(
        "# ToyGAN\n\n",
        "# ToyGAN\n\n## Requirements\n\n"
        "| mindspore | ascend driver | firmware | cann toolkit/kernel |\n"
        "| :-------: | :-----------: | :------: | :-----------------: |\n"
        "| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |\n\n",
    ).replace("| toygan | 1 | 8 | 256 x 256 |", "| toygan | 1 | 256 x 256 | 8 |")
    text = text.replace("| cards | bs | resolution |", "| cards | resolution | bs |")
    pr = gh.add_pull(changes={readme: (None, text)})
    action.run(pr)
    (c,) = gh.comments_on(pr.number)
    assert (c["start_line"], c["line"]) == (13, 15)
    assert "PB304" in c["body"] and "PB412" in c["body"]
    fixed = apply_like_github(text, [c])
    assert not [f for f in check_source(Source.from_text(fixed)).findings if f.fixable]


# A README already in the repository whose long table has old mistakes; the PR fixes one row.
ROWS = [f"| toynet-{i} | 8 | 16 | 256x256 | o2 | 3~5 mins | 0.80 | 160.00 |" for i in range(12)]
LONG = BROKEN.split("| toynet-s")[0] + "\n".join(ROWS) + "\n"


def test_lines_outside_the_diff_go_into_the_review_body(gh, action):
    head = LONG.replace(ROWS[11], ROWS[11].replace("0.80 | 160.00", "0.90 | 142.22"))
    pr = gh.add_pull(changes={README: (LONG, head)})
    r = action.run(pr)
    lines = [c["line"] for c in gh.comments_on(pr.number)]
    assert lines == [23, 24, 25, 26]  # rows within the hunk (3 lines of context)
    (review,) = gh.reviews
    body = review["body"]
    # the same table's other rows are in scope (diff_context) but not commentable
    assert "#L15)" in body and "#L22)" in body and "#L23)" not in body
    assert "```markdown\n| toynet-0 | 8 | 16 | 256x256 | O2 |" in body
    assert "#L7)" not in body  # the Requirements table is not touched: out of scope
    assert "1 more finding in these files is outside" in summary_comments(gh)[0]["body"]
    assert r.rc == 0  # jit-level is a warning


@pytest.mark.parametrize(
    ("mode", "inline", "body_lines"),
    [
        ("added", [26], []),
        ("diff_context", [23, 24, 25, 26], list(range(15, 23))),
        ("file", [23, 24, 25, 26], [7, *range(15, 23)]),
        ("nofilter", [23, 24, 25, 26], [7, *range(15, 23)]),
    ],
)
def test_filter_modes(gh, action, mode, inline, body_lines):
    head = LONG.replace(ROWS[11], ROWS[11].replace("0.80 | 160.00", "0.90 | 142.22"))
    pr = gh.add_pull(changes={README: (LONG, head)})
    action.run(pr, f"--filter-mode={mode}")
    assert [c["line"] for c in gh.comments_on(pr.number)] == inline
    body = gh.reviews[0]["body"]
    found = [n for n in range(1, 30) if f"#L{n})" in body]
    assert found == body_lines


def test_filter_mode_and_cap_from_the_config(gh, action):
    config = "review:\n  filter_mode: added\n  max_comments: 0\n"
    head = LONG.replace(ROWS[11], ROWS[11].replace("0.80 | 160.00", "0.90 | 142.22"))
    pr = gh.add_pull(changes={README: (LONG, head)}, contents={".perfbot.yml": config})
    action.run(pr)
    assert gh.review_comments == [] and gh.reviews == []
    (summary,) = summary_comments(gh)
    assert "1 more suggestion (over the limit" in summary["body"]


def test_only_model_readmes_are_reviewed(gh, action):
    pr = gh.add_pull(
        changes={
            "docs/notes.md": (None, BROKEN),  # not a README
            "configs/x/README.md": (None, "# X\n\nNo tables here.\n"),
            "src/train.py": (None, "print(1)\n"),
        }
    )
    r = action.run(pr)
    assert r.rc == 0 and gh.reviews == [] and gh.issue_comments == []
    assert r.outputs == {"findings": "0", "errors": "0", "fixable": "0"}
    assert len(r.requests) == 3
    # the config narrows the README*.md files `perfbot check .` walks; --paths names files
    pr2 = gh.add_pull(
        changes={"docs/notes.md": (None, BROKEN), README: (None, BROKEN)},
        contents={".perfbot.yml": 'paths: ["docs/*.md", "configs/**/README.md"]\n'},
    )
    action.run(pr2)
    assert {c["path"] for c in gh.comments_on(pr2.number)} == {README}
    pr3 = gh.add_pull(changes={"docs/notes.md": (None, BROKEN), README: (None, BROKEN)})
    action.run(pr3, "--paths=docs/*.md")
    assert {c["path"] for c in gh.comments_on(pr3.number)} == {"docs/notes.md"}


def test_without_a_checkout_files_are_read_at_the_head_sha(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(pr, checkout=False)
    contents = [q for q in r.requests if "/contents/" in q.path]
    assert [q.query["ref"] for q in contents] == [pr.head_sha]
    assert len(gh.review_comments) == 4


def test_a_checkout_at_another_commit_is_not_trusted(gh, action, monkeypatch):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    ws = action.workspace(pr, sha="f" * 40)  # say, the merge commit
    (ws / README).write_text("# stale\n")
    summary, output = action.env(event=action.event(pr), workspace=ws)
    r = action.call(["review"], summary, output)
    assert len([q for q in r.requests if "/contents/" in q.path]) == 1
    assert len(gh.review_comments) == 4


def test_fail_on_and_outputs(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    assert action.run(pr, "--fail-on=never").rc == 0
    assert action.run(pr, "--fail-on=info").rc == 1
    pr2 = gh.add_pull(changes={README: (None, BROKEN.replace("24.1rc2", "24.1.RC2"))})
    r = action.run(pr2, "--fail-on=error", "--filter-mode=added")
    assert r.rc == 1 and r.outputs["findings"] == "5"


def test_sarif_file(gh, action, tmp_path):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    out = tmp_path / "perfbot.sarif"
    action.run(pr, f"--sarif-file={out}")
    sarif = json.loads(out.read_text())
    assert sarif["version"] == "2.1.0"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]}  # fmt: skip
    assert uris == {README}


def test_empty_action_inputs_mean_defaults(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(
        pr,
        "--config=",
        "--paths=",
        "--fail-on=",
        "--filter-mode=",
        "--max-comments=",
        "--sarif-file=",
        "--findings-out=",
        "--findings=",
    )
    assert r.rc == 1 and len(gh.review_comments) == 4


def test_network_errors_end_with_a_message(gh, action, monkeypatch):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    summary, output = action.env(event=action.event(pr), workspace=action.workspace(pr))
    monkeypatch.setenv("GITHUB_API_URL", "https://github.invalid/api/v3")
    r = action.call(["review"], summary, output)
    assert r.rc == 2
    assert "cannot reach GitHub at github.invalid" in r.err
    assert "Traceback" not in r.err and "Traceback" not in r.out
    assert "perfbot could not finish" in r.summary
    assert r.outputs == {"findings": "0", "errors": "0", "fixable": "0"}


def test_a_bad_config_is_a_message(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)}, contents={".perfbot.yml": "colour: red\n"})
    r = action.run(pr)
    assert r.rc == 2 and "unknown key" in r.err and "Traceback" not in r.err


def test_not_a_pull_request_event(gh, action):
    summary, output = action.env(event={"ref": "refs/heads/main"}, event_name="push")
    r = action.call(["review"], summary, output)
    assert r.rc == 0 and "not a pull request event (push)" in r.err
    assert gh.requests == []


def test_by_hand_with_repo_pr_and_token(gh, action, monkeypatch, tmp_path):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    for k in list(__import__("os").environ):
        if k.startswith("GITHUB_"):
            monkeypatch.delenv(k)
    monkeypatch.chdir(tmp_path)
    from perfbot.cli import main

    rc = main(
        ["review", "--repo", gh.repo, "--pr", str(pr.number), "--token", WRITE,
         "--api-url", gh.api_url]
    )  # fmt: skip
    assert rc == 1
    assert [q.path for q in gh.requests[:3]] == [
        "/repos/org/models/pulls/1",
        "/repos/org/models/pulls/1/files",
        f"/repos/org/models/contents/{README}",
    ]
    assert len(gh.review_comments) == 4
    out = action.capsys.readouterr().out
    assert "configs/toynet/README.md:15: error PB401" in out and "::error" not in out


def test_dry_run_posts_nothing(gh, action):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    r = action.run(pr, "--dry-run")
    assert writes(r.requests) == []
    planned = json.loads(r.out[r.out.index("[\n") :].split("\n]\n")[0] + "\n]")
    assert [w["write"] for w in planned] == ["review", "create_issue_comment"]
    assert len(planned[0]["comments"]) == 4


def test_github_enterprise(tmp_path, monkeypatch, capsys):
    from review_kit import Action

    from github_fake import GitHubFake
    from perfbot.github.client import Client

    monkeypatch.setattr(Client, "write_interval", None)
    with GitHubFake(api_url="https://ghe.example.com/api/v3") as fake:
        pr = fake.add_pull(changes={README: (None, HALF_FIXED)})
        r = Action(fake, tmp_path, monkeypatch, capsys).run(pr)
        assert r.rc == 0
        assert len(fake.review_comments) == 2 and fake.unhandled == []
        assert "https://ghe.example.com/org/models/blob/" in fake.issue_comments[0]["body"]


def test_fences_in_suggestions_outlast_the_text(gh, action):
    text = BROKEN.replace("| toynet-l | 8 | 32 | 512x512 | o2 |", "| ``` | 8 | 32 | 512x512 | o2 |")
    pr = gh.add_pull(changes={README: (None, text)})
    action.run(pr)
    c = next(c for c in gh.comments_on(pr.number) if c["line"] == 17)
    assert "\n````suggestion\n| ``` | 8 | 32 | 512x512 | O2 |" in c["body"]
    assert suggestion_of(c["body"]).startswith("| ``` |")


def test_a_huge_table_keeps_bodies_under_the_limit(gh, action):
    rows = "".join(
        f"| toygan-{i:04d}-{'x' * 500} | 1 | 256 x 256 | 8 | O2 | 1~2 mins | 0.40 | 20.00 |\n"
        for i in range(150)
    )  # one table-wide suggestion of about 85,000 characters
    text = REORDER.split("| toygan |")[0].replace(
        "| cards | bs | resolution |", "| cards | resolution | bs |"
    )
    pr = gh.add_pull(changes={README: (None, text + rows)})
    r = action.run(pr)
    assert gh.schema_errors == []
    table = next(c for c in gh.review_comments if c["start_line"] == 7)
    assert "cut to fit GitHub's length limit" in table["body"]
    assert "```suggestion" not in table["body"]  # half a suggestion would be wrong
    assert len(find_markers(table["body"])) == 152  # every finding's fingerprint kept
    assert "and 142 more (the summary lists them)" in table["body"]
    assert all(len(c["body"]) <= MAX_BODY for c in gh.review_comments)
    assert all(len(c["body"]) <= MAX_BODY for c in gh.issue_comments)
    assert all(len(rv["body"]) <= MAX_BODY for rv in gh.reviews)
    assert r.rc in (0, 1)


def test_a_symlink_in_the_checkout_is_not_followed(gh, action, tmp_path):
    pr = gh.add_pull(changes={README: (None, BROKEN)})
    ws = action.workspace(pr)
    secret = tmp_path / "secret.md"
    secret.write_text(BROKEN.replace("toynet", "secret"))
    (ws / README).unlink()
    (ws / README).symlink_to(secret)
    summary, output = action.env(event=action.event(pr), workspace=ws)
    r = action.call(["review"], summary, output)
    assert r.rc == 2 and "is a symbolic link or outside the checkout" in r.err
    assert not any("secret" in c["body"] for c in gh.review_comments + gh.issue_comments)


def test_an_unreadable_event_is_a_message_in_the_job_summary(gh, action, monkeypatch, tmp_path):
    summary, output = action.env(event=None)
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "missing.json"))
    r = action.call(["review"], summary, output)
    assert r.rc == 2 and "cannot read the event file" in r.err
    assert "perfbot could not start" in r.summary and "Traceback" not in r.err


def test_the_shipped_broken_example_is_fixed_by_its_suggestions(gh, action):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "examples/broken/README.md").read_text()
    pr = gh.add_pull(changes={"examples/broken/README.md": (None, text)})
    action.run(pr)
    comments = gh.comments_on(pr.number)
    spans = [(c["start_line"] or c["line"], c["line"]) for c in comments]
    assert spans == [(5, 7), (11, 11), (14, 17), (24, 24)]  # a table, a sentence, a table, a row
    assert suggestion_of(comments[3]["body"]) is None  # a ragged row: no mechanical fix
    assert_fixed_by(text, comments, action.tmp)
    assert gh.schema_errors == []


def test_an_old_comment_is_marked_on_a_later_run_if_marking_failed(gh, action):
    import re

    pr = gh.add_pull(changes={README: (None, BROKEN)})
    action.run(pr)
    old16 = next(c for c in gh.review_comments if c["line"] == 16)
    gh.push(pr.number, changes={README: BROKEN.replace("| 0.80 | 99.99 |", "| 0.64 | 99.99 |")})
    gh.fail_next("PATCH", re.compile(r"/pulls/comments/\d+$"), 500)  # a write is not retried
    r = action.run(pr)
    assert r.rc == 2 and "could not mark an old comment outdated" in r.err
    assert len(gh.reviews) == 2 and "**Outdated**" not in old16["body"]
    r = action.run(pr)
    assert "**Outdated**" in old16["body"] and len(gh.reviews) == 2
    assert gh.minimized[-1]["id"] == old16["id"]
