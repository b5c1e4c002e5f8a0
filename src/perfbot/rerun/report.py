"""`perfbot report`: merge the results of all benchmark jobs and post the refreshed rows.

:func:`report_main` is the command: locally (``--results`` only) it reads the READMEs from disk,
prints the summary (:mod:`.summary`) and, with ``--write``, applies the new numbers; on a pull
request (``--pr``/``--sha``) it reads the README and ``.perfbot.yml`` at the benchmarked commit
through the GitHub API and posts one review through the PR review's writer
(:class:`perfbot.github.review.post.Writer`: posted once, an earlier rerun review of the same
commit superseded), or, with ``rerun.push``, commits the new numbers to a same-repository branch.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import quote

from perfbot.config import Config, ConfigError, load_config
from perfbot.github import markers
from perfbot.github.client import Client, GitHubError
from perfbot.github.command import default_branch, read_repo_config, rerun_policy
from perfbot.github.event import CIEnv, EventError, PullRequestInfo
from perfbot.github.markdown import code
from perfbot.github.review.post import PostedReview, Writer
from perfbot.github.review.post import posted_reviews as _posted_reviews
from perfbot.hunks import hunks_by_path
from perfbot.rerun.summary import (
    HEADING,
    MARKER,
    ReviewPlan,
    dedupe,
    plan_review,
    posted_marker,
    refresh_all,
    results_digest,
    short_sha,
    with_marker,
)
from perfbot.runner.bench import BenchResult, ResultsError, load_results, stop_commands_token
from perfbot.runner.spec import SpecError, validate_benchmarks

__all__ = ["posted_reviews", "report_main"]

DEFAULT_BOT = "github-actions[bot]"  # the login GITHUB_TOKEN writes as (it cannot ask GET /user)


def posted_reviews(reviews: Iterable[Mapping], *, bot: str, sha: str) -> list[PostedReview]:
    """perfbot's live rerun reviews of commit ``sha``, oldest first (see
    :func:`perfbot.github.review.post.posted_reviews`)."""
    return _posted_reviews(reviews, bot=bot, sha=sha, heading=HEADING)


def _supersede_notes(old: PostedReview, new: Mapping) -> tuple[str, str]:
    """An earlier rerun review's new body, and its inline suggestions' new text."""
    new_url = str(new.get("html_url") or "")
    newer = f"[a newer review]({new_url})" if new_url else "a newer review"
    try:
        by = int(new.get("id"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        by = 0
    note = (
        f"{HEADING} at `{short_sha(old.sha)}`: **superseded** by {newer} of the same commit, "
        "with newer results. The numbers this review showed are out of date.\n\n"
        + markers.superseded(old.sha, old.digest, by)
    )
    comment = (
        f"**perfbot rerun**: superseded by {newer}; this suggestion held numbers that are out of "
        f"date.\n\n{MARKER}"
    )
    return note, comment


# --- the command ----------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perfbot report",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Merge benchmark results and refresh the README rows they measure: print a "
        "summary (and --write the READMEs), or post one review on a pull request (--pr).",
    )
    p.add_argument(
        "--results",
        nargs="+",
        default=[],
        metavar="PATH",
        help="results JSON files of perfbot bench, or folders of them",
    )
    p.add_argument("--config", default=".perfbot.yml", help="config file (default .perfbot.yml)")
    p.add_argument("--write", action="store_true", help="local run: write the new numbers")
    p.add_argument("--pr", type=int, help="pull request to review (needs --sha and a token)")
    p.add_argument("--sha", help="the commit the benchmarks measured (the gate's pinned sha)")
    p.add_argument(
        "--matrix",
        help="the gate's matrix JSON: a planned benchmark without a result is reported too",
    )
    p.add_argument(
        "--bot-login",
        help="login perfbot's reviews are written by (default: the token's, else "
        "github-actions[bot]); only its earlier reviews are found and superseded",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="with --pr: print the review as JSON instead of posting it",
    )
    return p


def _err(msg: str) -> None:
    for line in msg.splitlines() or [msg]:
        print(f"perfbot report: error: {line}", file=sys.stderr)


def _step_summary(text: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as fh:
        fh.write(text + "\n")


def reconcile(
    results: list[BenchResult], benchmarks: object, source: str = ".perfbot.yml"
) -> tuple[list[BenchResult], list[str]]:
    """Results checked against the benchmarks of the config (a results file is data from a
    runner that ran the pull request's code): one that names no benchmark is dropped, and each
    row, README, cards and batch size are the config's, not what the file says."""

    try:
        specs = {s.name: s for s in validate_benchmarks(benchmarks, source=source)}
    except SpecError as e:
        raise ValueError(str(e)) from None
    out, notes = [], []
    for r in results:
        spec = specs.get(r.name)
        if spec is None:
            notes.append(f"result {code(r.name)} is not a benchmark of `{source}`; it is ignored")
            continue
        out.append(
            r.model_copy(
                update={
                    "readme": spec.readme,
                    "row": spec.row,
                    "cards": spec.cards,
                    "batch_size": spec.batch_size,
                    "inference": spec.inference,
                    "sampling_steps": spec.sampling_steps,
                }
            )
        )
    return out, notes


def _expected(matrix: str | None) -> list[tuple[str, str]]:
    """(name, README) of each job of the gate's matrix; ValueError when it is not one."""
    if not matrix:
        return []
    try:
        data = json.loads(matrix)
        items = data["include"]
        out = [(str(i["name"]), str(i.get("readme", ""))) for i in items]
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"--matrix is not the gate's matrix JSON ({e})") from None
    return out


