"""Which files a folder holds for perfbot: ``README*.md`` below it, minus what git ignores.

``.gitignore`` files (the folder's own, those below it, and those above it up to the repository
top) and ``.git/info/exclude`` are read with pathspec's gitignore semantics: the deepest file that
has a matching pattern decides, and within a file the last matching pattern (``!`` re-includes).
Hidden folders and ``node_modules`` are never walked. A file named on the command line is not
subject to any of this (the CLI decides that).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from .globs import MAX_PATTERNS, normalise, too_complex

SKIP_DIRS = frozenset({".git", "node_modules"})
MAX_IGNORE_BYTES = 1024 * 1024


def _read_spec(path: str):  # -> pathspec.GitIgnoreSpec | None
    try:
        if os.path.getsize(path) > MAX_IGNORE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()[:MAX_PATTERNS]
    except OSError:
        return None
    import pathspec

    # a pattern too complex to match in bounded time is left out (perfbot then checks a file git
    # would ignore: harmless); see perfbot.globs
    lines = [normalise(ln) for ln in lines if not too_complex(ln)]

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # a pattern pathspec cannot read: git would skip it too
        return None


def git_top(path: str) -> str | None:
    """The folder holding ``.git`` at or above ``path``, or None."""
    d = path
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


class _Ignores:
    def __init__(self, root: str):
        self.specs: dict[str, object] = {}  # folder -> spec of its .gitignore
        self._order: list[str] | None = None  # deepest first
        top = git_top(root)
        if top is not None:
            spec = _read_spec(os.path.join(top, ".git", "info", "exclude"))
            if spec is not None:
                self.specs[top + os.sep + ".git-info-exclude"] = spec
            d = os.path.dirname(root)
            above = []
            while len(d) >= len(top):
                above.append(d)
                if d == top:
                    break
                d = os.path.dirname(d)
            for folder in reversed(above):
                self.add(folder)

    def add(self, folder: str) -> None:
        p = os.path.join(folder, ".gitignore")
        if os.path.isfile(p):
            spec = _read_spec(p)
            if spec is not None:
                self.specs[folder] = spec
                self._order = None

    def ignored(self, path: str, is_dir: bool) -> bool:
        """``path`` (absolute, normalised) is ignored by the deepest file with a matching
        pattern; .git/info/exclude is the weakest."""
        if self._order is None:
            self._order = sorted(self.specs, key=len, reverse=True)
        for folder in self._order:
            base = folder.removesuffix(os.sep + ".git-info-exclude")
            prefix = base.rstrip(os.sep) + os.sep
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix) :].replace(os.sep, "/") + ("/" if is_dir else "")
            got = self.specs[folder].check_file(rel).include  # type: ignore[attr-defined]
            if got is not None:
                return bool(got)
        return False


def walk(root: str, on_folder: Callable[[str, list[str]], object] | None = None) -> Iterator[str]:
    """The ``README*.md`` files below ``root``, folder by folder in name order (what ``os.walk``
    gives), minus ignored ones, without following folder symlinks. A loop with a stack:
    ``os.walk`` recurses, and a tree over ~1,000 folders deep raised RecursionError for the whole
    run. ``on_folder(folder, names)``: called with each folder walked (absolute) and the names of
    its entries, before its files are yielded (the CLI notes them for the config search)."""
    ignores = _Ignores(os.path.abspath(root))
    stack = [root]
    while stack:
        top = stack.pop()
        here = os.path.abspath(top)
        try:
            with os.scandir(top) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        names = [e.name for e in entries]
        if ".gitignore" in names:  # the listing says so: no stat in every folder
            ignores.add(here)
        if on_folder is not None:
            on_folder(here, names)
        subdirs = []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if (
                    not e.is_symlink()
                    and e.name not in SKIP_DIRS
                    and not e.name.startswith(".")
                    and not ignores.ignored(os.path.join(here, e.name), True)
                ):
                    subdirs.append(e.path)
                continue
            low = e.name.lower()
            if (
                low.startswith("readme")
                and low.endswith(".md")
                and not ignores.ignored(os.path.join(here, e.name), False)
            ):
                yield os.path.normpath(e.path)
        stack.extend(reversed(subdirs))
