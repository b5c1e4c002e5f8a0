"""Linear time on any README (security audit, finding 5): no regular expression in perfbot takes
super-linear time on any input, and neither does the whole check.

Every compiled pattern is found by walking the package (module-level ``re.Pattern`` attributes,
plus the block rules perfbot registers in mistune), so a pattern added later is covered without
touching this file. Each is fed long *near-miss* strings built from its own literals (a run of
one character, a word then a run, a repeated word+character, two runs on two lines) at length
``n`` and ``8n``; time must grow about 8-fold (linear), not 64-fold (quadratic). Times are
compared as a ratio measured here, never against a wall-clock limit.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import re._parser as sre  # type: ignore[import-not-found]
import time
from collections.abc import Callable, Iterator

import pytest

import perfbot
from perfbot.engine import check_source
from perfbot.source import Source

N = 1000
# Linear growth gives 8; quadratic 64. The slack absorbs a shared, noisy machine.
MAX_RATIO = 24
# A measurement over the bound is repeated this many times before it counts.
ATTEMPTS = 3
# A pattern whose calls on an n-character string take less than this is not re-measured (no
# quadratic pattern is this fast at n = 1000); a screen, never an assertion.
SCREEN_SECONDS = 0.0005
ALPHABET = list(" \t\n*|-\\<>/.:()[]{}_~`x0a9O&,;\"'#=!@")


def compiled_patterns() -> dict[str, re.Pattern[str]]:
    out: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(perfbot.__path__, "perfbot."):
        if info.name.endswith("__main__"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional extra (PyGithub) that is not installed
            continue
        bounded = getattr(mod, "LENGTH_BOUNDED_PATTERNS", frozenset())
        for name, value in vars(mod).items():
            is_str_pattern = isinstance(value, re.Pattern) and isinstance(value.pattern, str)
            if is_str_pattern and name not in bounded:
                out[f"{info.name}.{name}"] = value
    from perfbot.parse import blocks

    block = blocks._MD.block
    for rule in block.rules:
        if rule in block.specification:
            out[f"mistune block rule {rule}"] = re.compile(block.specification[rule], re.M)
    out["mistune block scanner"] = block.compile_sc()
    return out


def literals(p: re.Pattern[str]) -> set[str]:
    """Runs of literal characters in a pattern, and the characters of its classes."""
    found: set[str] = set()

    def walk(sub: object) -> None:
        run: list[str] = []
        for op, av in sub:  # type: ignore[attr-defined]
            if op is sre.LITERAL:
                run.append(chr(av))
                continue
            if run:
                found.add("".join(run))
                run = []
            if op is sre.SUBPATTERN:
                walk(av[-1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
                walk(av[2])
            elif op is sre.BRANCH:
                for b in av[1]:
                    walk(b)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(av[1])
            elif op is sre.IN:
                for o, a in av:
                    if o is sre.LITERAL:
                        found.add(chr(a))
                    elif o is sre.RANGE:
                        found.update((chr(a[0]), chr(a[1])))
        if run:
            found.add("".join(run))

    walk(sre.parse(p.pattern, p.flags))
    return {t for t in found if t}


def near_misses(p: re.Pattern[str]) -> list[tuple[str, Callable[[int], str]]]:
    chars = sorted({t for t in literals(p) if len(t) == 1} | set(ALPHABET))
    words = sorted((t for t in literals(p) if len(t) > 1), key=lambda w: (-len(w), w))[:12]

    def run(unit: str) -> Callable[[int], str]:
        return lambda n: (unit * (n // len(unit) + 1))[:n]

    out: list[tuple[str, Callable[[int], str]]] = [(f"{c!r}*n", run(c)) for c in chars]
    out += [(f"{w!r}*n", run(w)) for w in words]
    for w in words:
        for c in ALPHABET:
            out.append((f"{w!r}+{c!r}*n", lambda n, w=w, c=c: w + c * n))
            out.append((f"({w!r}+{c!r})*n", run(w + c)))
    for a in "*|-<x9 ":
        for b in "*|-<x9 ":
            out.append(
                (
                    f"{a!r}*n/2 newline {b!r}*n/2",
                    lambda n, a=a, b=b: a * (n // 2) + "\n" + b * (n // 2),
                )
            )
    return out


def cost(p: re.Pattern[str], s: str) -> float:
    t = time.perf_counter()
    p.search(s)
    for _ in p.finditer(s):
        pass
    p.match(s)
    return time.perf_counter() - t


def timed(f: Callable[[], object], at_least: float = 0.02) -> float:
    """Seconds per call of ``f``: the best of 3 rounds, each repeated to at least ``at_least``."""
    best = float("inf")
    for _ in range(3):
        k = 0
        t0 = time.perf_counter()
        while True:
            f()
            k += 1
            t = time.perf_counter() - t0
            if t >= at_least:
                break
        best = min(best, t / k)
    return best


def growth(measure: Callable[[str], float], make: Callable[[int], str], n: int) -> str | None:
    """None if the time of ``measure(make(k*n))`` grows about linearly for k = 2, 4, 8; else a
    description. Stops at the first size whose ratio is 3 times what linear gives (a cubic
    case at 8n would take hours). A ratio over the bound is then confirmed doubling by doubling
    (``keeps_growing``): a one-off step, such as the regex engine's backtracking stack leaving
    the CPU cache between two sizes, is not a growth rate."""
    for k in (2, 4, 8):
        # A ratio over the bound is measured again, base and all, up to ATTEMPTS times: a busy
        # machine (other jobs on 2 cores) can slow one measurement several-fold, but a
        # super-linear pattern is slow every time.
        ratios = []
        for _ in range(ATTEMPTS):
            ratios.append(measure(make(k * n)) / measure(make(n)))
            if ratios[-1] <= MAX_RATIO * k / 8:
                break
        else:
            if keeps_growing(measure, make, n):
                return f"time x{min(ratios):.0f} for {k}x the length (each of {ATTEMPTS} tries)"
            return None
    return None


# Doubling the length doubles a linear pattern's time and quadruples a quadratic one's.
DOUBLING_BOUND = 3.0


def keeps_growing(measure: Callable[[str], float], make: Callable[[int], str], n: int) -> bool:
    """True if two doublings in a row, among n -> 2n -> 4n -> 8n -> 16n, each take more than
    DOUBLING_BOUND times as long (each re-measured up to ATTEMPTS times). Super-linear time
    grows on every doubling; a cache step or a noisy moment shows on one."""
    over = 0
    size = n
    while size < 16 * n:
        for _ in range(ATTEMPTS):
            if measure(make(2 * size)) / measure(make(size)) <= DOUBLING_BOUND:
                over = 0
                break
        else:
            over += 1
            if over == 2:
                return True
        size *= 2
    return False


def superlinear(p: re.Pattern[str]) -> Iterator[str]:
    for label, make in near_misses(p):
        if cost(p, make(N)) < SCREEN_SECONDS:
            continue
        bad = growth(lambda s: timed(lambda: cost(p, s)), make, N)
        if bad:
            yield f"{label}: {bad}"
            return  # one witness per pattern is enough


PATTERNS = compiled_patterns()


def test_the_walk_finds_the_patterns() -> None:
    names = set(PATTERNS)
    assert "perfbot.parse.sentence._MODE" in names and "mistune block rule pipe_table" in names
    assert any(n.startswith("perfbot.spec.forms.") for n in names)
    assert len(names) > 40


def test_a_one_off_step_is_not_a_growth_rate() -> None:
    """The CI failure this answers: the mistune block scanner on two lines of 500 and 4,000
    asterisks took 25 times as long for 8 times the length, once, because its backtracking
    stack outgrew the cache between the two sizes; every doubling after it took twice as long.
    A time that steps up 4-fold once is linear; n squared is not."""
    step = growth(lambda s: len(s) * (4.0 if len(s) > 5000 else 1.0), lambda n: "x" * n, N)
    assert step is None
    assert growth(lambda s: float(len(s)) ** 2, lambda n: "x" * n, N)
    assert growth(lambda s: float(len(s)) ** 1.6, lambda n: "x" * n, N)


def test_the_detector_finds_a_quadratic_pattern() -> None:
    """The retries on a busy machine must not hide a real one: ``\\s+$`` is quadratic on a run
    of blanks followed by something else."""
    assert list(superlinear(re.compile(r"\s+$")))


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_is_linear_on_near_misses(name: str) -> None:
    bad = list(superlinear(PATTERNS[name]))
    assert not bad, f"{name} ({PATTERNS[name].pattern!r}) is super-linear: {bad}"


def test_length_bounded_patterns_only_see_short_text() -> None:
    """versions.py's patterns run only on cell text of at most MAX_LEN characters (checked before
    any pattern runs), so they are exempt above; the guard itself is what is tested here."""
    from perfbot.spec import versions

    assert versions.LENGTH_BOUNDED_PATTERNS
    for name in versions.LENGTH_BOUNDED_PATTERNS:
        assert isinstance(getattr(versions, name), re.Pattern)
    long = "driver_" + "1-" * 20 * versions.MAX_LEN
    for kind in ("mindspore", "driver", "firmware", "cann"):
        assert versions.parse_version(kind, long) is None
    assert versions.mindspore_versions(" " * 50_000 + "2.3.1") == []
    # the runner's version values and the rerun's result-column headers: also only short text
    from perfbot.rerun import refresh
    from perfbot.runner import envinfo

    assert {"_PLAIN_VERSION"} == envinfo.LENGTH_BOUNDED_PATTERNS
    assert envinfo.plain_version("1" * 41) is None and envinfo.plain_version("2.3.1") == "2.3.1"
    assert {"_RESULT_HEADER"} == refresh.LENGTH_BOUNDED_PATTERNS and refresh.MAX_HEADER <= 200


# --- the whole check ----------------------------------------------------------------------------

HEAD = """\
# model

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |

