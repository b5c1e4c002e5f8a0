"""Fixtures for the GitHub edge's tests: the ``gh`` fake (see ``tests/github_fake.py``)."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parent.parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from github_fake import gh  # noqa: E402, F401
