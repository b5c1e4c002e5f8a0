"""JSON, SARIF and rdjson written file by file (perfbot.report.stream) are byte for byte the
whole-document renderers' text (``render``: one ``json.dumps`` of the document), on varied
results: no findings, one file, many files, unicode and control characters, fixes on CRLF files,
rules outside the registry, files with findings of the same rule on the same row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfbot import registry
from perfbot.engine import FileResult
from perfbot.fix import Edit, Fix
from perfbot.registry import Finding
from perfbot.report import github, rdjson, sarif, text
from perfbot.report import json as report_json
from perfbot.report.stream import Document, pack, part
from perfbot.source import FileError, Source

WHOLE = ("json", "sarif", "rdjson")
RENDER = {"json": report_json.render, "sarif": sarif.render, "rdjson": rdjson.render}


def whole(fmt: str, results: list[FileResult], errors: list[FileError], root: str | None) -> str:
    if fmt == "json":
        return report_json.render(results, errors)
    return RENDER[fmt](results, errors, root=root)


def counted(r: FileResult) -> FileResult:
    """What the CLI keeps of a file once its part is made (cli.batch._counted): no source, messages
    or edits."""
    from perfbot.cli.batch import _counted

    return _counted(r)


def streamed(fmt: str, results: list[FileResult], errors: list[FileError], root: str | None) -> str:
    doc = Document(fmt, root)
    for r in results:
        p = pack(part(fmt, r, root))
        doc.add(counted(r), p)  # the source and messages are gone from here on
    out: list[str] = []
    doc.write(out.append, errors)
    return "".join(out)


# --- generated results ----------------------------------------------------------------------------

_text_chars = st.characters(
    blacklist_categories=("Cs",), blacklist_characters="\r\n"
) | st.sampled_from(["é", "中", "😀", "\u2028", "\x1b", "\x00", '"', "\\", "\t", "|"])
_line = st.text(_text_chars, max_size=30)
_eol = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def sources(draw: st.DrawFn, path: str) -> Source:
    lines = draw(st.lists(_line, min_size=1, max_size=8))
    eols = [draw(_eol) for _ in lines]
    if draw(st.booleans()):
        eols[-1] = ""
    return Source.from_text("".join(a + b for a, b in zip(lines, eols, strict=True)), path=path)


@st.composite
def edits(draw: st.DrawFn, src: Source) -> Edit:
    line = draw(st.integers(1, len(src.lines)))
    n = len(src.lines[line - 1])
    start = draw(st.integers(0, n))
    end = draw(st.integers(start, n))
    return Edit(line, start, end, draw(st.text(_text_chars | st.just("\n"), max_size=12)))


RULES = ["PB101", "PB201", "PB301", "PB304", "PB401", "PB697", "PB698"]  # two not registered


@st.composite
def file_results(draw: st.DrawFn, path: str) -> FileResult:
    src = draw(sources(path))
    found = []
    for _ in range(draw(st.integers(0, 6))):
        line = draw(st.integers(1, len(src.lines)))
        rule = draw(st.sampled_from(RULES))
        fix = None
        if draw(st.booleans()):
            fix = Fix(
                draw(_line),
                tuple(draw(st.lists(edits(src), min_size=1, max_size=3))),
                draw(st.sampled_from(["safe", "unsafe"])),
            )
        found.append(
            Finding(
                src.path,
                line,
                draw(st.integers(line, line + 2)),
                rule,
                draw(st.sampled_from(["some-slug", "", "ünïcode"])),
                draw(st.sampled_from(["error", "warning", "info"])),
                draw(st.text(_text_chars | st.just("\n"), max_size=40)),
                fix=fix,
                table_key=draw(st.sampled_from([None, "perf", "req"])),
                row_key=draw(st.sampled_from([None, "net", "net|8"])),  # repeats: fp:1, fp:2
            )
        )
    return FileResult(src.path, found, source=src)


PATHS = ["a/README.md", "b/ü/README.md", "c d/README.md", "/abs/x/README.md", "e/%41,:.md"]


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[FileResult], list[FileError]]:
    paths = draw(st.lists(st.sampled_from(PATHS), unique=True, max_size=len(PATHS)))
    results = [draw(file_results(p)) for p in paths]
    errors = [
        FileError(draw(st.sampled_from(PATHS)), draw(st.text(_text_chars, max_size=20)))
        for _ in range(draw(st.integers(0, 2)))
    ]
    return results, errors


@pytest.fixture(autouse=True, scope="module")
def _registry() -> None:
    registry.all_rules()


@pytest.mark.parametrize("fmt", WHOLE)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs(), root=st.sampled_from([None, "/", "a", "/abs"]))
def test_streamed_document_is_the_whole_documents_text(
    fmt: str, run: tuple[list[FileResult], list[FileError]], root: str | None
) -> None:
    results, errors = run
    assert streamed(fmt, results, errors, root) == whole(fmt, results, errors, root)


@pytest.mark.parametrize("fmt", WHOLE)
def test_no_files_and_no_findings(fmt: str) -> None:
    assert streamed(fmt, [], [], "/") == whole(fmt, [], [], "/")
    ok = [FileResult("a/README.md", [], source=Source.from_text("x\n", path="a/README.md"))]
    assert streamed(fmt, ok, [], "/") == whole(fmt, ok, [], "/")
    err = [FileError("b/README.md", "looks like a binary file")]
    assert streamed(fmt, ok, err, "/") == whole(fmt, ok, err, "/")


def _crlf_run() -> list[FileResult]:
    src = Source.from_text(
        "## Performance\r\n\r\n| model | img/s |\r\n|:--:|:--:|\r\n| dît | 515.61 |\r\n",
        path="models/dit/README.md",
    )
    fix = Fix("Set img/s and add a row", (Edit(5, 9, 15, "550.54"), Edit(5, 17, 17, "\n| x |")))
    found = [
        Finding(src.path, 5, 5, "PB401", "img-s-mismatch", "error", "img/s \u2028 “off”", fix=fix),
        Finding(src.path, 3, 5, "PB698", "not-registered", "warning", "whole table"),
        Finding(src.path, 5, 5, "PB401", "img-s-mismatch", "error", "again", table_key="t"),
    ]
    other = Source.from_text("| a |\n", path="other/README.md")
    found2 = [Finding(other.path, 1, 1, "PB698", "not-registered", "info", "x")]
    return [FileResult(src.path, found, source=src), FileResult(other.path, found2, source=other)]


@pytest.mark.parametrize("fmt", WHOLE)
def test_fixes_on_a_crlf_file_and_rules_indexed_across_files(fmt: str) -> None:
    results = _crlf_run()
    got = streamed(fmt, results, [], "/")
    assert got == whole(fmt, results, [], "/")
    if fmt != "rdjson":
        assert "\\r\\n| x |" in got  # the fix's new line ends like the file
    # reversed: the second file's rule comes first, so its local index 0 is the run's 0 and the
    # first file's PB401 becomes 1
    back = results[::-1]
    assert streamed(fmt, back, [], "/") == whole(fmt, back, [], "/")


def test_line_formats_parts_are_their_render() -> None:
    results = _crlf_run()
    errors = [FileError("b/README.md", "binary\nfile")]
    assert "".join(text.part(r) for r in results) + "".join(
        str(e) + "\n" for e in errors
    ) == text.render(results, errors, summary=False)
    assert streamed("github", results, errors, "/") == github.render(results, errors, root="/")


# --- the CLI: the pool and one process print the same ---------------------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Files whose findings start with different rules (SARIF's rule indexes are the run's, not
    each file's), a CRLF copy, a unicode path, a clean file and one that cannot be read."""
    (tmp_path / ".git").mkdir()
    broken = (EXAMPLES / "broken" / "README.md").read_text(encoding="utf-8")
    texts = {
        "a/README.md": broken,
        "b/README.md": broken.replace("\n", "\r\n"),
        "ç/README.md": broken.split("## Performance")[0],  # Requirements only
        "d/README.md": "## Performance" + broken.split("## Performance")[1],
        "e/README.md": (EXAMPLES / "clean" / "README.md").read_text(encoding="utf-8"),
    }
    for path, content in texts.items():
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_bytes(content.encode("utf-8"))
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "README.md").write_bytes(b"## Performance\n\x00\x00")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "options",
    [
        ["--format", "json"],
        ["--format", "sarif"],
        ["--format", "rdjson"],
        ["--format", "github"],
        ["--format", "github", "--statistics"],
        ["--format", "text"],
        ["--format", "text", "--statistics"],
    ],
)
def test_the_pool_and_one_process_print_the_same(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, options: list
) -> None:
    from perfbot import cli

    outs = []
    for jobs in ("1", "2"):  # "2": a pool, whatever the size and the load
        monkeypatch.setenv("PERFBOT_JOBS", jobs)
        assert cli.main(["check", *options, "."]) == 2  # the binary file
        outs.append(capsys.readouterr())
    assert outs[0].out == outs[1].out
    assert outs[0].err == outs[1].err
    assert "binary" in outs[0].out + outs[0].err
    if options[1] == "sarif":
        ids = [r["id"] for r in json.loads(outs[0].out)["runs"][0]["tool"]["driver"]["rules"]]
        results = json.loads(outs[0].out)["runs"][0]["results"]
        assert all(ids[r["ruleIndex"]] == r["ruleId"] for r in results)
        assert len({r["ruleIndex"] for r in results}) > 2


@pytest.mark.parametrize("fmt", WHOLE)
def test_a_gated_document_is_the_whole_documents_text(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, fmt: str
) -> None:
    # with --baseline the findings are dropped in the main process, before the part is made:
    # what is printed is the renderer's text on the filtered results
    from perfbot import cli
    from perfbot.engine import check_source
    from perfbot.source import read_source

    monkeypatch.setenv("PERFBOT_JOBS", "2")
    assert cli.main(["check", "--write-baseline", "base.json", "a", "d"]) == 0
    assert cli.main(["check", "--format", fmt, "--baseline", "base.json", "a", "b"]) == 1
    got = capsys.readouterr().out
    b = check_source(read_source("b/README.md"))
    assert got == whole(fmt, [FileResult("a/README.md", []), b], [], str(tree))
