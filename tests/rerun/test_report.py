"""`perfbot report`: the summary (old -> new, change, flags, failures), the suggestions, local mode.

The posting to a pull request is tested through the GitHub fake at the end of this file and in
tests/test_rerun_e2e.py.
"""

# ruff: noqa: E501 - the fixtures are whole README table rows

import json
import re
import sys
from pathlib import Path

import pytest

from perfbot.config import Config, RerunConfig
from perfbot.engine import check_source
from perfbot.hunks import parse_patch
from perfbot.rerun.report import report_main
from perfbot.rerun.summary import MARKER, plan_review, readme_path, refresh_all, safe_repo_path
from perfbot.runner.bench import BenchResult, write_result
from perfbot.source import Source

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from github_fake import GitHubFake, make_patch  # noqa: E402

PATH = "examples/dit/README.md"
README = """\
# DiT

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :---------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | recompute | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.89 | 71.91 |
| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.93 | 550.54 |
"""
ROW1, ROW8 = 15, 16
SHA = "9f4e4b1c0ffee0000000000000000000000000aa"


def result(**kw) -> BenchResult:
    base = {
        "name": "dit-1p",
        "readme": PATH,
        "row": {"model name": "dit", "cards": "1"},
        "status": "ok",
        "cards": 1,
        "batch_size": 64,
        "s_per_step": 0.912345,
        "graph_compile_s": 250.0,
        "cv": 0.01,
        "steps_measured": 95,
        "commit": SHA,
        "runner": "ascend-07",
        "environment": {"mindspore": "2.3.1", "cann": "8.0.RC2"},
    }
    base.update(kw)
    return BenchResult.model_validate(base)


R8 = {"name": "dit-8p", "row": {"model name": "dit", "cards": "8"}, "cards": 8}


def groups_for(results, text=README, config=None):
    def read(path):
        return text.encode() if path == PATH else None

    return refresh_all(results, read=read, config=config or Config(), sha=SHA)


def hunks_on(*lines):
    """Hunks of a diff that changed exactly these README lines."""
    old = README.splitlines(keepends=True)
    for n in lines:
        old[n - 1] = old[n - 1].replace("| dit |", "| DiT |")
    return {PATH: parse_patch(make_patch("".join(old), README, context=0))}


def table_row(body: str, name: str) -> str:
    return next(ln for ln in body.splitlines() if ln.startswith(f"| `{name}` |"))


def test_summary_table_old_new_change_and_flags():
    results = [result(), result(**R8, s_per_step=0.99, cv=0.08, graph_compile_s=600.0)]
    plan = plan_review(
        groups_for(results), rerun=RerunConfig(), sha=SHA, hunks=hunks_on(ROW1, ROW8)
    )
    assert plan.body.startswith("### perfbot rerun at `9f4e4b1`: 2 of 2 benchmarks measured\n")
    assert table_row(plan.body, "dit-1p") == (
        f"| `dit-1p` | `{PATH}:15` | `0.89` → `0.91` | +2.5 % | `71.91` → `70.15` | `3~5 mins` "
        "| 1.0 % |  |"
    )
    assert table_row(plan.body, "dit-8p") == (
        f"| `dit-8p` | `{PATH}:16` | `0.93` → `0.99` | +6.5 % | `550.54` → `517.17` "
        "| `3~5 mins` → `10 mins` | 8.0 % | ⚠️ slower ⚠️ noisy |"
    )
    assert "*slower*: s/step grew by more than 5%" in plan.body
    assert "*noisy*: the step times vary by more than 5%" in plan.body
    assert plan.body.rstrip().endswith(MARKER)
    assert (plan.measured, plan.failed, plan.changed_rows) == (2, 0, 2)


def test_thresholds_come_from_the_config():
    results = [result(**R8, s_per_step=0.99, cv=0.08)]
    lax = RerunConfig(slower_threshold=0.10, noisy_cv=0.10)
    body = plan_review(groups_for(results), rerun=lax, sha=SHA).body
    assert "⚠️" not in table_row(body, "dit-8p")
    faster = plan_review(groups_for([result(s_per_step=0.5)]), rerun=RerunConfig(), sha=SHA).body
    assert "−43.8 %" in table_row(faster, "dit-1p") and "⚠️" not in faster


