"""Posting a review (step 4 of the flow in :mod:`perfbot.github.review`): what perfbot posted
before, and the :class:`Publisher` that posts only what is new: one review, old comments marked
resolved or outdated, the sticky summary. Every request goes through :class:`~.client.Client`.

Every review perfbot posts (the PR review, the fork post, the rerun review of ``perfbot
report``) is written by a :class:`Writer`: :meth:`Writer.create_review` posts it once (after a
5xx or a lost answer it first looks for the review the first attempt made, by its marker from
:mod:`..markers`), and :meth:`Writer.supersede` replaces an earlier review of the same kind
(the rerun's: :func:`posted_reviews` finds them)."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..client import Client, GitHubError, NetworkError, ReadOnlyError
from ..event import CIEnv
from ..markers import (
    ITEM,
    REPORTED,
    REVIEW,
    STATE,
    SUMMARY,
    find_fps,
    parse_rerun,
    split_header,
)
from ..suggest import line_comment
from .plan import _SEVERITY_ORDER, Item, Outcome, Plan
from .render import comment_body, item_block, resolved_body, review_body, summary_comment

BODY_BUDGET = 60_000  # review body: leave room under MAX_BODY for the header and the clamp note


# --------------------------------------------------------------------------------------------
# What is already there


@dataclass
class Posted:
    """One of perfbot's earlier comments."""

    id: int
    node_id: str
    body: str
    path: str | None
    fps: set[str]
    key: str | None
    state: str | None  # "resolved" / "outdated" / None (live)
    reported: set[str] = field(default_factory=set)  # summary: items already in a review body


def _parse_posted(c: dict[str, Any]) -> Posted:
    body = c.get("body") or ""
    header, _ = split_header(body)
    item = ITEM.search(header)
    state = STATE.search(header)
    rep = REPORTED.search(header)
    return Posted(
        id=int(c["id"]),
        node_id=str(c.get("node_id") or ""),
        body=body,
        path=c.get("path"),
        fps=find_fps(header),
        key=item[1] if item else None,
        state=state[1] if state else None,
        reported=set(rep[1].split()) if rep else set(),
    )


@dataclass
class Existing:
    comments: list[Posted] = field(default_factory=list)  # inline, perfbot's, with an item key
    summary: Posted | None = None
    in_reviews: set[str] = field(default_factory=set)  # items already in a review body

    @property
    def reported(self) -> set[str]:
        """Items shown in a review body: the summary's record and the reviews' own."""
        return (self.summary.reported if self.summary else set()) | self.in_reviews

    @property
    def live_keys(self) -> set[str]:
        return {c.key for c in self.comments if c.key and c.state is None}

    @classmethod
    def load(cls, client: Client, number: int) -> Existing:
        """2 requests (more for long PRs): review comments, issue comments. perfbot's comments
        are those with its markers by a bot; or, run by hand with a personal token, by the
        token's user (asked only then). The reviews are read later, only when there is something
        new to post (:meth:`load_reviews`)."""
        review = client.review_comments(number)
        issue = client.issue_comments(number)
        out = cls()
        ours = out._ours(client)
        for c in review:
            header, _ = split_header(c.get("body") or "")
            if ITEM.search(header) and ours(c):
                out.comments.append(_parse_posted(c))
        for c in issue:
            header, _ = split_header(c.get("body") or "")
            if SUMMARY in header and ours(c):
                out.summary = _parse_posted(c)
                break
        return out

    def _ours(self, client: Client) -> Callable[[dict[str, Any]], bool]:
        me: list[str | None] = []

        def ours(c: dict[str, Any]) -> bool:
            user = c.get("user") or {}
            if user.get("type") == "Bot":
                return True
            if not me:
                me.append(client.whoami())
            return bool(me[0]) and user.get("login") == me[0]

        return ours

    def load_reviews(self, client: Client, number: int) -> None:
        """The items perfbot's earlier review bodies hold (1 request per 100 reviews): each
        review body records them in its header, so a run after one whose summary comment failed
        does not post them again."""
        ours = self._ours(client)
        for rv in client.reviews(number):
            header, _ = split_header(rv.get("body") or "")
            if REVIEW.search(header) and REPORTED.search(header) and ours(rv):
                self.in_reviews |= _parse_posted(rv).reported


# --------------------------------------------------------------------------------------------
# Post


