"""Every hidden marker perfbot writes into what it posts, built and parsed here (reviewdog keeps
its one marker in ``service/serviceutil/comment.go``). A marker is an HTML comment
``<!-- perfbot:<kind>... -->``; a later run reads them back to recognise its own comments, so
only markers where perfbot puts them count (a body's header lines, or its very last line), never
one quoted in the text a body shows.

* ``fp``: a finding's fingerprint (:func:`fp`, :func:`find_fps`), in every comment of a finding;
* ``item``, ``state``, ``reported``: an inline comment's item, its resolved/outdated state, the
  items a review body or the summary holds (:func:`item`, :func:`state`, :func:`reported`);
* ``review``: a PR review's identity (:func:`review`), ``summary``: the sticky summary comment;
* ``rerun``: a rerun review's last line (:func:`rerun`: commit, results digest, benchmarks),
  ``rerun-superseded``: a rerun review replaced by a newer one (:func:`superseded`), and the plain
  :data:`RERUN` of a superseded suggestion;
* ``reply``: a slash command's reply (:data:`REPLY`).

Pure string functions: no network.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "REPLY",
    "RERUN",
    "SUMMARY",
    "RerunMark",
    "find_fps",
    "fp",
    "item",
    "parse_rerun",
    "reported",
    "rerun",
    "review",
    "split_header",
    "state",
    "superseded",
]

SUMMARY = "<!-- perfbot:summary -->"
REPLY = "<!-- perfbot:reply -->"
RERUN = "<!-- perfbot:rerun -->"

_HEADER_LINE = re.compile(r"^\s*<!--.*-->\s*$")
_FP_CHARS = re.compile(r"[A-Za-z0-9_]{1,64}")
FP = re.compile(r"<!--[ \t]*perfbot:fp=([A-Za-z0-9_]{1,64})[ \t]*-->")
ITEM = re.compile(r"<!--\s*perfbot:item=([0-9a-f]{16})\s*-->")
STATE = re.compile(r"<!--\s*perfbot:state=(resolved|outdated)\s*-->")
REPORTED = re.compile(r"<!--\s*perfbot:reported=([0-9a-f ]*)-->")
REVIEW = re.compile(r"<!--\s*perfbot:review=([0-9a-f]{16})\s*-->")
_RERUN = re.compile(
    r"<!-- perfbot:rerun sha=([0-9a-f]{40}) results=([0-9a-f]{16}) jobs=([A-Za-z0-9._,-]*) -->"
)
_JOB = re.compile(r"[A-Za-z0-9._-]{1,100}")


# --- a finding's fingerprint ----------------------------------------------------------------------


def fp(fingerprint: str) -> str:
    """A hidden HTML comment carrying ``fingerprint``: ``<!-- perfbot:fp=... -->``.

    ``fingerprint`` must be 1 to 64 characters of ``[A-Za-z0-9_]`` (as
    :func:`perfbot.fingerprint.fingerprint` gives), so it can never end the comment early.
    """
    if not _FP_CHARS.fullmatch(fingerprint):
        raise ValueError(f"not a fingerprint: {fingerprint!r}")
    return f"<!-- perfbot:fp={fingerprint} -->"


def find_fps(body: str | None) -> set[str]:
    """Every fingerprint carried by a perfbot marker in ``body``."""
    if not body:
        return set()
    return set(FP.findall(body))


# --- the PR review: items, states, the review's identity, the summary -----------------------------


def item(key: str) -> str:
    return f"<!-- perfbot:item={key} -->"


def state(which: str) -> str:
    return f"<!-- perfbot:state={which} -->"


def reported(keys: Iterable[str]) -> str:
    return f"<!-- perfbot:reported={' '.join(sorted(set(keys)))} -->"


def review(key: str) -> str:
    return f"<!-- perfbot:review={key} -->"


def split_header(body: str) -> tuple[str, str]:
    """The leading hidden-marker lines of a body, and the rest. Only markers in the header
    count: a README quoted in a suggestion cannot forge one."""
    lines = body.splitlines(keepends=True)
    i = 0
    while i < len(lines) and _HEADER_LINE.match(lines[i]):
        i += 1
    return "".join(lines[:i]), "".join(lines[i:])


# --- the rerun review -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RerunMark:
    """What a rerun review's last line says: the commit, the results digest, the benchmarks."""

    sha: str
    digest: str
    jobs: frozenset[str]


def rerun(sha: str, digest: str, jobs: Iterable[str] = ()) -> str:
    """The last line of a rerun review: the commit, the results digest and the benchmarks."""
    names = ",".join(sorted({j for j in jobs if _JOB.fullmatch(j)}))
    return f"<!-- perfbot:rerun sha={sha.lower()} results={digest} jobs={names} -->"


def parse_rerun(body: str) -> RerunMark | None:
    """The rerun marker of ``body``, read only as its very last line (after every untrusted text
    the body quotes)."""
    m = _RERUN.fullmatch(body.rstrip().rsplit("\n", 1)[-1].strip())
    if m is None:
        return None
    return RerunMark(m[1], m[2], frozenset(j for j in m[3].split(",") if j))


def superseded(sha: str, digest: str, by: int) -> str:
    return f"<!-- perfbot:rerun-superseded sha={sha} results={digest} by={by} -->"