"""

PATHOLOGICAL: dict[str, Callable[[int], str]] = {
    # the audit's cases, and their relatives
    "sentence then a run of *": lambda n: "Experiments are tested on " + "*" * n + "\n",
    "header of pipes, delimiter of dashes": lambda n: "|" * n + "\n" + "-" * n + "\n",
    "one line of pipes": lambda n: "|" * n + "\n",
    "one line of escaped pipes": lambda n: "| a " + "\\|" * n + " |\n|--|\n",
    "unclosed <td> cells": lambda n: "<table>\n" + "<td>" * (n // 4) + "\n</table>\n",
    "unclosed < in a heading": lambda n: "## " + "<" * n + "\n",
    "unclosed < in a cell tag": lambda n: "<table>\n<td " + "<td " * (n // 4) + "\n</table>\n",
    "sentence words repeated": lambda n: "Experiments are tested on graph " * (n // 32) + "\n",
    "mindspore then stars": lambda n: "Experiments are tested on mindspore" + "*" * n + " 2.3\n",
    "pipes then a dash line": lambda n: "| a " * (n // 4) + "\n" + "|-" * (n // 2) + "\n",
    "many delimiter-like lines": lambda n: "| a |\n" + "| : |\n" * (n // 6),
    "html wrapper lines": lambda n: (
        "<div>\n" + "<div> " * (n // 6) + "\n| a | b |\n|--|--|\n</div>\n"
    ),
    "header cell ending in stars": lambda n: "| model name | s/step" + "*" * n + " x |\n|--|--|\n",
    "header cell ending in escaped stars": lambda n: "| img/s" + "\\*" * (n // 2) + " x |\n|--|\n",
    "header cell in deep emphasis": lambda n: (
        "| " + "**" * (n // 4) + "s/step" + "**" * (n // 4) + " |\n|--|\n"
    ),
    "header cell in deep <b>": lambda n: (
        "| " + "<b>" * (n // 7) + "img/s" + "</b>" * (n // 7) + " |\n|--|\n"
    ),
    "a long cell": lambda n: "| model name | s/step |\n|--|--|\n| " + "9." * (n // 2) + " | 1 |\n",
}


def check_time(make: Callable[[int], str], n: int) -> float:
    """Seconds to check ``make(n)``: the best of 3 runs, each on a text of its own (``n``, n+64,
    n+128 characters) so that no cache in perfbot (header keys, cell forms) answers the second."""
    best = float("inf")
    for i in range(3):
        src = Source.from_text(HEAD + make(n + 64 * i), path="README.md")
        t = time.perf_counter()
        check_source(src)
        best = min(best, time.perf_counter() - t)
    return best


@pytest.mark.parametrize("case", sorted(PATHOLOGICAL))
def test_check_is_linear_on_pathological_readmes(case: str) -> None:
    make = PATHOLOGICAL[case]
    sizes: dict[str, int] = {}

    def measure(text: str) -> float:
        return check_time(make, sizes[text])

    def sized(n: int) -> str:
        key = f"{n}"
        sizes[key] = n
        return key

    bad = growth(measure, sized, 4000)
    assert bad is None, f"{case}: checking is super-linear: {bad}"


def test_a_paragraph_of_many_lines_is_parsed_in_linear_time() -> None:
    """mistune grows a paragraph with ``text += line``, a copy of the whole paragraph per line:
    quadratic when every line is added on its own (lines that start like a table and are not
    one). At 800 kB of ``| : |`` lines that was 1.5 s against 0.1 s for an ordinary README;
    perfbot's block state keeps the lines and joins them once. Sizes large enough for the
    copies to show (the whole-check cases above use 4,000 characters)."""
    from perfbot.parse import block_tokens

    def make(n: int) -> str:
        return "| a |\n" + "| : |\n" * (n // 6)

    text = make(60_000)
    (para,) = [t for t in block_tokens(text) if t["type"] == "paragraph"]
    assert para["text"] == text and "_parts" not in para
    bad = growth(lambda s: timed(lambda: block_tokens(s), at_least=0.05), make, 100_000)
    assert bad is None, f"block_tokens on a paragraph of many lines is super-linear: {bad}"
