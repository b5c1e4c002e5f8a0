"""The check and fix machinery of the ``perfbot`` command: the files to check (jobs), the
process pool and its warm-up, the streamed output, the gate (--diff-base, --baseline).

Only ``argparse``, ``os`` and ``sys`` are imported here at module level (``perfbot --version``
imports this module): the core is imported inside the functions that use it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator
    from multiprocessing.context import BaseContext

    from ..config import Config
    from ..engine import FileResult
    from ..report.stream import Document
    from ..source import FileError, Source
    from ..targets import Target

PROG = "perfbot"


class UsageError(Exception):
    """A bad option value: printed as ``perfbot: error: ...``, exit 2."""


def benchmarks_file(config: Config, cfg_path: Any) -> str:
    """The config file that set ``benchmarks:`` (shown relative to the current folder)."""
    from ..config_tree import origins

    where = str(origins(config).get("benchmarks") or cfg_path or ".perfbot.yml")
    return os.path.relpath(where) if os.path.isabs(where) else where


def benchmark_problems(config: Config, where: str) -> str | None:
    """The problems of the ``benchmarks:`` entries, on one line, when one is an entry that
    ``perfbot bench`` and ``/perfbot rerun`` would refuse, else None. The rule is
    :func:`perfbot.runner.spec.validate_benchmarks` (the one place for it): `check` and `config`
    only ask it, so a typo fails pre-commit and CI, not the first rerun."""
    if not config.benchmarks:
        return None
    from ..runner.spec import SpecError, validate_benchmarks

    try:
        validate_benchmarks(config.benchmarks, source=where)
    except SpecError as e:
        return "; ".join(ln.removeprefix(f"{where}: ") for ln in str(e).splitlines())
    return None


def _config_named(msg: str) -> tuple[str | None, str]:
    """(the config file a message starts with, shown relative to the current folder; the rest)
    or (None, msg). Config errors start with the file's path, absolute once resolved."""
    head, sep, rest = msg.partition(": ")
    if sep and os.path.basename(head) in (".perfbot.yml", ".perfbot.yaml"):
        return (os.path.relpath(head) if os.path.isabs(head) else head), rest
    return None, msg


# --- check and fix --------------------------------------------------------------------------------


def _split_names(value: str | None) -> list[str]:
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def _resolve_rules(names: list[str], option: str) -> set[str]:
    """Rule ids named by ids, slugs or id prefixes (``PB4``); unknown names are a usage error."""
    from ..registry import all_rules, get_rule

    rules = all_rules()
    out: set[str] = set()
    for name in names:
        r = get_rule(name)
        if r is not None:
            out.add(r.id)
            continue
        prefixed = [
            x.id for x in rules if name.upper().startswith("PB") and x.id.startswith(name.upper())
        ]
        if not prefixed:
            raise UsageError(f"{option}: unknown rule {name!r} (see `perfbot rules`)")
        out.update(prefixed)
    return out


class _Selection:
    """--select / --ignore, applied by turning rules off in each file's config (so that `fix`
    only applies the fixes of selected rules, too)."""

    def __init__(self, select: str | None, ignore: str | None):
        self.select = _resolve_rules(_split_names(select), "--select") if select else None
        self.ignore = _resolve_rules(_split_names(ignore), "--ignore") if ignore else set()
        # id(config) -> (config, with the selection applied); holding the original keeps its id
        # from being reused by another config
        self._cache: dict[int, tuple[Config, Config]] = {}

    def apply(self, config: Config) -> Config:
        if self.select is None and not self.ignore:
            return config
        cached = self._cache.get(id(config))
        if cached is not None and cached[0] is config:
            return cached[1]
        from ..registry import all_rules

        settings = dict(config.rules)
        for r in all_rules():
            current = config.setting(r.id, r.slug)
            if r.id in self.ignore or (self.select is not None and r.id not in self.select):
                settings[r.id] = "off"
            elif self.select is not None and (
                current == "off" or (current is None and not r.enabled)
            ):
                settings[r.id] = r.severity  # named on the command line: run it
        new = config.model_copy(update={"rules": settings})
        self._cache[id(config)] = (config, new)
        return new


