"""What a newcomer reads holds (issue 18, `2026-12-newcomer-2.md` items 10 and 21)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))

# an install with extras names a package to fetch, anywhere in the text (the prose too):
# `pip install 'perfbot[runner]'` would take whatever someone registers as perfbot on PyPI
EXTRAS_FROM_AN_INDEX = re.compile(r"pip install\s+(?:-\S+\s+)*[\"']?perfbot\[")


@pytest.mark.parametrize("path", DOCS + WORKFLOWS, ids=lambda p: p.name)
def test_no_install_of_perfbot_with_extras_from_an_index(path):
    assert not EXTRAS_FROM_AN_INDEX.findall(path.read_text(encoding="utf-8"))


def _anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_section_links_to_our_docs_name_a_heading(path):
    """`docs/x.md#section` and `docs/x.md, "Section"` name a real heading."""
    text = path.read_text(encoding="utf-8")
    for doc, frag in re.findall(r"\(?((?:\.\./)?(?:docs/)?[\w-]+\.md)#([\w-]+)\)?", text):
        target = (path.parent / doc) if (path.parent / doc).exists() else ROOT / doc
        if not target.exists():
            target = ROOT / "docs" / Path(doc).name
        heads = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.M)
        assert frag in {_anchor(h) for h in heads}, f"{path.name}: {doc}#{frag}"
    for doc, section in re.findall(r"(docs/[\w-]+\.md),? (?:section )?\"([^\"]+)\"", text):
        heads = re.findall(r"^#+ (.+)$", (ROOT / doc).read_text(encoding="utf-8"), re.M)
        assert section in heads, f'{path.name}: {doc} "{section}"'
