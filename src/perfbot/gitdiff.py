"""``perfbot check --diff-base REF``: the local counterpart of the review's filter modes.

:func:`changed` runs ``git diff REF`` (the working tree against ``REF``, staged and unstaged
changes alike) and lists the untracked files that ``.gitignore`` does not hide; :class:`Scope`
then answers, with :func:`perfbot.hunks.in_scope`, whether a finding is in scope under a filter
mode (``added``, ``diff_context``, ``file``), as the review does on a pull request. An untracked
file counts as wholly added.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field

from .hunks import FilterMode, Hunk, in_scope, parse_patch

GIT_TIMEOUT = 120


class GitError(Exception):
    """git is missing, this is not a repository, or the ref is unknown; the message is for
    the user."""


def _git(args: list[str], cwd: str) -> str:
    try:
        out = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=cwd,
            capture_output=True,
            check=False,
            timeout=GIT_TIMEOUT,
        )
    except FileNotFoundError:
        raise GitError("--diff-base needs git on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`git {args[0]}` took more than {GIT_TIMEOUT} s") from None
    if out.returncode != 0:
        msg = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"`git {' '.join(args)}` failed: {msg[0] if msg else out.returncode}")
    return out.stdout.decode("utf-8", "surrogateescape")


def _unquote(path: str) -> str:
    """A path as git prints it: C-quoted (``"a\\tb"``) when it holds special characters."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    raw = path[1:-1].encode("utf-8", "surrogateescape").decode("unicode_escape")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def split_diff(text: str) -> dict[str, list[Hunk]]:
    """``git diff`` output -> {new path: hunks}; deleted files are left out."""
    out: dict[str, list[Hunk]] = {}
    path: str | None = None
    body: list[str] = []

    def flush() -> None:
        if path is not None:
            out[path] = parse_patch("\n".join(body))

    for line in text.split("\n"):
        if line.startswith("diff --git "):
            flush()
            path, body = None, []
            continue
        if line.startswith("+++ ") and not body:
            target = line[4:].rstrip("\t")
            path = None if target == "/dev/null" else _unquote(target).removeprefix("b/")
            continue
        if line.startswith("@@") or body:
            body.append(line)
    flush()
    return out


@dataclass
class Scope:
    """The files changed since a ref, relative to the repository's top folder."""

    top: str
    hunks: dict[str, list[Hunk]] = field(default_factory=dict)
    new_files: set[str] = field(default_factory=set)

    def rel(self, path: str) -> str:
        return os.path.relpath(os.path.abspath(path), self.top).replace(os.sep, "/")

    def keeps(self, mode: FilterMode, path: str, line: int, end_line: int) -> bool:
        rel = self.rel(path)
        if rel in self.new_files:
            return True
        hunks = self.hunks.get(rel)
        return in_scope(mode, hunks or [], line, max(line, end_line), hunks is not None)


def changed(ref: str, cwd: str = ".") -> Scope:
    if ref.startswith("-"):
        raise GitError(f"--diff-base: {ref!r} is not a git ref")
    top = _git(["rev-parse", "--show-toplevel"], cwd).strip()
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    except GitError:
        if ref != "HEAD":
            raise
        # a repository's first commit (pre-commit before there is a HEAD): all is added
        ref = _git(["hash-object", "-t", "tree", "/dev/null"], top).strip()
    diff = _git(
        ["diff", "--no-color", "--no-ext-diff", "--no-renames", "-U3",
         "--src-prefix=a/", "--dst-prefix=b/", ref, "--"],
        top,
    )  # fmt: skip
    untracked = _git(["ls-files", "--others", "--exclude-standard", "-z"], top)
    return Scope(
        top=top,
        hunks=split_diff(diff),
        new_files={p for p in untracked.split("\0") if p},
    )
