#!/usr/bin/env python3
"""Run perfbot over ../shared/corpus (real READMEs, not committed here) and check invariants.

For every file: no crash; `fix` is idempotent (fixing the fixed text changes nothing); after a fix,
`check` reports no fixable finding. Prints a count of findings per rule, and every img/s mismatch
(PB401), so a reader can compare them with the census. Exit 1 when an invariant fails.

When the corpus holds LABELS.json (a maintainer's TRUE / DEBATABLE / FALSE judgement of the findings
of one earlier version, keyed by repo, path, line and rule) and SOURCES.tsv, it also prints the
labelled precision: how many labelled-FALSE findings are still reported (goal: at most 5 %) and how
many labelled-TRUE ones are kept (goal: at least 95 %). `--show-labelled FALSE` lists those left.

Usage: scripts/corpus_check.py [CORPUS_DIR] [--show RULE ...] [--show-labelled LABEL ...]
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
from pathlib import Path

from perfbot.config import Config
from perfbot.engine import applicable, check_source, fix_source
from perfbot.source import FileError, Source, read_source

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "corpus"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=str(DEFAULT))
    ap.add_argument(
        "--show", nargs="*", default=["PB401"], help="print the findings of these rules"
    )
    ap.add_argument(
        "--show-labelled",
        nargs="*",
        default=[],
        metavar="LABEL",
        help="list the labelled findings with these labels still reported (FALSE, TRUE, ...)",
    )
    args = ap.parse_args(argv)
    root = Path(args.corpus)
    files = sorted(root.rglob("*.md"))
    if not files:
        print(f"corpus-check: no Markdown files under {root}", file=sys.stderr)
        return 2
    per_rule: collections.Counter[str] = collections.Counter()
    fixable_per_rule: collections.Counter[str] = collections.Counter()
    unsafe_per_rule: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    config = Config()
    shown = []
    # (local file, line, rule) -> the messages reported there now
    reported: dict[tuple[str, int, str], list[str]] = {}
    checked_with_tables = 0
    for f in files:
        src = read_source(f)
        if isinstance(src, FileError):
            failures.append(str(src))
            continue
        rel = f.relative_to(root)
        try:
            result = check_source(src, config)
            if any(line.lstrip().startswith("|") for line in src.lines):
                checked_with_tables += 1
            for fd in result.findings:
                reported.setdefault((rel.as_posix(), fd.line, fd.rule), []).append(fd.message)
                per_rule[fd.rule] += 1
                if fd.fix:
                    fixable_per_rule[fd.rule] += 1
                    unsafe_per_rule[fd.rule] += not fd.fix.safe
                if fd.rule in args.show:
                    shown.append(f"{rel}:{fd.line}: {fd.rule} {fd.message}")
            # `perfbot fix --unsafe-fixes` (every fix), then `perfbot fix` (safe fixes only)
            for unsafe, how in ((True, "fix --unsafe-fixes"), (False, "fix")):
                fixed, _ = fix_source(src, config, unsafe=unsafe)
                src2 = Source.from_text(fixed, path=src.path, bom=src.bom, encoding=src.encoding)
                again, _ = fix_source(src2, config, unsafe=unsafe)
                if again != fixed:
                    failures.append(f"{rel}: {how} is not idempotent")
                left = [x for x in check_source(src2, config).findings if applicable(x, unsafe)]
                if left:
                    failures.append(
                        f"{rel}: {len(left)} fixable finding(s) left after {how}, e.g. "
                        f"{left[0].line}: {left[0].rule} {left[0].message}"
                    )
            if any(x.message.startswith("internal error") for x in result.findings):
                failures.append(f"{rel}: internal error in a rule")
        except Exception as e:
            failures.append(f"{rel}: crash: {type(e).__name__}: {e}")
    for line in shown:
        print(line)
    print(f"\n{len(files)} files; findings per rule (fixable in brackets, unsafe among them):")
    for rule_id in sorted(per_rule):
        unsafe_n = unsafe_per_rule[rule_id]
        print(
            f"  {rule_id}: {per_rule[rule_id]} ({fixable_per_rule[rule_id]}"
            + (f", {unsafe_n} unsafe)" if unsafe_n else ")")
        )
    total = sum(per_rule.values())
    print(
        f"  total: {total} ({total / max(checked_with_tables, 1):.1f} per README with a pipe table)"
    )
    labelled_precision(root, reported, args.show_labelled)
    if failures:
        print(f"\n{len(failures)} invariant failure(s):")
        for x in failures:
            print("  " + x)
        return 1
    print("\ncorpus-check: ok (no crash, fix idempotent, nothing fixable left after fix)")
    return 0


def labelled_precision(
    root: Path, reported: dict[tuple[str, int, str], list[str]], show: list[str]
) -> None:
    """Print how many labelled findings of each label perfbot still reports.

    Labels are matched by (file, line, rule): a finding at the same place whose message changed
    (a reorder that now keeps a metric group together) still counts. `--show-labelled` prints
    the labelled message and, when it differs, what perfbot says there now, so a reader can tell
    a finding still wrong from a new, right one at the same place."""
    labels_file, sources_file = root / "LABELS.json", root / "SOURCES.tsv"
    if not (labels_file.is_file() and sources_file.is_file()):
        return
    with sources_file.open(encoding="utf-8", newline="") as fh:
        local = {
            (r["repo"], r["path"]): r["local_file"] for r in csv.DictReader(fh, delimiter="\t")
        }
    labels = json.loads(labels_file.read_text(encoding="utf-8"))
    total: collections.Counter[str] = collections.Counter()
    still: collections.Counter[str] = collections.Counter()
    same: collections.Counter[str] = collections.Counter()  # ... with the labelled message
    listed = []
    for lab in labels:
        key = (local.get((lab["repo"], lab["path"]), ""), lab["line"], lab["rule"])
        total[lab["label"]] += 1
        if key in reported:
            still[lab["label"]] += 1
            same[lab["label"]] += lab["message"] in reported[key]
            if lab["label"] in show:
                listed.append(f"  {key[0]}:{key[1]}: {key[2]} [{lab['why']}] {lab['message']}")
                now = [m for m in reported[key] if m != lab["message"]]
                if len(now) == len(reported[key]):  # none of them is the labelled finding
                    listed.extend(f"      now: {m}" for m in dict.fromkeys(now))
    print("\nlabelled precision (LABELS.json: findings of an earlier version, judged by hand):")
    for label, goal in (
        ("FALSE", "left, goal <= 5 %"),
        ("TRUE", "kept, goal >= 95 %"),
        ("DEBATABLE", "kept"),
    ):
        n = total[label]
        if n:
            print(
                f"  {label}: {still[label]} of {n} still reported ({still[label] / n:.1%} {goal}; "
                f"{same[label]} with the labelled message)"
            )
    for line in listed:
        print(line)


if __name__ == "__main__":
    sys.exit(main())
