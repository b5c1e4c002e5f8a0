"""perfbot's modules import each other in one direction: the only import circles left (counting
imports inside functions and under TYPE_CHECKING) are the ones listed here, each to be removed by
issue 19's next moves. A new circle, or a listed one that grows, fails."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("import_circles", ROOT / "scripts/import_circles.py")
assert _spec is not None and _spec.loader is not None
import_circles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(import_circles)

# to remove: issue 19 (see the ignore_imports of pyproject.toml's import-linter contracts)
KNOWN = []


def test_no_import_circle_but_the_known_ones():
    found = import_circles.circles(import_circles.edges(ROOT / "src"))
    new = [c for c in found if not any(set(c) <= k for k in KNOWN)]
    assert new == []


def test_the_core_never_reaches_the_edges_through_a_circle():
    found = import_circles.circles(import_circles.edges(ROOT / "src"))
    for c in found:
        assert not any(m.startswith(("perfbot.github", "perfbot.cli")) for m in c), c


def test_the_counter_sees_imports_inside_functions_and_type_checking(tmp_path):
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
    )
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    assert import_circles.circles(import_circles.edges(tmp_path)) == [["p.a", "p.b"]]