def report_main(argv: list[str]) -> int:
    """`perfbot report`: 0 every benchmark measured, 1 some did not finish (the report is still
    written or posted), 2 usage, results, config or GitHub error."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else 2
    existing = [p for p in args.results if Path(p).exists()]
    try:
        expected = _expected(args.matrix)
        results, notes = dedupe(load_results(existing if expected else args.results))
    except (ResultsError, ValueError) as e:
        _err(str(e))
        return 2
    if expected:
        planned = {n for n, _ in expected}
        for r in [r for r in results if r.name not in planned]:
            notes.append(f"result {code(r.name)} was not planned by the gate; it is ignored")
        results = [r for r in results if r.name in planned]
    got = {r.name for r in results}
    missing = [(n, readme) for n, readme in expected if n not in got]
    if not results and not missing:
        _err("no results found in " + (", ".join(args.results) or "(no --results)"))
        return 2
    if args.pr is not None:
        return _report_pull(args, results, notes, missing)
    if args.dry_run or args.sha:
        _err("--dry-run and --sha go with --pr")
        return 2
    return _report_local(args, results, notes, missing)


def _report_local(
    args: argparse.Namespace,
    results: list[BenchResult],
    notes: list[str],
    missing: list[tuple[str, str]],
) -> int:
    config_file = Path(args.config)
    try:
        config = load_config(config_file) if config_file.is_file() else Config()
    except ConfigError as e:
        _err(str(e))
        return 2
    root = config_file.parent
    if config.benchmarks:
        try:
            results, more = reconcile(results, config.benchmarks, str(config_file))
        except ValueError as e:
            _err(str(e))
            return 2
        notes = notes + more

    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    groups = refresh_all(results, read=read, config=config, config_path=config_file.name)
    plan = plan_review(groups, rerun=config.rerun, notes=notes, missing=missing)
    _print_body(plan.body)
    _step_summary(plan.body)
    if args.write:
        for source, _ in groups:
            if source is None or source.path not in plan.texts:
                continue
            try:
                (root / source.path).write_bytes(source.encode(plan.texts[source.path]))
            except OSError as e:
                _err(f"cannot write {root / source.path}: {e.strerror or e}")
                return 2
            print(f"perfbot report: wrote {root / source.path}", file=sys.stderr)
    return 1 if plan.failed else 0


def _print_body(body: str) -> None:
    """The review body on stdout, fenced with `::stop-commands::` in a GitHub Actions job: its
    log tails are the benchmark's output, which must not reach the runner as workflow commands."""
    token = stop_commands_token()
    if token:
        print(f"::stop-commands::{token}")
    print(body)
    if token:
        print(f"::{token}::")
    sys.stdout.flush()


