"""Follow docs/adopting.md on corpus repositories laid out at their real paths.

    python scripts/adoption_check.py ../shared/corpus [mindcv mindocr ...]

For each repository: copy its READMEs from the corpus to the paths `SOURCES.tsv` names, in a
temporary git repository (never inside this project), then `perfbot check --statistics`,
`perfbot init`, `perfbot fix`, `perfbot check --write-baseline`, `perfbot check --baseline`
(must exit 0), then one broken row appended to a Performance table (a copy of its last row, a new
model name, its last number 10 % higher) and `perfbot check --baseline` again: it must exit 1
with findings on the new row only, and `--diff-base HEAD --filter-mode added` must say the same.
Prints the figures of each step; exits 1 if an invariant fails.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SUMMARY = re.compile(r"^(?:\d+ findings? .*|No findings in .*)$", re.M)


def perfbot(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "perfbot", *args],
        cwd=cwd, capture_output=True, text=True, check=False, timeout=600,
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=adopt@example.invalid", "-c", "user.name=adopt", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def layout(corpus: Path, repo: str, dest: Path) -> int:
    n = 0
    with open(corpus / "SOURCES.tsv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["repo"] != repo:
                continue
            target = dest / row["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(corpus / row["local_file"], target)
            n += 1
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "import")
    return n


def summary(text: str) -> str:
    found = SUMMARY.findall(text)
    return found[-1] if found else text.strip().splitlines()[-1]


# the READMEs docs/adopting.md breaks a row in; another repository gets its first fitting README
GUIDE_README = {"mindcv": "configs/resnet/README.md", "mindocr": "configs/det/dbnet/README.md"}


def break_a_row(root: Path, first: str | None = None) -> tuple[str, int]:
    """Append a broken row to the last pipe table of a README (``first`` if given) whose last
    table has a number in its last row; returns (path, new line number)."""
    candidates = sorted(p for p in root.rglob("README*.md") if ".git" not in p.parts)
    if first and (root / first).is_file():
        candidates.insert(0, root / first)
    for p in candidates:
        lines = p.read_text(encoding="utf-8").split("\n")
        rows = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("|")]
        if len(rows) < 3:
            continue
        i = rows[-1]
        cells = lines[i].split("|")
        for k in range(len(cells) - 2, 1, -1):
            try:
                v = float(cells[k].strip())
            except ValueError:
                continue
            cells[k] = f" {v * 1.1:.2f} "
            cells[1] = " adoption-check-net "
            lines.insert(i + 1, "|".join(cells))
            p.write_text("\n".join(lines), encoding="utf-8")
            return str(p.relative_to(root)).replace(os.sep, "/"), i + 2
    raise RuntimeError("no table row to copy")


def adopt(corpus: Path, repo: str, work: Path) -> dict:
    root = work / repo
    fig: dict = {"repo": repo, "files laid out": layout(corpus, repo, root)}
    fig["first run"] = summary(perfbot(root, "check", "--statistics", ".").stdout)
    init = perfbot(root, "init")
    assert init.returncode == 0, init.stderr
    fig["init"] = [ln for ln in init.stderr.splitlines() if ln.startswith(("before", "after"))]
    written = root / ".perfbot.yml"
    fig["init proposes"] = [
        ln.strip()
        for ln in (written.read_text(encoding="utf-8") if written.is_file() else "").splitlines()
        if ln.lstrip("# ").startswith("PB")
    ]
    git(root, "add", "-A")
    git(root, "commit", "--allow-empty", "-qm", "perfbot init")  # init may write nothing
    fix = perfbot(root, "fix", ".")
    fig["fix"] = [ln for ln in fix.stdout.splitlines() if ln.startswith(("Fixed", "Nothing"))]
    fig["after fix"] = summary(fix.stdout)
    git(root, "add", "-A")
    git(root, "commit", "--allow-empty", "-qm", "perfbot fix")
    wrote = perfbot(root, "check", "--write-baseline", ".perfbot-baseline.json", ".")
    assert wrote.returncode == 0, wrote.stderr
    fig["baseline"] = len(json.loads((root / ".perfbot-baseline.json").read_text())["findings"])
    gate = perfbot(root, "check", "--baseline", ".perfbot-baseline.json", ".")
    assert gate.returncode == 0, f"{repo}: the gate is not green:\n{gate.stdout}"
    fig["gate"] = summary(gate.stdout)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "baseline")
    path, line = break_a_row(root, GUIDE_README.get(repo))
    for argv in (
        ["--baseline", ".perfbot-baseline.json"],
        ["--diff-base", "HEAD", "--filter-mode", "added"],
    ):
        got = perfbot(root, "check", "--format", "json", *argv, ".")
        found = json.loads(got.stdout)["findings"]
        where = {(f["path"], f["line"]) for f in found}
        assert got.returncode == 1 and where == {(path, line)}, (
            f"{repo} {argv[0]}: expected findings on {path}:{line} only, got {sorted(where)}"
        )
        fig[f"new row {argv[0]}"] = [f"{f['path']}:{f['line']} {f['rule']}" for f in found]
    return fig


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    corpus = Path(argv[0])
    repos = argv[1:] or ["mindcv", "mindocr"]
    ok = True
    with tempfile.TemporaryDirectory(prefix="perfbot-adopt-") as tmp:
        for repo in repos:
            try:
                fig = adopt(corpus, repo, Path(tmp))
            except AssertionError as e:
                print(f"adoption-check: FAIL {e}")
                ok = False
                continue
            print(json.dumps(fig, indent=2, ensure_ascii=False))
    print("adoption-check: ok" if ok else "adoption-check: failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
