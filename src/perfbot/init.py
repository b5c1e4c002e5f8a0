"""``perfbot init``: a first ``.perfbot.yml`` stating the conventions a repository already follows.

perfbot reads every model README below a folder (the same walk as ``perfbot check``) and counts,
README by README:

* step time written in ``ms/step`` rather than ``s/step`` (``allow: {ms_per_step: true}``);
* graph compile written in seconds (``77s``) rather than minutes (``allow: {compile_seconds}``);
* Performance columns the guide does not know (``columns:``);
* Requirements rows (MindSpore, driver, firmware, CANN) that perfbot's matrix does not know,
  when every README naming that MindSpore agrees on the row (``matrix:``).

A convention goes into the file when at least half of the READMEs that could follow it do (and,
for columns and matrix rows, at least two READMEs); each key carries a comment with its count, so
a maintainer sees why it is there. Everything else stays the guide's. The findings before and
after are counted with the same engine as ``perfbot check``.

A rule that still fires the same way (the same message, its quoted values and numbers aside) in
at least a third of the READMEs, with the settings above, is a repository convention rather than
a mistake in each README (minimum-version ``>=`` Requirements, the test machine's HDK, ...): it
is proposed as a commented ``rules:`` line with its count, so a maintainer turns it off in one
place instead of a suppression comment in every README. An ``allow:`` key followed by a third to
a half of the READMEs is proposed the same way, commented. Never proposed: errors, findings about
numbers or versions that are wrong (img/s, CANN ...), and findings `perfbot fix` repairs.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import yaml

from .config import Config
from .engine import Context, FileResult, check_source
from .source import FileError, Source, read_source
from .spec.forms import compile_seconds
from .walk import walk

MIN_SHARE = 0.5
MIN_READMES = 2
CONVENTION_SHARE = 1 / 3  # a rule firing the same way in this share of the READMEs: a convention
# wrong values are never a convention (img/s, s/img, s/step, the CANN of a MindSpore, a version the
# Requirements table does not list), nor a missing table or a broken row
NEVER_A_CONVENTION = frozenset({"PB101", "PB102", "PB203", "PB401", "PB402", "PB403", "PB404",
                                "PB406", "PB501", "PB601"})  # fmt: skip
# conventions `allow:` states (proposed from the survey, with their own counts)
_ALLOW_SHAPES = (("PB306", ""), ("PB414", "compile_seconds"))
_QUOTED = re.compile(r"`[^`]*`")
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
MIN_COLUMN_SHARE = 0.1
_BOLD = re.compile(r"^[*_`\s]+|[*_`\s]+$")
_MATRIX_COLS = {"mindspore": "mindspore", "driver": "ascend driver", "firmware": "firmware",
                "cann": "cann toolkit/kernel"}  # fmt: skip


@dataclass
class Survey:
    readmes: int = 0
    step_ms: int = 0
    step_s: int = 0
    compile_sec: int = 0
    compile_other: int = 0
    columns: Counter[str] = field(default_factory=Counter)  # normalised header -> READMEs
    column_names: dict[str, str] = field(default_factory=dict)  # normalised -> first spelling
    # mindspore -> {row (ms, driver, firmware, cann) -> READMEs}; flagged: rows the matrix refuses
    rows: dict[str, Counter[tuple[str, str, str, str]]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    flagged: set[tuple[str, str, str, str]] = field(default_factory=set)


def _cell(ctx: Context, table, row, name: str) -> str:
    c = ctx.cell(row, ctx.column(table, name))
    return c.value.strip() if c is not None else ""


def survey(sources: Iterable[Source]) -> Survey:
    s = Survey()
    base = Config()
    for src in sources:
        ctx = Context(src, base)
        perf = ctx.doc.of_kind("performance")
        req = ctx.doc.of_kind("requirements")
        if not perf and not req:
            continue
        s.readmes += 1
        ms = sec = has_step = has_compile = False
        other_compile = False
        seen_cols: set[str] = set()
        for t in perf:
            for c in ctx.columns(t):
                if c.name == "s/step":
                    has_step = True
                    ms |= c.scale != 1.0
                elif c.column is None:
                    key = _BOLD.sub("", c.text).lower()
                    if key:
                        seen_cols.add(key)
                        s.column_names.setdefault(key, _BOLD.sub("", c.text))
            col = ctx.column(t, "graph compile")
            if col is not None:
                for row in t.rows:
                    v = _cell(ctx, t, row, "graph compile")
                    if not v or v in ("-", "/"):
                        continue
                    has_compile = True
                    if compile_seconds(v) is not None:
                        sec = True
                    else:
                        other_compile = True
        if has_step:
            s.step_ms += ms
            s.step_s += not ms
        if has_compile:
            s.compile_sec += sec and not other_compile
            s.compile_other += not (sec and not other_compile)
        s.columns.update(seen_cols)
        rows_here: set[tuple[str, str, str, str]] = set()
        for t in req:
            for row in t.rows:
                vals = {k: _cell(ctx, t, row, name) for k, name in _MATRIX_COLS.items()}
                if not vals["mindspore"]:
                    continue
                combo = (vals["mindspore"], vals["driver"], vals["firmware"], vals["cann"])
                rows_here.add(combo)
                issues = ctx.matrix.check_row(*combo)
                if any(i.code != "unknown_mindspore" for i in issues):
                    s.flagged.add(combo)
        for combo in rows_here:
            s.rows[combo[0]][combo] += 1
    return s


@dataclass
class Proposal:
    data: dict
    comments: dict[str, str]  # "allow.ms_per_step", "columns.<name>", "matrix.<n>" -> comment
    # columns left commented out, and why (declaring them would add findings)
    columns_held: str | None = None
    # commented proposals: (config line, comment), e.g. ("PB502: off", "hdk-mismatch: 20 of 53")
    allow_maybe: list[tuple[str, str]] = field(default_factory=list)
    conventions: list[tuple[str, str]] = field(default_factory=list)
    # findings (now, with every commented proposal adopted), for the block's first comment
    adopted: tuple[int, int] | None = None


def propose(s: Survey) -> Proposal:
    data: dict = {}
    comments: dict[str, str] = {}
    allow: dict[str, bool] = {}
    steps = s.step_ms + s.step_s
    if s.step_ms >= 1 and s.step_ms >= MIN_SHARE * steps:
        allow["ms_per_step"] = True
        comments["allow.ms_per_step"] = (
            f"{s.step_ms} of {steps} READMEs with a step time write ms/step"
        )
    compiles = s.compile_sec + s.compile_other
    if s.compile_sec >= 1 and s.compile_sec >= MIN_SHARE * compiles:
        allow["compile_seconds"] = True
        comments["allow.compile_seconds"] = (
            f"{s.compile_sec} of {compiles} READMEs with a graph compile time write seconds"
        )
    if allow:
        data["allow"] = allow
    maybe = [
        ("ms_per_step", s.step_ms, steps, "with a step time write ms/step"),
        ("compile_seconds", s.compile_sec, compiles, "with a graph compile time write seconds"),
    ]
    allow_maybe = [
        (f"{key}: true", f"{n} of {total} READMEs {what}")
        for key, n, total, what in maybe
        if key not in allow and n >= MIN_READMES and n >= CONVENTION_SHARE * total
    ]
    least = max(MIN_READMES, MIN_COLUMN_SHARE * s.readmes)
    from .spec import builtin_spec

    guide = builtin_spec().performance

    def guide_name(key: str) -> bool:  # a guide column's name or alias, used for other values
        return any(r.column is not None for r in guide.resolve_header([key]))

    cols = [(k, n) for k, n in s.columns.most_common() if n >= least and not guide_name(k)]
    if cols:
        data["columns"] = []
        for key, n in sorted(cols, key=lambda kn: (-kn[1], kn[0])):
            name = s.column_names[key]
            data["columns"].append({"name": name})
            comments[f"columns.{name}"] = f"{n} of {s.readmes} READMEs"
    matrix = []
    for ms in sorted(s.rows):
        combos = s.rows[ms]
        if len(combos) != 1:
            continue  # the READMEs disagree: not a convention, leave it to the matrix rules
        ((combo, n),) = combos.items()
        if combo not in s.flagged or n < MIN_READMES:
            continue
        row = {"mindspore": combo[0]}
        for name, v in zip(("driver", "firmware", "cann"), combo[1:], strict=True):
            if v:
                row[name] = v
        matrix.append(row)
        comments[f"matrix.{len(matrix) - 1}"] = f"{n} READMEs list this row"
    if matrix:
        data["matrix"] = matrix
    return Proposal(data, comments, allow_maybe=allow_maybe)


def _shape(message: str) -> str:
    """A finding's message without its quoted values and numbers: findings of one rule with the
    same shape fire "the same way" (`ascend driver `24.1.0` is not the one ...` in each README)."""
    return _NUMBERS.sub("N", _QUOTED.sub("``", message))


def conventions(results: list[FileResult]) -> list[tuple[str, str]]:
    """Rules that fire the same way in at least a third of the READMEs (and two): (the commented
    config line, its comment with the count and an example), most READMEs first."""
    total = len(results)
    readmes: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], tuple[str, str]] = {}
    for r in results:
        seen: set[tuple[str, str]] = set()
        for f in r.findings:
            if f.rule in NEVER_A_CONVENTION or f.severity == "error" or f.safe_fix:
                continue
            if any(f.rule == r and word in f.message for r, word in _ALLOW_SHAPES):
                continue  # an `allow:` key, proposed from the survey
            key = (f.rule, _shape(f.message))
            seen.add(key)
            example.setdefault(key, (f.slug, f.message))
        readmes.update(seen)
    least = max(MIN_READMES, CONVENTION_SHARE * total)
    out: list[tuple[str, str]] = []
    done: set[str] = set()
    for (rule, shape), n in sorted(readmes.items(), key=lambda kv: (-kv[1], kv[0])):
        if n < least or rule in done:
            continue
        done.add(rule)
        slug, msg = example[(rule, shape)]
        msg = msg if len(msg) <= 90 else msg[:87] + "..."
        out.append((f"{rule}: off", f"{slug}: the same way in {n} of {total} READMEs, e.g. {msg}"))
    return out


def _flow(d: dict) -> str:
    return "{" + ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in d.items()) + "}"


def render(p: Proposal, s: Survey) -> str:
    from . import __version__

    out = [
        f"# Written by `perfbot init` (perfbot {__version__}) from {s.readmes} model READMEs: the",
        "# conventions this repository already follows. Everything else is the guide's;",
        "# `perfbot config` shows the effective settings.",
    ]
    # (no `{}` above commented proposals: one of them uncommented below it would not be YAML)
    if not p.data and not (p.allow_maybe or p.conventions):
        out.append("# No convention is followed by enough READMEs to set anything.")
        out.append("{}")
    if "allow" in p.data:
        out.append("allow:")
        for k, v in p.data["allow"].items():
            out.append(f"  {k}: {json.dumps(v)}  # {p.comments[f'allow.{k}']}")
        # followed by a third to a half of the READMEs: commented, under the keys set
        out.extend(f"  # {line}  # {why}" for line, why in p.allow_maybe)
    if "columns" in p.data:
        held = "# " if p.columns_held else ""
        if p.columns_held:
            out.append(f"# {p.columns_held}")
        out.append(f"{held}columns:  # the repository's own Performance columns")
        for c in p.data["columns"]:
            out.append(f"{held}  - {_flow(c)}  # {p.comments['columns.' + c['name']]}")
    if "matrix" in p.data:
        out.append("matrix:  # Requirements rows every README naming that MindSpore agrees on")
        for i, r in enumerate(p.data["matrix"]):
            out.append(f"  - {_flow(r)}  # {p.comments[f'matrix.{i}']}")
    out.extend(_commented(p))
    text = "\n".join(out) + "\n"
    Config.model_validate(yaml.safe_load(text) or {})  # what we write must load
    return text


def _commented(p: Proposal) -> list[str]:
    """The conventions a third to a half of the READMEs follow, and the rules that fire the same
    way in a third of them: commented lines a maintainer uncomments to adopt."""
    out: list[str] = []
    if p.adopted is not None:
        now, then = p.adopted
        out.append(f"# uncommenting every proposal below: {now} findings -> {then}")
    if p.allow_maybe and "allow" not in p.data:  # (else commented under `allow:` above)
        out.append("# followed by a third to a half of the READMEs: uncomment to accept it")
        out.append("# allow:")
        out.extend(f"#   {line}  # {why}" for line, why in p.allow_maybe)
    if p.conventions:
        out.append("# rules that fire the same way in at least a third of the READMEs: a")
        out.append("# convention of this repository? uncomment a line to turn the rule off here,")
        out.append("# instead of a suppression comment in every README (`perfbot rule PBxxx` says")
        out.append("# what it checks)")
        out.append("# rules:")
        out.extend(f"#   {line}  # {why}" for line, why in p.conventions)
    return out


def settle(p: Proposal, s: Survey, sources: list[Source]) -> tuple[str, list, list]:
    """(config text, results before, results after). Columns whose declaration would add
    findings (say a header-case warning on each bold header) are written commented out."""
    before = check_all(sources, Config())
    text = render(p, s)
    after = check_all(sources, Config.model_validate(yaml.safe_load(text) or {}))
    if "columns" in p.data:
        without = {k: v for k, v in p.data.items() if k != "columns"}
        alt = check_all(sources, Config.model_validate(without))
        extra = _count(after) - _count(alt)
        if extra > 0:
            p.columns_held = (
                f"declaring these columns would add {extra} findings (their headers are checked "
                "too); uncomment them, then run `perfbot fix` again"
            )
            text = render(p, s)
            after = alt
    p.conventions = conventions(after)
    if p.conventions or p.allow_maybe:
        adopted = dict(yaml.safe_load(text) or {})  # what the file sets, uncommented
        allow = dict(adopted.get("allow", {}))
        allow.update({line.split(":")[0]: True for line, _ in p.allow_maybe})
        if allow:
            adopted["allow"] = allow
        if p.conventions:
            adopted["rules"] = {line.split(":")[0]: "off" for line, _ in p.conventions}
        p.adopted = (_count(after), _count(check_all(sources, Config.model_validate(adopted))))
        text = render(p, s)
    return text, before, after


def _count(results: list[FileResult]) -> int:
    return sum(len(r.findings) for r in results)


def read_all(root: str) -> tuple[list[Source], list[FileError]]:
    sources, errors = [], []
    for path in walk(root):
        got = read_source(path)
        if isinstance(got, FileError):
            errors.append(got)
        else:
            sources.append(got)
    return sources, errors


def check_all(sources: Iterable[Source], config: Config) -> list[FileResult]:
    out = []
    for src in sources:
        r = check_source(src, config, require_model_tables=True)
        if r.has_model_tables:
            out.append(r)
    return out