def test_one_suggestion_per_row_in_the_diff():
    results = [result(), result(**R8, s_per_step=0.99)]
    plan = plan_review(
        groups_for(results), rerun=RerunConfig(), sha=SHA, hunks=hunks_on(ROW1, ROW8)
    )
    assert [(c["path"], c["line"], c["side"]) for c in plan.comments] == [
        (PATH, ROW1, "RIGHT"),
        (PATH, ROW8, "RIGHT"),
    ]
    body = plan.comments[0]["body"]
    assert body.startswith(
        "**perfbot rerun** `dit-1p`: s/step `0.89` → `0.91`, img/s `71.91` → `70.15` (s/step +2.5 %)"
    )
    assert (
        "read from the benchmark's own log over 95 steps, CV 1.0 % on `ascend-07` "
        "(MindSpore `2.3.1`, CANN `8.0.RC2`)." in body
    )
    assert (
        "```suggestion\n| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |\n```"
        in body
    )
    assert "Each changed row has a suggestion below" in plan.body
    # applying every suggestion gives the refreshed README, which the checker accepts
    lines = README.splitlines(keepends=True)
    for c in plan.comments:
        new = re.search(r"```suggestion\n(.*)\n```", c["body"]).group(1)
        lines[c["line"] - 1] = new + "\n"
    text = "".join(lines)
    assert text == plan.texts[PATH]
    findings = check_source(Source.from_text(text, path=PATH)).findings
    assert [f for f in findings if f.severity == "error"] == []


def test_rows_outside_the_diff_are_shown_as_a_diff_in_the_body():
    plan = plan_review(
        groups_for([result(), result(**R8)]), rerun=RerunConfig(), sha=SHA, hunks=hunks_on(ROW1)
    )
    assert [c["line"] for c in plan.comments] == [ROW1]
    assert "These rows get no suggestion" in plan.body
    assert (
        f"`{PATH}` line 16:\n\n```diff\n"
        "- | dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.93 | 550.54 |\n"
        "+ | dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.91 | 561.19 |\n```"
    ) in plan.body
    # no hunks (a local run, or the PR moved on): everything in the body
    plan = plan_review(groups_for([result()]), rerun=RerunConfig(), sha=SHA, hunks=None)
    assert plan.comments == [] and "```diff" in plan.body


def test_failed_and_timed_out_runs_show_the_tail_of_their_log_inertly():
    tail = [f"step {i}" for i in range(40)] + [
        "``` @maintainer <details> <!-- x",
        "\x1b[31mTraceback (most recent call last):\x07",
        "E" * 500,
    ]
    failed = result(
        name="dit-8p", status="timeout", message="killed after the 90 s timeout",
        s_per_step=None, log_tail=tail,
    )  # fmt: skip
    plan = plan_review(groups_for([result(), failed]), rerun=RerunConfig(), sha=SHA)
    assert plan.failed == 1 and plan.measured == 1
    body = plan.body
    assert "- `dit-8p`: **timeout**: `killed after the 90 s timeout`" in body
    assert "<summary>last 30 lines of the log</summary>" in body
    block = body.split("  ````text\n", 1)[1].split("\n  ````\n", 1)[0]
    shown = [ln.removeprefix("  ") for ln in block.split("\n")]
    assert shown[0] == "step 13" and len(shown) == 30
    assert shown[-3] == "``` @maintainer <details> <!-\u200d- x"  # in a longer fence, no <!--
    assert shown[-2] == "�[31mTraceback (most recent call last):�"
    assert shown[-1] == "E" * 299 + "…"
    assert "`dit-8p`" not in table_row(body, "dit-1p")


def test_rows_that_cannot_be_updated_say_why():
    results = [
        result(name="dit-4p", row={"model name": "dit", "cards": "4"}, cards=4),
        result(name="elsewhere", commit="0123456789abcdef"),
        result(name="gone", readme="examples/vit/README.md"),
        result(name="escape", readme="../../../etc/passwd"),
    ]
    plan = plan_review(groups_for(results), rerun=RerunConfig(), sha=SHA)
    body = plan.body
    assert plan.texts == {} and plan.comments == []
    assert (
        "- `dit-4p` (`examples/dit/README.md`): no performance-table row has model name = dit, cards = 4"
        in body
    )
    assert "measured at commit `0123456`, not at `9f4e4b1`" in body
    assert "examples/vit/README.md does not exist at `9f4e4b1`" in body
    assert "'../../../etc/passwd' is not a path inside the repository" in body


