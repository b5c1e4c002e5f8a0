"""The structural fingerprint of a finding: file, table, row, rule; never a line number.

The review hides it in its comments (so a rebase that moves a table does not post the same comment
again), SARIF carries it as ``partialFingerprints``, and ``perfbot check --baseline`` matches
findings with it.
"""

from __future__ import annotations

import hashlib

_FP_VERSION = "perfbot-fp-v1"


def fingerprint(path: str, table_key: str | None, row_key: str | None, rule: str) -> str:
    """A short stable id of a finding: 16 hex digits of a hash of its structural position.

    ``table_key`` names the table (say its heading path or kind), ``row_key`` the row (say its
    model name and its other key cells); either may be None for findings above that level. No line
    numbers: the same finding on a moved table keeps its fingerprint. ``path`` is normalised to
    forward slashes without a leading ``./``.
    """
    norm = path.replace("\\", "/")
    while norm.startswith("./"):
        norm = norm[2:]
    parts = (_FP_VERSION, norm, table_key or "", row_key or "", rule)
    data = "\x1f".join(p.replace("\x1f", " ") for p in parts).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]
