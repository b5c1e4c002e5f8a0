"""``perfbot check --write-baseline FILE`` / ``--baseline FILE``: gate only new findings.

A baseline lists today's findings by their structural fingerprint (:mod:`perfbot.fingerprint`:
file, table, row, rule; never a line number), so editing a README elsewhere, or moving a table,
does not bring its old findings back. Paths are relative to the baseline file's folder, so the
file works from any working directory and in any clone.

```json
{"version": 1, "tool": "perfbot",
 "findings": [{"fingerprint": "3f1c...", "path": "configs/resnet/README.md", "rule": "PB306",
               "count": 1, "message": "header `ms/step`: ..."}]}
```

A fingerprint seen ``count`` times in the baseline hides at most ``count`` findings: a second
broken row with the same configuration as a known one is still reported.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .fingerprint import fingerprint

if TYPE_CHECKING:
    from .findings import FileResult, Finding

VERSION = 1
MAX_BYTES = 64 * 1024 * 1024


class BaselineError(Exception):
    """A baseline file perfbot cannot use; the message is for the user."""


def finding_fingerprint(f: Finding, base_dir: str) -> tuple[str, str]:
    """(path relative to ``base_dir``, fingerprint) of a finding."""
    rel = os.path.relpath(os.path.abspath(f.path), os.path.abspath(base_dir))
    rel = rel.replace(os.sep, "/")
    return rel, fingerprint(rel, f.table_key, f.row_key, f.rule)


def render(results: Iterable[FileResult], base_dir: str) -> str:
    seen: dict[str, dict] = {}
    for r in results:
        for f in r.findings:
            rel, fp = finding_fingerprint(f, base_dir)
            entry = seen.get(fp)
            if entry is None:
                seen[fp] = {"fingerprint": fp, "path": rel, "rule": f.rule, "count": 1,
                            "message": f.message}  # fmt: skip
            else:
                entry["count"] += 1
    entries = sorted(seen.values(), key=lambda e: (e["path"], e["rule"], e["fingerprint"]))
    data = {"version": VERSION, "tool": "perfbot", "findings": entries}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass
class Baseline:
    base_dir: str
    counts: Counter[str]
    paths: dict[str, str]  # fingerprint -> path, relative to base_dir

    @classmethod
    def load(cls, path: str) -> Baseline:
        try:
            size = os.path.getsize(path)
            if size > MAX_BYTES:
                raise BaselineError(f"{path}: {size} bytes is too large for a baseline")
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as e:
            raise BaselineError(f"{path}: cannot read: {e.strerror or e}") from None
        except RecursionError:
            raise BaselineError(f"{path}: not a perfbot baseline (nested too deeply)") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise BaselineError(f"{path}: not a perfbot baseline (not JSON: {e})") from None
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise BaselineError(f"{path}: not a perfbot baseline (expected version {VERSION})")
        items = data.get("findings")
        if not isinstance(items, list):
            raise BaselineError(f"{path}: not a perfbot baseline (no findings list)")
        counts: Counter[str] = Counter()
        paths: dict[str, str] = {}
        for i, entry in enumerate(items):
            fp = entry.get("fingerprint") if isinstance(entry, dict) else None
            n = entry.get("count", 1) if isinstance(entry, dict) else None
            if not isinstance(fp, str) or not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise BaselineError(f"{path}: findings[{i}]: needs a fingerprint and a count >= 1")
            counts[fp] += n
            if isinstance(entry.get("path"), str):
                paths[fp] = entry["path"]
        return cls(os.path.dirname(os.path.abspath(path)), counts, paths)

    def matcher(self) -> Matcher:
        """A matcher that takes the checked files one by one (as they stream)."""
        return Matcher(self)

    def filter(self, results: Sequence[FileResult]) -> tuple[list[FileResult], int, int]:
        """(results without the known findings, how many were hidden, entries of the checked
        files that matched nothing: fixed since)."""
        m = self.matcher()
        out = [m.filter_one(r) for r in results]
        return out, m.hidden, m.stale()


class Matcher:
    """The state of one run against a baseline: what is left to hide, what was hidden."""

    def __init__(self, base: Baseline):
        self.base = base
        self.left = Counter(base.counts)
        self.hidden = 0
        self.checked: set[str] = set()

    def filter_one(self, r: FileResult) -> FileResult:
        self.checked.add(
            os.path.relpath(os.path.abspath(r.path), self.base.base_dir).replace(os.sep, "/")
        )
        keep: list[Finding] = []
        for f in r.findings:
            _, fp = finding_fingerprint(f, self.base.base_dir)
            if self.left[fp] > 0:
                self.left[fp] -= 1
                self.hidden += 1
            else:
                keep.append(f)
        return replace(r, findings=keep) if len(keep) != len(r.findings) else r

    def stale(self) -> int:
        """Entries of the checked files that matched nothing (fixed since)."""
        return sum(n for fp, n in self.left.items() if self.base.paths.get(fp) in self.checked)
