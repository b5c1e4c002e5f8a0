"""source.py: reading bytes into a Source, line endings, encodings, files that cannot be read."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfbot import source as source_mod
from perfbot.engine import check_source, fix_source
from perfbot.source import FileError, Source, decode, join_lines, read_source, split_lines

README = """\
# DiT

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :------: | :-----------------: |
| 2.3.1 | 24.1.RC2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|
| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |
"""
FIXED = README.replace("515.61", "550.54")


def write(tmp_path: Path, data: bytes, name: str = "README.md") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def read_ok(p: Path) -> Source:
    src = read_source(p)
    assert isinstance(src, Source), src
    return src


def fixed_bytes(src: Source) -> bytes:
    text, _ = fix_source(src)
    return src.encode(text)


# --- line endings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lines", "eols"),
    [
        ("a\nb\n", ["a", "b"], ["\n", "\n"]),
        ("a\nb", ["a", "b"], ["\n", ""]),
        ("a\r\nb\r\n", ["a", "b"], ["\r\n", "\r\n"]),
        ("a\rb\r", ["a", "b"], ["\r", "\r"]),
        ("a\r\n\rb\n", ["a", "", "b"], ["\r\n", "\r", "\n"]),
        ("\n", [""], ["\n"]),
        ("", [""], [""]),
        ("x", ["x"], [""]),
    ],
)
def test_split_lines_round_trips(text: str, lines: list[str], eols: list[str]) -> None:
    assert split_lines(text) == (lines, eols)
    assert join_lines(lines, eols) == text


_OLD_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


def _split_lines_by_line(text: str) -> tuple[list[str], list[str]]:
    """split_lines as it was: a regex match per line (the reference)."""
    if not text:
        return [""], [""]
    lines: list[str] = []
    eols: list[str] = []
    for m in _OLD_LINE.finditer(text):
        content, eol = m.group(1), m.group(2)
        if not eol and not content and m.start() == len(text):
            break
        lines.append(content)
        eols.append(eol)
    return lines, eols


_PIECES = ["a", "|", " ", "\r", "\n", "\r\n", "\u2028", "\x0c"]


@given(st.lists(st.sampled_from(_PIECES)).map("".join))
def test_split_lines_is_one_match_per_line(text: str) -> None:
    assert split_lines(text) == _split_lines_by_line(text)
    assert join_lines(*split_lines(text)) == text


@pytest.mark.parametrize("last", ["", "x", "x\r", "x\n"])  # one kind of ending, or mixed
@pytest.mark.parametrize("eol", ["\r\n", "\r", "\n"])
def test_line_endings_are_shared_objects(eol: str, last: str) -> None:
    """A file of many short lines holds one string object per kind of ending, not one per line
    (100 MB for 2,000,000 CRLF lines)."""
    text = ("| a |" + eol) * 1000 + last
    lines, eols = split_lines(text)
    assert (lines, eols) == _split_lines_by_line(text)
    assert len({id(e) for e in eols}) <= 3


def test_crlf_file(tmp_path: Path) -> None:
    src = read_ok(write(tmp_path, README.replace("\n", "\r\n").encode()))
    assert src.newline == "\r\n"
    assert all(e == "\r\n" for e in src.eols)
    assert not any("\r" in ln for ln in src.lines)
    assert [(f.line, f.rule) for f in check_source(src).findings] == [(15, "PB401")]
    assert fixed_bytes(src) == FIXED.replace("\n", "\r\n").encode()


def test_lone_cr_file(tmp_path: Path) -> None:
    src = read_ok(write(tmp_path, README.replace("\n", "\r").encode()))
    assert src.newline == "\r"
    assert len(src.lines) == README.count("\n")
    assert [(f.line, f.rule) for f in check_source(src).findings] == [(15, "PB401")]
    assert fixed_bytes(src) == FIXED.replace("\n", "\r").encode()


def test_mixed_line_endings_are_kept_line_by_line(tmp_path: Path) -> None:
    lines = README.splitlines()
    data = "".join(ln + ("\r\n" if i % 2 else "\n") for i, ln in enumerate(lines))
    src = read_ok(write(tmp_path, data.encode()))
    want = "".join(
        ln + ("\r\n" if i % 2 else "\n") for i, ln in enumerate(FIXED.splitlines())
    ).encode()
    assert fixed_bytes(src) == want


def test_no_final_newline(tmp_path: Path) -> None:
    src = read_ok(write(tmp_path, README.rstrip("\n").encode()))
    assert src.eols[-1] == ""
    assert fixed_bytes(src) == FIXED.rstrip("\n").encode()


def test_line_is_one_based() -> None:
    src = Source.from_text("first\nsecond\n")
    assert (src.line(1), src.line(2)) == ("first", "second")
    assert src.normalized() == "first\nsecond"


# --- encodings ----------------------------------------------------------------------------------


def test_utf8_bom(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + README.encode()
    src = read_ok(write(tmp_path, data))
    assert (src.bom, src.encoding) == (codecs.BOM_UTF8, "utf-8")
    assert src.text == README and not src.text.startswith("\ufeff")
    assert src.encode(src.text) == data
    assert fixed_bytes(src) == codecs.BOM_UTF8 + FIXED.encode()


@pytest.mark.parametrize(
    ("bom", "codec"),
    [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")],
)
def test_utf16_with_bom(tmp_path: Path, bom: bytes, codec: str) -> None:
    text = README.replace("\n", "\r\n")
    data = bom + text.encode(codec)
    src = read_ok(write(tmp_path, data))  # NUL bytes, but a UTF-16 BOM: not "binary"
    assert (src.bom, src.encoding, src.text) == (bom, "utf-16", text)
    assert src.encode(src.text) == data
    assert fixed_bytes(src) == bom + FIXED.replace("\n", "\r\n").encode(codec)


def test_non_utf8_bytes_are_that_files_error(tmp_path: Path) -> None:
    data = README.replace("# DiT", "# DiT \u2014 caf\u00e9").encode("cp1252")
    err = read_source(write(tmp_path, data))
    assert isinstance(err, FileError)
    assert err.message.startswith("is not UTF-8 (byte 0x97 at offset ")
    assert "Windows-1252" in err.message and "save the file as UTF-8" in err.message


def test_gbk_is_named(tmp_path: Path) -> None:
    data = "# 模型\n\n## 性能\n\n| 模型 | 卡数 |\n|---|---|\n| dit | 8 |\n".encode("gbk")
    err = read_source(write(tmp_path, data))
    assert isinstance(err, FileError) and "it looks like GBK/GB18030 (Chinese) text" in err.message


@pytest.mark.parametrize(("codec", "order"), [("utf-16-le", "little"), ("utf-16-be", "big")])
def test_utf16_without_a_bom_is_named_not_binary(tmp_path: Path, codec: str, order: str) -> None:
    err = read_source(write(tmp_path, README.encode(codec)))
    assert isinstance(err, FileError)
    assert err.message.startswith(f"looks like UTF-16 ({order}-endian) without a byte-order mark")


def test_decode_prefers_utf8() -> None:
    assert decode("é".encode()) == ("é", b"", "utf-8", [])


def test_truncated_utf8_after_a_bom_is_an_error(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + b"# Title \xe2\x82\n"
    err = read_source(write(tmp_path, data))
    assert isinstance(err, FileError)
    assert err.message.startswith("is not valid UTF-8 (byte 0xe2 at offset 11)")


# --- odd files ----------------------------------------------------------------------------------


def test_empty_file(tmp_path: Path) -> None:
    src = read_ok(write(tmp_path, b""))
    assert (src.text, src.lines, src.eols) == ("", [""], [""])
    assert check_source(src).findings == []
    assert fix_source(src) == ("", [])


def test_whitespace_only_file(tmp_path: Path) -> None:
    src = read_ok(write(tmp_path, b"\n\n   \n\t\n"))
    assert check_source(src).findings == []


def test_binary_file_is_a_file_error(tmp_path: Path) -> None:
    p = write(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "logo.md")
    err = read_source(p)
    assert isinstance(err, FileError)
    assert err.path == str(p) and "binary" in err.message
    assert str(err).startswith(f"{p}: error: ")


def test_directory_is_a_file_error(tmp_path: Path) -> None:
    err = read_source(tmp_path)
    assert isinstance(err, FileError) and "directory" in err.message


def test_missing_file_is_a_file_error(tmp_path: Path) -> None:
    err = read_source(tmp_path / "nope.md")
    assert isinstance(err, FileError) and "no such file" in err.message


def test_file_over_the_size_limit_is_a_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source_mod, "MAX_BYTES", 1000)
    err = read_source(write(tmp_path, b"x" * 1001))
    assert isinstance(err, FileError) and "MB" in err.message


def test_5mb_readme_is_checked(tmp_path: Path) -> None:
    """A 5 MB README (thousands of sections, then one very long table) is read and checked
    without a crash. No wall-clock assertion: the suite's own time shows a regression to
    quadratic time."""
    section = (
        "## Performance {i}\n\n"
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.\n\n"
        '<div align="center">\n\n'
        "| model name | cards | batch size | resolution | jit level | graph compile "
        "| s/step | img/s |\n"
        "|:--:|:--:|:--:|:--:|:--:|:--:|:--:|:--:|\n"
        "| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 550.54 |\n"
        "</div>\n\n"
        "```\n| not | a table |\n```\n\n"
    )
    row = "| dit | 8 | 64 | 256x256 | O2 | 3~5 mins | 0.93 | 515.61 |\n"
    half = 5 * 1024 * 1024 // 2
    parts = [README]
    size = len(README)
    i = 0
    while size < half:
        parts.append(section.format(i=i))
        size += len(parts[-1])
        i += 1
    parts.append(README.split("## Performance")[1].split("| dit")[0])
    parts.append(row * ((5 * 1024 * 1024 - size) // len(row)))
    data = "".join(parts).encode()
    assert len(data) > 5_000_000

    src = read_ok(write(tmp_path, data))
    result = check_source(src)
    assert result.error is None
    assert not [f for f in result.findings if "internal error" in f.message]
    # a README has a few tables: those after the first MAX_TABLES are counted, not read (the
    # long table among them), and PB604 says so once, instead of a PB401 for each of its rows
    # (and the PB401 of README's own table, near the top)
    (wrong, found) = result.findings
    assert (wrong.rule, found.rule) == ("PB401", "PB604") and wrong.line < 20
    assert re.search(r"did not read the [\d,]+ tables from here on", found.message), found.message


def test_source_survives_pickling_for_worker_processes() -> None:
    import pickle

    src = Source.from_text("a\r\nb\rc\n", path="x.md", bom=b"\xef\xbb\xbf", encoding="utf-8")
    src.notes.append("a note")
    back = pickle.loads(pickle.dumps(src))
    assert (back.path, back.text, back.bom, back.encoding, back.notes) == (
        "x.md",
        "a\r\nb\rc\n",
        b"\xef\xbb\xbf",
        "utf-8",
        ["a note"],
    )
    assert back.lines == src.lines and back.eols == src.eols
