"""``perfbot check`` and ``perfbot review`` choose the same READMEs, under the same config
(:mod:`perfbot.targets`), and so report the same findings for the same files.

Each case opens a pull request on the GitHub fake that adds every file of a repository, runs
``perfbot review --sarif-file`` on its checkout as the action does, then ``perfbot check --format
sarif .`` on that checkout, and compares (file, line, rule) of the two.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from review_kit import BROKEN, action  # noqa: F401

from perfbot.cli import main
from perfbot.config import clear_caches

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"


def _findings(sarif: dict) -> set[tuple[str, int, str]]:
    out = set()
    for run in sarif["runs"]:
        for r in run["results"]:
            loc = r["locations"][0]["physicalLocation"]
            uri = loc["artifactLocation"]["uri"]
            out.add((uri, loc["region"]["startLine"], r["ruleId"]))
    return out


def _both(gh, action, files: dict[str, str]):  # noqa: F811
    pr = gh.add_pull(changes={path: (None, text) for path, text in files.items()})
    sarif_review = action.tmp / "review.sarif"
    r = action.run(pr, "--filter-mode=file", f"--sarif-file={sarif_review}")
    assert r.rc in (0, 1), r.err
    ws = Path(os.getcwd())  # the checkout the review ran in
    clear_caches()
    sarif_check = action.tmp / "check.sarif"
    rc = main(["check", "-q", "--format", "sarif", "-o", str(sarif_check), "."])
    assert rc in (0, 1)
    review = _findings(json.loads(sarif_review.read_text()))
    check = _findings(json.loads(sarif_check.read_text()))
    return review, check, ws


def test_nested_config_keeps_the_root_paths(gh, action):  # noqa: F811
    review, check, _ = _both(
        gh,
        action,
        {
            ".perfbot.yml": 'paths: ["models/**/README.md"]\n',
            "models/a/.perfbot.yml": "rules:\n  PB203: off\n",
            "models/a/README.md": BROKEN,
            "other/README.md": BROKEN,  # not under `paths`: neither checks it
        },
    )
    assert {f for f, _, _ in check} == {"models/a/README.md"}
    assert review == check


def test_paths_glob_beyond_readmes_checks_what_check_walks(gh, action):  # noqa: F811
    review, check, _ = _both(
        gh,
        action,
        {
            ".perfbot.yml": 'paths: ["**/*.md"]\n',
            "a/README.md": BROKEN,
            "a/NOTES.md": BROKEN,  # `check .` walks README*.md only
            ".github/README.md": BROKEN,  # nor does it walk hidden folders
        },
    )
    assert {f for f, _, _ in check} == {"a/README.md"}
    assert review == check


def _corpus_repo() -> dict[str, str]:
    """Every corpus README at its path in its repository (``mindcv/configs__README.md`` ->
    ``mindcv/configs/README.md``), with configs of their own: a root one excluding a folder, one per
    repository (a rule turned off; in one of them ``paths``), and nested ones below."""
    files = {".perfbot.yml": 'exclude: ["mindocr/configs/det/**"]\n'}
    for repo in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        files[f"{repo.name}/.perfbot.yml"] = (
            'paths: ["configs/**/README*.md"]\n' if repo.name == "mindcv" else ""
        ) + "rules:\n  PB203: off\n"
        for i, p in enumerate(sorted(repo.glob("*.md"))):
            path = f"{repo.name}/{p.stem.replace('__', '/')}.md"
            files[path] = p.read_text(encoding="utf-8", errors="replace")
            if i % 4 == 0:
                files[f"{path.rpartition('/')[0]}/.perfbot.yml"] = "rules:\n  PB412: off\n"
    return files


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")
def test_corpus_as_a_repository(gh, action):  # noqa: F811
    review, check, _ = _both(gh, action, _corpus_repo())
    assert len({f for f, _, _ in check}) > 50
    assert review == check
