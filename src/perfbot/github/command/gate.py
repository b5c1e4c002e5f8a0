"""The permission gate of `perfbot command`: who may ask, fork approvals (`/perfbot ok-to-test`),
the replies, the listing of what an approval lets run, and the rerun it plans.

The policy (`rerun:` settings) is the default branch's, never the pull request's; a comment's text
reaches this module only as a parsed :mod:`perfbot.github.command.grammar` command.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perfbot.github.command.grammar import (
    PLAN_DIGITS,
    USAGE,
    Command,
    Help,
    Invalid,
    OkToTest,
    Rerun,
    code,
    parse_comment,
)
from perfbot.github.markers import REPLY

if TYPE_CHECKING:  # PyGithub is imported only when a command runs
    from perfbot.github.client import Client
    from perfbot.runner.spec import BenchmarkSpec


ROLES = ("none", "read", "triage", "write", "maintain", "admin")
FORK_MIN_PERMISSION = "write"  # the least `rerun.min_permission` that may approve a fork's code
REPLY_MARKER = REPLY  # the marker of perfbot's replies (github/markers.py)
MAX_REPLIES = 50  # replies perfbot posts on one pull request; then it only reacts
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
_FULL_SHA = re.compile(r"[0-9a-f]{40}")


def role_at_least(role: str, minimum: str) -> bool:
    """Whether a collaborator ``role`` is ``minimum`` or more (an unknown role never is)."""
    return role in ROLES and minimum in ROLES and ROLES.index(role) >= ROLES.index(minimum)


def _is_bot(comment: Mapping) -> bool:
    user = comment.get("user") or {}
    login = str(user.get("login") or "")
    return user.get("type") != "User" or login.lower().endswith("[bot]")


@dataclass(frozen=True, slots=True)
class Approval:
    sha: str
    by: str
    comment_id: int  # the approver's own `/perfbot ok-to-test <sha>` comment
    plan: str | None = None  # the plan digest it names, if any


def ok_to_test_comments(comments: list[dict]) -> list[Approval]:
    """The `/perfbot ok-to-test <full sha>` comments written by people, newest first.

    Only the first line of a person's comment counts, parsed by the same grammar as the command
    itself; a comment by a bot (perfbot's own replies, reviews and summaries included) never
    approves anything, whatever it quotes. Whether the author may approve is checked by the
    caller, at the time of the `/perfbot rerun`."""
    out: list[Approval] = []
    for c in reversed(comments):
        if _is_bot(c):
            continue
        cmd = parse_comment(c.get("body"))
        if isinstance(cmd, OkToTest) and cmd.sha and _FULL_SHA.fullmatch(cmd.sha):
            login = str((c.get("user") or {}).get("login") or "")
            out.append(Approval(cmd.sha, login, int(c.get("id") or 0), cmd.plan))
    return out


# --- outputs, replies -----------------------------------------------------------------------


def write_outputs(path: str | None, values: Mapping[str, str]) -> None:
    """Append ``values`` to ``$GITHUB_OUTPUT`` (multi-line safe), or print them when unset."""
    import secrets

    if not path:
        for k, v in values.items():
            print(f"{k}={v}")
        return
    with open(path, "a", encoding="utf-8") as fh:
        for k, v in values.items():
            delim = f"perfbot_{secrets.token_hex(12)}"
            fh.write(f"{k}<<{delim}\n{v}\n{delim}\n")


def _log(msg: str) -> None:
    import sys

    from perfbot.github.markdown import no_command

    # a reason may quote the pull request's config: never a workflow command in the job log
    print(no_command(f"perfbot command: {msg}"), file=sys.stderr)


@dataclass
class _Run:
    """What one `perfbot command` run decided; turned into outputs at the end."""

    client: Client
    number: int
    comment_id: int
    login: str
    outputs: dict[str, str] = field(default_factory=lambda: {"run": "false"})
    _replies: int | None = None  # perfbot's replies on the pull request so far, once counted

    def react(self, content: str) -> None:
        from perfbot.github.client import GitHubError

        try:
            self.client.add_reaction(self.comment_id, content)
        except GitHubError as e:  # a reaction is a courtesy: say so, go on
            _log(f"could not react with {content}: {e}")

    def reply(self, text: str) -> dict | None:
        from perfbot.github.client import GitHubError, NetworkError
        from perfbot.github.suggest import clamp_body

        if self.replies_left() <= 0:
            _log(f"not replying: perfbot has replied {MAX_REPLIES} times on this pull request")
            return None
        who = f"@{self.login} " if _LOGIN.fullmatch(self.login) else ""
        body = clamp_body(f"{who}{text}\n\n{REPLY_MARKER}")
        try:
            return self.client.create_issue_comment(self.number, body)
        except GitHubError as e:
            # a 5xx or a lost answer: GitHub may have posted it; look before posting once more
            if not (isinstance(e, NetworkError) or e.status >= 500):
                raise
            for c in reversed(self.client.issue_comments(self.number)):
                if (c.get("body") or "") == body:
                    return c
            return self.client.create_issue_comment(self.number, body)

    def replies_left(self) -> int:
        """How many more replies perfbot may post on this pull request (:data:`MAX_REPLIES`)."""
        if self._replies is None:
            self._replies = sum(
                1
                for c in self.client.issue_comments(self.number)
                if _is_bot(c) and REPLY_MARKER in str(c.get("body") or "")
            )
        return MAX_REPLIES - self._replies

    def refuse(self, reason: str, *, usage: bool = False) -> None:
        _log(f"refused: {reason}")
        self.react("confused")
        text = f"perfbot did not run this: {reason}"
        if usage:
            text += f"\n\n<details><summary>How to use perfbot</summary>\n\n{USAGE}\n\n</details>"
        self.reply(text)


def read_repo_config(client: Client, path: str, ref: str) -> tuple[dict | None, str | None]:
    """``.perfbot.yml`` at ``ref`` as a mapping (None when absent), or a problem for the user.

    The text is untrusted (a pull request's head, or a branch its author made): it goes through
    :func:`perfbot.config.load_yaml_bounded` (a size cap, no anchors or aliases, a nesting
    limit), so no file can make the gate spin, balloon or crash."""
    from perfbot.config import ConfigError, load_yaml_bounded
    from perfbot.github.client import GitHubError

    try:
        data = client.file_content(path, ref)
    except GitHubError as e:
        if e.status == 404:
            return None, None
        if e.status == 413:
            return None, f"`{path}` is too large"
        raise
    try:
        parsed = load_yaml_bounded(data, path)
    except ConfigError as e:
        first = str(e).splitlines()[0].removeprefix(f"{path}: ")
        return None, f"`{path}` cannot be used: {code(first, 200)}"
    if parsed is None:
        return {}, None
    if not isinstance(parsed, dict):
        return None, f"`{path}` must be a mapping of settings"
    return parsed, None


def default_branch(pull: Mapping, payload: Mapping) -> str:
    """The repository's default branch, from GitHub's own answer about the pull request (its
    base repository) or else the event: never a branch the pull request's author picked."""
    repo = ((pull.get("base") or {}).get("repo") or {}).get("default_branch")
    if not repo:
        repo = (payload.get("repository") or {}).get("default_branch")
    return str(repo or "")


def rerun_policy(data: Mapping | None, path: str):  # -> perfbot.config.RerunConfig
    """The ``rerun:`` settings of a config mapping (defaults when absent)."""
    from pydantic import ValidationError

    from perfbot.config import RerunConfig

    raw = (data or {}).get("rerun") or {}
    try:
        return RerunConfig.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise ValueError(
            f"`{path}`: {code('rerun.' + loc, 200)}: {code(err['msg'], 300)}"
        ) from None


def _select(specs: list, targets: tuple[str, ...], options: Mapping[str, int | str], base: str):
    """The benchmarks the targets and keys select, and the targets that selected nothing."""
    from perfbot.runner.plan import matches

    def hit(spec, t: str) -> bool:
        if matches(spec, t):
            return True
        if base and t.startswith(base + "/"):  # a repository path of a config in a subfolder
            return matches(spec, t[len(base) + 1 :])
        return False

    chosen = [s for s in specs if any(hit(s, t) for t in targets)]
    unmatched = [t for t in targets if not any(hit(s, t) for s in specs)]
    for key, value in options.items():
        if key == "cards":
            chosen = [s for s in chosen if s.cards == value]
        elif key == "batch":
            chosen = [s for s in chosen if s.batch_size == value]
        elif key == "steps":
            chosen = [s for s in chosen if s.inference and s.sampling_steps == value]
        elif key == "kind":
            chosen = [s for s in chosen if s.inference == (value == "inference")]
    return chosen, unmatched


def _approve_hint(head: str) -> str:
    """How to approve, without a paste-ready approval: the approver copies the SHA of the commit
    they read. A SHA printed here would be the head when perfbot looked, which may be a commit
    pushed after the approver's comment, one nobody has read."""
    return (
        "`/perfbot ok-to-test <full SHA>`, with the full 40-character SHA of the commit they read "
        f"(copied from the pull request's Commits tab; the head is now `{head[:12]}`…)"
    )


def _handle(run: _Run, cmd: Command, args, env) -> None:
    from perfbot.github.event import PullRequestInfo

    client = run.client
    pull = client.pull(run.number)
    info = PullRequestInfo.from_api(pull, env.repository or "")
    # The policy (who may ask, which runners) is the default branch's, as the workflow itself
    # is: never the pull request's head, nor its base, which its author chooses.
    branch = default_branch(pull, env.payload)
    policy_data, policy, problem = None, None, None
    if not branch:
        problem = "GitHub did not say which branch is the repository's default branch"
    else:
        policy_data, problem = read_repo_config(client, args.config, branch)
        if problem:
            problem = f"the default branch's {problem}"
        else:
            try:
                policy = rerun_policy(policy_data, args.config)
            except ValueError as e:
                problem = f"the default branch's {e}"
    # Only someone who may ask gets a reply (help and mistakes included): anyone else's
    # `/perfbot ...` gets a reaction, so no account can make the bot talk in a pull request.
    minimum = policy.min_permission if policy is not None else FORK_MIN_PERMISSION
    role = client.permission(run.login)
    if not role_at_least(role, minimum):
        _log(f"refused without a reply: `{run.login}` has `{role}`, and `{minimum}` is needed")
        run.react("confused")
        return
    if isinstance(cmd, Invalid):
        run.refuse(cmd.reason, usage=True)
        return
    if isinstance(cmd, Help):
        run.react("eyes")
        run.reply(USAGE)
        return
    if problem or policy is None:
        run.refuse(problem or "the default branch's `rerun:` settings cannot be read")
        return
    if info.fork and not role_at_least(policy.min_permission, FORK_MIN_PERMISSION):
        run.refuse(
            f"`rerun.min_permission: {policy.min_permission}` (on the default branch `{branch}`) "
            "would let people without write access approve and run code from forks on the "
            f"Ascend runners; for pull requests from forks it must be `{FORK_MIN_PERMISSION}` "
            "or more"
        )
        return
    if pull.get("state") != "open":
        run.refuse("the pull request is not open")
        return
    head = info.head_sha.lower()
    if not _FULL_SHA.fullmatch(head):
        run.refuse("GitHub did not give the pull request's head commit")
        return

    if isinstance(cmd, OkToTest):
        _ok_to_test(run, cmd, info, head, branch, policy_data, policy, args, env)
        return
    assert isinstance(cmd, Rerun)
    if info.fork and not _approved(run, head, policy, policy_data, args):
        return
    _rerun(run, cmd, head, policy, args)


def _ok_to_test(run: _Run, cmd: OkToTest, info, head: str, branch, policy_data, policy, args,
                env):  # fmt: skip
    if not info.fork:
        run.react("eyes")
        run.reply(
            "no approval needed: this pull request's branch is in this repository, so "
            "`/perfbot rerun` runs it for anyone with the permission."
        )
        return
    if cmd.sha is None or len(cmd.sha) < 40:
        given = "no commit" if cmd.sha is None else f"only `{cmd.sha}`"
        run.refuse(
            f"an approval must name the full 40-character commit it approves, and this names "
            f"{given} (a push, or a commit made to share a short prefix, could take its place). "
            "Copy the full SHA of the commit you have read from the pull request's Commits tab "
            "and comment `/perfbot ok-to-test <full SHA>`. perfbot does not offer the head to "
            f"paste: it is now `{head[:12]}`…, and a push after your comment would be that commit"
        )
        return
    if cmd.sha != head:
        run.refuse(
            f"the head of this pull request is now `{head[:12]}`…, not `{cmd.sha[:12]}`…: "
            "commits were pushed after the one you approved. Read them, then approve the commit "
            "you read by its full SHA"
        )
        return
    listing, digest = _what_would_run(run, head, branch, policy_data, policy, args, env)
    run.react("eyes")
    if policy.approve_plan and (digest is None or cmd.plan != digest):
        if digest is None:
            ask = "Nothing can be approved at this commit until that is fixed."
        else:
            ask = (
                "To approve exactly what is listed here, comment\n\n"
                f"```\n/perfbot ok-to-test {head} plan={digest}\n```"
            )
        was = (
            f"The plan `{cmd.plan}` you named is not this one: what this commit would run, or the "
            "default branch's benchmarks it is compared with, changed. "
            if cmd.plan
            else ""
        )
        run.reply(
            f"Not approved yet: `rerun.approve_plan` (on the default branch) asks an approval to "
            f"name the plan below, so that what was never shown cannot be approved. {was}"
            f"{ask}\n\n{listing}"
        )
        return
    run.reply(
        f"✅ `{run.login}` approved commit `{head}` of this pull request: someone with "
        f"`{policy.min_permission}` access may now comment `/perfbot rerun` to measure it, for as "
        "long as the approver keeps that access. A new push needs a new approval.\n\n"
        + listing
        + "\n\n"
        + WITHDRAW
    )


WITHDRAW = (
    "To withdraw this approval, delete your `/perfbot ok-to-test` comment (or edit its first "
    "line): approvals are read afresh at every `/perfbot rerun`. It also ends with a new push, "
    "or when the approver loses write access. Benchmarks already dispatched stop when their "
    "workflow run is cancelled."
)


def _approved(run: _Run, head: str, policy, policy_data, args) -> bool:
    """Whether a person who still has the permission approved exactly ``head`` (and, with
    `rerun.approve_plan`, the plan perfbot listed, recomputed now); refuses if not."""
    client = run.client
    roles: dict[str, str] = {}
    others: list[str] = []
    digest: list[str | None] = []  # computed once, when an approval of the head needs it
    stale_plan = False
    for a in ok_to_test_comments(client.issue_comments(run.number)):
        if a.sha != head:
            if a.sha not in others:
                others.append(a.sha)
            continue
        if policy.approve_plan:
            if not digest:
                facts = _plan_facts(run, head, policy_data, args)
                digest.append(None if isinstance(facts, str) else _plan_digest(head, *facts))
            if a.plan is None or a.plan != digest[0]:
                stale_plan = stale_plan or a.plan is not None
                continue
        key = a.by.lower()
        if key not in roles:
            roles[key] = client.permission(a.by)
        role = roles[key]
        if role_at_least(role, policy.min_permission) and role_at_least(role, FORK_MIN_PERMISSION):
            _log(f"approved by {a.by} ({role}) in comment {a.comment_id}")
            return True
    why = (
        "this pull request comes from a fork, so its code runs on the Ascend runners only after "
        f"someone with `{policy.min_permission}` access has read its head commit and commented "
        f"{_approve_hint(head)}"
    )
    if policy.approve_plan:
        why += (
            " and the `plan=` digest perfbot's reply to it gave (`rerun.approve_plan` on the "
            "default branch)"
        )
    if stale_plan:
        why += "; the plan an approval names is no longer what this commit would run"
    if others:
        why += f"; the approval of `{others[0][:12]}`… does not cover the commits pushed since"
    run.refuse(why)
    return False


_REPLY_BUDGET = 60_000  # characters of an ok-to-test reply (GitHub takes 65,536)


def _changed_keys(old, new) -> list[str]:
    """Every setting of benchmark ``new`` that differs from ``old`` (same name)."""
    a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
    return [k for k in b if a.get(k) != b[k]]


def _value(v: object) -> str:
    """A setting's value, unambiguous and complete: JSON, non-ASCII as ``\\u`` escapes (so an
    invisible character shows)."""
    import json

    return json.dumps(v, ensure_ascii=True)


def _in_folder(path: str, folder: str) -> bool:
    return folder in ("", ".") or path == folder or path.startswith(folder + "/")


def _plan_facts(run: _Run, head: str, policy_data, args):
    """What an approval of ``head`` lets run: (head benchmarks, default-branch benchmarks by
    name, files the pull request changes), or a note why it cannot be listed."""
    from perfbot.runner.spec import SpecError, validate_benchmarks

    data, problem = read_repo_config(run.client, args.config, head)
    if problem:
        return f"Note: at this commit {problem}, so `/perfbot rerun` will refuse it."
    try:
        specs = validate_benchmarks((data or {}).get("benchmarks"), source=args.config)
    except SpecError:
        return (
            f"Note: `{args.config}` at this commit has problems: `/perfbot rerun` will refuse "
            "it and say which."
        )
    try:
        known = {
            s.name: s
            for s in validate_benchmarks((policy_data or {}).get("benchmarks"), source=args.config)
        }
    except SpecError:
        known = {}  # fmt: skip
    files = [str(f.get("filename") or "") for f in run.client.pull_files(run.number)]
    return specs, known, files


def _plan_digest(head: str, specs, known, files) -> str:
    """A digest of everything the ok-to-test listing is made of: the commit, every setting of
    its benchmarks and of the default branch's, the changed files."""
    import hashlib
    import json

    data = {
        "sha": head,
        "benchmarks": [s.model_dump(mode="json") for s in specs],
        "default_branch": {k: v.model_dump(mode="json") for k, v in sorted(known.items())},
        "files": sorted(files),
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:PLAN_DIGITS]


def _what_would_run(
    run: _Run, head: str, branch: str, policy_data, policy, args, env
) -> tuple[str, str | None]:
    """What an approval lets run, in full, and the digest of it (None when the config at the
    head cannot be read): every benchmark of the head that is new or differs from the default
    branch's in any setting, every such setting with its whole value, and the files the pull
    request changes (those in the benchmarks' folders first). Nothing is cut without saying so
    and where the rest is (a permalink to the config at the commit). Untrusted text is shown as
    code only."""
    import posixpath

    from perfbot.github.markdown import block

    facts = _plan_facts(run, head, policy_data, args)
    if isinstance(facts, str):
        return facts, None
    specs, known, files = facts
    config_url = f"{env.server_url}/{env.repository}/blob/{head}/{args.config}"
    base_dir = posixpath.dirname(args.config.replace("\\", "/"))
    folders = {posixpath.normpath(posixpath.join(base_dir, s.workdir)) for s in specs}
    inside = [f for f in files if any(_in_folder(f, d) for d in folders)]
    outside = [f for f in files if f not in inside]

    changed: list[tuple[BenchmarkSpec, list[str] | None]] = []
    for s in specs:
        old = known.get(s.name)
        keys = None if old is None else _changed_keys(old, s)
        if keys is None or keys:
            changed.append((s, keys))

    out: list[str] = []
    if changed:
        out += [
            f"**What this approval lets run** ([`{args.config}` at this commit]({config_url})): "
            f"{len(changed)} of its {len(specs)} benchmark(s) are new or differ from the default "
            f"branch `{branch}`'s:",
            "",
        ]
        for s, keys in changed:
            flag = "" if policy.allows_runner(s.runs_on) else " ⚠️ not in `rerun.runners`: refused"
            what = "new" if keys is None else "changed " + ", ".join(f"`{k}`" for k in keys)
            out.append(f"- {code(s.name, 100)} ({what}){flag}")
        values = []
        for s, keys in changed:
            old = known.get(s.name)
            values.append(f"{s.name}:" + ("  # new" if keys is None else ""))
            dump = s.model_dump(mode="json")
            for k in keys if keys is not None else list(dump):
                values.append(f"  {k}: {_value(dump[k])}")
                if old is not None:
                    values.append(f"  # {branch}: {_value(old.model_dump(mode='json')[k])}")
        shown = block("\n".join(values), "yaml")
        out += ["", "<details><summary>Every new or changed value, in full</summary>", ""]
        if len(shown) + sum(map(len, out)) < _REPLY_BUDGET // 2:
            out += [shown]
        else:
            out += [
                f"The values are too long for a comment ({len(shown):,} characters): read them "
                f"in [`{args.config}` at this commit]({config_url})."
            ]
        out += ["", "</details>"]
        if sum(map(len, out)) > _REPLY_BUDGET * 2 // 3:  # thousands of benchmarks
            out = [
                f"**What this approval lets run**: {len(changed)} of the {len(specs)} benchmarks "
                f"are new or differ from the default branch `{branch}`'s, too many to list in a "
                f"comment: read [`{args.config}` at this commit]({config_url}) in full before "
                "approving."
            ]
    else:
        out.append(
            f"**What this approval lets run**: the settings of the {len(specs)} benchmark(s) "
            f"(command, folder, environment, runners, log, regex, timeout and every other key) "
            f"are the default branch `{branch}`'s."
        )
    out += ["", _files_line(inside, outside, len(files))]
    return "\n".join(out), _plan_digest(head, specs, known, files)


def _files_line(inside: list[str], outside: list[str], total: int) -> str:
    """The files the pull request changes, those in the benchmarks' folders first: the commands
    run this commit's code, whatever the settings say."""
    if not total:
        return "The pull request changes no file."
    lines = [
        f"The commands run this commit's code: the pull request changes {total} file(s), "
        f"{len(inside)} of them in the benchmarks' folders. Read them all before approving."
    ]
    budget = _REPLY_BUDGET // 8
    for label, names in (("In the benchmarks' folders", inside), ("Elsewhere", outside)):
        if not names:
            continue
        shown: list[str] = []
        used = 0
        for f in names:
            item = code(f, 300)
            if used + len(item) > budget:
                break
            shown.append(item)
            used += len(item) + 2
        rest = len(names) - len(shown)
        more = f", and {rest} more (the pull request's Files tab lists them)" if rest else ""
        lines.append(f"{label}: " + ", ".join(shown) + more + ".")
    return "\n\n".join(lines)


def _rerun(run: _Run, cmd: Rerun, head: str, policy, args) -> None:
    import json
    import posixpath

    from perfbot.runner.plan import plan
    from perfbot.runner.spec import SpecError, validate_benchmarks

    client = run.client
    data, problem = read_repo_config(client, args.config, head)
    if problem:
        run.refuse(problem)
        return
    if data is None or not data.get("benchmarks"):
        run.refuse(f"`{args.config}` at `{head[:12]}` declares no `benchmarks:`")
        return
    try:
        specs = validate_benchmarks(data.get("benchmarks"), source=args.config)
    except SpecError as e:
        lines = str(e).splitlines()
        run.refuse(
            f"`{args.config}` at `{head[:12]}` has problems:\n\n"
            + "\n".join(f"- {code(x, 300)}" for x in lines[:20])
        )
        return
    base_dir = posixpath.dirname(args.config.replace("\\", "/"))
    targets = cmd.targets
    if not targets:
        changed = [f.get("filename", "") for f in client.pull_files(run.number)]
        readmes = {posixpath.normpath(posixpath.join(base_dir, s.readme)) for s in specs} & set(
            changed
        )
        if not readmes:
            names = ", ".join(code(s.name) for s in specs[:30])
            run.refuse(
                "this pull request changes no README that has a benchmark; name what to run, "
                f"e.g. `/perfbot rerun {specs[0].name}` (benchmarks: {names})"
            )
            return
        targets = tuple(sorted(readmes))
    chosen, unmatched = _select(specs, targets, cmd.options, base_dir)
    if not chosen:
        keys = " ".join(f"{k}={v}" for k, v in cmd.options.items())
        run.refuse(
            f"no benchmark matches {', '.join(code(t) for t in targets)}"
            + (f" with {code(keys)}" if keys else "")
            + "; the benchmarks are "
            + ", ".join(code(s.name) for s in specs[:30])
        )
        return
    outside = [s for s in chosen if not policy.allows_runner(s.runs_on)]
    if outside:
        allowed = "; ".join(code(", ".join(r), 200) for r in policy.runners[:20]) or "none"
        run.refuse(
            "these benchmarks ask for runners that `rerun.runners` on the default branch does "
            "not list: "
            + ", ".join(
                f"{code(s.name)} on {code(', '.join(s.runs_on), 200)}" for s in outside[:20]
            )
            + f". The allowed label sets are: {allowed}. A maintainer adds a label set there "
            "(on the default branch) before a benchmark may use it."
        )
        return
    run.react("eyes")
    matrix = plan(chosen)
    run.outputs.update(
        run="true",
        sha=head,
        pr=str(run.number),
        matrix=json.dumps(matrix, separators=(",", ":")),
        targets=json.dumps([s.name for s in chosen]),
    )
    names = ", ".join(code(s.name) for s in chosen)
    _log(f"dispatching {len(chosen)} benchmark(s) at {head}: {', '.join(s.name for s in chosen)}")
    if unmatched:
        run.reply(
            f"measuring {names} at `{head[:12]}`; "
            + ", ".join(code(t) for t in unmatched)
            + " matched no benchmark."
        )
    run.react("rocket")
