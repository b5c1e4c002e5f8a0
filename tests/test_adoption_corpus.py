"""docs/adopting.md, followed on the mindcv corpus copy when ../shared/corpus is there:
init, fix, baseline -> exit 0; a new broken row -> reported, and only it."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared/corpus beside the checkout (or beside the folder of worktrees), or $PERFBOT_CORPUS
CORPUS = next(
    (
        p
        for p in (
            Path(os.environ.get("PERFBOT_CORPUS", "/nonexistent")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (p / "SOURCES.tsv").is_file()
    ),
    ROOT.parent / "shared" / "corpus",
)


@pytest.mark.skipif(not (CORPUS / "SOURCES.tsv").is_file(), reason="../shared/corpus is absent")
def test_the_adoption_guide_on_mindcv(tmp_path):
    spec = importlib.util.spec_from_file_location("adoption_check", ROOT / "scripts" /
                                                  "adoption_check.py")  # fmt: skip
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    fig = mod.adopt(CORPUS, "mindcv", tmp_path)
    assert fig["files laid out"] == 53
    assert fig["first run"].split()[0].isdigit()  # findings on day one (figures: docs/adopting.md)
    assert fig["gate"].startswith("No findings")
    assert len(fig["new row --baseline"]) >= 1
