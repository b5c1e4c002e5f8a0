"""Byte-for-byte: does a change keep perfbot's output? ``check`` in every format and ``fix`` (safe
and ``--unsafe-fixes``) on a corpus, from a git ref and from the work tree, output by output.

    python scripts/compare_outputs.py [--ref main] [CORPUS]      (CORPUS default ../shared/corpus)

The corpus is laid out as a repository (``mindcv/configs__README.md`` ->
``mindcv/configs/README.md``) in a temporary folder, never in the project. The ref's sources come
from ``git archive`` and run with ``PYTHONPATH`` set to them; the work tree runs as installed. Each
command is a fresh ``python -m perfbot`` process in the laid-out tree; compared are its exit code,
stdout and stderr, and after ``fix`` the bytes of every file. Exit 0 when every output is the same,
1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKS = {f"check --format {f}": ["check", "--format", f, "."] for f in ("text", "json", "sarif")}
CHECKS |= {f"check --format {f}": ["check", "--format", f, "."] for f in ("github", "rdjson")}
FIXES = {"fix": ["fix", "."], "fix --unsafe-fixes": ["fix", "--unsafe-fixes", "."]}


def lay_out(corpus: Path, dest: Path) -> None:
    (dest / ".git").mkdir(parents=True)
    for p in sorted(corpus.rglob("*.md")):
        rel = p.relative_to(corpus)
        if len(rel.parts) < 2:
            continue  # LABELS.md and the like
        target = dest / rel.parts[0] / (p.stem.replace("__", "/") + ".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(p.read_bytes())


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and ".git" not in p.relative_to(folder).parts:
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def run(argv: list[str], cwd: Path, pythonpath: str | None) -> bytes:
    env = dict(os.environ, NO_COLOR="1", PYTHONHASHSEED="0")
    for k in [k for k in env if k.startswith(("GITHUB_", "PERFBOT_"))]:
        del env[k]
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    else:
        env.pop("PYTHONPATH", None)
    r = subprocess.run(
        [sys.executable, "-m", "perfbot", *argv], cwd=cwd, env=env, capture_output=True
    )
    return b"rc=%d\n--stdout\n%s\n--stderr\n%s" % (r.returncode, r.stdout, r.stderr)


def outputs(corpus: Path, work: Path, pythonpath: str | None) -> dict[str, bytes]:
    """Both sides run in the same folder (SARIF names it), emptied in between."""
    shutil.rmtree(work, ignore_errors=True)
    tree = work / "repo"
    lay_out(corpus, tree)
    got = {name: run(argv, tree, pythonpath) for name, argv in CHECKS.items()}
    for name, argv in FIXES.items():
        copy = work / name.replace(" ", "_")
        shutil.copytree(tree, copy)
        out = run(argv, copy, pythonpath)
        got[name] = out + b"\n--tree " + tree_digest(copy).encode()
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    ap.add_argument("--ref", default="main", help="git ref to compare the work tree with")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    args = ap.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"no corpus at {corpus}", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="perfbot-compare-"))
    try:
        old = tmp / "old"
        old.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.ref, "src"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        before = outputs(corpus, tmp / "run", str(old / "src"))
        after = outputs(corpus, tmp / "run", None)
        differ = 0
        for name in before:
            same = before[name] == after[name]
            differ += not same
            print(f"{'same' if same else 'DIFFERENT':9}  {name}  ({len(after[name])} bytes)")
            if not same:
                for side, data in (("before", before[name]), ("after", after[name])):
                    path = tmp / f"{name.replace(' ', '_')}.{side}"
                    path.write_bytes(data)
                print(f"           diff {tmp}/{name.replace(' ', '_')}.before .after")
        print(f"{len(before) - differ} same, {differ} different ({args.ref} vs the work tree)")
        return 1 if differ else 0
    finally:
        if args.keep or "differ" not in locals() or differ:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
