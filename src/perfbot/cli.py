"""The ``perfbot`` command: parse arguments, walk files, call the core, print, return an exit code.

Exit codes: 0 clean, 1 findings at or above ``--fail-on`` (or, for ``fix --diff``, changes to
make), 2 usage, I/O or config errors. A file that cannot be read is reported as
``path: error: message`` and the other files are still checked.

Only ``argparse``, ``os`` and ``sys`` are imported here at module level, so ``perfbot --version``
stays fast: the core is imported inside the command functions, and the edge commands (``review``,
``post``, ``command``, ``bench``, ``plan``, ``report``) only when they run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .config import Config
    from .engine import FileResult
    from .report.stream import Document
    from .source import FileError, Source
    from .targets import Target

PROG = "perfbot"
FORMATS = ("text", "json", "sarif", "github", "rdjson")
FAIL_ON = ("error", "warning", "info", "never")
SKIP_DIRS = frozenset({".git", "node_modules"})

# edge command -> (module, function); each owns its own argparse
EDGES: dict[str, tuple[str, str, str]] = {
    "review": ("perfbot.github.review", "review_main", "post findings as a pull request review"),
    "post": ("perfbot.github.review", "post_main", "post a saved review"),
    "command": ("perfbot.github.command", "command_main", "handle a /perfbot comment command"),
    "bench": ("perfbot.runner.bench", "bench_main", "measure step times on a runner"),
    "plan": ("perfbot.runner.plan", "plan_main", "plan benchmark jobs from the matrix"),
    "report": (
        "perfbot.runner.report",
        "report_main",
        "merge benchmark results into one review of refreshed rows (/perfbot rerun)",
    ),
}


class UsageError(Exception):
    """A bad option value: printed as ``perfbot: error: ...``, exit 2."""


def benchmarks_file(config: Config, cfg_path: Any) -> str:
    """The config file that set ``benchmarks:`` (shown relative to the current folder)."""
    from .config_tree import origins

    where = str(origins(config).get("benchmarks") or cfg_path or ".perfbot.yml")
    return os.path.relpath(where) if os.path.isabs(where) else where


def benchmark_problems(config: Config, where: str) -> str | None:
    """The problems of the ``benchmarks:`` entries, on one line, when one is an entry that
    ``perfbot bench`` and ``/perfbot rerun`` would refuse, else None. The rule is
    :func:`perfbot.runner.spec.validate_benchmarks` (the one place for it): `check` and `config`
    only ask it, so a typo fails pre-commit and CI, not the first rerun."""
    if not config.benchmarks:
        return None
    from .runner.spec import SpecError, validate_benchmarks

    try:
        validate_benchmarks(config.benchmarks, source=where)
    except SpecError as e:
        return "; ".join(ln.removeprefix(f"{where}: ") for ln in str(e).splitlines())
    return None


# --- arguments ------------------------------------------------------------------------------------


def _version() -> str:
    from . import __version__

    return f"{PROG} {__version__}"


def _lint_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="exit 1 when a finding is at or above this severity (default: error)",
    )
    p.add_argument("--config", metavar="FILE", help="use this .perfbot.yml for every file")
    p.add_argument("--select", metavar="RULES", help="only these rules (ids, slugs or id prefixes)")
    p.add_argument("--ignore", metavar="RULES", help="skip these rules (ids, slugs or id prefixes)")
    p.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    p.add_argument(
        "-o", "--output-file", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text format (auto: on a terminal, unless NO_COLOR is set)",
    )
    p.add_argument("--statistics", action="store_true", help="count findings per rule")
    p.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the config's paths/exclude and the content test to files named on the "
        "command line too (for pre-commit, which names every README)",
    )


FILTER_MODES = ("added", "diff_context", "file")


def _gate_options(p: argparse.ArgumentParser) -> None:
    """Options that narrow `check` to new findings: a baseline, or the lines changed since a ref."""
    p.add_argument(
        "--baseline",
        metavar="FILE",
        help="leave out the findings recorded in FILE (see --write-baseline)",
    )
    p.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="record today's findings in FILE (matched by file, table, row and rule, not line)",
    )
    p.add_argument(
        "--diff-base",
        metavar="REF",
        help="only findings on what changed since the git ref REF (`git diff REF`, untracked "
        "files included)",
    )
    p.add_argument(
        "--add-noqa",
        action="store_true",
        help="silence today's findings with <!-- perfbot-disable-next-table ... --> comments "
        "written into the READMEs (ruff's --add-noqa)",
    )
    p.add_argument(
        "--filter-mode",
        choices=FILTER_MODES,
        default="diff_context",
        help="with --diff-base: `added` (a finding's lines were added), `diff_context` (they are "
        "in a changed hunk; the default, as in the review) or `file` (the file changed)",
    )


def _check_options(p: argparse.ArgumentParser) -> None:
    _lint_options(p)
    _gate_options(p)
    p.add_argument(
        "--explain-tables",
        action="store_true",
        help="print what perfbot recognised each table as (kind, why, column meanings) instead "
        "of findings",
    )


def _fix_options(p: argparse.ArgumentParser) -> None:
    _lint_options(p)
    p.add_argument("--diff", action="store_true", help="print a unified diff, write nothing")
    p.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply the unsafe fixes (those that change a measured or declared value: a "
        "recomputed img/s, a CANN version)",
    )


def _rules_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def _matrix_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", help="whose .perfbot.yml to merge (default: .)")
    p.add_argument("--config", metavar="FILE", help="use this .perfbot.yml")
    p.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format"
    )


def _config_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", help="a file or folder (default: .)")
    p.add_argument("--config", metavar="FILE", help="use this .perfbot.yml")
    p.add_argument("--format", choices=("yaml", "json"), default="yaml", help="output format")
    p.add_argument(
        "--schema", action="store_true", help="print the JSON Schema of .perfbot.yml instead"
    )


def _init_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", help="the repository's folder (default: .)")
    p.add_argument("--stdout", action="store_true", help="print the config, write nothing")
    p.add_argument("--force", action="store_true", help="replace an existing .perfbot.yml")


def _rule_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", metavar="RULE", help="a rule id (PB401) or slug (img-s-mismatch)")
    p.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="output format"
    )


def _docs_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    p.add_argument("--output", metavar="FILE", help="where to write (default: docs/rules.md)")


# sub-command -> (add_parser's keywords, the function adding its options), in --help's order
SUBCOMMANDS: dict[str, tuple[dict[str, Any], Any]] = {
    "check": ({"help": "report findings"}, _check_options),
    "fix": ({"help": "apply the fixes in place"}, _fix_options),
    "rules": ({"help": "list the rules"}, _rules_options),
    "matrix": ({"help": "print the effective compatibility matrix"}, _matrix_options),
    "config": (
        {"help": "print the effective .perfbot.yml of a folder and where each value is from"},
        _config_options,
    ),
    "init": (
        {"help": "write a first .perfbot.yml from the conventions the READMEs already follow"},
        _init_options,
    ),
    "rule": ({"help": "print a rule's documentation"}, _rule_options),
    # a maintainer command (regenerates perfbot's own docs/rules.md): not in users' help
    "docs": ({}, _docs_options),
    **{name: ({"help": help_, "add_help": False}, None) for name, (_, _, help_) in EDGES.items()},
}


def _needed(argv: list[str] | None) -> str | None:
    """The one sub-command parsing ``argv`` can reach ("" for none), or None (all of them).

    The top-level parser has no options but --help and --version, so a first argument that names a
    sub-command is that sub-command, and `--version` first prints the version and exits before
    any other argument is looked at. Anything else (--help, a misspelt command, nothing) gets
    every sub-command, for their list and the error messages."""
    if not argv:
        return None
    if argv[0] in SUBCOMMANDS:
        return argv[0]
    return "" if argv[0] == "--version" else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``perfbot`` parser. Given the ``argv`` it will parse, only the sub-command that
    ``argv`` names gets its options (a cold `perfbot check` builds one sub-parser, not 15)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,  # an abbreviated option is an error, never another option
        description="Check and fix the Requirements and Performance tables of MindSpore model "
        "READMEs.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    only = _needed(argv)
    for name, (kw, options) in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        p = sub.add_parser(name, allow_abbrev=False, **kw)
        if name == "docs":
            sub._choices_actions = [a for a in sub._choices_actions if a.dest != "docs"]
        if options is not None:
            options(p)
    return parser


def _meant(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """ "; options are never abbreviated: did you mean --write-baseline?" for an unknown option
    that starts a known one of the sub-command (argparse's own abbreviations are off)."""
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    known = [o for p in (sub.choices.values() if sub else ()) for o in p._option_string_actions]
    for word in extra:
        name = word.split("=", 1)[0]
        if name.startswith("--") and len(name) > 2:
            longer = sorted(o for o in set(known) if o.startswith(name) and o != name)
            if longer:
                return f"; options are never abbreviated: did you mean {' or '.join(longer)}?"
    return ""


# --- entry point ----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Run perfbot on ``argv``; without it, on ``sys.argv`` as the program (``sys.exit(main())``:
    the console script and ``python -m perfbot``), and then the process is about to end."""
    if argv is not None:
        return _guarded(list(argv))
    code = _guarded(sys.argv[1:])
    _before_exit()
    return code


def _before_exit() -> None:
    """The interpreter's clean-up at exit runs full garbage collections over every object
    perfbot made or imported (~9 ms of a one-README check, issue 11). Frozen objects are skipped
    by them; they are still freed when their modules are cleared, atexit handlers and buffered
    output run as before; only reference cycles are left to the end of the process."""
    import gc

    gc.freeze()


def _guarded(argv: list[str]) -> int:
    try:
        return _main(argv)
    except SystemExit as e:  # argparse (--help, --version, bad options) and edges' own parsers
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        print(e.code, file=sys.stderr)
        return 1  # sys.exit("message"), as Python itself does
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`perfbot check | head`): not an error worth a message
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 1
    except Exception as e:
        if os.environ.get("PERFBOT_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        print(
            f"{PROG}: this is a perfbot bug; rerun with PERFBOT_DEBUG=1 for a traceback and "
            "report it with the README that caused it",
            file=sys.stderr,
        )
        return 2


def _main(argv: list[str]) -> int:
    parser = build_parser(argv)
    if argv and not argv[0].startswith("-") and argv[0] not in SUBCOMMANDS:
        import difflib

        shown = [n for n in SUBCOMMANDS if n != "docs"]
        guess = difflib.get_close_matches(argv[0], shown, 1)
        meant = f"; did you mean `{PROG} {guess[0]}`?" if guess else ""
        parser.error(f"unknown command {argv[0]!r}{meant} (commands: {', '.join(shown)})")
    args, extra = parser.parse_known_args(argv)
    if args.command in EDGES:
        rest = argv[argv.index(args.command) + 1 :]
        return _run_edge(args.command, rest)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}{_meant(parser, extra)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    from .config_light import ConfigError  # not .config: no pydantic without a config file

    if args.command in ("check", "fix"):
        _tune_gc()
    try:
        with _output(args):
            return COMMANDS[args.command](args)
    except (ConfigError, UsageError) as e:
        from .report import printable

        named, msg = _config_named(str(e))
        text = f"{named}: {msg}" if named else msg
        print(f"{PROG}: error: {printable(text)}", file=sys.stderr)
        return 2


def _config_named(msg: str) -> tuple[str | None, str]:
    """(the config file a message starts with, shown relative to the current folder; the rest)
    or (None, msg). Config errors start with the file's path, absolute once resolved."""
    head, sep, rest = msg.partition(": ")
    if sep and os.path.basename(head) in (".perfbot.yml", ".perfbot.yaml"):
        return (os.path.relpath(head) if os.path.isabs(head) else head), rest
    return None, msg