def _report_pull(
    args: argparse.Namespace,
    results: list[BenchResult],
    notes: list[str],
    missing: list[tuple[str, str]],
) -> int:
    """Post one review on pull request ``args.pr`` for the results measured at ``args.sha``."""

    sha = (args.sha or "").lower()
    if not re.fullmatch(r"[0-9a-f]{40}", sha):
        _err("--sha: give the full 40-digit commit the benchmarks measured (the gate's sha)")
        return 2
    try:
        env = CIEnv.from_environ()
    except EventError as e:
        _err(str(e))
        return 2
    if not env.repository or not env.token:
        _err("GITHUB_REPOSITORY and GITHUB_TOKEN are needed to post to a pull request")
        return 2
    client = Client(env.repository, env.token, env.api_url)
    run_url = f"{env.server_url}/{env.repository}/actions/runs/{env.run_id}" if env.run_id else None
    try:
        plan = _post(client, env, args, sha, results, notes, missing, run_url)
    except GitHubError as e:
        _err(f"GitHub: {e}")
        return 2
    except ValueError as e:  # a config problem, already worded for the user
        _err(str(e))
        return 2
    _print_body(plan.body)
    _step_summary(plan.body)
    return 1 if plan.failed else 0


def _repo_config(client, path: str, ref: str, what: str) -> tuple[dict | None, Config]:
    from pydantic import ValidationError

    data, problem = read_repo_config(client, path, ref)
    if problem:
        raise ValueError(f"{what}: {problem}")
    try:
        return data, Config.model_validate(data or {})
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise ValueError(f"{what}: `{path}`: {loc}: {err['msg']}") from None


