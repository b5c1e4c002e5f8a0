"""The import circles among perfbot's modules, counting every import: at module top, inside
functions and under ``TYPE_CHECKING`` (a lazy import hides a circle, it does not remove it).

    python scripts/import_circles.py [SRC]      (default: src)

Prints the module and edge counts, then each circle with its edges (``top``/``lazy``/``typing``
and the line). Exit 1 when there is a circle. ``tests/test_import_circles.py`` holds the package to
the circles listed there; ``lint-imports`` (pyproject.toml) to the layers.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_files(root: Path) -> dict[str, Path]:
    out = {}
    for p in sorted(root.rglob("*.py")):
        parts = list(p.relative_to(root).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _targets(cur: str, node: ast.Import | ast.ImportFrom, pkg: bool, files: dict) -> list[str]:
    if isinstance(node, ast.Import):
        mods = [a.name for a in node.names]
    else:
        base = cur.split(".") if pkg else cur.split(".")[:-1]
        if node.level > 1:
            base = base[: len(base) - (node.level - 1)]
        if node.level:
            mod = ".".join([*base, node.module] if node.module else base)
        else:
            mod = node.module or ""
        mods = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in files else mod for a in node.names]
    out = []
    for m in mods:
        while m and m not in files:
            m = m.rpartition(".")[0]
        if m:
            out.append(m)
    return out


def edges(root: Path) -> dict[tuple[str, str], set[tuple[str, int]]]:
    """(importer, imported) -> {(kind, line)}, between the modules under ``root``."""
    files = module_files(root)
    out: dict[tuple[str, str], set[tuple[str, int]]] = {}
    for m, p in files.items():
        is_pkg = p.name == "__init__.py"

        def visit(node: ast.AST, lazy: bool, typing: bool, m: str = m, is_pkg: bool = is_pkg):
            for ch in ast.iter_child_nodes(node):
                if isinstance(ch, (ast.Import, ast.ImportFrom)):
                    kind = "typing" if typing else "lazy" if lazy else "top"
                    for t in _targets(m, ch, is_pkg, files):
                        if t != m:
                            out.setdefault((m, t), set()).add((kind, ch.lineno))
                elif isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(ch, True, typing)
                elif isinstance(ch, ast.If) and "TYPE_CHECKING" in ast.unparse(ch.test):
                    visit(ch, lazy, True)
                else:
                    visit(ch, lazy, typing)

        visit(ast.parse(p.read_text(encoding="utf-8")), False, False)
    return out


def circles(graph_edges: dict[tuple[str, str], set]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), largest first."""
    graph: dict[str, set[str]] = {}
    for a, b in graph_edges:
        graph.setdefault(a, set()).add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []

    def sc(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                sc(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                comps.append(sorted(c))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            sc(v)
    return sorted(comps, key=len, reverse=True)


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "src")
    found = edges(root)
    comps = circles(found)
    print(f"modules {len(module_files(root))}  edges {len(found)}  circles {len(comps)}")
    for c in comps:
        print(f"circle of {len(c)}:", " ".join(c))
        for (a, b), ks in sorted(found.items()):
            if a in c and b in c:
                print(
                    f"   {a} -> {b}",
                    ",".join(f"{k}@{n}" for k, n in sorted(ks, key=lambda x: x[1])),
                )
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
