"""A stateful fake of the GitHub REST and GraphQL APIs, on ``responses``, for perfbot's tests.

The machine running the tests has no access to GitHub, so everything perfbot sends to GitHub goes
to :class:`GitHubFake` instead. It keeps a small world (repositories and forks, pull requests with
their files, patches and contents, reviews, review comments, issue comments, reactions,
collaborator permissions, tokens) and answers the REST endpoints PyGithub calls for them, with
GitHub's status codes, error shapes and rules:

* a review comment whose line is not in the file's diff hunks, or whose ``start_line`` does not
  precede ``line`` within the same hunk, makes the whole review fail with 422;
* a body over 65,536 characters is refused with 422;
* a write with a read-only token (a fork PR's ``GITHUB_TOKEN``) gets 403;
* every request body is validated against the request-body model of githubkit-schemas (GitHub's
  OpenAPI description, latest REST API version); a body the schema rejects gets 422 and is
  recorded in :attr:`GitHubFake.schema_errors`, so a test can assert ``gh.schema_errors == []``.

Failures can be injected (:meth:`GitHubFake.fail_next`) and every request is logged
(:attr:`GitHubFake.requests`). Use it as a context manager or through the ``gh`` fixture::

    def test_posts_one_review(gh):
        pr = gh.add_pull(changes={"configs/dit/README.md": (OLD, NEW)})
        g = gh.client()
        pull = g.get_repo(gh.repo).get_pull(pr.number)
        pull.create_review(body="x", event="COMMENT", comments=[
            {"path": "configs/dit/README.md", "line": 12, "body": "fix"}])
        assert len(gh.reviews) == 1 and gh.schema_errors == []

The fake judges diff lines with its own small patch reader, not with ``perfbot.hunks``, so
that a bug there cannot hide itself.
"""

from __future__ import annotations

import base64
import difflib
import functools
import hashlib
import importlib.util
import itertools
import json
import re
import sys
import types
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import responses

__all__ = [
    "EVENTS_DIR",
    "GitHubFake",
    "LoggedRequest",
    "PRFile",
    "Pull",
    "SchemaViolation",
    "gh",
    "load_event",
    "make_patch",
    "schema_models",
    "validate_webhook",
]

EVENTS_DIR = Path(__file__).parent / "fixtures" / "events"
MAX_BODY = 65536
WRITE_TOKEN = "ghs_fakeWriteToken0000000000000000000000"
READ_TOKEN = "ghs_fakeReadOnlyToken000000000000000000"
_EPOCH = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
_DOCS = "https://docs.github.com/rest"
_ROLES = ("none", "read", "triage", "write", "maintain", "admin")
_REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
_CLASSIFIERS = ("SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED", "LOW_QUALITY")


# --------------------------------------------------------------------------------------------
# githubkit-schemas


@functools.cache
def schema_models() -> types.ModuleType:
    """githubkit-schemas' pydantic models for the latest REST API version.

    ``githubkit_schemas`` imports ``githubkit`` to register its lazy-import hooks, and githubkit's
    own ``__init__`` imports its HTTP cache layer (hishel). When that fails (githubkit 0.16.1 does
    not work with hishel 2.0, which its metadata allows) the schema models are still fine: stand
    in a bare ``githubkit`` package so its pure submodules (``compat``, ``typing``, ``utils``,
    ``module_hooks``) load without the client.
    """
    try:
        import githubkit  # noqa: F401
    except ImportError:
        spec = importlib.util.find_spec("githubkit")
        if spec is None or not spec.submodule_search_locations:
            raise
        stub = types.ModuleType("githubkit")
        stub.__path__ = list(spec.submodule_search_locations)
        stub.__spec__ = spec
        sys.modules["githubkit"] = stub
        from githubkit.module_hooks import alias_module, lazy_module

        if not any(isinstance(f, alias_module.AliasModuleFinder) for f in sys.meta_path):
            alias_module.apply()
        if not lazy_module.is_lazy_disabled() and not any(
            isinstance(f, lazy_module.LazyModuleFinder) for f in sys.meta_path
        ):
            lazy_module.apply()
    from githubkit_schemas.latest import models

    return models


def _model(name: str) -> Any:
    return getattr(schema_models(), name)


def _nested_models(annotation: Any) -> list[type]:
    from pydantic import BaseModel

    out: list[type] = []
    stack = [annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, BaseModel):
            out.append(a)
        stack.extend(getattr(a, "__args__", ()))
    return out


def _unknown_fields(model: Any, data: Any, loc: str = "") -> list[str]:
    """Keys of ``data`` that ``model`` (recursively) does not define."""
    if not isinstance(data, dict):
        return []
    errors = []
    names: dict[str, Any] = {}
    for fname, f in model.model_fields.items():
        names[f.alias or fname] = f
        names[fname] = f
    for key, value in data.items():
        where = f"{loc}.{key}" if loc else key
        f = names.get(key)
        if f is None:
            errors.append(f"{where}: is not a field of {model.__name__}")
            continue
        for sub in _nested_models(f.annotation):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                sub_loc = f"{where}[{i}]" if isinstance(value, list) else where
                errors.extend(_unknown_fields(sub, item, sub_loc))
            break
    return errors


def validate_model(model_name: str, payload: Any, *, forbid_unknown: bool = True) -> list[str]:
    """Validate ``payload`` (JSON-compatible) against a githubkit-schemas model, strictly (as JSON:
    no ``"12"`` for an integer). Returns readable error strings, ``[]`` when valid."""
    from pydantic import ValidationError

    model = _model(model_name)
    errors: list[str] = []
    try:
        model.model_validate_json(json.dumps(payload), strict=True)
    except ValidationError as e:
        seen = set()
        for err in e.errors():
            if err["type"] == "literal_error" and "<UNSET>" in err["msg"]:
                continue
            parts = []
            for p in err["loc"]:
                if isinstance(p, int):
                    parts.append(f"[{p}]")
                elif "[" in p or p in ("int", "str", "bool", "float", "none") or p[:1].isupper():
                    continue  # union branch tags
                else:
                    parts.append(("." if parts else "") + p)
            where = "".join(parts) or "(body)"
            text = f"{where}: {err['msg']}"
            if err["type"] != "missing":
                text += f" (got {err.get('input')!r})"
            if text not in seen:
                seen.add(text)
                errors.append(text)
    if forbid_unknown:
        errors.extend(_unknown_fields(model, payload))
    return errors


def _camel(s: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\-]", s))


def validate_webhook(event: str, payload: Mapping[str, Any]) -> list[str]:
    """Validate a webhook payload against githubkit-schemas' model for ``event`` and its
    ``action`` (``pull_request`` + ``opened`` -> ``WebhookPullRequestOpened``)."""
    name = f"Webhook{_camel(event)}{_camel(str(payload.get('action', '')))}"
    if not hasattr(schema_models(), name):
        return [f"no githubkit-schemas model {name}"]
    return validate_model(name, payload, forbid_unknown=False)


def load_event(name: str) -> dict[str, Any]:
    """A webhook payload fixture from ``tests/fixtures/events/<name>.json``."""
    return json.loads((EVENTS_DIR / f"{name}.json").read_text(encoding="utf-8"))


def comment_event_env(
    fake: Any, tmp_path: Any, monkeypatch: Any, comment: Mapping[str, Any], user: str
) -> None:
    """The environment of a workflow run for ``comment`` (an issue comment on the fake, written by
    ``user``): the event file, ``GITHUB_EVENT_NAME``/``_PATH``/``OUTPUT`` and the fake's env."""
    event = load_event("issue_comment_created")
    event["comment"].update(id=comment["id"], body=comment["body"])
    event["comment"]["user"]["login"] = event["sender"]["login"] = user
    (tmp_path / "event.json").write_text(json.dumps(event), encoding="utf-8")
    for k, v in fake.env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issue_comment")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))


# --------------------------------------------------------------------------------------------
# Patches


def _split_keepends(text: str) -> list[str]:
    """Split on ``\\n`` only (as git does), keeping the line endings."""
    return [ln for ln in re.split(r"(?<=\n)", text) if ln]


