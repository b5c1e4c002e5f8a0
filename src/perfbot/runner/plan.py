"""`perfbot plan`: the GitHub Actions matrix of benchmarks to run.

`plan_main` prints `{"include": [{"name": ..., "readme": ..., "runs-on": [...]}, ...]}` on one
line, for `echo "matrix=$(perfbot plan ...)" >> "$GITHUB_OUTPUT"` and
`strategy: {matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}}`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from typing import Any

from perfbot.runner.spec import BenchmarkSpec, SpecError, load_benchmarks

__all__ = ["matches", "plan", "plan_main", "split_targets"]


def _norm_path(p: str) -> str:
    p = p.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return str(PurePosixPath(p)) if p else ""


def matches(spec: BenchmarkSpec, target: str) -> bool:
    """Whether `target` selects `spec`: its name, its row's `model name` (case-insensitive),
    its README path, or a directory containing its README."""
    t = target.strip()
    if not t:
        return False
    if t == spec.name:
        return True
    if isinstance(spec.row, dict) and spec.row.get("model name", "").lower() == t.lower():
        return True
    path, readme = _norm_path(t), _norm_path(spec.readme)
    if path in ("", "."):
        return False
    return path == readme or readme.startswith(path.rstrip("/") + "/")


def split_targets(values: Iterable[str]) -> list[str]:
    """Targets from CLI values that may each hold several, comma- or whitespace-separated."""
    out: list[str] = []
    for v in values:
        out.extend(t for t in re.split(r"[,\s]+", v) if t)
    return out


def plan(benchmarks: Sequence[BenchmarkSpec], targets: Iterable[str] | None = None) -> dict:
    """The `strategy.matrix` for `benchmarks`; with `targets`, only those any target selects.

    `targets=None` means all benchmarks; an empty list selects none (`{"include": []}`).
    """
    wanted = None if targets is None else [t for t in targets if t.strip()]
    include: list[dict[str, Any]] = []
    for spec in benchmarks:
        if wanted is not None and not any(matches(spec, t) for t in wanted):
            continue
        include.append({"name": spec.name, "readme": spec.readme, "runs-on": list(spec.runs_on)})
    return {"include": include}


def plan_main(argv: list[str]) -> int:
    """`perfbot plan --config .perfbot.yml [--targets T ...]`: 0 printed, 2 config error."""
    parser = argparse.ArgumentParser(
        prog="perfbot plan",
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Print the GitHub Actions matrix (one line of JSON) of benchmarks to run.",
    )
    parser.add_argument("--config", default=".perfbot.yml", help="config file")
    parser.add_argument(
        "--targets",
        nargs="*",
        default=None,
        help="README paths, directories, benchmark or model names (comma/space separated "
        "allowed); default: all benchmarks",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else 2
    try:
        specs = load_benchmarks(args.config)
    except SpecError as exc:
        for line in str(exc).splitlines():
            print(f"perfbot plan: error: {line}", file=sys.stderr)
        return 2
    targets = None if args.targets is None else split_targets(args.targets)
    matrix = plan(specs, targets)
    if targets:
        unmatched = [t for t in targets if not any(matches(s, t) for s in specs)]
        if unmatched and len(unmatched) == len(targets):
            print("perfbot plan: no benchmark matches the targets", file=sys.stderr)
    print(json.dumps(matrix, separators=(",", ":"), ensure_ascii=False))
    return 0
