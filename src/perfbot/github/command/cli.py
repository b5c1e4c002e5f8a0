"""`perfbot command` (GitHub Actions, `issue_comment` event): its arguments, the event's checks,
and the hand-over to the gate (:mod:`perfbot.github.command.gate`)."""

from __future__ import annotations

from perfbot.github.command.gate import _handle, _log, _Run, write_outputs
from perfbot.github.command.grammar import parse_comment


def _command_parser():
    import argparse

    p = argparse.ArgumentParser(
        prog="perfbot command",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Handle a /perfbot comment on a pull request (GitHub Actions, issue_comment "
        "event): check who asked, pin the head commit, and plan the benchmark jobs.",
    )
    p.add_argument(
        "--config",
        default=".perfbot.yml",
        help="path of the config in the repository: benchmarks are read at the pull request's "
        "head, the rerun: policy (min_permission, runners) at the repository's default branch "
        "(default .perfbot.yml)",
    )
    # Accepted so that old workflows keep working; approvals are no longer read from any bot's
    # comments, so there is nothing left to configure.
    p.add_argument("--bot-login", help=argparse.SUPPRESS)
    return p


def command_main(argv: list[str]) -> int:
    """`perfbot command`: 0 handled (run or refused: see the `run` output), 2 when the event,
    the token or GitHub fail."""
    try:
        args = _command_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else 2
    from perfbot.github.client import Client, GitHubError
    from perfbot.github.event import CIEnv, EventError

    try:
        env = CIEnv.from_environ()
    except EventError as e:
        _log(f"error: {e}")
        return 2
    if env.event_name != "issue_comment":
        _log(f"error: this handles issue_comment events, not {env.event_name or 'none'}")
        return 2
    payload = env.payload
    comment = payload.get("comment") or {}
    issue = payload.get("issue") or {}
    user = comment.get("user") or {}
    login = str(user.get("login") or "")
    done: dict[str, str] = {"run": "false"}

    def ignore(why: str) -> int:
        _log(f"ignored: {why}")
        write_outputs(env.output, done)
        return 0

    if payload.get("action") != "created":
        return ignore(f"the comment was {payload.get('action') or 'changed'}, not created")
    if not issue.get("pull_request"):
        return ignore("the comment is on an issue, not a pull request")
    sender = payload.get("sender") or {}
    if user.get("type") == "Bot" or sender.get("type") == "Bot" or login.endswith("[bot]"):
        return ignore(f"the comment is by a bot ({login})")
    cmd = parse_comment(comment.get("body"))
    if cmd is None:
        return ignore("the comment is not a /perfbot command")
    if not env.repository or not env.token:
        _log("error: GITHUB_REPOSITORY and GITHUB_TOKEN are needed")
        return 2
    client = Client(env.repository, env.token, env.api_url)
    run = _Run(client, int(issue["number"]), int(comment["id"]), login, done)
    try:
        _handle(run, cmd, args, env)
    except GitHubError as e:
        _log(f"error: GitHub: {e}")
        write_outputs(env.output, {"run": "false"})
        return 2
    write_outputs(env.output, run.outputs)
    return 0