def _post(client, env, args, sha, results, notes, missing, run_url) -> ReviewPlan:

    repo = env.repository
    pull = client.pull(args.pr)
    info = PullRequestInfo.from_api(pull, repo)
    branch = default_branch(pull, env.payload)
    if not branch:
        raise ValueError("GitHub did not say which branch is the repository's default branch")
    base_data, _ = _repo_config(client, args.config, branch, "default branch")
    policy = rerun_policy(base_data, args.config)  # the policy is the default branch's
    head_data, config = _repo_config(client, args.config, sha, f"`{sha[:7]}`")
    config = config.model_copy(update={"rerun": policy})
    if head_data is None or not head_data.get("benchmarks"):
        raise ValueError(f"`{args.config}` at `{sha[:7]}` declares no `benchmarks:`")
    digest = results_digest(results, sha, _expected(args.matrix))
    jobs = {n for n, _ in _expected(args.matrix)} or {r.name for r in results}
    marker = posted_marker(sha, digest, jobs)
    bot = args.bot_login or client.whoami() or DEFAULT_BOT
    earlier = posted_reviews(client.reviews(args.pr), bot=bot, sha=sha)
    same = [p for p in earlier if p.digest == digest]
    # a review of the same commit whose benchmarks these results all measure again
    older = [p for p in earlier if p.digest != digest and p.jobs <= jobs]
    results, more = reconcile(results, head_data["benchmarks"], args.config)

    def read(path: str) -> bytes | None:
        try:
            return client.file_content(path, sha)
        except GitHubError as e:
            if e.status == 404:
                return None
            raise

    groups = refresh_all(results, read=read, config=config, config_path=args.config, sha=sha)
    head = info.head_sha.lower()
    moved = head != sha
    notes = list(notes) + more
    if older and not same:
        links = ", ".join(f"[review {p.id}]({p.url})" if p.url else f"review {p.id}" for p in older)
        notes.append(
            f"These results replace those of an earlier perfbot rerun of `{sha[:7]}` ({links}), "
            "now marked as superseded."
        )
    if moved:
        notes.append(
            f"The pull request has moved on to `{head[:7]}` since the benchmarks ran on "
            f"`{sha[:7]}`: the new rows are shown here rather than as suggestions."
        )
    hunks = None if moved else hunks_by_path(client.pull_files(args.pr))

    def link(path: str, line: int | None) -> str:
        if line:
            return env.blob_url(repo, sha, path, line)
        return f"{env.server_url}/{repo}/blob/{sha}/{quote(path)}"

    common = {
        "rerun": policy,
        "sha": sha,
        "link": link,
        "missing": missing,
        "run_url": run_url,
        "max_comments": config.review.max_comments,
    }
    plan = plan_review(groups, hunks=hunks, notes=notes, **common)
    if same and not args.dry_run:
        # a re-run of this job ("Re-run failed jobs"): the review is already there
        where = f" ({same[-1].url})" if same[-1].url else ""
        print(
            f"perfbot report: review {same[-1].id}{where} already reports these results at "
            f"`{sha[:7]}`; nothing new is posted",
            file=sys.stderr,
        )
        return plan
    if policy.push and plan.texts:
        why = None
        if info.fork:
            why = "the pull request comes from a fork"
        elif moved:
            why = "the pull request has new commits"
        else:
            try:
                pushed = _push(client, repo, info.head_ref, groups, plan.texts, sha)
                plan = plan_review(groups, hunks=None, notes=notes, pushed=pushed, **common)
            except GitHubError as e:
                why = f"GitHub refused the commit ({e})"
        if why:
            notes.append(f"`rerun.push` is on, but {why}: suggesting the numbers instead.")
            plan = plan_review(groups, hunks=hunks, notes=notes, **common)
    if args.dry_run:
        body = with_marker(plan.body, marker)
        print(json.dumps({"commit_id": sha, "body": body, "comments": plan.comments}))
        return plan
    # the PR review's writer: one review, found again by its marker after a lost answer
    writer = Writer(client)

    def ours(rv: dict) -> bool:
        return any(p.digest == digest for p in posted_reviews([rv], bot=bot, sha=sha))

    try:
        posted = writer.create_review(
            args.pr, sha, with_marker(plan.body, marker), plan.comments, ours=ours
        )
    except GitHubError as e:
        if e.status != 422 or not plan.comments:
            raise
        notes.append(f"GitHub refused the inline suggestions ({e}); here they are as diffs.")
        plan = plan_review(groups, hunks=None, notes=notes, **common)
        posted = writer.create_review(args.pr, sha, with_marker(plan.body, marker), [], ours=ours)
    if writer.read_only_error is not None:
        raise writer.read_only_error  # as before the writer: `GitHub: <why>`, exit 2
    for old in older:
        # the new review is posted; an old one GitHub will not edit just stays
        note, comment = _supersede_notes(old, posted or {})
        writer.supersede(args.pr, old, bot=bot, note=note, comment_note=comment)
    for failure in writer.out.failures:
        print(f"perfbot report: {failure}", file=sys.stderr)
    return plan


def _push(client, repo: str, branch: str, groups, texts: dict[str, str], sha: str) -> str:
    """Commit each refreshed README to ``branch`` (contents API); returns the last commit.
    A README changed on the branch since ``sha`` is a conflict (GitHub answers 409)."""

    sources = {s.path: s for s, _ in groups if s is not None}
    last = ""
    for path, text in texts.items():
        source = sources[path]
        measured = source.encode(source.text)
        blob = hashlib.sha1(b"blob %d\0" % len(measured) + measured).hexdigest()
        url = f"/repos/{repo}/contents/{quote(path)}"
        _, meta = client.request("GET", url, params={"ref": branch})
        if (meta or {}).get("sha") != blob:
            raise GitHubError(409, f"{path} changed on {branch} since `{sha[:7]}`")
        body = {
            "message": f"perfbot rerun: refresh the measured numbers of {path}\n\n"
            f"Measured at {sha} by `/perfbot rerun`.",
            "content": base64.b64encode(source.encode(text)).decode("ascii"),
            "sha": blob,
            "branch": branch,
        }
        _, out = client.request("PUT", url, body=body)
        last = str(((out or {}).get("commit") or {}).get("sha") or "")
    return last