def test_untrusted_cells_cannot_break_the_table_or_mention_anyone():
    text = README.replace("| 0.89 | 71.91 |", "| 0.89 @admin \\| x | 71.91 |")
    body = plan_review(groups_for([result()], text=text), rerun=RerunConfig(), sha=SHA).body
    row = table_row(body, "dit-1p")
    assert "`0.89 @admin \\| x` → `0.91 @admin \\| x`" in row


def test_paths():
    assert readme_path(".perfbot.yml", "examples/dit/README.md") == "examples/dit/README.md"
    assert readme_path("mindone/.perfbot.yml", "./examples/../x/README.md") == "mindone/x/README.md"
    assert readme_path(".perfbot.yml", "/abs/README.md") == "abs/README.md"
    assert safe_repo_path("examples/dit/README.md")
    assert not safe_repo_path("../x") and not safe_repo_path("a/$(id)") and not safe_repo_path(".")


# --- local mode -------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "examples/dit").mkdir(parents=True)
    (tmp_path / PATH).write_text(README, encoding="utf-8")
    (tmp_path / ".perfbot.yml").write_text("rerun: {slower_threshold: 0.02}\n", encoding="utf-8")
    return tmp_path


def test_local_report_prints_the_summary_and_writes_the_readme(repo, capsys, monkeypatch):
    summary = repo / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    write_result(result(), repo / "bench/dit-1p.json")
    write_result(result(**R8), repo / "bench/dit-8p.json")
    argv = ["--results", str(repo / "bench"), "--config", str(repo / ".perfbot.yml")]
    assert report_main(argv) == 0
    out = capsys.readouterr().out
    assert "⚠️ slower" in table_row(out, "dit-1p")  # 2.5 % > the configured 2 %
    assert "The change to make (`--write` makes it):" in out and "pull request" not in out
    assert (repo / PATH).read_text() == README  # not written without --write
    assert summary.read_text().startswith("### perfbot rerun")
    assert report_main([*argv, "--write"]) == 0
    new = (repo / PATH).read_text()
    assert "| 3~5 mins | 0.91 | 70.15 |" in new and "| 3~5 mins | 0.91 | 561.19 |" in new
    findings = check_source(Source.from_text(new, path=PATH)).findings
    assert [f for f in findings if f.severity == "error"] == []


def test_local_report_exit_codes(repo, capsys):
    write_result(result(), repo / "bench/a.json")
    write_result(
        result(**R8, status="failed", message="exit 1", s_per_step=None), repo / "bench/b.json"
    )
    argv = ["--results", str(repo / "bench"), "--config", str(repo / ".perfbot.yml"), "--write"]
    assert report_main(argv) == 1  # one did not finish; the other is still written
    assert "| 0.91 | 70.15 |" in (repo / PATH).read_text()
    (repo / "bench/c.json").write_text("{not json", encoding="utf-8")
    assert report_main(argv) == 2
    assert "c.json: not valid JSON (line 1)" in capsys.readouterr().err
    (repo / "bench/c.json").write_text(json.dumps({"name": "x"}), encoding="utf-8")
    assert report_main(argv) == 2
    assert "not a perfbot bench result" in capsys.readouterr().err
    (repo / "bench/c.json").unlink()
    assert report_main([*argv, "--sha", SHA]) == 2
    assert "--dry-run and --sha go with --pr" in capsys.readouterr().err
    (repo / ".perfbot.yml").write_text("rerun: {bogus: 1}\n", encoding="utf-8")
    assert report_main(argv) == 2
    assert "rerun.bogus: unknown key" in capsys.readouterr().err
    empty = repo / "empty"
    empty.mkdir()
    assert report_main(["--results", str(empty)]) == 2
    assert "no results found" in capsys.readouterr().err


# --- posting to a pull request, through the GitHub fake ---------------------------------------

BASE_README = README.replace("| 0.89 | 71.91 |", "| 0.90 | 71.11 |")  # the PR edits row 1


@pytest.fixture
def posting(monkeypatch):
    from perfbot.github.client import Client

    monkeypatch.setattr(Client, "write_interval", None)
    with GitHubFake() as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        monkeypatch.setenv("GITHUB_RUN_ID", "4242")
        yield fake


