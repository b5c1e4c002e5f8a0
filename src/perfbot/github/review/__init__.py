"""``perfbot review`` and ``perfbot post``: one pull-request review whose comments fix the tables.

The flow is plan, then post (reviewdog's parser -> filter -> service, with perfbot's core as the
parser):

1. **Read.** The PR's changed files (one request per 100), the model READMEs among them (the
   config's ``paths``/``exclude``, else ``README*.md`` holding a Requirements or Performance table),
   each at the PR's head sha: from the workspace when it is checked out at that sha, else from the
   contents API.
2. **Plan** (:func:`plan_file`, pure). The core checks each file and fixes it until stable; the
   fixed text is lined up with the original and cut into :class:`Item` s, one per future comment:
   a table row with all of its fixes in one suggestion, a table's table-wide fixes (reorder, header,
   alignment, added rows) as one suggestion over the lines they touch, or the lines of a finding
   outside tables. Items that overlap are merged, so the suggestions never conflict and applying
   all of them gives the fixed file. A finding without a fix joins the item on its line or gets a
   comment of its own.
3. **Filter** (:func:`decide`). reviewdog's filter modes say which findings are in scope
   (``diff_context``, the default: whole tables that the PR touches); an item in scope is inline
   when its lines are in one diff hunk (GitHub refuses the whole review otherwise), else it goes
   into the review body as a plain block with a permalink. At most ``max_comments`` are inline;
   the rest go into the summary.
4. **Post** (:class:`Publisher`). Existing comments are read once; each of perfbot's comments
   carries hidden fingerprints (``suggest.fingerprint(path, table_key, row_key, rule)``, no line
   numbers) and an item key (fingerprints plus suggested text), so a re-run posts only what is new.
   One review (``event: COMMENT`` at the head sha), then comments whose findings are gone are
   edited to say so and minimized, then the sticky summary comment is created or edited in place.
   A 422 (a line GitHub will not take) is retried once with the inline comments moved into the
   body; a 5xx on a POST is retried only after checking that the first attempt did not land; a
   403 on a write (a fork's read-only token) stops writing, and the findings stay in the job
   summary and the annotations.

Always: annotations (workflow commands) for the findings in scope, the job summary
(``GITHUB_STEP_SUMMARY``), the outputs ``findings``/``errors``/``fixable`` (``GITHUB_OUTPUT``),
and the exit code per ``--fail-on`` (0 clean, 1 findings at or above it, 2 errors).

Forks: ``perfbot review --findings-out f.json`` in the unprivileged ``pull_request`` run writes the
plan as data; ``perfbot post --findings f.json`` in a ``workflow_run`` job (write token) reads it
as untrusted input (:class:`FindingsFile`, pydantic, strict), checks it against the PR (its head
sha, its files, perfbot's rules), then checks that commit's READMEs itself (the contents API, the
config of its own checkout) and posts that, counting the file's comments that differ.

This package's front holds the two commands; the steps are its modules, in the order they run:
:mod:`.read` (1), :mod:`.plan` (2 and 3), :mod:`.render` (the text of every comment and summary),
:mod:`.post` (4), and :mod:`.findings_file` (the untrusted file of the fork workflow). The
names that tests and callers use are re-exported here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...config import Config, ConfigError, config_for, load_config
from ...engine import FileResult, at_or_above
from ...hunks import FilterMode
from ...rules import get_rule
from ..client import Client, GitHubError, NetworkError, RateLimitedError
from ..event import CIEnv, EventError, PullRequestInfo, in_github_actions
from ..markdown import code
from .findings_file import FindingsFile, from_file, to_file
from .plan import FilePlan, Item, Outcome, Plan, Report, decide, fix_with_map, plan_file
from .post import Existing, Publisher
from .post import _parse_posted as _parse_posted
from .read import build_plan
from .render import comment_body, job_summary, md_text, summary_comment

__all__ = [
    "Existing",
    "FilePlan",
    "FindingsFile",
    "Item",
    "Outcome",
    "Plan",
    "Publisher",
    "Report",
    "build_plan",
    "comment_body",
    "decide",
    "fix_with_map",
    "from_file",
    "job_summary",
    "md_text",
    "plan_file",
    "post_main",
    "review_main",
    "summary_comment",
    "to_file",
]

PROG = "perfbot"
FAIL_ON = ("error", "warning", "info", "never")


# --------------------------------------------------------------------------------------------
# Commands


class _Fatal(Exception):
    """A problem that ends the run with a message and exit code 2."""


def _opt(value: str) -> str | None:
    return value.strip() or None


def _patterns(value: str | None) -> list[str]:
    if not value:
        return []
    return [p.strip() for p in re.split(r"[,\n]", value) if p.strip()]


def _max_comments(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def _filter_mode(value: str) -> FilterMode | None:
    if not value.strip():
        return None
    try:
        return FilterMode.parse(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _fail_on(value: str) -> str:
    value = value.strip().lower() or "error"
    if value not in FAIL_ON:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(FAIL_ON)}")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--repo",
        type=_opt,
        metavar="OWNER/NAME",
        help="the repository (default: $GITHUB_REPOSITORY)",
    )
    p.add_argument(
        "--pr", type=int, metavar="NUMBER", help="pull request number (default: the event's)"
    )
    p.add_argument(
        "--token", type=_opt, metavar="TOKEN", help="GitHub token (default: $GITHUB_TOKEN)"
    )
    p.add_argument(
        "--api-url", type=_opt, metavar="URL", help="REST API root (default: $GITHUB_API_URL)"
    )
    p.add_argument("--config", type=_opt, metavar="FILE", help="use this .perfbot.yml")
    p.add_argument(
        "--filter-mode",
        type=_filter_mode,
        metavar="{added,diff_context,file,nofilter}",
        help="added, diff_context, file or nofilter (default: .perfbot.yml review.filter_mode, "
        "else diff_context)",
    )
    p.add_argument(
        "--max-comments",
        type=_max_comments,
        metavar="N",
        help="inline comments per review; the rest go into the summary (default: .perfbot.yml "
        "review.max_comments, else 50)",
    )
    p.add_argument(
        "--fail-on",
        type=_fail_on,
        default=None,
        metavar="{error,warning,info,never}",
        help="exit 1 when a finding in scope is at or above this severity (default: error)",
    )
    p.add_argument(
        "--workspace",
        type=_opt,
        metavar="DIR",
        help="checkout of the PR (default: $GITHUB_WORKSPACE)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print what would be posted; post nothing"
    )


def _review_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} review",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Check the model READMEs a pull request changes and post one review whose "
        "comments suggest the fixes (the GitHub Action's entrypoint).",
    )
    _common(p)
    p.add_argument(
        "--paths", type=_opt, metavar="GLOBS", help="only these files (comma or newline separated)"
    )
    p.add_argument("--sarif-file", type=_opt, metavar="FILE", help="also write SARIF here")
    p.add_argument(
        "--findings-out",
        type=_opt,
        metavar="FILE",
        help="also write the findings as data for `perfbot post` (fork pull requests)",
    )
    p.add_argument(
        "--findings",
        type=_opt,
        metavar="FILE",
        help="post this findings file instead of checking (same as `perfbot post --findings`)",
    )
    return p


def _post_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} post",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Post a findings file written by `perfbot review --findings-out` (the "
        "privileged half of the two-workflow pattern for pull requests from forks). The file is "
        "treated as untrusted data.",
    )
    _common(p)
    p.add_argument(
        "--findings",
        type=_opt,
        metavar="FILE",
        required=True,
        help="the findings file `perfbot review --findings-out` wrote (read as untrusted data)",
    )
    return p


def _err(msg: str) -> None:
    print(f"{PROG}: error: {msg}", file=sys.stderr)


def _note(msg: str) -> None:
    print(f"{PROG}: {msg}", file=sys.stderr)


class _Run:
    """Everything a command shares: the environment, options, the client, where output goes."""

    def __init__(self, args: argparse.Namespace, env: CIEnv):
        self.args = args
        self.env = env
        repo = args.repo or env.repository
        if not repo or "/" not in repo:
            raise _Fatal("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
        self.repo: str = repo
        self.token = args.token or env.token
        self.api_url = args.api_url or env.api_url
        self.client = Client(self.repo, self.token, self.api_url)
        self.workspace = args.workspace or env.workspace or (None if env.actions else os.getcwd())
        root_cfg = self._root_config()
        self.mode = args.filter_mode or FilterMode.parse(root_cfg.review.filter_mode)
        self.max_comments = (
            args.max_comments if args.max_comments is not None else root_cfg.review.max_comments
        )
        self.notes: list[str] = []

    def _root_config(self) -> Config:
        a = self.args
        try:
            if a.config:
                return load_config(a.config)
            if self.workspace and os.path.isdir(self.workspace):
                return config_for(os.path.join(self.workspace, "README.md"))[0]
        except ConfigError as e:
            raise _Fatal(str(e)) from None
        return Config()

    # --- outputs ------------------------------------------------------------------------------

    def finish(
        self,
        plan: Plan | None,
        outcome: Outcome | None,
        *,
        annotations: bool,
        fail_on: str,
        fatal: str | None = None,
        file_errors_fail: bool = True,
    ) -> int:
        """Annotations, job summary, outputs, messages; returns the exit code."""
        env = self.env
        counts = plan.counts() if plan is not None else {"findings": 0, "errors": 0, "fixable": 0}
        if annotations and plan is not None:
            self._annotate(plan)
        notes = list(self.notes)
        if fatal:
            notes.append(f"**perfbot could not finish:** {md_text(fatal)}")
        if env.step_summary:
            _append(env.step_summary, job_summary(plan, env, outcome, notes))
        if env.output:
            _append(
                env.output,
                "".join(f"{k}={counts[k]}\n" for k in ("findings", "errors", "fixable")),
            )
        if outcome is not None:
            for f in outcome.failures:
                _err(f)
            if outcome.read_only:
                _note(f"nothing posted: {outcome.read_only}; see the job summary and annotations")
        if plan is not None:
            for e in plan.errors:
                print(e, file=sys.stderr)
            _note(_line(plan, outcome))
        if fatal:
            _err(fatal)
            return 2
        if plan is None:
            return 0
        if (file_errors_fail and plan.errors) or (outcome is not None and outcome.failures):
            return 2
        if fail_on != "never" and any(at_or_above(r.severity, fail_on) for r in plan.in_scope):
            return 1
        return 0

    def _annotate(self, plan: Plan) -> None:
        if self.env.actions or in_github_actions():
            from ...report.github import render

            keep = {(r.path, r.line, r.rule, r.message) for r in plan.in_scope}
            results = [
                FileResult(
                    res.path,
                    [f for f in res.findings if (f.path, f.line, f.rule, f.message) in keep],
                    source=res.source,
                )
                for res in plan.results
            ]
            sys.stdout.write(render(results, plan.errors))
        else:
            for r in sorted(plan.in_scope, key=lambda r: (r.path, r.line, r.rule)):
                print(f"{r.path}:{r.line}: {r.severity} {r.rule} {r.message}")
        sys.stdout.flush()


def _append(path: str, text: str) -> None:
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as e:
        _err(f"cannot write {path}: {e.strerror or e}")


def _line(plan: Plan, outcome: Outcome | None) -> str:
    c = plan.counts()
    text = (
        f"{plan.repo}#{plan.number}: {len(plan.files)} README(s), {c['findings']} finding(s) in "
        f"scope ({c['errors']} error(s)), {c['fixable']} fixable"
    )
    if outcome is not None and not outcome.read_only:
        text += (
            f"; posted {outcome.posted_inline} inline comment(s) and {outcome.posted_body} in the "
            f"review body, {outcome.skipped} already there, {outcome.resolved} resolved, "
            f"{outcome.outdated} outdated"
        )
        if outcome.summary:
            text += f"; summary {outcome.summary}"
    return text


def _write_json(path: str, data: str) -> None:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(data, encoding="utf-8")
    except OSError as e:
        raise _Fatal(f"cannot write {path}: {e.strerror or e}") from None


def _publish(run: _Run, plan: Plan, *, read_only: str = "") -> Outcome:
    """Read what is there and post; the dry run prints the writes instead."""
    pub = Publisher(
        run.client,
        plan,
        run.env,
        max_comments=run.max_comments,
        install=run.env.install_command(),
        dry_run=run.args.dry_run,
    )
    if read_only:
        pub.out.read_only = read_only
        for it in plan.items:
            if it.in_scope and it.suggestion is not None:
                it.where = "summary"
        return pub.out
    existing = Existing.load(run.client, plan.number)
    out = pub.publish(existing)
    if run.args.dry_run:
        print(json.dumps(pub.dry, indent=2, ensure_ascii=False))
    return out


def _own_plan(
    run: _Run, args: argparse.Namespace, pr: PullRequestInfo, files: list[dict[str, Any]]
) -> Plan:
    """perfbot's own check of the pull request's READMEs at its head (the checkout when it is
    at the head, else the contents API), with the config found in the checkout."""
    return build_plan(
        run.client,
        run.repo,
        pr,
        files,
        workspace=run.workspace,
        config_path=args.config,
        paths=_patterns(getattr(args, "paths", None)),  # `perfbot post` has no --paths
        mode=run.mode,
    )


def review_main(argv: Sequence[str] | None = None) -> int:
    """``perfbot review``: see the module docstring. Returns the exit code."""
    args = _review_parser().parse_args(list(argv or []))
    if args.findings:
        return _post(args)
    try:
        env = CIEnv.from_environ()
        run = _Run(args, env)
    except (EventError, _Fatal) as e:
        return _fail_early(str(e))
    fail_on = args.fail_on or "error"
    plan: Plan | None = None
    try:
        pr = _pull_request(run)
        if pr is None:
            _note(
                f"not a pull request event ({env.event_name or 'no event'}): nothing to review; "
                "pass --pr N to review one by hand"
            )
            return run.finish(None, None, annotations=False, fail_on=fail_on)
        files = run.client.pull_files(pr.number)
        plan = _own_plan(run, args, pr, files)
        if args.sarif_file:
            from ...report.sarif import render as sarif

            _write_json(args.sarif_file, sarif(plan.results, plan.errors))
        if args.findings_out:
            _write_json(args.findings_out, to_file(plan).model_dump_json(indent=1) + "\n")
        read_only = ""
        if env.read_only_token() and not args.token:
            read_only = (
                f"this pull request comes from a fork ({pr.head_repo or 'a deleted fork'}), and "
                "GitHub gives such runs a read-only token"
            )
            if args.findings_out:
                run.notes.append(
                    f"The findings were written to {code(args.findings_out)} for the "
                    "`perfbot post` workflow."
                )
        elif not run.token:
            read_only = "no token (set GITHUB_TOKEN or pass --token)"
        outcome = _publish(run, plan, read_only=read_only)
    except _Fatal as e:
        return run.finish(plan, None, annotations=True, fail_on=fail_on, fatal=str(e))
    except GitHubError as e:
        return run.finish(plan, None, annotations=True, fail_on=fail_on, fatal=_explain(e, run))
    return run.finish(plan, outcome, annotations=True, fail_on=fail_on)


def _fail_early(msg: str) -> int:
    """A problem before anything was read: the message, in the job summary too."""
    _err(msg)
    summary = os.environ.get("GITHUB_STEP_SUMMARY", "").strip()
    if summary:
        _append(summary, f"## perfbot\n\n**perfbot could not start:** {md_text(msg)}\n")
    return 2


def _explain(e: GitHubError, run: _Run) -> str:
    if isinstance(e, RateLimitedError):
        return str(e)
    if isinstance(e, NetworkError):
        return f"{e.message}; check GITHUB_API_URL / --api-url ({run.api_url}) and the network"
    if e.status == 401:
        return f"GitHub refused the token ({e}); check --token / GITHUB_TOKEN"
    if e.status == 404:
        return (
            f"GitHub answered 404 for {run.repo} ({e}): check the repository, the pull request "
            "number and that the token can read them"
        )
    return f"GitHub refused a request: {e}"


def _pull_request(run: _Run) -> PullRequestInfo | None:
    args, env = run.args, run.env
    pr = env.pull_request()
    if args.pr is not None and (pr is None or pr.number != args.pr):
        return PullRequestInfo.from_api(run.client.pull(args.pr), run.repo)
    return pr


def post_main(argv: Sequence[str] | None = None) -> int:
    """``perfbot post --findings FILE``: post a findings file from an unprivileged run."""
    args = _post_parser().parse_args(list(argv or []))
    return _post(args)


def _load_findings(path: str) -> FindingsFile:
    try:
        size = os.path.getsize(path)
        if size > 50 * 1024 * 1024:
            raise _Fatal(f"the findings file {path} is {size / 1e6:.0f} MB; refusing to read it")
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = getattr(e, "strerror", None) or e
        raise _Fatal(f"cannot read the findings file {path}: {why}") from None
    try:
        return FindingsFile.model_validate_json(raw)
    except ValidationError as e:
        problems = []
        for err in e.errors()[:5]:
            loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
            problems.append(f"{loc}: {err['msg']}")
        more = f" (and {e.error_count() - 5} more)" if e.error_count() > 5 else ""
        raise _Fatal(
            f"the findings file {path} is not one perfbot wrote: {'; '.join(problems)}{more}; "
            "nothing posted"
        ) from None


def _check_file(data: FindingsFile, run: _Run, pull: dict[str, Any], files: set[str]) -> None:
    """The file against the PR and perfbot's rules; any mismatch refuses the whole file."""
    for f in data.findings:
        r = get_rule(f.rule)
        if r is None or r.slug != f.slug:
            raise _Fatal(
                f"the findings file names an unknown rule {f.rule} {f.slug}; nothing posted"
            )
    for p in set(data.checked) | {e.path for e in data.errors}:
        if p not in files:
            raise _Fatal(
                f"the findings file names {p!r}, which is not a file of pull request "
                f"#{data.pull_request}; nothing posted"
            )