@contextlib.contextmanager
def _output(args: argparse.Namespace) -> Iterator[None]:
    """stdout for the report: --output-file FILE, coloured for --color in the text format."""
    path = getattr(args, "output_file", None)
    saved = sys.stdout
    fh = None
    if path:
        try:
            fh = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed below
        except OSError as e:
            raise UsageError(f"--output-file {path}: {e.strerror or e}") from None
        sys.stdout = fh
    writer = None
    if getattr(args, "format", None) == "text" and hasattr(args, "color"):
        from .report.color import ColourWriter, wanted

        if wanted(args.color, sys.stdout):
            writer = ColourWriter(sys.stdout)
            sys.stdout = writer  # type: ignore[assignment]
    try:
        yield
    finally:
        if writer is not None:
            writer.flush()
        sys.stdout = saved
        if fh is not None:
            fh.close()


def _tune_gc() -> None:
    """A run allocates many small objects that live until the end (findings, cells, rows) and
    makes no reference cycles worth collecting early: collect far less often (issue 11: 0.85x of
    check's time). Worker processes inherit it."""
    import gc

    gc.set_threshold(100_000, 50, 100)


def _run_edge(name: str, argv: list[str]) -> int:
    import importlib

    module, func = EDGES[name][:2]
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (e.name == "github" or e.name.startswith("github.")):
            print(
                f"{PROG}: error: `{PROG} {name}` needs PyGithub: pip install 'perfbot[github]'",
                file=sys.stderr,
            )
        else:
            print(f"{PROG}: error: `{PROG} {name}` is not available ({e})", file=sys.stderr)
        return 2
    rc = getattr(mod, func)(argv)
    return 0 if rc is None else int(rc)


