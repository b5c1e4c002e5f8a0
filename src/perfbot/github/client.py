"""A thin GitHub client for perfbot's edges, over PyGithub's ``Requester``.

This is the only module that imports PyGithub. It speaks JSON: every method returns the API's
dicts (or lists of them) as GitHub sends them, and every failure is a :class:`GitHubError` with
the HTTP status and GitHub's message, never a PyGithub or ``requests`` exception:

* :class:`ReadOnlyError` (403 on a write): the token may not write here, as a ``pull_request``
  run from a fork (its ``GITHUB_TOKEN`` is read-only);
* :class:`NetworkError` (status 0): GitHub could not be reached (DNS, refused, timeout, TLS).

Each method makes exactly the requests its docstring says, so a caller can count them
(:attr:`Client.requests_made`): no lazy ``get_repo()``/``get_pull()`` round trips; lists fetch
100 items a page and follow ``Link: rel="next"``, at most :data:`MAX_PAGES` pages (then a
:class:`GitHubError`, never an endless walk). Retries are PyGithub's :class:`GithubRetry` (5xx,
timeouts and rate limits honouring ``Retry-After``), bounded and never blind:

* a write (POST, PATCH, PUT, DELETE) is retried only when GitHub says it did not carry it out
  (a rate limit); never after a 5xx, a timeout or a dropped connection, where GitHub may have
  done it (a review created twice): the caller decides (perfbot's review looks for its marker
  before posting again). A connection that was never made is retried (nothing was sent);
* every wait (``Retry-After``, a rate-limit reset, the backoff) is at most ``max_wait`` seconds,
  and all waits of one :class:`Client` together at most ``wait_budget`` seconds; past either,
  the request fails at once with :class:`RateLimitedError` ("try again later"), so a run ends in
  minutes, not after the 30 hours of waits GitHub's headers could ask for.

``api_url`` is ``GITHUB_API_URL``: ``https://api.github.com`` or, for GitHub Enterprise Server,
``https://HOST/api/v3``; the GraphQL endpoint is derived from it (``https://HOST/api/graphql``).

Example::

    gh = Client("org/models", token, "https://api.github.com")
    for f in gh.pull_files(12):
        print(f["filename"], f["status"])
    gh.create_issue_comment(12, "hello")
"""

from __future__ import annotations

import base64
import logging
import time
import urllib.parse
from typing import Any

import github
import requests
from github import Auth, GithubException, GithubRetry, RateLimitExceededException

__all__ = [
    "DEFAULT_API_URL",
    "Client",
    "GitHubError",
    "NetworkError",
    "RateLimitedError",
    "ReadOnlyError",
    "graphql_url_for",
]

# PyGithub logs every retried or refused request to stderr at INFO; perfbot says what matters
# itself, in words for a contributor.
logging.getLogger("github").setLevel(logging.WARNING)

DEFAULT_API_URL = "https://api.github.com"
PER_PAGE = 100
MAX_PAGES = 100
"""Pages a list may take (10,000 items); GitHub lists at most 3,000 files of a pull request."""
MAX_WAIT = 120.0
"""Longest single wait for a rate limit or a retry, in seconds."""
WAIT_BUDGET = 300.0
"""All the waits of one client together, in seconds."""
_WRITES = frozenset({"POST", "PATCH", "PUT", "DELETE"})
CLASSIFIERS = ("SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED", "LOW_QUALITY")
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")

_MINIMIZE = (
    "mutation($input: MinimizeCommentInput!) "
    "{ minimizeComment(input: $input) { minimizedComment { isMinimized } } }"
)