def _walk(root: str) -> Iterator[str]:
    from ..config_light import note_listing
    from ..walk import walk

    # the folders' listings spare the config search its stats (config_light.find_config_file)
    return walk(root, note_listing)


class _Job:
    """One file to check: its display path, whether it was named, and the walk root."""

    __slots__ = ("explicit", "path", "root")

    def __init__(self, path: str, explicit: bool, root: str):
        self.path = path
        self.explicit = explicit
        self.root = root


def _targets(paths: list[str], errors: list[FileError]) -> list[_Job]:
    from ..source import FileError

    jobs: list[_Job] = []
    seen: set[str] = set()
    for p in paths or ["."]:
        if os.path.isdir(p):
            found = [_Job(f, False, p) for f in _walk(p)]
        elif os.path.exists(p) or os.path.islink(p):
            found = [_Job(os.path.normpath(p), True, os.path.dirname(p) or ".")]
        else:
            errors.append(FileError(p, "no such file or directory"))
            continue
        for j in found:
            key = os.path.abspath(j.path)
            if key not in seen:
                seen.add(key)
                jobs.append(j)
    return jobs


class _Runner:
    """What `check` and `fix` share: options, configs, the model-README decision."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.errors: list[FileError] = []
        self.notes: list[str] = []
        self._printed_errors = 0  # errors already printed by emit()
        self._root: str | None = None
        self._bad_configs: set[tuple[str, str]] = set()
        self._benchmarks_seen: dict[str, str | None] = {}  # file -> its benchmarks' problems
        # (config paths, their folder) -> whether they matched a file: a `paths:` that matches
        # nothing is said, not silently a run over 0 files
        self.paths_used: dict[tuple[tuple[str, ...], str], bool] = {}
        if args.config is not None:
            from ..config import load_config
            from ..config_light import ConfigError

            config = load_config(args.config)  # a bad --config is a usage error: ConfigError
            bad = benchmark_problems(config, args.config)
            if bad is not None:
                raise ConfigError(f"{args.config}: {bad}")
        self.selection = _Selection(args.select, args.ignore)

    def target(self, job: _Job) -> Target | None:
        """The file's config (the selection applied) and whether it is a model README
        (:func:`perfbot.targets.target`), or None after a config error."""
        from pathlib import Path

        from ..config_light import ConfigError, find_config_file
        from ..source import FileError
        from ..targets import Target, WorkTree, target

        try:
            config, decision, paths_base = target(job.path, WorkTree(self.args.config), job.root)
        except ConfigError as e:
            found = find_config_file(Path(job.path).resolve().parent)
            where = os.path.relpath(found) if found else job.path
            msg = str(e)
            for prefix in (f"{found}: ", f"{where}: "):
                msg = msg.removeprefix(prefix)
            named, msg = _config_named(msg)  # a folder above's file: that file is the error
            where = named or where
            if (where, msg) not in self._bad_configs:
                self._bad_configs.add((where, msg))
                self.errors.append(FileError(where, msg))
            return None
        if config.benchmarks:
            cfg_path = self.args.config or find_config_file(Path(job.path).resolve().parent)
            where = benchmarks_file(config, cfg_path)
            if where not in self._benchmarks_seen:
                self._benchmarks_seen[where] = benchmark_problems(config, where)
                if self._benchmarks_seen[where] is not None:
                    self.errors.append(FileError(where, self._benchmarks_seen[where] or ""))
            if self._benchmarks_seen[where] is not None:
                return None
        if job.explicit and not self.args.force_exclude:
            decision = True  # a file named on the command line is checked
        elif config.paths and not job.explicit:  # pre-commit names files: no match is normal
            key = (tuple(config.paths), paths_base)
            self.paths_used.setdefault(key, False)
            if decision:
                self.paths_used[key] = True
        return Target(self.selection.apply(config), decision, paths_base)

    def jobs(self) -> Iterator[tuple[str, Config, bool | None, str | None]]:
        """(path, config, decision, root) of every file to check; nothing is read yet. ``root``
        is the folder being walked (a symlink out of it is not followed), None for a named
        file."""
        for job in _targets(self.args.paths, self.errors):
            got = self.target(job)
            if got is not None and got.decision is not False:
                yield job.path, got.config, got.decision, None if job.explicit else job.root
        for (paths, folder), used in self.paths_used.items():
            if not used and not self.args.quiet:
                where = os.path.relpath(folder) if folder else "."
                print(
                    f"{PROG}: warning: `paths: {list(paths)}` of the .perfbot.yml in {where} "
                    "matched no README file here, so none of its files were checked",
                    file=sys.stderr,
                )

    def sources(self) -> Iterator[tuple[Source, Config, bool | None]]:
        from ..source import FileError, read_source

        for path, config, decision, root in self.jobs():
            src = read_source(path, root=root)
            if isinstance(src, FileError):
                self.errors.append(src)
                continue
            yield src, config, decision

    def check(self, src: Source, config: Config, decision: bool | None) -> FileResult | None:
        from ..engine import check_source

        result = check_source(src, config, require_model_tables=decision is None)
        if decision is None and not result.has_model_tables:
            return None
        self.notes.extend(_note(src.path, n) for n in src.notes)
        return result

    # --- output -----------------------------------------------------------------------------
    def streams(self) -> bool:
        """Text and workflow-command output is printed file by file as each is checked (one
        slow file does not hold back the others' results); JSON and SARIF are one document."""
        return self.args.format in ("text", "github") and not self.args.statistics

    def root(self) -> str:
        """The repository root (cached: the walk up to ``.git`` is done once per run)."""
        if self._root is None:
            self._root = _repo_root()
        return self._root

    def emit(self, result: FileResult | None, notes: list[str], part: str | None = None) -> None:
        """Print one checked file's findings (``part``: already rendered) and notes, and the
        errors not printed yet."""
        a = self.args
        if not a.quiet:
            for n in notes:
                print(n, file=sys.stderr)
        new_errors = self.errors[self._printed_errors :]
        self._printed_errors = len(self.errors)
        if result is not None and part is None:
            from ..report.stream import part as render_part

            part = render_part(a.format, result, self.root())
        if part is None and not new_errors:
            return
        if a.format == "text":
            errors = "".join(f"{e}\n" for e in new_errors)
        else:
            from ..report.github import errors_text

            errors = errors_text(new_errors, self.root())
        sys.stdout.write((part or "") + errors)
        sys.stdout.flush()

    def report(
        self, results: list[FileResult], *, streamed: bool = False, doc: Document | None = None
    ) -> None:
        from ..report import renderer, summary_line

        a = self.args
        err = sys.stderr
        if streamed:
            self.emit(None, [])
            if a.format == "text" and not a.quiet:
                print(summary_line(results, self.errors))
            elif not a.quiet:
                print(summary_line(results, self.errors), file=err)
            return
        if not a.quiet:
            for n in self.notes:
                print(n, file=err)
        if a.format == "text":
            from ..report.text import render

            sys.stdout.write(
                render(results, self.errors, summary=not a.quiet, statistics=a.statistics)
            )
            return
        if doc is not None:  # written part by part: byte for byte the renderer's text
            doc.write(sys.stdout.write, self.errors)
        else:
            kw: dict[str, Any] = {}
            if a.format in ("sarif", "github", "rdjson"):
                kw["root"] = self.root()
            sys.stdout.write(renderer(a.format)(results, self.errors, **kw))
        if a.statistics:
            from ..report.text import render_statistics

            for line in render_statistics(results):
                print(line, file=err)
        if not a.quiet:
            print(summary_line(results, self.errors), file=err)

    def exit_code(self, results: list[FileResult]) -> int:
        from ..engine import at_or_above

        if self.errors:
            return 2
        if self.args.fail_on == "never":
            return 0
        if any(at_or_above(f.severity, self.args.fail_on) for r in results for f in r.findings):
            return 1
        return 0


def _note(path: str, note: str) -> str:
    from ..report import display_path, printable

    return f"{display_path(path)}: note: {printable(note)}"


def _repo_root() -> str:
    """The folder holding ``.git`` above the current one (SARIF/annotation paths are relative
    to it), else the current folder."""
    from ..walk import git_top

    here = os.path.abspath(os.curdir)
    return git_top(here) or here


# Below this many files and bytes a process pool costs more than it saves. Measured on 2 cores
# with bench/bench_pool.py (check --format json, each file's part rendered in the worker, the
# workers forked warm; 5 paired alternating runs, medians; pool/one wall time, "small" files
# ~3.5 kB, "large" ~15 kB):
#   quiet (load 1-1.8):  1,650 small (5.7 MB) 0.88x, 1,650 large (25 MB) 0.61x
#   load 2.5-4.3:        500 small (1.7 MB) 1.12x, 500 large (7.5 MB) 1.00x, 1,000 small (3.5 MB)
#                        1.08x, 1,000 large (15 MB) 0.64x; 4,950 small (17 MB) 0.93x, 4,950 large
#                        (75 MB) 0.85x; 165 files 1.10-1.23x
#   load 4.5-8:          50-165 files 0.87-1.23x, 500 0.70-1.85x, 1,000 0.80-1.10x, 1,650
#                        0.84-1.51x, 3,300 (12-50 MB) 1.09-1.12x
# The pool's CPU cost: about +10 % from 500 files (-8 to +23 %), +11-31 % on 50-165 files. So:
# from 1,000 files and 10 MB, and not when the machine already runs two processes per core
# (_pool_size).
# PERFBOT_JOBS=1 forces one process, PERFBOT_JOBS=N (N > 1) a pool of N.
PARALLEL_MIN_FILES = 1000
PARALLEL_MIN_BYTES = 10_000_000


def _check_one(
    job: tuple[str, Config, bool | None, str | None],
    keep_source: bool = True,
    fmt: str | None = None,
    root: str | None = None,
    packed: bool = False,
) -> tuple[FileResult | FileError | None, list, str | bytes | None]:
    """Read and check one file (also in a worker process): (result or error or None, notes,
    part). Without ``keep_source`` the result's source is dropped (a worker then does not send
    it back, nor does the main process keep it). With ``fmt`` the file's part of the output in
    that format is made here (:func:`perfbot.report.stream.part`, paths relative to ``root``;
    ``packed``: as a whole document keeps it) and the result comes back :func:`_counted`, else
    the part is None."""
    from ..engine import check_source
    from ..source import FileError, read_source

    path, config, decision, root_ = job
    src = read_source(path, root=root_)
    if isinstance(src, FileError):
        return src, [], None
    result = check_source(src, config, require_model_tables=decision is None)
    if decision is None and not result.has_model_tables:
        return None, [], None
    notes = [_note(src.path, n) for n in src.notes]
    if fmt is not None:
        from ..report.stream import pack, part

        text = part(fmt, result, root)
        return _counted(result), notes, pack(text) if packed else text
    if not keep_source:
        result.source = None
    return result, notes, None


_FIX_MARKS: dict[bool, Any] = {}


def _counted(result: FileResult) -> FileResult:
    """What the summary line and the exit code still need of a file already printed: its path,
    and each finding's rule, severity and whether (and how safely) it is fixable; not the
    source, the messages, the fixes' edits or the table and row keys. Every output keeps only
    these once the file's output is made, so peak memory does not grow with the tree (issue 11).
    The findings share one empty ``extra`` (nothing writes to it)."""
    from dataclasses import replace

    from ..fix import Fix
    from ..registry import Finding

    if not _FIX_MARKS:
        _FIX_MARKS[True] = Fix("", (), "safe")
        _FIX_MARKS[False] = Fix("", (), "unsafe")
    findings = [
        Finding(f.path, f.line, f.end_line, f.rule, f.slug, f.severity, "",
                None if f.fix is None else _FIX_MARKS[f.fix.safe], extra=_NO_EXTRA)
        for f in result.findings
    ]  # fmt: skip
    return replace(result, findings=findings, source=None)


_NO_EXTRA: dict = {}


def _fix_one(
    job: tuple[str, Config, bool | None, str | None],
    *,
    unsafe: bool = True,
    diff: bool = False,
    keep_source: bool = True,
    fmt: str | None = None,
    root: str | None = None,
) -> tuple[Any, list[str], tuple[int, tuple[str, ...], str | None] | None, FileError | None]:
    """Read, check, fix and write one file (also in a worker process, so that only small
    results travel back): (the check to report, or an error, or None when the file is not
    checked; notes; the change made or None; an error of this file's fix, or None).

    The change is (findings fixed, their rules, the unified diff or None): with ``diff`` the
    diff is made and nothing is written. The check reported is the fix loop's check of the new
    text (the file is not read or parsed again), or the first check when nothing changed or the
    fix could not be written. Without ``keep_source`` it holds no source (streamed output does
    not print it). With ``fmt`` (streamed text or github output) the check comes back as its
    part of the output in that format, made here, and :func:`_counted`, as `check` does."""
    from pathlib import Path

    from ..engine import applicable, check_source, fix_result
    from ..source import FileError, read_source

    path, config, decision, root = job
    src = read_source(path, root=root)
    if isinstance(src, FileError):
        return src, [], None, None
    result = check_source(src, config, require_model_tables=decision is None)
    if decision is None and not result.has_model_tables:
        return None, [], None, None
    notes = [_note(src.path, n) for n in src.notes]
    if not any(applicable(f, unsafe) for f in result.findings):  # one parse, nothing written
        return _kept(result, keep_source, fmt, root), notes, None, None
    try:
        # the check above is the first pass; the last pass checks the new text
        new_text, fixed, final = fix_result(src, config, first=result, unsafe=unsafe)
    except RuntimeError as e:  # fixes that do not settle: a perfbot bug, for this file only
        error = FileError(src.path, str(e).removeprefix(f"{src.path}: "))
        return _kept(result, keep_source, fmt, root), notes, None, error
    if new_text == src.text:
        return _kept(result, keep_source, fmt, root), notes, None, None
    shown = None
    if diff:
        assert final.source is not None  # the loop's Source of the new text
        shown = _unified_diff(src.path, src, final.source)
    else:
        refused = _unsafe_to_write(src.path)
        if refused:
            return _kept(result, keep_source, fmt, root), notes, None, FileError(src.path, refused)
        try:
            Path(src.path).write_bytes(src.encode(new_text))
        except OSError as e:
            error = FileError(src.path, f"cannot write: {e.strerror or e}")
            return _kept(result, keep_source, fmt, root), notes, None, error
    change = (len(fixed), tuple(sorted({f.rule for f in fixed})), shown)
    return _kept(final, keep_source, fmt, root), notes, change, None


def _kept(
    result: FileResult, keep_source: bool, fmt: str | None = None, root: str | None = None
) -> FileResult | tuple[FileResult, str]:
    if fmt is not None:
        from ..report.stream import part

        return _counted(result), part(fmt, result, root)
    if not keep_source:
        result.source = None
    return result


def _pool_size(jobs: list) -> int:
    """Worker processes for ``jobs`` (each ``(path, ...)``): 0 when one process is faster."""
    forced = os.environ.get("PERFBOT_JOBS", "")
    if forced.isdigit():
        return int(forced) if int(forced) > 1 else 0
    cores = os.cpu_count() or 1
    if cores < 2 or len(jobs) < PARALLEL_MIN_FILES:
        return 0
    try:
        if os.getloadavg()[0] >= 2 * cores:  # no core to spare: the pool only adds its cost
            return 0
    except OSError:
        pass
    size = 0
    for job in jobs:
        with contextlib.suppress(OSError):
            size += os.stat(job[0]).st_size
        if size >= PARALLEL_MIN_BYTES:
            return cores
    return 0


# a README with both guide tables and fixable findings: what the main process checks before it
# forks the pool, so that every worker starts with the imports, the guide, the matrix and the
# compiled patterns a check needs, instead of each paying for them again (~0.25 s CPU a process)
_WARM_README = """\
## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:---------:|:-------------:|:--------:|:-------------------:|
| 2.3.1     | 24.1.RC2      | 7.3.0.1.231 | 8.0.RC3.beta1    |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 60    | [yaml](./a.yaml) |
"""


WARM_PATH = "<perfbot warm-up>/README.md"


def _warm(func: Any) -> None:
    """Check (and render, as ``func`` would) :data:`_WARM_README` in this process."""
    import functools

    from ..engine import check_source
    from ..source import Source

    result = check_source(Source.from_text(_WARM_README, path=WARM_PATH))
    fmt = func.keywords.get("fmt") if isinstance(func, functools.partial) else None
    if fmt:
        from ..report.stream import part

        part(fmt, result, None)


def _map_checks(jobs: list, func: Any = _check_one) -> Iterator:
    """``func`` (check or fix) over the files in order, on every core when there are many
    (results keep their order)."""
    workers = _pool_size(jobs)
    if workers < 2:
        yield from map(func, jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx: BaseContext
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        ctx = multiprocessing.get_context()
    else:
        _warm(func)  # the workers inherit it
    # 16 chunks a worker: the last chunks finish closer together than with 4 (each a 1/8 of the
    # work on 2 cores); x10 tree, 10 alternating runs: median wall 1.18 s against 1.25 s, CPU alike
    chunk = max(1, len(jobs) // (workers * 16))
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        yield from pool.map(func, jobs, chunksize=chunk)


class _Gate:
    """--min-severity, --diff-base and --baseline, applied file by file (so text output can still
    stream): the diff and the baseline are read before any file is checked; a bad ref or
    baseline is a usage error."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.scope = self.mode = self.baseline = None
        self.outside = self.below = 0
        if args.diff_base:
            from ..gitdiff import GitError, changed
            from ..hunks import FilterMode

            try:
                self.scope = changed(args.diff_base)
            except GitError as e:
                raise UsageError(str(e)) from None
            self.mode = FilterMode.parse(args.filter_mode)
        if args.baseline:
            from ..baseline import Baseline, BaselineError

            try:
                self.baseline = Baseline.load(args.baseline).matcher()
            except BaselineError as e:
                raise UsageError(str(e)) from None

    def filter(self, r: FileResult) -> FileResult:
        from dataclasses import replace

        from ..engine import at_or_above

        level = self.args.min_severity
        if level != "info":
            shown = [f for f in r.findings if at_or_above(f.severity, level)]
            self.below += len(r.findings) - len(shown)
            if len(shown) != len(r.findings):
                r = replace(r, findings=shown)
        if self.scope is not None and self.mode is not None:  # set together
            keep = [f for f in r.findings
                    if self.scope.keeps(self.mode, f.path, f.line, f.end_line)]  # fmt: skip
            self.outside += len(r.findings) - len(keep)
            if len(keep) != len(r.findings):
                r = replace(r, findings=keep)
        if self.baseline is not None:
            r = self.baseline.filter_one(r)
        return r

    def notes(self) -> list[str]:
        a = self.args
        out = []
        if self.below:
            out.append(f"{PROG}: {self.below} finding(s) below {a.min_severity} not shown")
        if self.outside:
            out.append(
                f"{PROG}: {self.outside} finding(s) outside the lines changed since "
                f"{a.diff_base} ({a.filter_mode}) not shown"
            )
        if self.baseline is not None:
            if self.baseline.hidden:
                out.append(f"{PROG}: {self.baseline.hidden} finding(s) in {a.baseline} not shown")
            stale = self.baseline.stale()
            if stale:
                out.append(
                    f"{PROG}: {stale} finding(s) of {a.baseline} are gone; "
                    f"`{PROG} check --write-baseline {a.baseline}` records that"
                )
        return out


def _unified_diff(path: str, old: Source, new: Source) -> str:
    import difflib

    a = [c + e for c, e in zip(old.lines, old.eols, strict=True)]
    b = [c + e for c, e in zip(new.lines, new.eols, strict=True)]
    out = []
    from ..report import printable

    shown = printable(path)
    for line in difflib.unified_diff(a, b, fromfile=f"a/{shown}", tofile=f"b/{shown}"):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _unsafe_to_write(path: str) -> str | None:
    """Why ``fix`` must not write ``path``, or None. A symlink is written through only when its
    target is inside the repository holding the link (the folder with ``.git`` above it, else
    the link's own folder): a checked-out tree cannot make ``fix`` rewrite a file elsewhere."""
    from ..source import outside

    if not os.path.islink(path):
        return None
    here = os.path.dirname(os.path.abspath(path))
    tree = here
    d = here
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            tree = d
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    if outside(path, tree):
        return f"is a symlink to a file outside {tree}; not written"
    return None