# --- check and fix --------------------------------------------------------------------------------


def _split_names(value: str | None) -> list[str]:
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def _resolve_rules(names: list[str], option: str) -> set[str]:
    """Rule ids named by ids, slugs or id prefixes (``PB4``); unknown names are a usage error."""
    from .registry import all_rules, get_rule

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
        from .registry import all_rules

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
    from .config_light import note_listing
    from .walk import walk

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
    from .source import FileError

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
            from .config import load_config
            from .config_light import ConfigError

            config = load_config(args.config)  # a bad --config is a usage error: ConfigError
            bad = benchmark_problems(config, args.config)
            if bad is not None:
                raise ConfigError(f"{args.config}: {bad}")
        self.selection = _Selection(args.select, args.ignore)

    def target(self, job: _Job) -> Target | None:
        """The file's config (the selection applied) and whether it is a model README
        (:func:`perfbot.targets.target`), or None after a config error."""
        from pathlib import Path

        from .config_light import ConfigError, find_config_file
        from .source import FileError
        from .targets import Target, WorkTree, target

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
        from .source import FileError, read_source

        for path, config, decision, root in self.jobs():
            src = read_source(path, root=root)
            if isinstance(src, FileError):
                self.errors.append(src)
                continue
            yield src, config, decision

    def check(self, src: Source, config: Config, decision: bool | None) -> FileResult | None:
        from .engine import check_source

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
            from .report.stream import part as render_part

            part = render_part(a.format, result, self.root())
        if part is None and not new_errors:
            return
        if a.format == "text":
            errors = "".join(f"{e}\n" for e in new_errors)
        else:
            from .report.github import errors_text

            errors = errors_text(new_errors, self.root())
        sys.stdout.write((part or "") + errors)
        sys.stdout.flush()

    def report(
        self, results: list[FileResult], *, streamed: bool = False, doc: Document | None = None
    ) -> None:
        from .report import renderer, summary_line

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
            from .report.text import render

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
            from .report.text import render_statistics

            for line in render_statistics(results):
                print(line, file=err)
        if not a.quiet:
            print(summary_line(results, self.errors), file=err)

    def exit_code(self, results: list[FileResult]) -> int:
        from .engine import at_or_above

        if self.errors:
            return 2
        if self.args.fail_on == "never":
            return 0
        if any(at_or_above(f.severity, self.args.fail_on) for r in results for f in r.findings):
            return 1
        return 0