@dataclass(frozen=True, slots=True)
class PostedReview:
    """A review of a kind perfbot posted earlier (the rerun's): its id, the commit and results
    its marker names, its link and benchmarks."""

    id: int
    sha: str
    digest: str
    url: str
    jobs: frozenset[str] = frozenset()


def posted_reviews(
    reviews: Iterable[Mapping], *, bot: str, sha: str, heading: str
) -> list[PostedReview]:
    """perfbot's live rerun reviews of commit ``sha``, oldest first. Only reviews written by
    ``bot`` (perfbot's own account) count, only with ``heading`` first and the marker as the
    very last line: a marker anyone else writes, or one quoted inside a body, means nothing."""
    out: list[PostedReview] = []
    for rv in reviews:
        login = str(((rv.get("user") or {}).get("login")) or "")
        if login.lower() != bot.lower():
            continue
        body = str(rv.get("body") or "").rstrip()
        if not body.startswith(heading):
            continue
        m = parse_rerun(body)
        if m is None or m.sha != sha.lower():
            continue
        try:
            rid = int(rv.get("id"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        out.append(PostedReview(rid, m.sha, m.digest, str(rv.get("html_url") or ""), m.jobs))
    return out


class Writer:
    """Every write to a pull request goes through one: a dry run records it, a read-only token
    stops the writing (:attr:`Outcome.read_only`), a POST that may have landed before failing
    is looked for before it is sent again, and a refused write is one of the run's failures
    when the caller says so."""

    def __init__(self, client: Client, *, dry_run: bool = False) -> None:
        self.client = client
        self.dry_run = dry_run
        self.out = Outcome()
        self.dry: list[dict[str, Any]] = []
        self.read_only_error: ReadOnlyError | None = None  # GitHub's refusal, as it said it

    # --- writes -------------------------------------------------------------------------------

    def _write(
        self,
        what: str,
        fn: Callable[[], Any],
        detail: dict[str, Any],
        *,
        landed: Callable[[], Any | None] | None = None,
        failure: str | None = None,
    ) -> Any:
        """Every write goes through here: ``fn()`` (a dry run records ``what`` and ``detail``
        instead); None once the token turned out read-only.

        ``landed``: for a POST that GitHub may have carried out before failing with a 5xx or a
        lost answer, it looks for what the first attempt made, before posting again (once).
        ``failure``: what could not be done when GitHub refuses, then one of the run's failures
        and None (see :meth:`_failing`); without it the :class:`GitHubError` is raised.
        """

        def send() -> Any:
            try:
                return self._send(what, fn, detail)
            except GitHubError as e:
                if landed is None or not (isinstance(e, NetworkError) or e.status >= 500):
                    raise
                got = landed()
                if got is not None:
                    return got
                return self._send(what, fn, detail)

        return send() if failure is None else self._failing(failure, send)

    def _send(self, what: str, fn: Callable[[], Any], detail: dict[str, Any]) -> Any:
        """One request; None once the token turned out read-only. A dry run records it."""
        if self.out.read_only:
            return None
        if self.dry_run:
            self.dry.append({"write": what, **detail})
            return {}
        try:
            return fn()
        except ReadOnlyError as e:
            self.read_only_error = e
            self.out.read_only = (
                f"the token cannot write to this pull request ({e.message}); a pull request from "
                "a fork gets a read-only token"
            )
            return None

    def _failing(self, failure: str, write: Callable[[], Any]) -> Any:
        """``write()``; if GitHub refuses it, the run's failures say "could not <failure>: <why>"
        and the result is None, as when the token is read-only."""
        try:
            return write()
        except GitHubError as e:
            self.out.failures.append(f"could not {failure}: {e}")
            return None

    # --- reviews ------------------------------------------------------------------------------

    def create_review(
        self,
        number: int,
        sha: str,
        body: str,
        comments: list[dict[str, Any]],
        *,
        ours: Callable[[dict[str, Any]], bool],
    ) -> Any:
        """Post one review (None once the token turned out read-only). ``ours`` recognises the
        review by its marker: after a 5xx or a lost answer, the review the first attempt made is
        taken instead of posting a second one."""
        client = self.client

        def landed() -> Any | None:
            for rv in reversed(client.reviews(number)):
                if ours(rv):
                    return rv
            return None

        return self._write(
            "review",
            lambda: client.create_review(number, sha, body, comments),
            {"commit_id": sha, "body": body, "comments": comments},
            landed=landed,
        )

    def supersede(
        self, number: int, old: PostedReview, *, bot: str, note: str, comment_note: str
    ) -> None:
        """Mark an earlier review as replaced: its body becomes ``note``, and its inline
        comments by ``bot`` become ``comment_note`` (their suggestions emptied, so that nobody
        applies them) and are hidden as outdated. A refused edit of the review is one of the
        run's failures; the comments are best effort."""
        client = self.client
        path = f"/repos/{client.repo}/pulls/{int(number)}/reviews/{int(old.id)}"
        done = self._write(
            "edit_review",
            lambda: client.request("PUT", path, body={"body": note}),
            {"id": old.id, "body": note},
            failure=f"mark review {old.id} superseded",
        )
        if done is None:
            return
        for c in client.review_comments(number):
            if c.get("pull_request_review_id") != old.id:
                continue
            if str(((c.get("user") or {}).get("login")) or "").lower() != bot.lower():
                continue
            with contextlib.suppress(GitHubError, ValueError, TypeError):
                cid = int(c["id"])
                self._write(
                    "edit_review_comment",
                    partial(client.edit_review_comment, cid, comment_note),
                    {"id": cid, "body": comment_note},
                )
            node = c.get("node_id")
            if isinstance(node, str):
                with contextlib.suppress(GitHubError, ValueError):
                    self._write(
                        "minimize_comment",
                        partial(client.minimize_comment, node, "OUTDATED"),
                        {"node_id": node, "classifier": "OUTDATED"},
                    )


class Publisher(Writer):
    """Posts a :class:`Plan` to a pull request: one review, resolved comments, the summary.

    Requests: review comments + issue comments (1 each per 100), then only what changes: 1 for
    the review, 2 per comment whose findings are gone (edit + minimize), 1 for the summary (none
    when it is unchanged).
    """

    def __init__(
        self,
        client: Client,
        plan: Plan,
        env: CIEnv,
        *,
        max_comments: int = 50,
        install: str | None = None,
        dry_run: bool = False,
    ) -> None:
        super().__init__(client, dry_run=dry_run)
        self.plan = plan
        self.env = env
        self.max_comments = max_comments
        self.install = install

    # --- the run ------------------------------------------------------------------------------

    def publish(self, existing: Existing) -> Outcome:
        plan, out = self.plan, self.out
        live = existing.live_keys
        todo = [it for it in plan.items if it.in_scope]
        if any(it.key not in live | existing.reported for it in todo):
            existing.load_reviews(self.client, plan.number)  # something new: was it in a body?
        reported = existing.reported
        shown = live | reported
        for it in todo:
            if it.key in live:
                it.where = "inline"
            elif it.key in reported:
                it.where = "review"
        new = [it for it in todo if it.key not in shown]
        out.skipped = len(todo) - len(new)
        inline = [it for it in new if it.anchor is not None]
        body = [it for it in new if it.anchor is None]
        inline.sort(key=lambda it: (_SEVERITY_ORDER.get(it.severity, 9), it.path, it.start_line))
        over = inline[self.max_comments :]
        inline = sorted(inline[: self.max_comments], key=lambda it: (it.path, it.start_line))
        body, more = self._fit_body(body)
        for it in over + more:
            it.where = "summary"
        if inline or body:
            self._review(inline, body)
        self._resolve(existing)
        self._summary(existing, reported)
        return out

    def _fit_body(self, items: list[Item]) -> tuple[list[Item], list[Item]]:
        size = 0
        fit: list[Item] = []
        rest: list[Item] = []
        for it in sorted(items, key=lambda it: (it.path, it.start_line)):
            block = len(item_block(self.plan, self.env, it)) + 2
            if size + block > BODY_BUDGET:
                rest.append(it)
            else:
                fit.append(it)
                size += block
        return fit, rest

    def _review(self, inline: list[Item], body: list[Item]) -> None:
        plan = self.plan
        key = hashlib.sha256(
            (plan.head_sha + "".join(sorted(it.key for it in inline + body))).encode()
        ).hexdigest()[:16]

        def comments(items: list[Item]) -> list[dict[str, Any]]:
            out = []
            for it in items:
                assert it.anchor is not None
                a, b = it.anchor
                out.append(line_comment(it.path, a, b, comment_body(it)))
            return out

        def ours(rv: dict[str, Any]) -> bool:
            m = REVIEW.search(rv.get("body") or "")
            return m is not None and m[1] == key

        def attempt(inl: list[Item], bod: list[Item], note: str = "") -> Any:
            text = review_body(plan, self.env, inl, bod, key, note)
            return self.create_review(plan.number, plan.head_sha, text, comments(inl), ours=ours)

        def post() -> Any:
            nonlocal inline, body
            try:
                return attempt(inline, body)
            except GitHubError as e:
                if e.status != 422 or not inline:
                    raise
            # a line GitHub will not comment on: once more, every inline comment in the body
            note = (
                "GitHub refused inline comments on some of these lines, so every fix is below "
                "instead."
            )
            moved = sorted(body + inline, key=lambda it: (it.path, it.start_line))
            body, more = self._fit_body(moved)
            for it in more:
                it.where = "summary"
            inline = []
            return attempt([], body, note)

        rv = self._failing("post the review", post)
        if rv is None:  # read-only, or GitHub refused
            return
        for it in inline:
            it.where = "inline"
        for it in body:
            it.where = "review"
        self.out.posted_inline = len(inline)
        self.out.posted_body = len(body)
        self.out.review_url = (rv or {}).get("html_url", "")

    def _resolve(self, existing: Existing) -> None:
        """Old comments: resolved when none of their findings is left, outdated when a newer
        comment (inline or in a review body) shows their findings; else kept."""
        plan = self.plan
        keys = {it.key for it in plan.items}
        fps = {r.fp for r in plan.reports}
        shown = {fp for it in plan.items if it.where in ("inline", "review") for fp in it.fps}
        unknown = {e.path for e in plan.errors}  # files we could not read: leave them alone
        for c in existing.comments:
            if c.state is not None or c.path in unknown:
                continue
            if c.key in keys:
                continue
            if c.fps & fps:
                if not c.fps & shown:
                    continue  # still true and nothing newer shows it: keep it
                state, classifier = "outdated", "OUTDATED"
            else:
                state, classifier = "resolved", "RESOLVED"
            if not self._mark(c, state, classifier):
                return
            if state == "resolved":
                self.out.resolved += 1
            else:
                self.out.outdated += 1

    def _mark(self, c: Posted, state: str, classifier: str) -> bool:
        body = resolved_body(c.body, state, self.plan.head_sha)
        done = self._write(
            "edit_review_comment",
            lambda: self.client.edit_review_comment(c.id, body),
            {"id": c.id, "body": body},
            failure=f"mark an old comment {state}",
        )
        if done is None:
            return False
        if c.node_id:
            # the edit says it already: a failed minimize (say, GHES without it) is fine
            with contextlib.suppress(GitHubError):
                self._write(
                    "minimize_comment",
                    lambda: self.client.minimize_comment(c.node_id, classifier),
                    {"node_id": c.node_id, "classifier": classifier},
                )
        return True

    def _summary(self, existing: Existing, reported_before: set[str]) -> None:
        plan = self.plan
        keys = {it.key for it in plan.items}
        reported = {k for k in reported_before if k in keys}
        reported |= {it.key for it in plan.items if it.where == "review"}
        body = summary_comment(plan, self.env, reported=reported, install=self.install)
        old = existing.summary
        if old is None:
            if not plan.in_scope:
                return  # nothing to say and nothing said before: no noise
            client = self.client

            def landed() -> Any | None:
                for c in reversed(client.issue_comments(plan.number)):
                    if (c.get("body") or "") == body:
                        return c
                return None

            got = self._write(
                "create_issue_comment",
                lambda: client.create_issue_comment(plan.number, body),
                {"body": body},
                landed=landed,
                failure="post the summary comment",
            )
            if got is not None:
                self.out.summary = "created"
                self.out.summary_url = got.get("html_url", "")
            return
        if old.body == body:
            self.out.summary = "unchanged"
            return
        got = self._write(
            "edit_issue_comment",
            lambda: self.client.edit_issue_comment(old.id, body),
            {"id": old.id, "body": body},
            failure="update the summary comment",
        )
        if got is not None:
            self.out.summary = "updated"
            self.out.summary_url = got.get("html_url", "")