HEAD_CONFIG = f"""\
benchmarks:
  - {{name: dit-1p, readme: {PATH}, row: {{model name: dit, cards: 1}}, command: [x],
     cards: 1, batch_size: 64}}
  - {{name: dit-8p, readme: {PATH}, row: {{model name: dit, cards: 8}}, command: [x],
     cards: 8, batch_size: 64}}
"""


def pull_at(fake, base_config="", **kw):
    fake.set_contents("main", ".perfbot.yml", base_config)
    return fake.add_pull(
        changes={PATH: (BASE_README, README)}, contents={".perfbot.yml": HEAD_CONFIG}, **kw
    )


def post(tmp_path, pr, *results, extra=()):
    for r in results:
        write_result(
            r.model_copy(update={"commit": pr.head_sha}), tmp_path / f"bench/{r.name}.json"
        )
    argv = ["--results", str(tmp_path / "bench"), "--pr", str(pr.number), "--sha", pr.head_sha]
    return report_main([*argv, *extra])


def test_posts_one_review_with_a_suggestion_per_row_in_the_diff(posting, tmp_path, capsys):
    fake = posting
    pr = pull_at(fake)
    assert post(tmp_path, pr, result(), result(**R8)) == 0
    assert fake.schema_errors == [] and fake.unhandled == []
    (review,) = fake.reviews
    assert review["commit_id"] == pr.head_sha and review["state"] == "COMMENTED"
    comments = [c for c in fake.review_comments if c["review_id"] == review["id"]]
    assert [(c["path"], c["line"]) for c in comments] == [(PATH, ROW1), (PATH, ROW8)]
    assert (
        "```suggestion\n| dit | 1 | 64 | 256x256 | OFF | O2 | 3~5 mins | 0.91 | 70.15 |"
        in comments[0]["body"]
    )
    body = review["body"]
    assert f"[`{PATH}:15`](https://github.com/org/models/blob/{pr.head_sha}/{PATH}#L15)" in body
    assert "[The workflow run](https://github.com/org/models/actions/runs/4242)." in body
    out = capsys.readouterr().out.splitlines()  # fenced: the log tails are not commands
    assert out[0].startswith("::stop-commands::perfbot-") and out[-1] == f"::{out[0][17:]}::"
    assert out[1].startswith("### perfbot rerun")