def _differing(data: FindingsFile, plan: Plan) -> int:
    """How many of the file's comments (lines, suggestion and findings) perfbot's own check of
    the commit does not make: 0 for a file that ``perfbot review`` wrote at that commit with the
    same config."""
    plans, _ = from_file(data)

    def key(it: Item) -> tuple:
        found = sorted((r.rule, r.line, r.message) for r in it.reports)
        return (it.path, it.start_line, it.end_line, it.suggestion, tuple(found))

    own = Counter(key(it) for it in plan.items)
    theirs = Counter(key(it) for fp in plans for it in fp.items)
    return sum((theirs - own).values())


def _post(args: argparse.Namespace) -> int:
    fail_on = args.fail_on or "never"
    try:
        env = CIEnv.from_environ()
        run = _Run(args, env)
        data = _load_findings(args.findings)
    except (EventError, _Fatal) as e:
        return _fail_early(str(e))
    plan: Plan | None = None
    try:
        if data.repository.lower() != run.repo.lower():
            raise _Fatal(
                f"the findings file is for {data.repository}, not {run.repo}; nothing posted"
            )
        if args.pr is not None and args.pr != data.pull_request:
            raise _Fatal(
                f"the findings file is for pull request #{data.pull_request}, not #{args.pr}; "
                "nothing posted"
            )
        wr = env.workflow_run()
        if wr is not None and str(wr.get("head_sha") or "").lower() != data.head_sha:
            raise _Fatal(
                f"the findings file is for commit {data.head_sha[:7]} but the workflow run that "
                f"produced it checked {str(wr.get('head_sha'))[:7]}; nothing posted"
            )
        pull = run.client.pull(data.pull_request)
        pr = PullRequestInfo.from_api(pull, run.repo)
        if wr is not None:
            head_repo = str((wr.get("head_repository") or {}).get("full_name") or "")
            if not pr.head_repo:
                raise _Fatal(
                    f"the fork of pull request #{pr.number} was deleted, so nothing shows that "
                    "the run that wrote the findings file ran for it; nothing posted"
                )
            if not head_repo:
                raise _Fatal("the workflow run does not say which repository it ran for")
            if head_repo.lower() != pr.head_repo.lower():
                raise _Fatal(
                    f"pull request #{pr.number} comes from {pr.head_repo}, but the run that wrote "
                    f"the findings file ran for {head_repo}; nothing posted"
                )
            branch = wr.get("head_branch")
            if branch is not None and pr.head_ref and str(branch) != pr.head_ref:
                raise _Fatal(
                    f"pull request #{pr.number} comes from branch {pr.head_ref}, but the run that "
                    f"wrote the findings file ran for branch {branch}; nothing posted"
                )
        moved = ""
        if pull.get("state") != "open":
            moved = f"pull request #{pr.number} is {pull.get('state')}; nothing posted"
        elif pr.head_sha.lower() != data.head_sha:
            moved = (
                f"pull request #{pr.number} has moved on to {pr.head_sha[:7]} since "
                f"{data.head_sha[:7]}; nothing posted (the run for the new commit posts its own)"
            )
        if moved:
            _note(moved)
            run.notes.append(md_text(moved[0].upper() + moved[1:]) + ".")
            return run.finish(None, None, annotations=False, fail_on=fail_on)
        files = run.client.pull_files(pr.number)
        _check_file(data, run, pull, {f["filename"] for f in files})
        # The file only names the pull request and its commit. What is posted is perfbot's own
        # check of that commit's READMEs (read from the contents API), with the config of the
        # checkout this job runs in (the default branch's), never the file's text: a fork author
        # who edits the file cannot make the bot suggest what it did not find.
        plan = _own_plan(run, args, pr, files)
        differing = _differing(data, plan)
        if differing:
            what = (
                f"{differing} of the findings file's comments are not what perfbot finds at "
                f"{pr.head_sha[:7]}; it posted its own check of that commit"
            )
            _note(what)
            run.notes.append(md_text(what[0].upper() + what[1:]) + ".")
        read_only = "" if run.token else "no token (set GITHUB_TOKEN or pass --token)"
        outcome = _publish(run, plan, read_only=read_only)
    except _Fatal as e:
        return run.finish(plan, None, annotations=False, fail_on=fail_on, fatal=str(e))
    except GitHubError as e:
        return run.finish(plan, None, annotations=False, fail_on=fail_on, fatal=_explain(e, run))
    return run.finish(plan, outcome, annotations=False, fail_on=fail_on, file_errors_fail=False)
