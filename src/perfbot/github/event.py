"""The CI environment in one place (reviewdog's ``cienv``): what GitHub Actions tells a step.

:meth:`CIEnv.from_environ` reads the variables the runner sets for every step (and for a Docker
action's container): ``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH`` (the webhook payload),
``GITHUB_REPOSITORY``, ``GITHUB_API_URL`` / ``GITHUB_SERVER_URL`` / ``GITHUB_GRAPHQL_URL`` (so
GitHub Enterprise Server works), ``GITHUB_WORKSPACE``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``,
and the token (``GITHUB_TOKEN``, else ``GH_TOKEN``). Nothing else in perfbot reads these.

:meth:`CIEnv.pull_request` gives the pull request of a ``pull_request`` /
``pull_request_target`` / ``pull_request_review*`` event (number, head sha, head repository,
whether it comes from a fork), read from the payload: no API request. A ``pull_request`` run for
a fork has a read-only token (:meth:`CIEnv.read_only_token`).

Pure: no network, no PyGithub.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..docs import is_ref, is_repository

__all__ = [
    "CIEnv",
    "EventError",
    "PullRequestInfo",
    "in_github_actions",
    "workspace_head",
]

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
PR_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
    }
)


class EventError(Exception):
    """The event payload cannot be read; the message is for the user."""


def in_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this runs in a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    env = os.environ if environ is None else environ
    return env.get("GITHUB_ACTIONS") == "true"


@dataclass(frozen=True, slots=True)
class PullRequestInfo:
    """A pull request as an event (or ``GET /pulls/N``) describes it."""

    number: int
    head_sha: str
    head_ref: str = ""
    head_repo: str | None = None  # owner/name; None when the fork was deleted
    base_repo: str = ""
    base_ref: str = ""
    base_sha: str = ""
    author: str = ""

    @property
    def fork(self) -> bool:
        """From another repository (or from a deleted fork)."""
        return self.head_repo is None or self.head_repo.lower() != self.base_repo.lower()

    @classmethod
    def from_api(cls, pr: Mapping[str, Any], base_repo: str = "") -> PullRequestInfo:
        """From a ``pull_request`` object (webhook payload or REST answer)."""
        head = pr.get("head") or {}
        base = pr.get("base") or {}
        head_repo = (head.get("repo") or {}).get("full_name")
        return cls(
            number=int(pr["number"]),
            head_sha=str(head.get("sha") or ""),
            head_ref=str(head.get("ref") or ""),
            head_repo=head_repo,
            base_repo=(base.get("repo") or {}).get("full_name") or base_repo,
            base_ref=str(base.get("ref") or ""),
            base_sha=str(base.get("sha") or ""),
            author=str((pr.get("user") or {}).get("login") or ""),
        )


@dataclass(frozen=True)
class CIEnv:
    """What a GitHub Actions step knows about its run."""

    event_name: str = ""
    event_path: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    repository: str | None = None
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    graphql_url: str | None = None
    workspace: str | None = None
    token: str | None = None
    step_summary: str | None = None
    output: str | None = None
    sha: str | None = None
    run_id: str | None = None
    action_repository: str | None = None
    action_ref: str | None = None
    actions: bool = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> CIEnv:
        """Read the environment. A missing or unreadable event file is an :class:`EventError`
        only when ``GITHUB_EVENT_PATH`` names one."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        path = get("GITHUB_EVENT_PATH")
        payload: dict[str, Any] = {}
        if path:
            try:
                data = json.loads(Path(path).read_text(encoding="utf-8"))
            except OSError as e:
                raise EventError(f"cannot read the event file {path}: {e.strerror or e}") from None
            except ValueError as e:
                raise EventError(f"the event file {path} is not JSON: {e}") from None
            if not isinstance(data, dict):
                raise EventError(f"the event file {path} does not hold a JSON object")
            payload = data
        repository = get("GITHUB_REPOSITORY") or (payload.get("repository") or {}).get("full_name")
        return cls(
            event_name=get("GITHUB_EVENT_NAME") or "",
            event_path=path,
            payload=payload,
            repository=repository,
            api_url=(get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            server_url=(get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
            graphql_url=get("GITHUB_GRAPHQL_URL"),
            workspace=get("GITHUB_WORKSPACE"),
            token=get("GITHUB_TOKEN") or get("GH_TOKEN"),
            step_summary=get("GITHUB_STEP_SUMMARY"),
            output=get("GITHUB_OUTPUT"),
            sha=get("GITHUB_SHA"),
            run_id=get("GITHUB_RUN_ID"),
            # a composite action passes its own on (the GITHUB_ ones are empty in its steps)
            action_repository=get("PERFBOT_ACTION_REPOSITORY") or get("GITHUB_ACTION_REPOSITORY"),
            action_ref=(
                get("PERFBOT_ACTION_REF")
                if get("PERFBOT_ACTION_REPOSITORY")
                else get("GITHUB_ACTION_REF")
            ),
            actions=env.get("GITHUB_ACTIONS") == "true",
        )

    # --- the pull request -------------------------------------------------------------------

    def pull_request(self) -> PullRequestInfo | None:
        """The event's pull request (``pull_request*`` events), else None."""
        pr = self.payload.get("pull_request")
        if self.event_name and self.event_name not in PR_EVENTS:
            return None
        if not isinstance(pr, dict) or "number" not in pr:
            return None
        return PullRequestInfo.from_api(pr, self.repository or "")

    def read_only_token(self) -> bool:
        """A ``pull_request`` run for a fork: GitHub gives it a read-only ``GITHUB_TOKEN``
        (``pull_request_target`` runs in the base repository and may write)."""
        pr = self.pull_request()
        return self.event_name == "pull_request" and pr is not None and pr.fork

    def workflow_run(self) -> dict[str, Any] | None:
        """The ``workflow_run`` object of a ``workflow_run`` event, else None."""
        if self.event_name != "workflow_run":
            return None
        run = self.payload.get("workflow_run")
        return run if isinstance(run, dict) else None

    # --- links ----------------------------------------------------------------------------

    def blob_url(self, repo: str, sha: str, path: str, start: int, end: int | None = None) -> str:
        """A permalink to lines of a file at a commit."""
        from urllib.parse import quote

        anchor = f"#L{start}" + (f"-L{end}" if end and end != start else "")
        return f"{self.server_url}/{repo}/blob/{sha}/{quote(path)}{anchor}"

    def install_command(self) -> str | None:
        """``pip install`` of the perfbot that runs (the runner names the action's repository);
        None when it does not, or names one outside GitHub's character set (the command is
        shown to be copied into a shell)."""
        if not self.action_repository or not is_repository(self.action_repository):
            return None
        ok = self.action_ref and is_ref(self.action_ref)
        ref = f"@{self.action_ref}" if ok else ""
        return f'pip install "perfbot @ git+{self.server_url}/{self.action_repository}{ref}"'


def workspace_head(workspace: str | os.PathLike[str]) -> str | None:
    """The commit checked out in ``workspace`` (a sha), read from ``.git`` without running git,
    or None when it is not a git checkout or the ref cannot be resolved."""
    root = Path(workspace)
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = git.read_text(encoding="utf-8").strip()
            if not text.startswith("gitdir:"):
                return None
            git = (root / text.split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head.lower() if _is_sha(head) else None
    ref = head.split(":", 1)[1].strip()
    common = git
    try:
        common_file = git / "commondir"
        if common_file.is_file():
            common = (git / common_file.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        pass
    for base in (git, common):
        try:
            value = (base / ref).read_text(encoding="utf-8").strip()
            if _is_sha(value):
                return value.lower()
        except OSError:
            pass
        try:
            for line in (base / "packed-refs").read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref and _is_sha(parts[0]):
                    return parts[0].lower()
        except OSError:
            pass
    return None


def _is_sha(s: str) -> bool:
    return len(s) in (40, 64) and all(c in "0123456789abcdefABCDEF" for c in s)