def test_a_pull_request_that_moved_on_gets_the_rows_in_the_body(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    measured = pr.head_sha
    fake.push(1, changes={"docs/x.md": (None, "x\n")}, contents={".perfbot.yml": ""})  # no config
    for r in (result(),):
        write_result(r.model_copy(update={"commit": measured}), tmp_path / "bench/a.json")
    assert report_main(["--results", str(tmp_path / "bench"), "--pr", "1", "--sha", measured]) == 0
    (review,) = fake.reviews
    assert review["commit_id"] == measured and fake.review_comments == []
    assert "has moved on to" in review["body"] and "```diff" in review["body"]


def test_results_of_another_commit_are_not_suggested(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    write_result(result(commit="0" * 40), tmp_path / "bench/a.json")
    argv = ["--results", str(tmp_path / "bench"), "--pr", "1", "--sha", pr.head_sha]
    assert report_main(argv) == 0
    (review,) = fake.reviews
    assert fake.review_comments == [] and "measured at commit `0000000`" in review["body"]


def test_missing_and_failed_benchmarks_are_reported(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    matrix = json.dumps({"include": [
        {"name": "dit-1p", "readme": PATH, "runs-on": ["self-hosted"]},
        {"name": "dit-8p", "readme": PATH, "runs-on": ["self-hosted"]},
        {"name": "dit-lost", "readme": PATH, "runs-on": ["self-hosted"]},
    ]})  # fmt: skip
    failed = result(**R8, status="failed", message="the command exited with code 1",
                    s_per_step=None, log_tail=["RuntimeError: out of memory"])  # fmt: skip
    assert post(tmp_path, pr, result(), failed, extra=["--matrix", matrix]) == 1
    body = fake.reviews[0]["body"]
    assert body.startswith(f"### perfbot rerun at `{pr.head_sha[:7]}`: 1 of 3 benchmarks measured")
    assert "- `dit-lost` (`examples/dit/README.md`): **no result**" in body
    assert "- `dit-8p`: **failed**: `the command exited with code 1`" in body
    assert "RuntimeError: out of memory" in body
    # every job lost: still a report
    empty = tmp_path / "none"
    argv = ["--results", str(empty), "--pr", "1", "--sha", pr.head_sha, "--matrix", matrix]
    assert report_main(argv) == 1
    assert "0 of 3 benchmarks measured" in fake.reviews[1]["body"]


def test_push_commits_the_numbers_to_a_branch_of_the_repository(posting, tmp_path):
    fake = posting
    pr = pull_at(fake, base_config="rerun: {push: true}\n")
    measured = pr.head_sha
    assert post(tmp_path, pr, result(), result(**R8)) == 0
    (commit,) = fake.contents_commits
    assert (commit["branch"], commit["path"], commit["parent"]) == (pr.head_ref, PATH, measured)
    assert fake.pulls[1].head_sha == commit["sha"]
    new = fake.blobs[(commit["sha"], PATH)].decode()
    assert "| 0.91 | 70.15 |" in new and "| 0.91 | 561.19 |" in new
    assert fake.blobs[(commit["sha"], ".perfbot.yml")] == HEAD_CONFIG.encode()  # the rest unchanged
    (review,) = fake.reviews
    assert fake.review_comments == [] and f"Commit `{commit['sha'][:7]}` writes" in review["body"]
    assert fake.schema_errors == []


def test_push_falls_back_to_suggestions(posting, tmp_path):
    fake = posting
    pr = pull_at(fake, base_config="rerun: {push: true}\n", fork="contributor")
    assert post(tmp_path, pr, result()) == 0
    assert fake.contents_commits == [] and len(fake.review_comments) == 1
    assert "`rerun.push` is on, but the pull request comes from a fork" in fake.reviews[0]["body"]
    # a branch of the repository, but GitHub refuses the commit
    fake.add_pull(
        2,
        changes={PATH: (BASE_README, README)},
        contents={".perfbot.yml": HEAD_CONFIG},
        head_ref="other",
    )
    fake.fail_next("PUT", re.compile(r"/contents/"), 409)
    write_result(result(commit=fake.pulls[2].head_sha), tmp_path / "bench/dit-1p.json")
    argv = ["--results", str(tmp_path / "bench"), "--pr", "2", "--sha", fake.pulls[2].head_sha]
    assert report_main(argv) == 0
    assert "GitHub refused the commit" in fake.reviews[-1]["body"] and fake.contents_commits == []


def test_a_refused_suggestion_still_posts_the_summary(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    fake.fail_next("POST", "/reviews", 422)
    assert post(tmp_path, pr, result()) == 0
    (review,) = fake.reviews
    assert "GitHub refused the inline suggestions" in review["body"] and "```diff" in review["body"]


def test_a_review_whose_answer_is_lost_is_posted_once(posting, tmp_path):
    # GitHub made the review but its answer was lost (a 502 after the fact): the writer finds
    # the review by its marker instead of failing the job or posting a second one
    fake = posting
    pr = pull_at(fake)
    fake.fail_next("POST", "/reviews", 502, after=True)
    assert post(tmp_path, pr, result()) == 0
    (review,) = fake.reviews
    assert review["body"].startswith("### perfbot rerun")


def test_posting_errors_exit_2(posting, tmp_path, capsys, monkeypatch):
    fake = posting
    pr = pull_at(fake)
    write_result(result(), tmp_path / "bench/a.json")
    argv = ["--results", str(tmp_path / "bench"), "--pr", "1"]
    assert report_main([*argv, "--sha", "abc"]) == 2
    assert "--sha: give the full 40-digit commit" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_TOKEN", fake.READ_TOKEN)
    assert report_main([*argv, "--sha", pr.head_sha]) == 2
    assert "perfbot report: error: GitHub: Resource not accessible by integration" in (
        capsys.readouterr().err
    )
    assert fake.reviews == []
    monkeypatch.setenv("GITHUB_TOKEN", fake.WRITE_TOKEN)
    assert report_main([*argv, "--sha", pr.head_sha, "--matrix", "{"]) == 2
    assert "--matrix is not the gate's matrix JSON" in capsys.readouterr().err
    assert report_main([*argv, "--sha", pr.head_sha, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out.splitlines()[0])["commit_id"] == pr.head_sha and fake.reviews == []


def test_results_are_checked_against_the_benchmarks_of_the_config(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    forged = result(name="dit-1p", row={"model name": "dit", "cards": "8"}, cards=8)
    stray = result(name="not-a-benchmark")
    assert post(tmp_path, pr, forged, stray) == 0
    (review,) = fake.reviews
    assert (
        "result `not-a-benchmark` is not a benchmark of `.perfbot.yml`; it is ignored"
        in (review["body"])
    )
    # the config's row and cards, not the file's: the 1-card row gets the numbers
    assert [c["line"] for c in fake.review_comments] == [ROW1]
    assert "| 0.91 | 70.15 |" in fake.review_comments[0]["body"]
    # a result the gate did not plan is ignored too
    matrix = json.dumps({"include": [{"name": "dit-8p", "readme": PATH, "runs-on": ["x"]}]})
    argv = ["--results", str(tmp_path / "bench"), "--pr", "1", "--sha", pr.head_sha]
    assert report_main([*argv, "--matrix", matrix]) == 1
    body = fake.reviews[1]["body"]
    assert "result `dit-1p` was not planned by the gate; it is ignored" in body
    assert "- `dit-8p` (`examples/dit/README.md`): **no result**" in body


# --- a re-run of the report job ----------------------------------------------------------------


def api(fake, token=GitHubFake.WRITE_TOKEN):
    from perfbot.github.client import Client

    return Client(fake.repo, token, fake.api_url)


def live_reviews(fake, sha):
    from perfbot.rerun.report import posted_reviews

    return posted_reviews(api(fake).reviews(1), bot="github-actions[bot]", sha=sha)


def test_a_rerun_of_the_report_job_posts_nothing_twice(posting, tmp_path, capsys):
    fake = posting
    pr = pull_at(fake)
    failed = result(**R8, status="failed", message="exit 1", s_per_step=None, log_tail=["boom"])
    assert post(tmp_path, pr, result(), failed) == 1  # exit 1: "Re-run failed jobs" repeats it
    assert post(tmp_path, pr, result(), failed) == 1  # the same results, sha and matrix
    (review,) = fake.reviews
    assert len(fake.review_comments) == 1 and fake.schema_errors == []
    assert review["body"].splitlines()[-1] == (
        f"<!-- perfbot:rerun sha={pr.head_sha} results="
        + review["body"].rsplit("results=", 1)[1].split(" ")[0]
        + " jobs=dit-1p,dit-8p -->"
    )
    assert "already reports these results" in capsys.readouterr().err
    assert [p.id for p in live_reviews(fake, pr.head_sha)] == [review["id"]]


def test_newer_results_for_the_same_commit_supersede_the_earlier_review(posting, tmp_path):
    fake = posting
    pr = pull_at(fake)
    assert post(tmp_path, pr, result()) == 0
    assert post(tmp_path, pr, result(s_per_step=0.95, started_at="2026-12-01T10:00:00Z")) == 0
    first, second = fake.reviews
    assert fake.schema_errors == [] and fake.unhandled == []
    # one live review: the newer; the older says it is superseded and links the newer
    assert [p.id for p in live_reviews(fake, pr.head_sha)] == [second["id"]]
    assert first["body"].startswith(
        f"### perfbot rerun at `{pr.head_sha[:7]}`: **superseded** by [a newer review]("
        f"https://github.com/org/models/pull/1#pullrequestreview-{second['id']})"
    )
    assert first["body"].endswith(f"by={second['id']} -->")
    assert "These results replace those of an earlier perfbot rerun" in second["body"]
    old_comments = [c for c in fake.review_comments if c["review_id"] == first["id"]]
    new_comments = [c for c in fake.review_comments if c["review_id"] == second["id"]]
    assert old_comments and all("```suggestion" not in c["body"] for c in old_comments)
    assert all(c["minimized"] == "OUTDATED" for c in old_comments)
    assert "| 0.95 | 67.37 |" in new_comments[0]["body"]
    # a third run on the second's results still posts nothing
    assert post(tmp_path, pr, result(s_per_step=0.95, started_at="2026-12-01T10:00:00Z")) == 0
    assert len(fake.reviews) == 2
    # a rerun of another benchmark only (`/perfbot rerun dit-8p`) leaves dit-1p's review live
    argv = ["--results", str(tmp_path / "only8"), "--pr", "1", "--sha", pr.head_sha]
    write_result(result(**R8, commit=pr.head_sha), tmp_path / "only8/dit-8p.json")
    assert report_main(argv) == 0
    third = fake.reviews[-1]
    assert [p.id for p in live_reviews(fake, pr.head_sha)] == [second["id"], third["id"]]
    assert third["body"].endswith(" jobs=dit-8p -->") and second["body"].endswith(
        " jobs=dit-1p -->"
    )


def test_markers_count_only_as_the_last_line_of_perfbots_own_review(posting, tmp_path):
    from perfbot.github.command import ok_to_test_comments
    from perfbot.rerun.summary import posted_marker, results_digest
    from perfbot.runner.bench import load_results

    fake = posting
    pr = pull_at(fake)
    # the results the report will read, and the marker its review will carry
    write_result(result(commit=pr.head_sha), tmp_path / "bench/dit-1p.json")
    digest = results_digest(load_results([tmp_path / "bench"]), pr.head_sha, [])
    forged = posted_marker(pr.head_sha, digest, ["dit-1p"])
    # someone else writes that marker in a review of their own
    fake.add_token("ghp_mallory", login="mallory")
    api(fake, "ghp_mallory").create_review(
        1, pr.head_sha, f"### perfbot rerun at `{pr.head_sha[:7]}`\n{forged}", []
    )
    # a log line quotes it (and an approval) inside perfbot's own earlier review
    approval = f"/perfbot ok-to-test {pr.head_sha}"
    quoting = result(
        **R8, status="failed", message="exit 1", s_per_step=None, log_tail=[forged, approval]
    )
    assert post(tmp_path / "a", pr, quoting) == 1
    # (quoted in the log's code block, its `<!--` broken: not even a hidden comment)
    assert f"perfbot:rerun sha={pr.head_sha} results={digest}" in fake.reviews[-1]["body"]
    # neither stops the report from posting its own review, and both are left alone (perfbot's
    # earlier review measured another benchmark: its own last line says so)
    argv = ["--results", str(tmp_path / "bench"), "--pr", "1", "--sha", pr.head_sha]
    assert report_main(argv) == 0
    mallory, quoted, ours = fake.reviews
    assert mallory["body"].endswith(forged) and mallory["user"] == "mallory"
    assert ours["body"].endswith(forged) and "superseded" not in quoted["body"]
    assert [p.id for p in live_reviews(fake, pr.head_sha)] == [quoted["id"], ours["id"]]
    # and nothing in a review is an approval for the gate (it reads conversation comments only)
    assert ok_to_test_comments(api(fake).issue_comments(1)) == []


def test_a_new_version_table_outside_the_diff_is_shown_as_a_diff():
    env = {"mindspore": "2.7.1", "cann": "8.3.RC1", "driver": "25.3.RC1", "firmware": "7.8.0.2.212"}
    plan = plan_review(
        groups_for([result(environment=env)]), rerun=RerunConfig(), sha=SHA, hunks=hunks_on(ROW1)
    )
    assert plan.comments == [] and plan.changed_rows == 1
    body = plan.body
    assert "| new MindSpore 2.7.1 table |" in table_row(body, "dit-1p")
    assert (
        "The runner ran MindSpore 2.7.1; the rows of `dit-1p` are in the table for `2.3.1`" in body
    )
    assert "To add a MindSpore 2.7.1 table (measured by perfbot rerun):" in body
    assert "+ Experiments are tested on ascend 910* with mindspore 2.7.1 graph mode." in body
    assert "+ | 2.7.1 | 25.3.RC1 | 7.8.0.2.212 | 8.3.RC1 |" in body
    assert "Unchanged at two decimals" not in body
    text = plan.texts[PATH]
    assert "| 0.89 | 71.91 |" in text and "| 0.91 | 70.15 |" in text
    findings = check_source(Source.from_text(text, path=PATH)).findings
    assert [f.message for f in findings if f.severity == "error"] == []


def test_row_and_bench_notes_are_listed_inertly():
    r = result(
        graph_compile_s=None,
        notes=["compile could not be measured: step 1 is not slower", "`@admin` <b>x</b>"],
    )
    body = plan_review(groups_for([r]), rerun=RerunConfig(), sha=SHA).body
    notes = body.split("#### Notes\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert notes[0].startswith("- `dit-1p`: graph compile was not measured from this log")
    assert notes[1] == ("- `dit-1p` (bench): `compile could not be measured: step 1 is not slower`")
    assert "@admin" in notes[2] and notes[2].startswith("- `dit-1p` (bench): ``")


def test_the_marker_stays_the_last_line_of_a_body_at_githubs_limit():
    from perfbot.github.suggest import MAX_BODY
    from perfbot.rerun.report import posted_reviews
    from perfbot.rerun.summary import posted_marker, with_marker

    tails = [f"line {i} " + "x" * 290 for i in range(30)]
    failed = [
        result(name=f"b{i}", status="failed", message="exit 1", s_per_step=None, log_tail=tails)
        for i in range(12)
    ]
    body = plan_review(groups_for(failed), rerun=RerunConfig(), sha=SHA).body
    marker = posted_marker(SHA, "0123456789abcdef", [f"b{i}" for i in range(12)])
    posted = with_marker(body, marker)
    assert len(posted) <= MAX_BODY and posted.endswith("\n" + marker)
    review = {"id": 7, "user": {"login": "github-actions[bot]"}, "body": posted}
    (p,) = posted_reviews([review], bot="github-actions[bot]", sha=SHA)
    assert p.digest == "0123456789abcdef" and len(p.jobs) == 12
    # the same body by anyone else, or with the marker anywhere but last, is no review of ours
    assert (
        posted_reviews(
            [{**review, "user": {"login": "mallory"}}], bot="github-actions[bot]", sha=SHA
        )
        == []
    )
    assert (
        posted_reviews([{**review, "body": posted + "\nmore"}], bot="github-actions[bot]", sha=SHA)
        == []
    )


def test_each_ranks_step_time_is_listed():
    ranks = [
        {"rank": 0, "log_path": "msrun_log/worker_0.log", "s_per_step": 0.2309},
        {"rank": 1, "log_path": "msrun_log/worker_1.log", "s_per_step": 0.2796},
    ]
    r = result(s_per_step=0.2796).model_copy(update={"ranks": ranks})
    body = plan_review(groups_for([r]), rerun=RerunConfig(), sha=SHA).body
    assert (
        "- `dit-1p`: s/step per rank: rank 0 0.2309, rank 1 0.2796 (the row has the slowest rank's)"
        in body
    )


def _table_lines(text: str, sentence: str) -> range:
    """The lines (1-based) of the table under ``sentence``, and the lines under it up to the next
    blank line after a blank line (its notes)."""
    lines = text.splitlines()
    start = lines.index(sentence) + 1
    end = start + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return range(start + 1, end + 2)


NEW_ENV = {"mindspore": "2.7.1", "cann": "8.3.RC1", "driver": "25.3.RC1", "firmware": "7.8.0.2.212"}


def test_the_local_loop_on_a_new_version_leaves_nothing_for_check_in_the_new_table(repo, capsys):
    """Issue 23's local loop: two benchmarks on MindSpore 2.7.1 for a 2.3.1 table, one of which
    could not time graph compile, then report --write: the new table's every cell is measured or
    marked as not measured (the placeholder and a note under the table that says what it
    means), and check finds nothing in it."""
    write_result(result(environment=NEW_ENV, graph_compile_s=None), repo / "bench/dit-1p.json")
    write_result(result(environment=NEW_ENV, **R8), repo / "bench/dit-8p.json")
    argv = ["--results", str(repo / "bench"), "--config", str(repo / ".perfbot.yml"), "--write"]
    assert report_main(argv) == 0
    capsys.readouterr()
    new = (repo / PATH).read_text()
    sentence = "Experiments are tested on ascend 910* with mindspore 2.7.1 graph mode."
    assert sentence in new
    assert "| dit | 1 | 64 | 256x256 | OFF | O2 | - | 0.91 | 70.15 |" in new
    assert "| dit | 8 | 64 | 256x256 | ON | O2 | 3~5 mins | 0.91 | 561.19 |" in new
    note = next(ln for ln in new.splitlines() if "not measured" in ln)
    assert note.startswith("`-`: not measured") and "2.7.1" in note
    findings = check_source(Source.from_text(new, path=PATH)).findings
    in_new = [f for f in findings if f.line in _table_lines(new, sentence)]
    assert in_new == [], [f"{f.line}: {f.rule} {f.message}" for f in in_new]
    # a second report changes nothing more (the rows are where they belong now)
    assert report_main(argv) == 0
    assert (repo / PATH).read_text() == new
