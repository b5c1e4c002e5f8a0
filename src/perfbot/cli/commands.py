"""The ``perfbot`` sub-commands of the core: ``check``, ``fix``, ``rules``, ``matrix``, ``docs``,
``config``, ``init``, ``rule`` (the edges, ``review`` and the rest, run their own ``*_main``).

Only ``argparse``, ``os`` and ``sys`` are imported here at module level (``perfbot --version``
imports this module): the core is imported inside the commands.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from .batch import (
    PROG,
    UsageError,
    _check_one,
    _counted,
    _fix_one,
    _Gate,
    _map_checks,
    _Runner,
    benchmark_problems,
    benchmarks_file,
)

if TYPE_CHECKING:
    from ..engine import FileResult


def _may_overwrite(path: str) -> None:
    """--write-baseline replaces only a perfbot baseline (or writes a new file): a README or any
    other file there is a usage error, before anything is checked."""
    from ..baseline import Baseline, BaselineError

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
    from ..baseline import render
    from ..report import summary_line

    path = args.write_baseline
    text = render(results, os.path.dirname(os.path.abspath(path)))
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None
    for err in run.errors:
        print(err, file=sys.stderr)
    print(f"wrote {path}: {summary_line(results, run.errors)}", file=sys.stderr)
    return 2 if run.errors else 0


def _add_noqa(args: argparse.Namespace, run: _Runner, results: list[FileResult]) -> int:
    from pathlib import Path

    from ..config import config_for
    from ..noqa import directives
    from ..source import FileError

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
    for err in run.errors:
        print(err, file=sys.stderr)
    print(f"Added {total} directive(s) in {files} file(s)", file=sys.stderr)
    return 2 if run.errors else 0


def _explain_tables(run: _Runner) -> int:
    from ..context import Context
    from ..recognise import explain

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
    from ..report.stream import Document, pack, part
    from ..source import FileError

    if args.write_baseline and (args.baseline or args.diff_base):
        raise UsageError("--write-baseline records every finding: drop --baseline/--diff-base")
    if args.add_noqa and (args.write_baseline or args.baseline or args.diff_base):
        raise UsageError("--add-noqa silences every finding: drop the other gate options")
    if args.write_baseline:
        _may_overwrite(args.write_baseline)
    run = _Runner(args)
    if getattr(args, "explain_tables", False):
        return _explain_tables(run)
    narrowed = args.diff_base or args.baseline or args.min_severity != "info"
    gate = _Gate(args) if narrowed else None
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


def cmd_fix(args: argparse.Namespace) -> int:
    import functools

    from ..report import display_path, plural
    from ..source import FileError

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
    from ..registry import all_rules

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
    from ..config import config_for

    try:
        from ..spec.matrix import Matrix
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
    for err in matrix.errors:
        where = f"{cfg_path}: " if cfg_path else ""
        print(f"{PROG}: error: {where}{err}", file=sys.stderr)
    return 2 if matrix.errors else 0


def cmd_docs(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..docs import default_path, render_rules_md

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
    from ..config import config_for
    from ..config_view import render_json, render_yaml, schema_text

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
        from ..config_light import ConfigError

        raise ConfigError(f"{where}: {bad}")
    render = render_json if args.format == "json" else render_yaml
    sys.stdout.write(render(config, cfg_path))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from ..init import propose, read_all, settle, survey
    from ..report import summary_line

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
    proposal = propose(s)
    text, before, after = settle(proposal, s, sources)
    import yaml

    if args.stdout:
        sys.stdout.write(text)
    elif not (yaml.safe_load(text) or proposal.conventions or proposal.allow_maybe):
        # nothing to set and nothing to propose: a file of `{}` would only say the defaults
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
        from ..config import clear_caches

        clear_caches()  # this process now has a config where it had none
        print(f"wrote {target}", file=sys.stderr)
    print(f"before: {summary_line(before)}", file=sys.stderr)
    print(f"after:  {summary_line(after)}", file=sys.stderr)
    return 2 if errors else 0


def cmd_rule(args: argparse.Namespace) -> int:
    from ..docs import render_rule, rule_url
    from ..registry import all_rules, get_rule

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