def _note(path: str, note: str) -> str:
    from .report import display_path, printable

    return f"{display_path(path)}: note: {printable(note)}"


def _repo_root() -> str:
    """The folder holding ``.git`` above the current one (SARIF/annotation paths are relative
    to it), else the current folder."""
    from .walk import git_top

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
    from .engine import check_source
    from .source import FileError, read_source

    path, config, decision, root_ = job
    src = read_source(path, root=root_)
    if isinstance(src, FileError):
        return src, [], None
    result = check_source(src, config, require_model_tables=decision is None)
    if decision is None and not result.has_model_tables:
        return None, [], None
    notes = [_note(src.path, n) for n in src.notes]
    if fmt is not None:
        from .report.stream import pack, part

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

    from .fix import Fix
    from .registry import Finding

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

    from .engine import applicable, check_source, fix_result
    from .source import FileError, read_source

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
        from .report.stream import part

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

    from .engine import check_source
    from .source import Source

    result = check_source(Source.from_text(_WARM_README, path=WARM_PATH))
    fmt = func.keywords.get("fmt") if isinstance(func, functools.partial) else None
    if fmt:
        from .report.stream import part

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
    """--diff-base and --baseline, applied file by file (so text output can still stream): the
    diff and the baseline are read before any file is checked; a bad ref or baseline is a usage
    error."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.scope = self.mode = self.baseline = None
        self.outside = 0
        if args.diff_base:
            from .gitdiff import GitError, changed
            from .hunks import FilterMode

            try:
                self.scope = changed(args.diff_base)
            except GitError as e:
                raise UsageError(str(e)) from None
            self.mode = FilterMode.parse(args.filter_mode)
        if args.baseline:
            from .baseline import Baseline, BaselineError

            try:
                self.baseline = Baseline.load(args.baseline).matcher()
            except BaselineError as e:
                raise UsageError(str(e)) from None

    def filter(self, r: FileResult) -> FileResult:
        from dataclasses import replace

        if self.scope is not None:
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


def _may_overwrite(path: str) -> None:
    """--write-baseline replaces only a perfbot baseline (or writes a new file): a README or any
    other file there is a usage error, before anything is checked."""
    from .baseline import Baseline, BaselineError

    if not os.path.lexists(path):
        return
    try:
        Baseline.load(path)
    except BaselineError as e:
        raise UsageError(
            f"--write-baseline: {e}; perfbot overwrites only a baseline it wrote (remove the "
            "file or choose another name)"
        ) from None


def _write_baseline(args: argparse.Namespace, run: _Runner, results: list[FileResult]) -> int:
    from .baseline import render
    from .report import summary_line

    path = args.write_baseline
    text = render(results, os.path.dirname(os.path.abspath(path)))
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None
    for e in run.errors:
        print(e, file=sys.stderr)
    print(f"wrote {path}: {summary_line(results, run.errors)}", file=sys.stderr)
    return 2 if run.errors else 0


def _add_noqa(args: argparse.Namespace, run: _Runner, results: list[FileResult]) -> int:
    from pathlib import Path

    from .config import config_for
    from .noqa import directives
    from .source import FileError

    total = files = 0
    for r in results:
        if not r.findings or r.source is None:
            continue
        config = run.selection.apply(config_for(r.path, args.config)[0])
        got = directives(r, config)
        if got is None:
            continue
        text, n = got
        try:
            Path(r.path).write_bytes(r.source.encode(text))
        except OSError as e:
            run.errors.append(FileError(r.path, f"cannot write: {e.strerror or e}"))
            continue
        total += n
        files += 1
        if not args.quiet:
            print(f"{r.path}: added {n} directive(s)", file=sys.stderr)
    for e in run.errors:
        print(e, file=sys.stderr)
    print(f"Added {total} directive(s) in {files} file(s)", file=sys.stderr)
    return 2 if run.errors else 0


def _explain_tables(run: _Runner) -> int:
    from .context import Context
    from .recognise import explain

    for src, config, _decision in run.sources():
        ctx = Context(src, config)
        lines = explain(ctx.recognition)
        print(f"{src.path}: {len(ctx.recognition)} table(s)")
        for line in lines:
            print(f"  {line}")
    for e in run.errors:
        print(e, file=sys.stderr)
    return 2 if run.errors else 0


def cmd_check(args: argparse.Namespace) -> int:
    from .report.stream import Document, pack, part
    from .source import FileError

    if args.write_baseline and (args.baseline or args.diff_base):
        raise UsageError("--write-baseline records every finding: drop --baseline/--diff-base")
    if args.add_noqa and (args.write_baseline or args.baseline or args.diff_base):
        raise UsageError("--add-noqa silences every finding: drop the other gate options")
    if args.write_baseline:
        _may_overwrite(args.write_baseline)
    run = _Runner(args)
    if getattr(args, "explain_tables", False):
        return _explain_tables(run)
    gate = _Gate(args) if (args.diff_base or args.baseline) else None
    results = []
    fmt = args.format
    # a baseline or noqa run writes files from every whole result; any other run keeps only what
    # the summary counts of a file (_counted) once its part of the output is made: text and
    # github lines are printed at once, JSON/SARIF/rdjson (and github with --statistics) parts
    # wait in `doc` for the document's opening, which counts them (issue 11: peak memory)
    keep = bool(args.write_baseline or args.add_noqa)
    stream = run.streams() and not keep
    doc = None if keep or stream or fmt == "text" else Document(fmt, run.root())
    parts = stream or doc is not None
    # the part is made in the worker (the main process only writes), unless the gate must first
    # drop findings: then here, after it
    in_worker = parts and gate is None
    import functools

    check = functools.partial(
        _check_one,
        keep_source=keep or (parts and not in_worker and fmt in ("json", "sarif", "rdjson")),
        fmt=fmt if in_worker else None,
        root=run.root() if in_worker else None,
        packed=doc is not None,
    )
    for got, notes, p in _map_checks(list(run.jobs()), check):
        if isinstance(got, FileError):
            run.errors.append(got)
        elif got is not None:
            if gate is not None:
                got = gate.filter(got)
            if p is None:  # not made in the worker
                if parts:
                    p = part(fmt, got, run.root())
                    if doc is not None:
                        p = pack(p)
                if not keep:
                    got = _counted(got)
            results.append(got)
            run.notes.extend(notes)
            if doc is not None:
                doc.add(got, p)
        if stream:
            run.emit(None, notes, part=p)  # type: ignore[arg-type]  # streamed: a str
    if args.write_baseline:
        return _write_baseline(args, run, results)
    if args.add_noqa:
        return _add_noqa(args, run, results)
    if gate is not None and not args.quiet:
        for note in gate.notes():
            print(note, file=sys.stderr)
    run.report(results, streamed=stream, doc=doc)
    return run.exit_code(results)


def _unified_diff(path: str, old: Source, new: Source) -> str:
    import difflib

    a = [c + e for c, e in zip(old.lines, old.eols, strict=True)]
    b = [c + e for c, e in zip(new.lines, new.eols, strict=True)]
    out = []
    from .report import printable

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
    from .source import outside

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


def cmd_fix(args: argparse.Namespace) -> int:
    import functools

    from .report import display_path, plural
    from .source import FileError

    if args.diff and args.format not in ("text", "json"):
        raise UsageError(f"fix --diff prints a diff (text) or JSON, not {args.format}")
    run = _Runner(args)
    results: list[FileResult] = []
    fixed_total = 0
    changed: list[tuple[str, int]] = []
    diffs: list[dict[str, Any]] = []  # fix --diff --format json

    quiet = args.quiet
    # what was fixed: stdout for text output, else stderr (stdout stays a diff / JSON / SARIF)
    out = sys.stdout if args.format == "text" and not args.diff else sys.stderr
    verb = "would fix" if args.diff else "fixed"
    # text and github output: each file's lines as soon as it is done (see _Runner.streams)
    stream = run.streams() and not args.diff
    # read, check, fix and write in the pool when it pays (the same decision as check's); the
    # output is printed here, in order. The source comes back only for a report that prints it
    # (JSON, SARIF: the fixes' text), not for streamed output or a diff.
    # Streamed output's lines are made there too, and the check comes back counted (as check's).
    fix_job = functools.partial(
        _fix_one,
        unsafe=args.unsafe_fixes,
        diff=args.diff,
        keep_source=not (stream or args.diff),
        fmt=args.format if stream else None,
        root=run.root() if stream else None,
    )
    for got, notes, change, error in _map_checks(list(run.jobs()), fix_job):
        if got is None:
            if stream:
                run.emit(None, [])
            continue
        if isinstance(got, FileError):
            run.errors.append(got)
            continue
        shown_part = None
        if stream:
            got, shown_part = got
        run.notes.extend(notes)
        if error is not None:
            run.errors.append(error)
        if change is not None:
            n, rules, shown = change
            if args.diff and args.format == "json":
                diffs.append({"path": got.path, "fixed": n, "rules": list(rules), "diff": shown})
            elif args.diff:
                sys.stdout.write(shown or "")
            fixed_total += n
            changed.append((got.path, n))
        results.append(got)
        if stream:
            if not quiet and change is not None:
                print(f"{display_path(got.path)}: {verb} {plural(change[0], 'finding')}", file=out)
            run.emit(None, notes, part=shown_part)

    if not quiet:
        for path, n in [] if stream else changed:
            print(f"{display_path(path)}: {verb} {plural(n, 'finding')}", file=out)
        if changed:
            n_files = plural(len(changed), "file")
            print(f"{verb.capitalize()} {plural(fixed_total, 'finding')} in {n_files}", file=out)
        elif results or not run.errors:  # not when no file could even be read
            print("Nothing to fix", file=out)
        left = 0 if args.unsafe_fixes else sum(f.unsafe_fix for r in results for f in r.findings)
        if left:
            they, them = ("it changes", "it") if left == 1 else ("they change", "them")
            print(
                f"{plural(left, 'unsafe fix', 'unsafe fixes')} not applied ({they} a measured "
                f"or declared value): review {them}, then run `perfbot fix --unsafe-fixes`",
                file=out,
            )
    if args.diff:
        if args.format == "json":
            import json

            errs = [{"path": e.path, "message": e.message} for e in run.errors]
            data = {"version": 1, "changes": diffs, "errors": errs}
            sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        else:
            for e in run.errors:
                print(e, file=sys.stderr)
        return 2 if run.errors else (1 if changed else 0)
    run.report(results, streamed=stream)
    return run.exit_code(results)


# --- rules, matrix, docs --------------------------------------------------------------------------


def cmd_rules(args: argparse.Namespace) -> int:
    from .registry import all_rules

    rules = all_rules()
    if args.format == "json":
        import json

        data = [
            {
                "id": r.id,
                "slug": r.slug,
                "severity": r.severity,
                "fix": r.fix,
                "fix_safety": r.fix_safety,
                "family": r.family,
                "enabled": r.enabled,
                "config_keys": list(r.config_keys),
                "summary": r.summary,
            }
            for r in rules
        ]
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return 0
    rows = [("id", "slug", "severity", "fix", "safety", "summary")]
    rows += [
        (r.id, r.slug, r.severity + ("" if r.enabled else " (off)"), r.fix, r.fix_safety,
         r.summary)
        for r in rules
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(5)]
        print("  ".join([*cells, row[5]]).rstrip())
    return 0


def cmd_matrix(args: argparse.Namespace) -> int:
    from .config import config_for

    try:
        from .spec.matrix import Matrix
    except ImportError as e:
        print(f"{PROG}: error: the compatibility matrix is not available ({e})", file=sys.stderr)
        return 2
    target = os.path.join(args.path, "README.md") if os.path.isdir(args.path) else args.path
    config, cfg_path = config_for(target, args.config)
    rows = [r.model_dump(exclude_none=True) for r in config.matrix]
    matrix = Matrix.builtin().merged(rows) if rows else Matrix.builtin()
    if args.format == "json":
        import json

        data = {
            "config": str(cfg_path) if cfg_path else None,
            "rows": [matrix.describe(r) for r in matrix.rows()],
            "cann": matrix.cann_facts(),
            "errors": list(matrix.errors),
        }
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        # the recommended pairing, then the CANN the release accepts (its wheel's run_check)
        out = [
            "| mindspore | ascend driver | firmware | cann toolkit/kernel "
            "| accepted cann | origin |",
            "| :-------: | :-----------: | :------: | :-----------------: "
            "| :-----------: | :----: |",
        ]
        for r in matrix.rows():
            cells = [r.mindspore, r.driver, r.firmware, r.cann, matrix.accepted_text(r), r.origin]
            out.append("| " + " | ".join(c if c else "-" for c in cells) + " |")
        print("\n".join(out))
        print(
            "\nrecommended pairing: the first four columns; accepted cann: what the release's "
            "wheel accepts (a CANN outside it is a PB501 error, inside it but not the "
            "recommended one a warning; `-`: no wheel read, only the recommended CANN and its "
            "patch releases)."
        )
        notes = [f"- {r.mindspore} {k}: {t}" for r in matrix.rows() for k, t in r.notes.items()]
        if notes:
            print("\nnotes (`--format json` has every row's sources):\n" + "\n".join(notes))
        if cfg_path is not None:
            print(f"{len(rows)} row(s) from {cfg_path}", file=sys.stderr)
    for e in matrix.errors:
        where = f"{cfg_path}: " if cfg_path else ""
        print(f"{PROG}: error: {where}{e}", file=sys.stderr)
    return 2 if matrix.errors else 0


def cmd_docs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .docs import default_path, render_rules_md

    path = Path(args.output) if args.output else default_path()
    if path is None:
        raise UsageError(
            "`perfbot docs` regenerates perfbot's own docs/rules.md, and this perfbot is not run "
            "from its source checkout: name the file with --output FILE"
        )
    text = render_rules_md()
    try:
        current = path.read_text(encoding="utf-8") if path.exists() else None
    except OSError as e:
        print(f"{path}: error: cannot read: {e.strerror or e}", file=sys.stderr)
        return 2
    if args.check:
        if current != text:
            print(f"{path} is out of date; run `perfbot docs` to regenerate it", file=sys.stderr)
            return 1
        return 0
    if current == text:
        print(f"{path} is up to date", file=sys.stderr)
        return 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as e:
        print(f"{path}: error: cannot write: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {path}", file=sys.stderr)
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    from .config import config_for
    from .config_view import render_json, render_yaml, schema_text

    if args.schema:
        sys.stdout.write(schema_text())
        return 0
    if not os.path.exists(args.path):
        raise UsageError(f"{args.path}: no such file or directory")
    target = os.path.join(args.path, "README.md") if os.path.isdir(args.path) else args.path
    config, cfg_path = config_for(target, args.config)
    where = benchmarks_file(config, cfg_path)
    bad = benchmark_problems(config, where)
    if bad is not None:
        from .config_light import ConfigError

        raise ConfigError(f"{where}: {bad}")
    render = render_json if args.format == "json" else render_yaml
    sys.stdout.write(render(config, cfg_path))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from .init import propose, read_all, settle, survey
    from .report import summary_line

    if not os.path.isdir(args.path):
        raise UsageError(f"{args.path}: not a folder")
    target = os.path.join(args.path, ".perfbot.yml")
    existing = [n for n in (".perfbot.yml", ".perfbot.yaml") if os.path.exists(
        os.path.join(args.path, n))]  # fmt: skip
    if existing and not (args.force or args.stdout):
        raise UsageError(
            f"{os.path.join(args.path, existing[0])} exists; `--stdout` prints a proposal, "
            "`--force` replaces it"
        )
    sources, errors = read_all(args.path)
    for e in errors:
        print(e, file=sys.stderr)
    s = survey(sources)
    text, before, after = settle(propose(s), s, sources)
    import yaml

    if args.stdout:
        sys.stdout.write(text)
    elif not yaml.safe_load(text):  # nothing to set: a file of `{}` would only say the defaults
        print(
            f"{PROG}: no convention is followed by enough READMEs to set anything; nothing "
            "written (the defaults apply)",
            file=sys.stderr,
        )
    else:
        try:
            with open(target, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as e:
            raise UsageError(f"{target}: cannot write: {e.strerror or e}") from None
        if os.path.exists(os.path.join(args.path, ".perfbot.yaml")) and args.force:
            print(f"{PROG}: note: .perfbot.yml now wins over .perfbot.yaml", file=sys.stderr)
        from .config import clear_caches

        clear_caches()  # this process now has a config where it had none
        print(f"wrote {target}", file=sys.stderr)
    print(f"before: {summary_line(before)}", file=sys.stderr)
    print(f"after:  {summary_line(after)}", file=sys.stderr)
    return 2 if errors else 0


def cmd_rule(args: argparse.Namespace) -> int:
    from .docs import render_rule, rule_url
    from .registry import all_rules, get_rule

    all_rules()
    r = get_rule(args.rule)
    if r is None:
        raise UsageError(f"unknown rule {args.rule!r} (see `perfbot rules`)")
    if args.format == "json":
        import json

        data = {"id": r.id, "slug": r.slug, "severity": r.severity, "fix": r.fix,
                "family": r.family, "enabled": r.enabled, "config_keys": list(r.config_keys),
                "summary": r.summary, "doc": r.doc, "url": rule_url(r.id, r.slug)}  # fmt: skip
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_rule(r))
    return 0


COMMANDS = {
    "check": cmd_check,
    "rule": cmd_rule,
    "init": cmd_init,
    "config": cmd_config,
    "fix": cmd_fix,
    "rules": cmd_rules,
    "matrix": cmd_matrix,
    "docs": cmd_docs,
}
