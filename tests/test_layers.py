"""The core never imports the edges (perfbot.github, perfbot.rerun, perfbot.runner, the CLI),
PyGithub or an HTTP library (docs/architecture.md). Each import runs in a fresh interpreter, so
what another test imported cannot hide a violation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CORE = [
    "perfbot.engine",
    "perfbot.rules",
    "perfbot.parse",
    "perfbot.source",
    "perfbot.config",
    "perfbot.spec",
    "perfbot.spec.matrix",
    "perfbot.fix",
    "perfbot.report.text",
    "perfbot.report.json",
    "perfbot.report.sarif",
    "perfbot.report.github",
    "perfbot.suppress",
    "perfbot.baseline",
    "perfbot.fingerprint",
    "perfbot.hunks",
    "perfbot.gitdiff",
    "perfbot.targets",
    "perfbot.findings",
    "perfbot.display",
    "perfbot.rules.registry",
    "perfbot.report.formats",
    "perfbot.report.stream",
]

# top-level packages the core must not load (PyGithub is `github`), and perfbot's edges
FORBIDDEN_PACKAGES = {"github", "requests", "httpx", "urllib3", "aiohttp", "responses"}
FORBIDDEN_PREFIXES = ("perfbot.github", "perfbot.rerun", "perfbot.runner", "perfbot.cli")

PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""


def loaded_after_importing(*modules: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def forbidden(loaded: list[str]) -> list[str]:
    return [
        m
        for m in loaded
        if m.split(".")[0] in FORBIDDEN_PACKAGES
        or any(m == p or m.startswith(p + ".") for p in FORBIDDEN_PREFIXES)
    ]


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_not_import_the_edges(module: str) -> None:
    loaded = loaded_after_importing(module)
    assert module in loaded
    assert forbidden(loaded) == [], f"importing {module} loads {forbidden(loaded)}"


def test_checking_and_fixing_a_readme_does_not_import_the_edges() -> None:
    """Not just importing: running every rule (lazy imports inside functions count too)."""
    probe = """
import json, sys
from perfbot.engine import check_source, fix_source
from perfbot.source import Source
text = '''## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| Model Name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|---|---|---|---|---|---|---|---|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
'''
src = Source.from_text(text)
assert check_source(src).findings
fix_source(src)
print(json.dumps(sorted(sys.modules)))
"""
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, timeout=60
    )
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert forbidden(loaded) == []


def test_the_probe_would_notice() -> None:
    """The check itself works: importing an edge module is seen."""
    assert forbidden(["perfbot.github.client", "github.Auth", "requests", "perfbot.rules"]) == [
        "perfbot.github.client",
        "github.Auth",
        "requests",
    ]
