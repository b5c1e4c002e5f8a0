"""The ``perfbot`` command: parse the arguments and call the command that runs them.

Exit codes: 0 clean, 1 findings at or above ``--fail-on`` (or, for ``fix --diff``, changes to
make), 2 usage, I/O or config errors. A file that cannot be read is reported as
``path: error: message`` and the other files are still checked.

The commands of the core are in :mod:`perfbot.cli.commands`, the machinery ``check`` and ``fix``
share (jobs, pool, warm-up, streaming, gate) in :mod:`perfbot.cli.batch`. Only ``argparse``,
``os`` and ``sys`` are imported by the three at module level, so ``perfbot --version`` stays fast:
the core is imported inside the command functions, and the edge commands (``review``, ``post``,
``command``, ``bench``, ``plan``, ``report``) only when they run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from .batch import PROG, UsageError, _config_named
from .commands import COMMANDS

if TYPE_CHECKING:
    from collections.abc import Iterator

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
        "perfbot.rerun.report",
        "report_main",
        "merge benchmark results into one review of refreshed rows (/perfbot rerun)",
    ),
}


# --- arguments ------------------------------------------------------------------------------------


def _version() -> str:
    from .. import __version__

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
    """Options that narrow `check`: to the more severe findings, or to new ones (a baseline, or
    the lines changed since a ref)."""
    p.add_argument(
        "--min-severity",
        choices=FAIL_ON[:3],
        default="info",
        help="show only findings at or above this severity (`error`: the wrong numbers and "
        "versions first); the summary says how many it left out (default: info, all)",
    )
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
    from ..config_light import ConfigError  # not .config: no pydantic without a config file

    if args.command in ("check", "fix"):
        _tune_gc()
    try:
        with _output(args):
            return COMMANDS[args.command](args)
    except (ConfigError, UsageError) as e:
        from ..report import printable

        named, msg = _config_named(str(e))
        text = f"{named}: {msg}" if named else msg
        print(f"{PROG}: error: {printable(text)}", file=sys.stderr)
        return 2


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
        from ..report.color import ColourWriter, wanted

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
