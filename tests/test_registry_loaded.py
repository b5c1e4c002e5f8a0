"""Whoever reaches the rule table has every rule: importing ``perfbot.rules`` (or the old
``perfbot.registry``) registers all families first, in a fresh interpreter too, with no lazy
load to forget (a fresh `perfbot post` once knew no rule, a pooled SARIF run lost descriptions)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import {module} as m
print(len(m.RULES), sum(1 for r in m.all_rules()), "perfbot.rules.values" in sys.modules)
"""


def _fresh(module: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def test_the_table_is_full_as_soon_as_it_is_imported():
    from perfbot.rules import all_rules

    n = str(len(all_rules()))
    assert int(n) > 30
    for module in ("perfbot.rules", "perfbot.registry"):
        assert _fresh(module) == [n, n, "True"], module


def test_the_finding_types_load_no_rule():
    code = "import sys, perfbot.findings; print('perfbot.rules' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