def _urange(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def make_patch(old: str | None, new: str | None, context: int = 3) -> str:
    """GitHub-style ``patch`` text (hunks only, no file headers) turning ``old`` into ``new``.

    Like git: lines split on ``\\n`` only, a CR of CRLF files stays at the end of its line, and a
    last line without a newline is followed by ``\\ No newline at end of file``.
    """
    a, b = _split_keepends(old or ""), _split_keepends(new or "")
    out: list[str] = []

    def emit(prefix: str, line: str) -> None:
        out.append(prefix + line.removesuffix("\n"))
        if not line.endswith("\n"):
            out.append("\\ No newline at end of file")

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_urange(i1, i2 - i1)} +{_urange(j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in a[a1:a2]:
                    emit(" ", line)
                continue
            if tag in ("replace", "delete"):
                for line in a[a1:a2]:
                    emit("-", line)
            if tag in ("replace", "insert"):
                for line in b[b1:b2]:
                    emit("+", line)
    return "\n".join(out)


_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class _PatchLine:
    kind: str  # "+", "-", " "
    old: int | None
    new: int | None
    position: int
    raw: str


@dataclass
class _PatchHunk:
    header: str
    lines: list[_PatchLine]

    def has(self, line: int, side: str) -> bool:
        return any((ln.new if side == "RIGHT" else ln.old) == line for ln in self.lines)

    def text_upto(self, line: int, side: str) -> str:
        out = [self.header]
        for ln in self.lines:
            out.append(ln.raw)
            if (ln.new if side == "RIGHT" else ln.old) == line:
                break
        return "\n".join(out)


def _read_patch(patch: str | None) -> tuple[list[_PatchHunk], int]:
    """The fake's own reader: hunks and the largest diff ``position``."""
    hunks: list[_PatchHunk] = []
    first = None
    old = new = 0
    position = 0
    for i, raw in enumerate((patch or "").split("\n")):
        m = _HEADER.match(raw)
        if m:
            if first is None:
                first = i
            else:
                position = i - first
            hunks.append(_PatchHunk(raw, []))
            old, new = int(m[1]), int(m[3])
            continue
        if first is None:
            continue
        position = i - first
        kind = raw[:1]
        if kind == "+":
            hunks[-1].lines.append(_PatchLine("+", None, new, position, raw))
            new += 1
        elif kind == "-":
            hunks[-1].lines.append(_PatchLine("-", old, None, position, raw))
            old += 1
        elif kind == " ":
            hunks[-1].lines.append(_PatchLine(" ", old, new, position, raw))
            old += 1
            new += 1
    return hunks, position


def _hunk_index(hunks: list[_PatchHunk], line: int, side: str) -> int | None:
    for i, h in enumerate(hunks):
        if h.has(line, side):
            return i
    return None


def _git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _to_sentence(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


# --------------------------------------------------------------------------------------------
# State


@dataclass
class PRFile:
    """A file of a pull request as the list-files API shows it.

    ``patch`` None means GitHub gives no patch (binary or too large). ``status`` is one of added,
    removed, modified, renamed, copied, changed, unchanged; renamed files carry
    ``previous_filename``.
    """

    filename: str
    patch: str | None = None
    status: str = "modified"
    previous_filename: str | None = None
    sha: str | None = None

    @property
    def additions(self) -> int:
        return sum(1 for h in _read_patch(self.patch)[0] for ln in h.lines if ln.kind == "+")

    @property
    def deletions(self) -> int:
        return sum(1 for h in _read_patch(self.patch)[0] for ln in h.lines if ln.kind == "-")


@dataclass
class Repo:
    owner: str
    name: str
    id: int
    default_branch: str = "main"
    private: bool = False
    parent: str | None = None  # full name of the repository this one is a fork of

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass
class Pull:
    """A pull request. ``shas`` is its head history, oldest first; ``snapshots`` the files at
    each head."""

    number: int
    id: int
    title: str
    user: str
    head_ref: str
    head_repo: str
    base_ref: str
    base_sha: str
    body: str = ""
    state: str = "open"
    draft: bool = False
    head_repo_deleted: bool = False  # the fork was deleted: GitHub then shows `head.repo` null
    shas: list[str] = field(default_factory=list)
    snapshots: dict[str, list[PRFile]] = field(default_factory=dict)

    @property
    def head_sha(self) -> str:
        return self.shas[-1]

    @property
    def files(self) -> list[PRFile]:
        return self.snapshots[self.head_sha]


@dataclass
class Token:
    login: str
    write: bool = True

    @property
    def is_app(self) -> bool:
        return self.login.endswith("[bot]")


@dataclass
class LoggedRequest:
    """One request the fake received, and what it answered."""

    method: str
    url: str
    path: str  # path under the API root, e.g. "/repos/org/models/pulls/1/reviews"
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    token: str | None
    status: int = 0
    response: Any = None
    response_headers: dict[str, str] = field(default_factory=dict)


@dataclass
class SchemaViolation:
    """A request body that githubkit-schemas rejected (the fake answered 422)."""

    method: str
    path: str
    model: str
    errors: list[str]


@dataclass
class _Failure:
    method: str
    path: str | re.Pattern[str]
    status: int
    times: int
    headers: dict[str, str]
    body: Any
    after: bool

    def matches(self, method: str, path: str) -> bool:
        if self.method not in ("*", method):
            return False
        if isinstance(self.path, re.Pattern):
            return self.path.search(path) is not None
        return path == self.path or path.endswith(self.path)


class _Error(Exception):
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


# --------------------------------------------------------------------------------------------
# The fake


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: str
    model: str | None = None
    write: bool = False
    doc: str = ""
    permission: str = ""


def _route(method: str, path: str, handler: str, **kw: Any) -> _Route:
    regex = re.sub(r"\{(\w+)\+\}", r"(?P<\1>.+)", path)
    regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", regex)
    return _Route(method, re.compile(f"^{regex}$"), handler, **kw)


_R = "/repos/{owner}/{repo}"
_ANY_REPO = {"get_repo", "get_commit", "get_contents", "get_permission"}
_ROUTES = [
    _route("GET", "/user", "get_user", doc="/users/users#get-the-authenticated-user"),
    _route("GET", _R, "get_repo", doc="/repos/repos#get-a-repository"),
    _route("GET", _R + "/commits/{ref}", "get_commit", doc="/commits/commits#get-a-commit"),
    _route("GET", _R + "/pulls/{number}", "get_pull", doc="/pulls/pulls#get-a-pull-request"),
    _route(
        "GET",
        _R + "/pulls/{number}/files",
        "list_files",
        doc="/pulls/pulls#list-pull-requests-files",
    ),
    _route(
        "GET",
        _R + "/pulls/{number}/commits",
        "list_pull_commits",
        doc="/pulls/pulls#list-commits-on-a-pull-request",
    ),
    _route(
        "GET",
        _R + "/contents/{path+}",
        "get_contents",
        doc="/repos/contents#get-repository-content",
    ),
    _route(
        "GET",
        _R + "/pulls/{number}/reviews",
        "list_reviews",
        doc="/pulls/reviews#list-reviews-for-a-pull-request",
    ),
    _route(
        "POST",
        _R + "/pulls/{number}/reviews",
        "create_review",
        model="ReposOwnerRepoPullsPullNumberReviewsPostBody",
        write=True,
        doc="/pulls/reviews#create-a-review-for-a-pull-request",
        permission="pull_requests=write",
    ),
    _route(
        "PUT",
        _R + "/pulls/{number}/reviews/{id}",
        "update_review",
        model="ReposOwnerRepoPullsPullNumberReviewsReviewIdPutBody",
        write=True,
        doc="/pulls/reviews#update-a-review-for-a-pull-request",
        permission="pull_requests=write",
    ),
    _route(
        "GET",
        _R + "/pulls/{number}/comments",
        "list_review_comments",
        doc="/pulls/comments#list-review-comments-on-a-pull-request",
    ),
    _route(
        "GET",
        _R + "/pulls/comments/{id}",
        "get_review_comment",
        doc="/pulls/comments#get-a-review-comment-for-a-pull-request",
    ),
    _route(
        "PATCH",
        _R + "/pulls/comments/{id}",
        "edit_review_comment",
        model="ReposOwnerRepoPullsCommentsCommentIdPatchBody",
        write=True,
        doc="/pulls/comments#update-a-review-comment-for-a-pull-request",
        permission="pull_requests=write",
    ),
    _route(
        "DELETE",
        _R + "/pulls/comments/{id}",
        "delete_review_comment",
        write=True,
        doc="/pulls/comments#delete-a-review-comment-for-a-pull-request",
        permission="pull_requests=write",
    ),
    _route(
        "POST",
        _R + "/pulls/comments/{id}/reactions",
        "create_review_comment_reaction",
        model="ReposOwnerRepoPullsCommentsCommentIdReactionsPostBody",
        write=True,
        doc="/reactions/reactions#create-reaction-for-a-pull-request-review-comment",
        permission="pull_requests=write",
    ),
    _route(
        "GET",
        _R + "/issues/{number}/comments",
        "list_issue_comments",
        doc="/issues/comments#list-issue-comments",
    ),
    _route(
        "POST",
        _R + "/issues/{number}/comments",
        "create_issue_comment",
        model="ReposOwnerRepoIssuesIssueNumberCommentsPostBody",
        write=True,
        doc="/issues/comments#create-an-issue-comment",
        permission="issues=write; pull_requests=write",
    ),
    _route(
        "GET",
        _R + "/issues/comments/{id}",
        "get_issue_comment",
        doc="/issues/comments#get-an-issue-comment",
    ),
    _route(
        "PATCH",
        _R + "/issues/comments/{id}",
        "edit_issue_comment",
        model="ReposOwnerRepoIssuesCommentsCommentIdPatchBody",
        write=True,
        doc="/issues/comments#update-an-issue-comment",
        permission="issues=write; pull_requests=write",
    ),
    _route(
        "DELETE",
        _R + "/issues/comments/{id}",
        "delete_issue_comment",
        write=True,
        doc="/issues/comments#delete-an-issue-comment",
        permission="issues=write; pull_requests=write",
    ),
    _route(
        "GET",
        _R + "/issues/comments/{id}/reactions",
        "list_issue_comment_reactions",
        doc="/reactions/reactions#list-reactions-for-an-issue-comment",
    ),
    _route(
        "POST",
        _R + "/issues/comments/{id}/reactions",
        "create_issue_comment_reaction",
        model="ReposOwnerRepoIssuesCommentsCommentIdReactionsPostBody",
        write=True,
        doc="/reactions/reactions#create-reaction-for-an-issue-comment",
        permission="issues=write; pull_requests=write",
    ),
    _route(
        "GET",
        _R + "/collaborators/{user}/permission",
        "get_permission",
        doc="/collaborators/collaborators#get-repository-permissions-for-a-user",
    ),
    _route(
        "PUT",
        _R + "/contents/{path+}",
        "put_contents",
        model="ReposOwnerRepoContentsPathPutBody",
        write=True,
        doc="/repos/contents#create-or-update-file-contents",
        permission="contents=write",
    ),
]


class GitHubFake:
    """A stateful GitHub on ``responses``. See the module docstring.

    ``repo`` is the base repository ("owner/name"). Two tokens are known from the start:
    :attr:`WRITE_TOKEN` (``github-actions[bot]``, can write) and :attr:`READ_TOKEN` (read-only, as
    a fork PR's ``GITHUB_TOKEN``); add more with :meth:`add_token`.
    """

    WRITE_TOKEN = WRITE_TOKEN
    READ_TOKEN = READ_TOKEN

    def __init__(
        self,
        repo: str = "org/models",
        api_url: str = "https://api.github.com",
        *,
        default_branch: str = "main",
        private: bool = False,
        forbid_unknown_fields: bool = True,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        parsed = urllib.parse.urlparse(self.api_url)
        self._api_path = parsed.path.rstrip("/")
        self._gql_path = self._api_path.removesuffix("/v3") + "/graphql"
        self.graphql_url = urllib.parse.urlunparse(parsed._replace(path=self._gql_path))
        self._origin = (parsed.scheme, parsed.hostname or "")
        if parsed.hostname == "api.github.com":
            self.server_url = "https://github.com"
        else:
            self.server_url = f"{parsed.scheme}://{parsed.netloc}"
        self.forbid_unknown_fields = forbid_unknown_fields

        self._ids = itertools.count(1_000_001)
        self._ticks = itertools.count(1)
        self.repos: dict[str, Repo] = {}
        self.pulls: dict[int, Pull] = {}
        self.blobs: dict[tuple[str, str], bytes] = {}  # (sha, path) -> content
        self.refs: dict[tuple[str, str], str] = {}  # (repo full name lower, branch) -> sha
        self.tokens: dict[str, Token] = {
            WRITE_TOKEN: Token("github-actions[bot]", write=True),
            READ_TOKEN: Token("github-actions[bot]", write=False),
        }
        self.permissions: dict[str, str] = {}
        self.user_types: dict[str, str] = {}
        self.reviews: list[dict[str, Any]] = []
        self.review_comments: list[dict[str, Any]] = []
        self.issue_comments: list[dict[str, Any]] = []
        self.reactions: list[dict[str, Any]] = []
        self.minimized: list[dict[str, Any]] = []
        self.contents_commits: list[dict[str, Any]] = []  # PUT /contents: commits made
        self.graphql_calls: list[dict[str, Any]] = []
        self.requests: list[LoggedRequest] = []
        self.schema_errors: list[SchemaViolation] = []
        self.unhandled: list[LoggedRequest] = []
        self._failures: list[_Failure] = []
        self._mock: responses.RequestsMock | None = None

        owner, name = repo.split("/", 1)
        base = self._add_repo(owner, name, default_branch=default_branch, private=private)
        self.repo = base.full_name
        self.refs[(base.full_name.lower(), default_branch)] = self._sha("base", default_branch)

    # ---- lifecycle ------------------------------------------------------------------------

    def start(self) -> GitHubFake:
        """Start intercepting HTTP (every other URL raises ConnectionError, as responses does)."""
        if self._mock is not None:
            return self
        mock = responses.RequestsMock(assert_all_requests_are_fired=False)
        mock.start()
        api = re.compile(self._url_regex(self._api_path) + r"(?:[/?#].*)?$")
        gql = re.compile(self._url_regex(self._gql_path) + r"(?:[?#].*)?$")
        mock.add_callback(responses.POST, gql, callback=self._dispatch)
        for method in ("GET", "POST", "PATCH", "PUT", "DELETE"):
            mock.add_callback(method, api, callback=self._dispatch)
        self._mock = mock
        return self

    def _url_regex(self, path: str) -> str:
        # requests may spell the default port out (PyGithub does: https://api.github.com:443/...)
        scheme, host = self._origin
        return f"^{re.escape(scheme)}://{re.escape(host)}(?::\\d+)?{re.escape(path)}"

    def stop(self) -> None:
        if self._mock is not None:
            self._mock.stop()
            self._mock.reset()
            self._mock = None

    def __enter__(self) -> GitHubFake:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client(self, token: str | None = WRITE_TOKEN, **kwargs: Any) -> Any:
        """A PyGithub ``Github`` pointed at the fake: no throttling, no retries (pass
        ``retry=...`` to get them; ``responses`` replays retries without sleeping)."""
        import github

        kwargs.setdefault("retry", None)
        kwargs.setdefault("seconds_between_requests", None)
        kwargs.setdefault("seconds_between_writes", None)
        auth = github.Auth.Token(token) if token else None
        return github.Github(auth=auth, base_url=self.api_url, **kwargs)

    def env(self, token: str | None = WRITE_TOKEN) -> dict[str, str]:
        """The GitHub Actions variables a step would see for this fake (for monkeypatch)."""
        out = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": self.api_url,
            "GITHUB_GRAPHQL_URL": self.graphql_url,
            "GITHUB_SERVER_URL": self.server_url,
            "GITHUB_REPOSITORY": self.repo,
            "GITHUB_REPOSITORY_OWNER": self.repo.split("/")[0],
        }
        if token:
            out["GITHUB_TOKEN"] = token
        return out

    # ---- world building -------------------------------------------------------------------

    def _next_id(self) -> int:
        return next(self._ids)

    def _now(self) -> str:
        return (_EPOCH + timedelta(seconds=next(self._ticks))).strftime("%Y-%m-%dT%H:%M:%SZ")

    @staticmethod
    def _sha(*parts: object) -> str:
        return hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()

    def _add_repo(self, owner: str, name: str, **kw: Any) -> Repo:
        r = Repo(owner, name, self._next_id(), **kw)
        self.repos[r.full_name.lower()] = r
        return r

    def add_token(self, token: str, *, login: str = "github-actions[bot]", write: bool = True):
        """Register a token. Logins ending in ``[bot]`` act as GitHub App installation tokens
        (``GET /user`` answers 403 to them, as for ``GITHUB_TOKEN``)."""
        self.tokens[token] = Token(login, write)

    def add_fork(self, owner: str, name: str | None = None) -> str:
        """Create a fork of the base repository; returns its full name."""
        base = self.repos[self.repo.lower()]
        fork = self._add_repo(
            owner, name or base.name, default_branch=base.default_branch, parent=base.full_name
        )
        return fork.full_name

    def set_permission(self, user: str, permission: str) -> None:
        """A collaborator's role: none, read, triage, write, maintain or admin."""
        if permission not in _ROLES:
            raise ValueError(f"unknown permission {permission!r}")
        self.permissions[user.lower()] = permission

    def set_contents(self, ref: str, path: str, content: str | bytes, repo: str | None = None):
        """Store a file at a commit sha, or at a branch of ``repo`` (default: the base repo)."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        sha = self.refs.get(((repo or self.repo).lower(), ref), ref)
        self.blobs[(sha, path)] = data

    def add_pull(
        self,
        number: int | None = None,
        *,
        changes: Mapping[str, tuple[str | None, str | None]] | None = None,
        files: list[PRFile] | Mapping[str, str | None] | None = None,
        contents: Mapping[str, str | bytes] | None = None,
        renames: Mapping[str, str] | None = None,
        fork: str | None = None,
        user: str = "contributor",
        head_ref: str = "update-readme",
        base_ref: str | None = None,
        title: str = "Update README",
        body: str = "",
        head_sha: str | None = None,
        draft: bool = False,
    ) -> Pull:
        """Open a pull request.

        * ``changes``: ``{path: (base_text, head_text)}``; the fake computes GitHub-style patches
          and stores both texts as contents (``None`` base = added file, ``None`` head = removed);
        * ``files``: explicit files, as :class:`PRFile` or ``{path: patch_or_None}``;
        * ``contents``: more files at the head sha (``{path: text}``);
        * ``renames``: ``{new_path: old_path}`` for paths in ``changes``;
        * ``fork``: the login of the fork's owner for a PR from a fork (created if needed);
          the PR's author defaults to ``user``.
        """
        number = number if number is not None else max(self.pulls, default=0) + 1
        base = self.repos[self.repo.lower()]
        base_ref = base_ref or base.default_branch
        base_sha = self.refs.setdefault((base.full_name.lower(), base_ref), self._sha("base"))
        head_repo = base.full_name
        if fork is not None:
            key = f"{fork}/{base.name}".lower()
            head_repo = self.repos[key].full_name if key in self.repos else self.add_fork(fork)
            if user == "contributor":
                user = fork
        pull = Pull(
            number,
            self._next_id(),
            title,
            user,
            head_ref,
            head_repo,
            base_ref,
            base_sha,
            body=body,
            draft=draft,
        )
        self.pulls[number] = pull
        self._snapshot(pull, head_sha, changes, files, contents, renames)
        self.refs[(head_repo.lower(), head_ref)] = pull.head_sha
        return pull

    def push(
        self,
        number: int,
        *,
        changes: Mapping[str, tuple[str | None, str | None] | str | None] | None = None,
        files: list[PRFile] | Mapping[str, str | None] | None = None,
        contents: Mapping[str, str | bytes] | None = None,
        renames: Mapping[str, str] | None = None,
        sha: str | None = None,
    ) -> str:
        """A new head commit (a ``synchronize``): the PR's files become those given, against the
        base. A ``changes`` value may be just the new head text: the base text is the stored one.
        Review comments on files whose patch changed become outdated (``line``/``position`` null).
        Returns the new head sha."""
        pull = self.pulls[number]
        old_files = {f.filename: f.patch for f in pull.files}
        full: dict[str, tuple[str | None, str | None]] = {}
        for path, value in (changes or {}).items():
            if isinstance(value, tuple):
                full[path] = value
            else:
                src = (renames or {}).get(path, path)
                old = self.blobs.get((pull.base_sha, src))
                full[path] = (old.decode("utf-8") if old is not None else None, value)
        self._snapshot(pull, sha, full, files, contents, renames)
        self.refs[(pull.head_repo.lower(), pull.head_ref)] = pull.head_sha
        new_files = {f.filename: f.patch for f in pull.files}
        for c in self.review_comments:
            if c["pull"] != number or c["line"] is None:
                continue
            if new_files.get(c["path"], ...) != old_files.get(c["path"]):
                c["line"] = c["start_line"] = c["position"] = None
            else:
                c["commit_id"] = pull.head_sha
        return pull.head_sha

    def _snapshot(self, pull, sha, changes, files, contents, renames) -> None:
        sha = sha or self._sha("head", pull.number, len(pull.shas))
        out: list[PRFile] = []
        for path, (old, new) in (changes or {}).items():
            prev = (renames or {}).get(path)
            if old is not None:
                self.blobs[(pull.base_sha, prev or path)] = old.encode("utf-8")
            if new is not None:
                self.blobs[(sha, path)] = new.encode("utf-8")
            if old == new and not prev:
                continue
            status = "added" if old is None else "removed" if new is None else "modified"
            if prev:
                status = "renamed"
            patch = make_patch(old, new) if old != new else None
            blob = _git_blob_sha(new.encode("utf-8")) if new is not None else None
            out.append(PRFile(path, patch, status, prev, blob))
        if isinstance(files, Mapping):
            out.extend(PRFile(p, patch) for p, patch in files.items())
        elif files:
            out.extend(files)
        for path, text in (contents or {}).items():
            self.blobs[(sha, path)] = text.encode("utf-8") if isinstance(text, str) else text
        pull.shas.append(sha)
        pull.snapshots[sha] = out

    def add_issue_comment(
        self, number: int, body: str, *, user: str = "someone", user_type: str = "User"
    ) -> dict[str, Any]:
        """Seed a comment on a PR's conversation (say, one left by an earlier perfbot run)."""
        self._pull(number)
        self.user_types[user.lower()] = user_type
        return self._new_issue_comment(number, body, user)

    def add_review_comment(
        self,
        number: int,
        path: str,
        line: int,
        body: str,
        *,
        user: str = "github-actions[bot]",
        side: str = "RIGHT",
        start_line: int | None = None,
    ) -> dict[str, Any]:
        """Seed an inline comment (in a review of its own), checked against the diff."""
        pull = self._pull(number)
        item: dict[str, Any] = {"path": path, "line": line, "side": side, "body": body}
        if start_line is not None:
            item["start_line"] = start_line
        errors = self._check_review_comments(pull, pull.head_sha, [item])
        if errors:
            raise ValueError(_to_sentence(errors))
        review = self._new_review(pull, user, "", "COMMENTED", pull.head_sha)
        return self._new_review_comment(pull, review, pull.head_sha, item, user)

    def fail_next(
        self,
        method: str,
        path: str | re.Pattern[str],
        status: int = 502,
        *,
        times: int = 1,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        after: bool = False,
    ) -> None:
        """Answer the next ``times`` matching requests with ``status``.

        ``path`` matches the request path under the API root exactly or as a suffix
        (``"/reviews"``), or is a regex searched in it; ``method`` may be ``"*"``. With
        ``after=True`` the request is carried out first and only its answer is lost (to test
        that a retry does not post twice).
        """
        self._failures.append(
            _Failure(method.upper(), path, status, times, dict(headers or {}), body, after)
        )

    # ---- inspection -----------------------------------------------------------------------

    def calls(self, method: str | None = None, path: str | None = None) -> list[LoggedRequest]:
        """Logged requests, filtered by method and by path (exact or suffix)."""
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (path is None or r.path == path or r.path.endswith(path))
        ]

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        """The review comments of a PR, as the list API would show them."""
        return [self._review_comment_json(c) for c in self.review_comments if c["pull"] == number]

    # ---- dispatch -------------------------------------------------------------------------

    def _dispatch(self, request: Any) -> tuple[int, dict[str, str], str]:
        url = request.url
        parsed = urllib.parse.urlparse(url)
        is_graphql = parsed.path == self._gql_path
        path = "/graphql" if is_graphql else parsed.path[len(self._api_path) :] or "/"
        query = dict(urllib.parse.parse_qsl(parsed.query))
        raw = request.body
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8")
        token = self._token_of(request.headers.get("Authorization"))
        log = LoggedRequest(
            request.method.upper(), url, path, query, None, dict(request.headers), token
        )
        self.requests.append(log)
        body_error = None
        if raw:
            try:
                log.body = json.loads(raw)
            except ValueError:
                body_error = _Error(400, {"message": "Problems parsing JSON"})
        failure = next((f for f in self._failures if f.matches(log.method, path)), None)
        if failure is not None:
            failure.times -= 1
            if failure.times <= 0:
                self._failures.remove(failure)
        try:
            if failure is not None and not failure.after:
                raise self._injected(failure)
            if body_error is not None:
                raise body_error
            status, data, headers = self._handle(log, is_graphql)
            if failure is not None:
                raise self._injected(failure)
        except _Error as e:
            status, data, headers = e.status, e.body, e.headers
        log.status, log.response = status, data
        remaining = max(0, 5000 - len(self.requests))
        out_headers = {
            "Content-Type": "application/json; charset=utf-8",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": f"FAKE:{len(self.requests)}",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Used": str(5000 - remaining),
            "X-RateLimit-Reset": "1714568400",
            "X-RateLimit-Resource": "graphql" if is_graphql else "core",
            **headers,
        }
        log.response_headers = out_headers
        text = "" if status == 204 or data is None else json.dumps(data)
        return status, out_headers, text

    @staticmethod
    def _injected(f: _Failure) -> _Error:
        body = f.body
        if body is None:
            if f.status in (403, 429) and "Retry-After" in f.headers:
                body = {
                    "message": "You have exceeded a secondary rate limit. Please wait a few "
                    "minutes before you try again.",
                    "documentation_url": "https://docs.github.com/rest/overview/"
                    "rate-limits-for-the-rest-api#about-secondary-rate-limits",
                    "status": str(f.status),
                }
            elif f.status >= 500:
                body = {"message": "Server Error"}
            else:
                body = {"message": "Injected failure", "status": str(f.status)}
        return _Error(f.status, body, dict(f.headers))

    def _token_of(self, header: str | None) -> str | None:
        if not header:
            return None
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "basic":
            decoded = base64.b64decode(value).decode("utf-8", "replace")
            return decoded.partition(":")[2] or decoded
        return value.strip()

    def _handle(self, log: LoggedRequest, is_graphql: bool) -> tuple[int, Any, dict[str, str]]:
        tok = None
        if log.token is not None:
            tok = self.tokens.get(log.token)
            if tok is None:
                raise _Error(401, self._err("Bad credentials", "", 401))
        if is_graphql:
            return (200, self._graphql(log, tok), {})
        for route in _ROUTES:
            if route.method != log.method:
                continue
            m = route.pattern.match(log.path)
            if m is None:
                continue
            params = {k: urllib.parse.unquote(v) for k, v in m.groupdict().items()}
            repo = None
            if "owner" in params:
                repo = self.repos.get(f"{params.pop('owner')}/{params.pop('repo')}".lower())
                if repo is None or (repo.private and tok is None):
                    raise _Error(404, self._err("Not Found", route.doc, 404))
                if route.handler not in _ANY_REPO and repo.full_name != self.repo:
                    # pull requests and their comments live in the base repository only
                    raise _Error(404, self._err("Not Found", route.doc, 404))
            if route.write:
                if tok is None:
                    raise _Error(401, self._err("Requires authentication", route.doc, 401))
                if not tok.write:
                    raise _Error(
                        403,
                        self._err("Resource not accessible by integration", route.doc, 403),
                        {"X-Accepted-GitHub-Permissions": route.permission},
                    )
            if route.model is not None:
                payload = log.body if log.body is not None else {}
                errors = validate_model(
                    route.model, payload, forbid_unknown=self.forbid_unknown_fields
                )
                if errors:
                    self.schema_errors.append(
                        SchemaViolation(log.method, log.path, route.model, errors)
                    )
                    msg = "Invalid request.\n\n" + "\n".join(errors)
                    raise _Error(422, self._err(msg, route.doc, 422))
            handler = getattr(self, "_h_" + route.handler)
            ctx = _Ctx(self, log, route, repo, tok)
            result = handler(ctx, **params)
            status, data = result[0], result[1]
            headers = result[2] if len(result) > 2 else {}
            return status, data, headers
        self.unhandled.append(log)
        raise _Error(404, self._err("Not Found", "", 404))

    @staticmethod
    def _err(message: str, doc: str, status: int, errors: list[Any] | None = None) -> dict:
        out: dict[str, Any] = {"message": message}
        if errors is not None:
            out["errors"] = errors
        out["documentation_url"] = f"{_DOCS}{doc}" if doc else _DOCS
        out["status"] = str(status)
        return out

    # ---- JSON shapes ----------------------------------------------------------------------

    def _user_json(self, login: str) -> dict[str, Any]:
        is_bot = login.endswith("[bot]") or self.user_types.get(login.lower()) == "Bot"
        uid = 41898282 if login == "github-actions[bot]" else int(self._sha(login)[:7], 16)
        u = f"{self.api_url}/users/{urllib.parse.quote(login)}"
        node = base64.b64encode(f"04:User{uid}".encode()).decode().rstrip("=")
        avatar_host = "avatars.githubusercontent.com"
        return {
            "login": login,
            "id": uid,
            "node_id": ("BOT_" if is_bot else "U_") + node,
            "avatar_url": f"https://{avatar_host}/{'in/15368' if is_bot else 'u/' + str(uid)}?v=4",
            "gravatar_id": "",
            "url": u,
            "html_url": f"{self.server_url}/{'apps/' + login[:-5] if is_bot else login}",
            "followers_url": f"{u}/followers",
            "following_url": f"{u}/following{{/other_user}}",
            "gists_url": f"{u}/gists{{/gist_id}}",
            "starred_url": f"{u}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{u}/subscriptions",
            "organizations_url": f"{u}/orgs",
            "repos_url": f"{u}/repos",
            "events_url": f"{u}/events{{/privacy}}",
            "received_events_url": f"{u}/received_events",
            "type": "Bot" if is_bot else "User",
            "user_view_type": "public",
            "site_admin": False,
        }

    def _node(self, prefix: str, oid: int) -> str:
        return prefix + "_kwDO" + base64.b64encode(f"fake:{oid}".encode()).decode().rstrip("=")

    def _repo_json(self, r: Repo, *, full: bool = False, tok: Token | None = None) -> dict:
        u = f"{self.api_url}/repos/{r.full_name}"
        html = f"{self.server_url}/{r.full_name}"
        host = urllib.parse.urlparse(self.server_url).netloc
        forks = sum(1 for x in self.repos.values() if x.parent == r.full_name)
        out: dict[str, Any] = {
            "id": r.id,
            "node_id": self._node("R", r.id),
            "name": r.name,
            "full_name": r.full_name,
            "private": r.private,
            "owner": self._user_json(r.owner),
            "html_url": html,
            "description": "MindSpore models",
            "fork": r.parent is not None,
            "url": u,
            "archive_url": f"{u}/{{archive_format}}{{/ref}}",
            "assignees_url": f"{u}/assignees{{/user}}",
            "blobs_url": f"{u}/git/blobs{{/sha}}",
            "branches_url": f"{u}/branches{{/branch}}",
            "collaborators_url": f"{u}/collaborators{{/collaborator}}",
            "comments_url": f"{u}/comments{{/number}}",
            "commits_url": f"{u}/commits{{/sha}}",
            "compare_url": f"{u}/compare/{{base}}...{{head}}",
            "contents_url": f"{u}/contents/{{+path}}",
            "contributors_url": f"{u}/contributors",
            "deployments_url": f"{u}/deployments",
            "downloads_url": f"{u}/downloads",
            "events_url": f"{u}/events",
            "forks_url": f"{u}/forks",
            "git_commits_url": f"{u}/git/commits{{/sha}}",
            "git_refs_url": f"{u}/git/refs{{/sha}}",
            "git_tags_url": f"{u}/git/tags{{/sha}}",
            "git_url": f"git://{host}/{r.full_name}.git",
            "issue_comment_url": f"{u}/issues/comments{{/number}}",
            "issue_events_url": f"{u}/issues/events{{/number}}",
            "issues_url": f"{u}/issues{{/number}}",
            "keys_url": f"{u}/keys{{/key_id}}",
            "labels_url": f"{u}/labels{{/name}}",
            "languages_url": f"{u}/languages",
            "merges_url": f"{u}/merges",
            "milestones_url": f"{u}/milestones{{/number}}",
            "notifications_url": f"{u}/notifications{{?since,all,participating}}",
            "pulls_url": f"{u}/pulls{{/number}}",
            "releases_url": f"{u}/releases{{/id}}",
            "ssh_url": f"git@{host}:{r.full_name}.git",
            "stargazers_url": f"{u}/stargazers",
            "statuses_url": f"{u}/statuses/{{sha}}",
            "subscribers_url": f"{u}/subscribers",
            "subscription_url": f"{u}/subscription",
            "tags_url": f"{u}/tags",
            "teams_url": f"{u}/teams",
            "trees_url": f"{u}/git/trees{{/sha}}",
            "clone_url": f"{html}.git",
            "mirror_url": None,
            "hooks_url": f"{u}/hooks",
            "svn_url": html,
            "homepage": None,
            "language": "Python",
            "forks_count": forks,
            "stargazers_count": 0,
            "watchers_count": 0,
            "size": 1024,
            "default_branch": r.default_branch,
            "open_issues_count": sum(1 for p in self.pulls.values() if p.state == "open"),
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": True,
            "has_pages": False,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if r.private else "public",
            "pushed_at": "2024-04-30T08:00:00Z",
            "created_at": "2023-01-01T00:00:00Z",
            "updated_at": "2024-04-30T08:00:00Z",
            "allow_forking": True,
            "web_commit_signoff_required": False,
            "license": None,
            "forks": forks,
            "open_issues": sum(1 for p in self.pulls.values() if p.state == "open"),
            "watchers": 0,
        }
        if tok is not None:
            role = "write" if tok.write else "read"
            out["permissions"] = {
                "admin": False,
                "maintain": False,
                "push": role == "write",
                "triage": role == "write",
                "pull": True,
            }
        if full:
            out["subscribers_count"] = 0
            out["network_count"] = len(self.repos)
            if r.parent is not None:
                parent = self._repo_json(self.repos[r.parent.lower()])
                out["parent"] = parent
                out["source"] = parent
        return out

    def _association(self, login: str, r: Repo | None = None) -> str:
        r = r or self.repos[self.repo.lower()]
        if login.lower() == r.owner.lower():
            return "OWNER"
        if self.permissions.get(login.lower(), "none") in ("write", "maintain", "admin"):
            return "COLLABORATOR"
        if any(p.user.lower() == login.lower() for p in self.pulls.values()):
            return "CONTRIBUTOR"
        return "NONE"

    def _pull_json(self, p: Pull) -> dict[str, Any]:
        base = self.repos[self.repo.lower()]
        head = self.repos[p.head_repo.lower()]
        u = f"{self.api_url}/repos/{base.full_name}/pulls/{p.number}"
        iu = f"{self.api_url}/repos/{base.full_name}/issues/{p.number}"
        html = f"{self.server_url}/{base.full_name}/pull/{p.number}"
        statuses = f"{self.api_url}/repos/{base.full_name}/statuses/{p.head_sha}"
        rc_url = f"{self.api_url}/repos/{base.full_name}/pulls/comments{{/number}}"
        n_comments = sum(1 for c in self.issue_comments if c["number"] == p.number)
        n_review_comments = sum(1 for c in self.review_comments if c["pull"] == p.number)
        files = p.files
        return {
            "url": u,
            "id": p.id,
            "node_id": self._node("PR", p.id),
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": iu,
            "commits_url": f"{u}/commits",
            "review_comments_url": f"{u}/comments",
            "review_comment_url": rc_url,
            "comments_url": f"{iu}/comments",
            "statuses_url": statuses,
            "number": p.number,
            "state": p.state,
            "locked": False,
            "title": p.title,
            "user": self._user_json(p.user),
            "body": p.body or None,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": "2024-05-01T10:00:00Z",
            "updated_at": "2024-05-01T11:00:00Z",
            "closed_at": None,
            "merged_at": None,
            "merge_commit_sha": None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": {
                "label": f"{head.owner}:{p.head_ref}",
                "ref": p.head_ref,
                "sha": p.head_sha,
                "user": self._user_json(head.owner),
                "repo": None if p.head_repo_deleted else self._repo_json(head),
            },
            "base": {
                "label": f"{base.owner}:{p.base_ref}",
                "ref": p.base_ref,
                "sha": p.base_sha,
                "user": self._user_json(base.owner),
                "repo": self._repo_json(base),
            },
            "_links": {
                "self": {"href": u},
                "html": {"href": html},
                "issue": {"href": iu},
                "comments": {"href": f"{iu}/comments"},
                "review_comments": {"href": f"{u}/comments"},
                "review_comment": {"href": rc_url},
                "commits": {"href": f"{u}/commits"},
                "statuses": {"href": statuses},
            },
            "author_association": self._association(p.user),
            "auto_merge": None,
            "draft": p.draft,
            "merged": False,
            "mergeable": True,
            "rebaseable": True,
            "mergeable_state": "clean",
            "merged_by": None,
            "comments": n_comments,
            "review_comments": n_review_comments,
            "maintainer_can_modify": head.full_name != base.full_name,
            "commits": len(p.shas),
            "additions": sum(f.additions for f in files),
            "deletions": sum(f.deletions for f in files),
            "changed_files": len(files),
        }

    def _file_json(self, p: Pull, f: PRFile) -> dict[str, Any]:
        quoted = urllib.parse.quote(f.filename)
        base = self.repos[self.repo.lower()].full_name
        out: dict[str, Any] = {
            "sha": f.sha or _git_blob_sha(f.filename.encode()),
            "filename": f.filename,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": f.additions + f.deletions,
            "blob_url": f"{self.server_url}/{base}/blob/{p.head_sha}/{quoted}",
            "raw_url": f"{self.server_url}/{base}/raw/{p.head_sha}/{quoted}",
            "contents_url": f"{self.api_url}/repos/{base}/contents/{quoted}?ref={p.head_sha}",
        }
        if f.patch is not None:
            out["patch"] = f.patch
        if f.previous_filename is not None:
            out["previous_filename"] = f.previous_filename
        return out

    def _commit_json(self, r: Repo, sha: str, parents: list[str]) -> dict[str, Any]:
        u = f"{self.api_url}/repos/{r.full_name}/commits/{sha}"
        git_u = f"{self.api_url}/repos/{r.full_name}/git"
        who = {"name": "Contributor", "email": "contributor@example.com"}
        return {
            "sha": sha,
            "node_id": self._node("C", int(sha[:7], 16)),
            "url": u,
            "html_url": f"{self.server_url}/{r.full_name}/commit/{sha}",
            "comments_url": f"{u}/comments",
            "commit": {
                "url": f"{git_u}/commits/{sha}",
                "author": {**who, "date": "2024-05-01T09:00:00Z"},
                "committer": {**who, "date": "2024-05-01T09:00:00Z"},
                "message": "Update README",
                "comment_count": 0,
                "tree": {"sha": self._sha("tree", sha), "url": f"{git_u}/trees/{sha}"},
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
            "author": None,
            "committer": None,
            "parents": [
                {
                    "sha": s,
                    "url": f"{self.api_url}/repos/{r.full_name}/commits/{s}",
                    "html_url": f"{self.server_url}/{r.full_name}/commit/{s}",
                }
                for s in parents
            ],
        }

    def _rollup(self, url: str, subject: tuple[str, int]) -> dict[str, Any]:
        counts = {k: 0 for k in _REACTIONS}
        for r in self.reactions:
            if r["subject"] == subject:
                counts[r["content"]] += 1
        return {"url": f"{url}/reactions", "total_count": sum(counts.values()), **counts}

    def _review_json(self, rv: dict[str, Any]) -> dict[str, Any]:
        base = self.repos[self.repo.lower()].full_name
        pr_url = f"{self.api_url}/repos/{base}/pulls/{rv['pull']}"
        html = f"{self.server_url}/{base}/pull/{rv['pull']}#pullrequestreview-{rv['id']}"
        return {
            "id": rv["id"],
            "node_id": self._node("PRR", rv["id"]),
            "user": self._user_json(rv["user"]),
            "body": rv["body"],
            "state": rv["state"],
            "html_url": html,
            "pull_request_url": pr_url,
            "author_association": self._association(rv["user"]),
            "_links": {"html": {"href": html}, "pull_request": {"href": pr_url}},
            "submitted_at": rv["submitted_at"],
            "commit_id": rv["commit_id"],
        }

    def _review_comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        base = self.repos[self.repo.lower()].full_name
        u = f"{self.api_url}/repos/{base}/pulls/comments/{c['id']}"
        pr_url = f"{self.api_url}/repos/{base}/pulls/{c['pull']}"
        html = f"{self.server_url}/{base}/pull/{c['pull']}#discussion_r{c['id']}"
        return {
            "url": u,
            "pull_request_review_id": c["review_id"],
            "id": c["id"],
            "node_id": c["node_id"],
            "diff_hunk": c["diff_hunk"],
            "path": c["path"],
            "position": c["position"],
            "original_position": c["original_position"],
            "commit_id": c["commit_id"],
            "original_commit_id": c["original_commit_id"],
            "user": self._user_json(c["user"]),
            "body": c["body"],
            "created_at": c["created_at"],
            "updated_at": c["updated_at"],
            "html_url": html,
            "pull_request_url": pr_url,
            "author_association": self._association(c["user"]),
            "_links": {
                "self": {"href": u},
                "html": {"href": html},
                "pull_request": {"href": pr_url},
            },
            "reactions": self._rollup(u, ("review_comment", c["id"])),
            "start_line": c["start_line"],
            "original_start_line": c["original_start_line"],
            "start_side": c["start_side"],
            "line": c["line"],
            "original_line": c["original_line"],
            "side": c["side"],
            "subject_type": "line",
        }

    def _issue_comment_json(self, c: dict[str, Any]) -> dict[str, Any]:
        base = self.repos[self.repo.lower()].full_name
        u = f"{self.api_url}/repos/{base}/issues/comments/{c['id']}"
        return {
            "id": c["id"],
            "node_id": c["node_id"],
            "url": u,
            "html_url": f"{self.server_url}/{base}/pull/{c['number']}#issuecomment-{c['id']}",
            "body": c["body"],
            "user": self._user_json(c["user"]),
            "created_at": c["created_at"],
            "updated_at": c["updated_at"],
            "issue_url": f"{self.api_url}/repos/{base}/issues/{c['number']}",
            "author_association": self._association(c["user"]),
            "performed_via_github_app": None,
            "reactions": self._rollup(u, ("issue_comment", c["id"])),
        }

    def _reaction_json(self, r: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": r["id"],
            "node_id": self._node("REA", r["id"]),
            "user": self._user_json(r["user"]),
            "content": r["content"],
            "created_at": r["created_at"],
        }

    # ---- helpers for handlers ---------------------------------------------------------------

    def _pull(self, number: int | str, doc: str = "") -> Pull:
        try:
            return self.pulls[int(number)]
        except (KeyError, ValueError):
            raise _Error(404, self._err("Not Found", doc, 404)) from None

    def _paginate(self, ctx: _Ctx, items: list[Any], cap: int | None = None):
        if cap is not None:
            items = items[:cap]
        try:
            per_page = min(max(int(ctx.log.query.get("per_page", 30)), 1), 100)
            page = max(int(ctx.log.query.get("page", 1)), 1)
        except ValueError:
            raise _Error(422, self._err("Invalid request.", ctx.route.doc, 422)) from None
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        base = self.api_url + ctx.log.path

        def link(n: int) -> str:
            q = {**ctx.log.query, "per_page": str(per_page), "page": str(n)}
            return f"<{base}?{urllib.parse.urlencode(q)}>"

        rels = []
        if page > 1:
            rels += [f'{link(page - 1)}; rel="prev"']
        if page < last:
            rels += [f'{link(page + 1)}; rel="next"', f'{link(last)}; rel="last"']
        if page > 1:
            rels += [f'{link(1)}; rel="first"']
        return 200, chunk, ({"Link": ", ".join(rels)} if rels else {})

    def _check_body(self, body: Any, resource: str, doc: str) -> None:
        if isinstance(body, str) and len(body) > MAX_BODY:
            raise _Error(
                422,
                self._err(
                    "Validation Failed",
                    doc,
                    422,
                    [
                        {
                            "resource": resource,
                            "code": "custom",
                            "field": "body",
                            "message": f"body is too long (maximum is {MAX_BODY} characters)",
                        }
                    ],
                ),
            )

    def _check_review_comments(self, pull: Pull, sha: str, items: list[dict]) -> list[str]:
        files = {f.filename: f for f in pull.snapshots[sha]}
        errors: list[str] = []
        for item in items:
            f = files.get(item.get("path", ""))
            if f is None:
                errors.append("Path could not be resolved")
                continue
            hunks, _ = _read_patch(f.patch)
            line = item.get("line")
            if line is None:
                pos = item.get("position")
                if pos is None:
                    errors.append("Pull request review thread line can't be blank")
                elif all(ln.position != pos for h in hunks for ln in h.lines):
                    errors.append("Pull request review thread position is invalid")
                continue
            side = item.get("side") or "RIGHT"
            if side not in ("LEFT", "RIGHT"):
                errors.append("Pull request review thread side is not included in the list")
                continue
            end = _hunk_index(hunks, line, side)
            if end is None:
                errors.append("Pull request review thread line must be part of the diff")
                if not hunks:
                    errors.append("Pull request review thread diff hunk can't be blank")
                continue
            start_line = item.get("start_line")
            if start_line is None:
                continue
            start_side = item.get("start_side") or side
            if start_side not in ("LEFT", "RIGHT"):
                errors.append("Pull request review thread start side is not included in the list")
                continue
            if start_side == side and start_line >= line:
                errors.append("pull_request_review_thread.start_line must precede the end line.")
                continue
            if _hunk_index(hunks, start_line, start_side) != end:
                errors.append(
                    "Pull request review thread start line must be part of the same hunk as "
                    "the line."
                )
        return errors

    def _new_review(self, pull: Pull, user: str, body: str, state: str, sha: str) -> dict:
        rv = {
            "id": self._next_id(),
            "pull": pull.number,
            "user": user,
            "body": body,
            "state": state,
            "commit_id": sha,
            "submitted_at": None if state == "PENDING" else self._now(),
            "comments": [],
        }
        self.reviews.append(rv)
        return rv

    def _new_review_comment(self, pull, review, sha, item, user) -> dict[str, Any]:
        f = next(f for f in pull.snapshots[sha] if f.filename == item["path"])
        hunks, _ = _read_patch(f.patch)
        side = item.get("side") or "RIGHT"
        line = item.get("line")
        if line is None:  # legacy position
            pos = item["position"]
            pl = next(ln for h in hunks for ln in h.lines if ln.position == pos)
            hunk = next(h for h in hunks if pl in h.lines)
            line = pl.new if pl.new is not None else pl.old
            side = "RIGHT" if pl.new is not None else "LEFT"
        else:
            hunk = hunks[_hunk_index(hunks, line, side)]
            pl = next(ln for ln in hunk.lines if (ln.new if side == "RIGHT" else ln.old) == line)
        start_line = item.get("start_line")
        now = self._now()
        cid = self._next_id()
        c = {
            "id": cid,
            "node_id": self._node("PRRC", cid),
            "pull": pull.number,
            "review_id": review["id"],
            "path": item["path"],
            "body": item["body"],
            "user": user,
            "line": line,
            "original_line": line,
            "side": side,
            "start_line": start_line,
            "original_start_line": start_line,
            "start_side": (item.get("start_side") or side) if start_line is not None else None,
            "position": pl.position,
            "original_position": pl.position,
            "commit_id": sha,
            "original_commit_id": sha,
            "diff_hunk": hunk.text_upto(line, side),
            "created_at": now,
            "updated_at": now,
        }
        self.review_comments.append(c)
        review["comments"].append(cid)
        return c

    def _new_issue_comment(self, number: int, body: str, user: str) -> dict[str, Any]:
        now = self._now()
        cid = self._next_id()
        c = {
            "id": cid,
            "node_id": self._node("IC", cid),
            "number": number,
            "body": body,
            "user": user,
            "created_at": now,
            "updated_at": now,
            "minimized": None,
        }
        self.issue_comments.append(c)
        return c

    def _find(self, items: list[dict], cid: str, doc: str) -> dict[str, Any]:
        for c in items:
            if str(c["id"]) == cid:
                return c
        raise _Error(404, self._err("Not Found", doc, 404))

    def _react(self, ctx: _Ctx, subject: tuple[str, int]) -> tuple[int, Any]:
        content = ctx.log.body["content"]
        for r in self.reactions:
            if r["subject"] == subject and r["user"] == ctx.login and r["content"] == content:
                return 200, self._reaction_json(r)
        r = {
            "id": self._next_id(),
            "subject": subject,
            "user": ctx.login,
            "content": content,
            "created_at": self._now(),
        }
        self.reactions.append(r)
        return 201, self._reaction_json(r)

    # ---- handlers ---------------------------------------------------------------------------

    def _h_get_user(self, ctx: _Ctx):
        if ctx.tok is None:
            raise _Error(401, self._err("Requires authentication", ctx.route.doc, 401))
        if ctx.tok.is_app:
            raise _Error(
                403, self._err("Resource not accessible by integration", ctx.route.doc, 403)
            )
        return 200, self._user_json(ctx.tok.login)

    def _h_get_repo(self, ctx: _Ctx):
        return 200, self._repo_json(ctx.repo, full=True, tok=ctx.tok)

    def _h_get_commit(self, ctx: _Ctx, ref: str):
        sha = self.refs.get((ctx.repo.full_name.lower(), ref), ref)
        for p in self.pulls.values():
            if sha in p.shas:
                i = p.shas.index(sha)
                parents = [p.shas[i - 1]] if i else [p.base_sha]
                return 200, self._commit_json(ctx.repo, sha, parents)
        if sha in self.refs.values():
            return 200, self._commit_json(ctx.repo, sha, [])
        raise _Error(422, self._err(f"No commit found for SHA: {ref}", ctx.route.doc, 422))

    def _h_get_pull(self, ctx: _Ctx, number: str):
        return 200, self._pull_json(self._pull(number, ctx.route.doc))

    def _h_list_files(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        return self._paginate(ctx, [self._file_json(p, f) for f in p.files], cap=3000)

    def _h_list_pull_commits(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        head = self.repos[p.head_repo.lower()]
        items = [
            self._commit_json(head, s, [p.shas[i - 1]] if i else [p.base_sha])
            for i, s in enumerate(p.shas)
        ]
        return self._paginate(ctx, items, cap=250)

    def _h_get_contents(self, ctx: _Ctx, path: str):
        r = ctx.repo
        ref = ctx.log.query.get("ref") or r.default_branch
        branch = ref.removeprefix("refs/heads/")
        sha = self.refs.get((r.full_name.lower(), branch), ref)
        known = {s for s, _ in self.blobs} | set(self.refs.values())
        if sha not in known:
            raise _Error(404, self._err(f"No commit found for the ref {ref}", ctx.route.doc, 404))
        data = self.blobs.get((sha, path))
        if data is None:
            raise _Error(404, self._err("Not Found", ctx.route.doc, 404))
        quoted = urllib.parse.quote(path)
        url = f"{self.api_url}/repos/{r.full_name}/contents/{quoted}?ref={urllib.parse.quote(ref)}"
        blob = _git_blob_sha(data)
        git_url = f"{self.api_url}/repos/{r.full_name}/git/blobs/{blob}"
        html = f"{self.server_url}/{r.full_name}/blob/{ref}/{quoted}"
        if len(data) > 1_000_000:
            encoding, content = "none", ""
        else:
            b64 = base64.b64encode(data).decode()
            encoding = "base64"
            content = "".join(b64[i : i + 60] + "\n" for i in range(0, len(b64), 60))
        raw_host = "raw.githubusercontent.com"
        return 200, {
            "type": "file",
            "encoding": encoding,
            "size": len(data),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": content,
            "sha": blob,
            "url": url,
            "git_url": git_url,
            "html_url": html,
            "download_url": f"https://{raw_host}/{r.full_name}/{ref}/{quoted}",
            "_links": {"self": url, "git": git_url, "html": html},
        }

    def _h_put_contents(self, ctx: _Ctx, path: str):
        """Create or update a file on a branch: one new commit. An open pull request whose head
        is that branch moves to the new commit, its other files unchanged."""
        r, body, doc = ctx.repo, ctx.log.body or {}, ctx.route.doc
        branch = body.get("branch") or r.default_branch
        key = (r.full_name.lower(), branch)
        if key not in self.refs:
            raise _Error(404, self._err(f"Branch {branch} not found", doc, 404))
        head = self.refs[key]
        old = self.blobs.get((head, path))
        given = body.get("sha")
        if old is not None and given is None:
            raise _Error(422, self._err('Invalid request.\n\n"sha" wasn\'t supplied.', doc, 422))
        if old is not None and given != _git_blob_sha(old):
            raise _Error(409, self._err(f"{path} does not match {given}", doc, 409))
        try:
            data = base64.b64decode(body.get("content") or "", validate=True)
        except ValueError:
            raise _Error(422, self._err("content is not valid Base64", doc, 422)) from None
        new_sha = self._sha("contents", r.full_name, branch, path, head, len(self.requests))
        for (sha, p), blob in list(self.blobs.items()):
            if sha == head:
                self.blobs[(new_sha, p)] = blob
        self.blobs[(new_sha, path)] = data
        self.refs[key] = new_sha
        pull = next(
            (
                p
                for p in self.pulls.values()
                if p.state == "open"
                and p.head_repo.lower() == r.full_name.lower()
                and p.head_ref == branch
            ),
            None,
        )
        if pull is not None:
            changes: dict[str, str | None] = {}
            keep: list[PRFile] = []
            for f in pull.files:
                blob = self.blobs.get((head, f.filename))
                if f.filename == path:
                    continue
                if f.status == "removed":
                    changes[f.filename] = None
                elif blob is not None:
                    changes[f.filename] = blob.decode("utf-8")
                else:
                    keep.append(f)
            changes[path] = data.decode("utf-8")
            self.push(pull.number, changes=changes, files=keep, sha=new_sha)
        who = {"name": "github-actions[bot]", "email": "41898282+github-actions[bot]@users."
               "noreply.github.com", "date": self._now()}  # fmt: skip
        commit = {
            "sha": new_sha,
            "node_id": self._node("C", int(new_sha[:7], 16)),
            "url": f"{self.api_url}/repos/{r.full_name}/git/commits/{new_sha}",
            "html_url": f"{self.server_url}/{r.full_name}/commit/{new_sha}",
            "author": body.get("author") or who,
            "committer": body.get("committer") or who,
            "message": body.get("message"),
            "tree": {
                "sha": self._sha("tree", new_sha),
                "url": f"{self.api_url}/repos/{r.full_name}/git/trees/{new_sha}",
            },
            "parents": [
                {
                    "sha": head,
                    "url": f"{self.api_url}/repos/{r.full_name}/git/commits/{head}",
                    "html_url": f"{self.server_url}/{r.full_name}/commit/{head}",
                }
            ],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }
        self.contents_commits.append(
            {"sha": new_sha, "parent": head, "branch": branch, "path": path,
             "message": body.get("message"), "user": ctx.login}
        )  # fmt: skip
        quoted = urllib.parse.quote(path)
        blob_sha = _git_blob_sha(data)
        url = f"{self.api_url}/repos/{r.full_name}/contents/{quoted}?ref={branch}"
        git_url = f"{self.api_url}/repos/{r.full_name}/git/blobs/{blob_sha}"
        html = f"{self.server_url}/{r.full_name}/blob/{branch}/{quoted}"
        content = {
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": blob_sha,
            "size": len(data),
            "url": url,
            "html_url": html,
            "git_url": git_url,
            "download_url": f"https://raw.githubusercontent.com/{r.full_name}/{branch}/{quoted}",
            "type": "file",
            "_links": {"self": url, "git": git_url, "html": html},
        }
        return (200 if old is not None else 201), {"content": content, "commit": commit}

    def _h_list_reviews(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        items = [self._review_json(rv) for rv in self.reviews if rv["pull"] == p.number]
        return self._paginate(ctx, items)

    def _h_create_review(self, ctx: _Ctx, number: str):
        doc = ctx.route.doc
        pull = self._pull(number, doc)
        body = ctx.log.body or {}
        event = body.get("event")
        sha = body.get("commit_id") or pull.head_sha
        text = body.get("body") or ""
        items = body.get("comments") or []

        def fail(*errors: str) -> _Error:
            return _Error(422, self._err("Unprocessable Entity", doc, 422, list(errors)))

        self._check_body(text, "PullRequestReview", doc)
        for item in items:
            self._check_body(item.get("body"), "PullRequestReviewComment", doc)
        if sha not in pull.snapshots:
            raise fail(f"Commit SHA {sha} is not part of the pull request")
        if ctx.login.lower() == pull.user.lower() and event in ("APPROVE", "REQUEST_CHANGES"):
            verb = "approve" if event == "APPROVE" else "request changes on"
            raise fail(f"Can not {verb} your own pull request")
        if event == "REQUEST_CHANGES" and not text:
            raise fail("Body is required when using REQUEST_CHANGES")
        if event == "COMMENT" and not text and not items:
            raise fail("Body is required when using COMMENT")
        if event is None and any(
            rv["pull"] == pull.number and rv["user"] == ctx.login and rv["state"] == "PENDING"
            for rv in self.reviews
        ):
            raise fail("User can only have one pending review per pull request")
        errors = self._check_review_comments(pull, sha, items)
        if errors:
            raise fail(_to_sentence(list(dict.fromkeys(errors))))
        state = {
            "APPROVE": "APPROVED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            "COMMENT": "COMMENTED",
        }.get(event or "", "PENDING")
        rv = self._new_review(pull, ctx.login, text, state, sha)
        for item in items:
            self._new_review_comment(pull, rv, sha, item, ctx.login)
        return 200, self._review_json(rv)

    def _h_update_review(self, ctx: _Ctx, number: str, id: str):
        pull = self._pull(number, ctx.route.doc)
        rv = self._find([r for r in self.reviews if r["pull"] == pull.number], id, ctx.route.doc)
        if rv["user"] != ctx.login:
            raise _Error(
                403, self._err("Must have admin rights to Repository.", ctx.route.doc, 403)
            )
        self._check_body(ctx.log.body["body"], "PullRequestReview", ctx.route.doc)
        rv["body"] = ctx.log.body["body"]
        return 200, self._review_json(rv)

    def _h_list_review_comments(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        return self._paginate(ctx, self.comments_on(p.number))

    def _h_get_review_comment(self, ctx: _Ctx, id: str):
        return 200, self._review_comment_json(self._find(self.review_comments, id, ctx.route.doc))

    def _h_edit_review_comment(self, ctx: _Ctx, id: str):
        c = self._find(self.review_comments, id, ctx.route.doc)
        self._check_body(ctx.log.body["body"], "PullRequestReviewComment", ctx.route.doc)
        c["body"], c["updated_at"] = ctx.log.body["body"], self._now()
        return 200, self._review_comment_json(c)

    def _h_delete_review_comment(self, ctx: _Ctx, id: str):
        c = self._find(self.review_comments, id, ctx.route.doc)
        self.review_comments.remove(c)
        return 204, None

    def _h_create_review_comment_reaction(self, ctx: _Ctx, id: str):
        c = self._find(self.review_comments, id, ctx.route.doc)
        return self._react(ctx, ("review_comment", c["id"]))

    def _h_list_issue_comments(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        items = [
            self._issue_comment_json(c) for c in self.issue_comments if c["number"] == p.number
        ]
        return self._paginate(ctx, items)

    def _h_create_issue_comment(self, ctx: _Ctx, number: str):
        p = self._pull(number, ctx.route.doc)
        self._check_body(ctx.log.body["body"], "IssueComment", ctx.route.doc)
        c = self._new_issue_comment(p.number, ctx.log.body["body"], ctx.login)
        data = self._issue_comment_json(c)
        return 201, data, {"Location": data["url"]}

    def _h_get_issue_comment(self, ctx: _Ctx, id: str):
        return 200, self._issue_comment_json(self._find(self.issue_comments, id, ctx.route.doc))

    def _h_edit_issue_comment(self, ctx: _Ctx, id: str):
        c = self._find(self.issue_comments, id, ctx.route.doc)
        self._check_body(ctx.log.body["body"], "IssueComment", ctx.route.doc)
        c["body"], c["updated_at"] = ctx.log.body["body"], self._now()
        return 200, self._issue_comment_json(c)

    def _h_delete_issue_comment(self, ctx: _Ctx, id: str):
        c = self._find(self.issue_comments, id, ctx.route.doc)
        self.issue_comments.remove(c)
        return 204, None

    def _h_list_issue_comment_reactions(self, ctx: _Ctx, id: str):
        c = self._find(self.issue_comments, id, ctx.route.doc)
        items = [
            self._reaction_json(r)
            for r in self.reactions
            if r["subject"] == ("issue_comment", c["id"])
        ]
        return self._paginate(ctx, items)

    def _h_create_issue_comment_reaction(self, ctx: _Ctx, id: str):
        c = self._find(self.issue_comments, id, ctx.route.doc)
        return self._react(ctx, ("issue_comment", c["id"]))

    def _h_get_permission(self, ctx: _Ctx, user: str):
        role = self.permissions.get(user.lower())
        if role is None:
            role = "none" if ctx.repo.private else "read"
        if user.lower() == ctx.repo.owner.lower():
            role = "admin"
        legacy = {"maintain": "write", "triage": "read"}.get(role, role)
        rank = _ROLES.index(role)
        collaborator = {
            **self._user_json(user),
            "permissions": {
                "pull": rank >= 1,
                "triage": rank >= 2,
                "push": rank >= 3,
                "maintain": rank >= 4,
                "admin": rank >= 5,
            },
            "role_name": role,
        }
        return 200, {"permission": legacy, "role_name": role, "user": collaborator}

    # ---- GraphQL ----------------------------------------------------------------------------

    def _graphql(self, log: LoggedRequest, tok: Token | None) -> dict[str, Any]:
        if tok is None:
            raise _Error(
                401,
                {
                    "message": "This endpoint requires you to be authenticated.",
                    "documentation_url": "https://docs.github.com/graphql/guides/"
                    "forming-calls-with-graphql#authenticating-with-graphql",
                },
            )
        body = log.body if isinstance(log.body, dict) else {}
        query = body.get("query")
        variables = body.get("variables") or {}
        if not isinstance(query, str):
            self.schema_errors.append(
                SchemaViolation("POST", "/graphql", "GraphQL request", ["query: missing"])
            )
            return {"errors": [{"message": "A query attribute must be specified and non-empty."}]}
        m = re.search(r"\bmutation\b[^{]*\{\s*(\w+)\s*\(", query)
        name = m[1] if m else None
        call = {"operation": name, "query": query, "variables": variables, "login": tok.login}
        self.graphql_calls.append(call)
        if name not in ("minimizeComment", "unminimizeComment"):
            return {"errors": [{"message": f"fake GitHub: unsupported GraphQL operation {name!r}"}]}
        inp = variables.get("input") if isinstance(variables.get("input"), dict) else {}
        errors = []
        if not isinstance(inp.get("subjectId"), str):
            errors.append("input.subjectId: ID! expected")
        if name == "minimizeComment" and inp.get("classifier") not in _CLASSIFIERS:
            errors.append(
                f"input.classifier: expected one of {', '.join(_CLASSIFIERS)} "
                f"(got {inp.get('classifier')!r})"
            )
        if errors:
            model = f"GraphQL {name[0].upper()}{name[1:]}Input"
            self.schema_errors.append(SchemaViolation("POST", "/graphql", model, errors))
            return {
                "errors": [
                    {
                        "message": f"Variable $input of type {name[0].upper()}{name[1:]}Input! "
                        f"was provided invalid value ({e})",
                        "locations": [{"line": 1, "column": 17}],
                    }
                    for e in errors
                ]
            }
        if not tok.write:
            return {
                "data": {name: None},
                "errors": [
                    {
                        "type": "FORBIDDEN",
                        "path": [name],
                        "locations": [{"line": 1, "column": 50}],
                        "message": "Resource not accessible by integration",
                    }
                ],
            }
        target = next(
            (
                c
                for c in self.issue_comments + self.review_comments
                if c["node_id"] == inp["subjectId"]
            ),
            None,
        )
        if target is None:
            return {
                "data": {name: None},
                "errors": [
                    {
                        "type": "NOT_FOUND",
                        "path": [name],
                        "locations": [{"line": 1, "column": 50}],
                        "message": "Could not resolve to a node with the global id of "
                        f"'{inp['subjectId']}'",
                    }
                ],
            }
        if name == "minimizeComment":
            target["minimized"] = inp["classifier"]
            self.minimized.append(
                {"node_id": inp["subjectId"], "id": target["id"], "classifier": inp["classifier"]}
            )
            out = {"isMinimized": True, "minimizedReason": inp["classifier"].lower()}
            return {"data": {name: {"minimizedComment": out}}}
        target["minimized"] = None
        return {"data": {name: {"unminimizedComment": {"isMinimized": False}}}}


@dataclass
class _Ctx:
    fake: GitHubFake
    log: LoggedRequest
    route: _Route
    repo: Repo
    tok: Token | None

    @property
    def login(self) -> str:
        return self.tok.login if self.tok is not None else "anonymous"


@pytest.fixture
def gh() -> Iterator[GitHubFake]:
    """A started :class:`GitHubFake` for ``org/models`` on ``https://api.github.com``."""
    with GitHubFake() as fake:
        yield fake
