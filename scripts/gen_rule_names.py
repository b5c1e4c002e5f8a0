#!/usr/bin/env python3
"""Regenerate src/perfbot/spec/rule_names.json (every rule's id -> slug) from the registry.

The config checks rule names against this file, so that it needs no import of the rules. Run it
after adding or renaming a rule, and commit the file:

    python scripts/gen_rule_names.py            # write the file if it changed
    python scripts/gen_rule_names.py --check    # exit 1 if it is out of date (what CI tests)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from perfbot.rules import all_rules  # the checkout's perfbot, not an installed one
from perfbot.spec import data, rule_names


def generate() -> str:
    return json.dumps({r.id: r.slug for r in all_rules()}, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if out of date")
    args = ap.parse_args(argv)
    target = Path(data.path(rule_names.FILE))
    text = generate()
    old = target.read_text(encoding="utf-8") if target.exists() else None
    if old == text:
        return 0
    if args.check:
        print(f"{target} is out of date: run `{rule_names.REGENERATE}`", file=sys.stderr)
        return 1
    target.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