class GitHubError(Exception):
    """A request GitHub refused or that did not reach it. ``status`` is the HTTP status (0 when
    there was no answer); ``message`` is GitHub's message, with its error details."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}

    def __str__(self) -> str:
        return f"{self.message} (HTTP {self.status})" if self.status else self.message


class ReadOnlyError(GitHubError):
    """403 on a write: the token may read but not write (a fork PR's ``GITHUB_TOKEN``, or a
    workflow whose ``permissions:`` leave out ``pull-requests: write``)."""


class NetworkError(GitHubError):
    """No answer from GitHub: the host could not be reached, or the connection failed."""

    def __init__(self, message: str):
        super().__init__(0, message)


class RateLimitedError(GitHubError):
    """GitHub's rate limit, and waiting for it would take longer than perfbot's wait budget."""


class _OutOfTime(Exception):
    """Raised by :class:`_Retry` instead of a wait over the cap or the budget."""

    def __init__(self, wait: float):
        super().__init__(wait)
        self.wait = wait


class _Budget:
    """The waits left to one client (shared by the :class:`_Retry` copies urllib3 makes)."""

    def __init__(self, max_wait: float, total: float):
        self.max_wait = max_wait
        self.left = total
        self.rate_limited = False  # the current request was retried for a rate limit

    def take(self, wait: float) -> None:
        if wait > self.max_wait or wait > self.left:
            raise _OutOfTime(wait)
        self.left -= wait


def graphql_url_for(api_url: str) -> str:
    """GraphQL endpoint of a REST API root (``.../api/v3`` -> ``.../api/graphql``)."""
    api_url = api_url.rstrip("/")
    if api_url.endswith("/v3"):
        return api_url[: -len("/v3")] + "/graphql"
    return api_url + "/graphql"


class _Retry(GithubRetry):
    """PyGithub's retry, bounded (:class:`_Budget`), and a write is retried only after a rate
    limit (GitHub did not carry it out); after a 5xx, a timeout or a dropped connection it is
    handed back to the caller, who checks whether it landed."""

    budget: _Budget | None = None

    def new(self, **kw: Any) -> _Retry:
        out = super().new(**kw)
        out.budget = self.budget
        return out

    def increment(
        self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None
    ):  # type: ignore[no-untyped-def]
        out = super().increment(method, url, response, error, _pool, _stacktrace)
        if response is not None and response.status in (403, 429) and self.budget is not None:
            self.budget.rate_limited = True  # PyGithub retries a 403 only for a rate limit
        return out

    def _is_method_retryable(self, method: str) -> bool:
        # urllib3 asks this before retrying after a read error (timeout, dropped answer)
        if method.upper() in _WRITES:
            return False
        return super()._is_method_retryable(method)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if method.upper() in _WRITES:
            # 403: PyGithub's increment() retries it only for a rate limit; 429 with
            # Retry-After: a rate limit. A 5xx may have been carried out: never again blindly.
            return bool(self.total) and (
                status_code == 403 or (status_code == 429 and has_retry_after)
            )
        return super().is_retry(method, status_code, has_retry_after)

    def sleep(self, response: Any = None) -> None:
        wait = None
        if self.respect_retry_after_header and response is not None:
            wait = self.get_retry_after(response)
        if wait is None:
            wait = self.get_backoff_time()
        wait = max(0.0, float(wait))
        if self.budget is not None:
            self.budget.take(wait)
        if wait > 0:
            time.sleep(wait)


def _message(data: Any, fallback: str) -> str:
    """GitHub's error message with its ``errors`` details, as one line."""
    if data is None:
        return fallback
    if not isinstance(data, dict):
        return str(data).strip() or fallback
    msg = str(data.get("message") or fallback)
    details = []
    for e in data.get("errors") or []:
        if isinstance(e, dict):
            text = e.get("message") or " ".join(
                str(e[k]) for k in ("resource", "field", "code") if e.get(k)
            )
        else:
            text = str(e)
        if text and text not in details:
            details.append(text)
    return f"{msg}: {'; '.join(details)}" if details else msg


def _next_link(headers: dict[str, Any]) -> str | None:
    link = headers.get("link") or headers.get("Link") or ""
    for part in link.split(","):
        url, _, params = part.partition(";")
        if 'rel="next"' in params:
            return url.strip().strip("<>")
    return None


