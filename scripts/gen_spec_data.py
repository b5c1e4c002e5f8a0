#!/usr/bin/env python3
"""Regenerate the JSON twins of the guide's data files (src/perfbot/spec/*.yaml -> *.yaml.json).

perfbot reads the twins on the check path (no PyYAML import, issue 11); they carry the CRC-32 of
the YAML they were made from, and a stale twin is ignored (the YAML is parsed instead, slower).
Run this after editing columns.yaml or matrix.yaml, and commit both files:

    python scripts/gen_spec_data.py            # write the twins that changed
    python scripts/gen_spec_data.py --check    # exit 1 if one is out of date (what CI tests)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from perfbot.spec import data  # the checkout's perfbot, not an installed one


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if out of date")
    args = ap.parse_args(argv)
    stale = []
    for name in data.SOURCES:
        target = Path(data.path(name + data.SUFFIX))
        text = data.generate(name)
        old = target.read_text(encoding="utf-8") if target.exists() else None
        if old == text:
            continue
        stale.append(target)
        if not args.check:
            target.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {target}")
    if args.check and stale:
        for t in stale:
            print(f"{t} is out of date: run `{data.REGENERATE}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