class Client:
    """GitHub's REST (and a little GraphQL) API for one repository.

    ``repo`` is ``owner/name``; ``token`` a ``GITHUB_TOKEN``, app or personal token (None:
    anonymous, read-only). ``retries`` bounds PyGithub's retries of one request; ``backoff`` is
    urllib3's backoff factor; ``secondary_rate_wait`` how long to wait on a secondary rate limit
    that gives no ``Retry-After``; ``max_wait`` the longest single wait and ``wait_budget`` all
    waits together (then :class:`RateLimitedError`). Writes are spaced by :attr:`write_interval`
    seconds, as GitHub asks of integrations (set it to None on the class to turn that off, as
    tests do).
    """

    write_interval: float | None = 1.0

    def __init__(
        self,
        repo: str,
        token: str | None,
        api_url: str = DEFAULT_API_URL,
        *,
        retries: int = 5,
        backoff: float = 1.0,
        secondary_rate_wait: float = 60.0,
        max_wait: float = MAX_WAIT,
        wait_budget: float = WAIT_BUDGET,
        timeout: int = 30,
        user_agent: str = "perfbot",
    ) -> None:
        self.repo = repo
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.graphql_url = graphql_url_for(self.api_url)
        self.requests_made = 0
        """API requests made so far (each page counts; PyGithub's retries of one do not)."""
        retry = _Retry(
            total=retries,
            backoff_factor=backoff,
            backoff_max=max_wait,
            secondary_rate_wait=secondary_rate_wait,
            max_rate_limit_wait=max_wait,
            allowed_methods=GithubRetry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"},
            raise_on_status=False,
        )
        retry.budget = self._budget = _Budget(max_wait, wait_budget)
        self._github = github.Github(
            base_url=self.api_url,
            auth=Auth.Token(token) if token else None,
            retry=retry,
            timeout=timeout,
            user_agent=user_agent,
            per_page=PER_PAGE,
            seconds_between_requests=None,
            seconds_between_writes=self.write_interval,
        )
        self._requester = self._github.requester
        owner, _, name = repo.partition("/")
        self._repo_path = (
            f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}"
        )

    # --- transport --------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[dict[str, Any], Any]:
        """One request: ``path`` under the API root (``/repos/...``) or a full URL on the same
        host. Returns (lower-cased response headers, JSON). Raises :class:`GitHubError`."""
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        self.requests_made += 1
        self._budget.rate_limited = False
        try:
            return self._requester.requestJsonAndCheck(
                method, url, parameters=params, headers=headers, input=body
            )
        except _OutOfTime as e:
            raise RateLimitedError(
                429, f"{_RATE_LIMITED} (GitHub asked to wait {e.wait:.0f} s)"
            ) from None
        except GithubException as e:
            msg = _message(e.data, e.message or f"GitHub answered {e.status}")
            hdrs = {str(k).lower(): str(v) for k, v in (e.headers or {}).items()}
            if _rate_limited(e, msg, hdrs) or (
                self._budget.rate_limited and e.status in (403, 429)
            ):
                raise RateLimitedError(e.status, f"{_RATE_LIMITED} ({msg})", headers=hdrs) from None
            if e.status == 403 and method in _WRITES:
                raise ReadOnlyError(e.status, msg, headers=hdrs) from None
            raise GitHubError(e.status, msg, headers=hdrs) from None
        except (requests.exceptions.RequestException, OSError) as e:
            host = urllib.parse.urlparse(url).netloc
            raise NetworkError(f"cannot reach GitHub at {host}: {_reason(e)}") from None

    def paginate(
        self, path: str, params: dict[str, Any] | None = None, *, max_pages: int = MAX_PAGES
    ) -> list[Any]:
        """Every item of a list endpoint, 100 a page (one request per page), at most
        ``max_pages`` pages: a list that goes on is a :class:`GitHubError`, not an endless walk."""
        items: list[Any] = []
        url: str | None = path
        query: dict[str, Any] | None = {"per_page": PER_PAGE, **(params or {})}
        pages = 0
        while url:
            if pages >= max_pages:
                raise GitHubError(
                    0, f"GitHub listed more than {max_pages} pages of {path}; perfbot stopped there"
                )
            headers, data = self.request("GET", url, params=query)
            pages += 1
            if isinstance(data, list):
                items.extend(data)
            url, query = _next_link(headers), None  # the next link carries the query
        return items

    def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """A GraphQL request (one POST); returns ``data``. GraphQL errors become
        :class:`GitHubError` (``FORBIDDEN``: :class:`ReadOnlyError`, ``NOT_FOUND``: 404)."""
        _, data = self.request(
            "POST", self.graphql_url, body={"query": query, "variables": variables}
        )
        errors = (data or {}).get("errors") if isinstance(data, dict) else None
        if errors:
            first = errors[0] if isinstance(errors[0], dict) else {"message": str(errors[0])}
            msg = "; ".join(str(e.get("message", e)) for e in errors if isinstance(e, dict))
            kind = first.get("type")
            if kind == "FORBIDDEN":
                raise ReadOnlyError(403, msg or "forbidden")
            raise GitHubError(404 if kind == "NOT_FOUND" else 400, msg or "GraphQL error")
        return (data or {}).get("data") or {}

    # --- pull requests ----------------------------------------------------------------------

    def pull(self, number: int) -> dict[str, Any]:
        """The pull request (1 request): ``head.sha``, ``head.repo.full_name``, ``user.login``."""
        return self.request("GET", f"{self._repo_path}/pulls/{int(number)}")[1]

    def pull_files(self, number: int) -> list[dict[str, Any]]:
        """The PR's changed files with their ``patch`` (1 request per 100 files; GitHub lists at
        most 3,000, so at most 30 pages)."""
        return self.paginate(f"{self._repo_path}/pulls/{int(number)}/files", max_pages=30)

    def file_content(self, path: str, ref: str) -> bytes:
        """A file's bytes at ``ref`` (a sha or branch) of this repository (1 request). A fork
        PR's head sha can be read here too. Files over 1 MB are a :class:`GitHubError` (413)."""
        quoted = urllib.parse.quote(path)
        _, data = self.request("GET", f"{self._repo_path}/contents/{quoted}", params={"ref": ref})
        if not isinstance(data, dict) or data.get("type") != "file":
            raise GitHubError(422, f"{path} is not a file at {ref[:12]}")
        if data.get("encoding") != "base64":
            raise GitHubError(413, f"{path} is too large for GitHub's contents API (over 1 MB)")
        return base64.b64decode(data.get("content") or "")

    def reviews(self, number: int) -> list[dict[str, Any]]:
        """The PR's reviews, oldest first (1 request per 100)."""
        return self.paginate(f"{self._repo_path}/pulls/{int(number)}/reviews")

    def review_comments(self, number: int) -> list[dict[str, Any]]:
        """Every inline review comment of the PR (1 request per 100). A comment GitHub made
        outdated by a push has ``line`` None."""
        return self.paginate(f"{self._repo_path}/pulls/{int(number)}/comments")

    def issue_comments(self, number: int) -> list[dict[str, Any]]:
        """The PR's conversation comments, oldest first (1 request per 100)."""
        return self.paginate(f"{self._repo_path}/issues/{int(number)}/comments")

    def create_review(
        self,
        number: int,
        commit_id: str,
        body: str,
        comments: list[dict[str, Any]],
        event: str = "COMMENT",
    ) -> dict[str, Any]:
        """Post one review (1 request). ``comments`` are the API's draft comments
        (``path``, ``line``, ``side``, optional ``start_line``/``start_side``, ``body``). A comment
        on a line outside the diff makes GitHub refuse the whole review with 422."""
        payload: dict[str, Any] = {"commit_id": commit_id, "body": body, "event": event}
        if comments:
            payload["comments"] = comments
        return self.request("POST", f"{self._repo_path}/pulls/{int(number)}/reviews", body=payload)[
            1
        ]

    def edit_review_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        """Replace an inline comment's body (1 request)."""
        path = f"{self._repo_path}/pulls/comments/{int(comment_id)}"
        return self.request("PATCH", path, body={"body": body})[1]

    def create_issue_comment(self, number: int, body: str) -> dict[str, Any]:
        """Comment on the PR's conversation (1 request)."""
        path = f"{self._repo_path}/issues/{int(number)}/comments"
        return self.request("POST", path, body={"body": body})[1]

    def edit_issue_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        """Replace a conversation comment's body (1 request)."""
        path = f"{self._repo_path}/issues/comments/{int(comment_id)}"
        return self.request("PATCH", path, body={"body": body})[1]

    def minimize_comment(self, node_id: str, classifier: str = "OUTDATED") -> bool:
        """Hide a comment (issue or review comment, by its ``node_id``) as OUTDATED, RESOLVED,
        DUPLICATE, ... (1 GraphQL request). Returns whether GitHub says it is minimized."""
        if classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {classifier!r}; known: {', '.join(CLASSIFIERS)}")
        data = self.graphql(_MINIMIZE, {"input": {"subjectId": node_id, "classifier": classifier}})
        done = ((data.get("minimizeComment") or {}).get("minimizedComment") or {}).get(
            "isMinimized"
        )
        return bool(done)

    def add_reaction(
        self, comment_id: int, content: str, *, review_comment: bool = False
    ) -> dict[str, Any]:
        """React to a conversation comment (or, with ``review_comment``, an inline comment) with
        ``+1``, ``-1``, ``laugh``, ``confused``, ``heart``, ``hooray``, ``rocket`` or ``eyes``
        (1 request; reacting twice is not an error)."""
        if content not in REACTIONS:
            raise ValueError(f"unknown reaction {content!r}; known: {', '.join(REACTIONS)}")
        kind = "pulls" if review_comment else "issues"
        path = f"{self._repo_path}/{kind}/comments/{int(comment_id)}/reactions"
        return self.request("POST", path, body={"content": content})[1]

    def permission(self, user: str) -> str:
        """``user``'s role on the repository (1 request): ``admin``, ``maintain``, ``write``,
        ``triage``, ``read`` or ``none``."""
        quoted = urllib.parse.quote(user, safe="")
        _, data = self.request("GET", f"{self._repo_path}/collaborators/{quoted}/permission")
        return str(data.get("role_name") or data.get("permission") or "none")

    def whoami(self) -> str | None:
        """The token's login (1 request), or None when GitHub will not say (an installation
        token such as ``GITHUB_TOKEN`` gets 403 here)."""
        try:
            return self.request("GET", "/user")[1].get("login")
        except GitHubError as e:
            if isinstance(e, NetworkError):
                raise
            return None


_RATE_LIMITED = "GitHub's rate limit: rate limited, try again later"


def _rate_limited(e: GithubException, msg: str, headers: dict[str, str]) -> bool:
    """Whether GitHub refused ``e`` for a rate limit (primary or secondary), past our waits."""
    if isinstance(e, RateLimitExceededException):  # incl. ...ExceedsMaxWait
        return True
    if e.status not in (403, 429):
        return False
    return (
        e.status == 429
        or "rate limit" in msg.lower()
        or "retry-after" in headers
        or headers.get("x-ratelimit-remaining") == "0"
    )


def _reason(e: BaseException) -> str:
    """A one-line reason for a connection failure (no traceback's worth of nesting)."""
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return text if len(text) <= 200 else text[:200] + "..."
