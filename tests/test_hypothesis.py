"""Fuzzing (the analogue of mdformat's fuzzer): random Markdown and table-ish text never crashes
the parser or the rules, positions point at the text they describe, and fixing settles: it is
idempotent and leaves no fixable finding."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfbot.config import Allow, ColumnConfig, Config, MatrixRowConfig
from perfbot.engine import check_source, fix_source
from perfbot.parse import parse_document
from perfbot.source import Source, decode, join_lines, split_lines

# Moderate by default (this file runs in a few seconds); PERFBOT_FUZZ_EXAMPLES=5000 to hunt.
SETTINGS = settings(
    max_examples=int(os.environ.get("PERFBOT_FUZZ_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- strategies ----------------------------------------------------------------------------------

COLUMNS = [
    "model name", "Model Name", "model", "method", "cards", "#cards", "batch size", "bs",
    "resolution", "image size", "frames", "stage", "grad accu", "sink", "flash attn",
    "recompute", "precision", "scheduler", "steps", "jit level", "JIT level", "jit_level",
    "graph compile", "s/step", "ms/step", "step time", "img/s", "fps", "s/img", "s/video",
    "psnr", "ssim", "recipe", "weight", "acc@top1", "", "a \\| b",
]  # fmt: skip
REQ_COLUMNS = ["mindspore", "MindSpore", "ascend driver", "driver", "firmware", "cann",
               "cann toolkit/kernel", "notes"]  # fmt: skip
VALUES = [
    "dit", "1", "8", "64", "8.0", "0", "-1", "256x256", "1024 X 1024", "16x512x512", "O2", "o1",
    "01", "3~5 mins", "5 min", "77s", "0.89", "0.9", "71.91", "515.61", "550.54", "0.00",
    "4.40", "0.11", "40", "ddim", "ON", "off", "True", "fp16", "BF16", "[yaml](a.yaml)",
    "https://x.y/w.ckpt", "-", "N/A", "xx.xx", "", "~72", "1,024.5", "47,34", "**64**",
    "`0.93`", "2.3.1", "2.3.0/2.3.1", "24.1.RC2", "24.1rc2", "7.3.0.1.231", "8.0.RC2.beta1",
    "8.0.RC3.beta1", "CANN 8.0.RC2.beta1", "latest", "1.8.1", "2.5.0", "\\|", "é", "中文", "👍",
]  # fmt: skip
DELIMS = [":--:", "---", ":--", "--:", ":-:", "-", ":", "", "--- |", ":---------:"]
SENTENCES = [
    "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.",
    "Experiments are tested on ascend 910 with mindspore 2.5.0 pynative mode.",
    "Experiments are tested on Ascend Atlas 800T A2 machines with mindspore 2.3.1 graph mode.",
    "Experiments are tested on ascend 910B with mindspore 2.3.0/2.3.1 **graph** mode.",
    "experiments were conducted on 910 with mindpsore v9.9.9 in py-native mode, batch 8",
    "实验在 Ascend 910* (MindSpore 2.3.1 图模式) 上测试",
    "Performance tested on Ascend 910 with MindSpore 2.2.10 in pynative mode:",
]
HEADINGS = [
    "# DiT", "## Requirements", "## Performance", "### Training", "### Inference",
    "## Sampling", "#### 推理", "Performance\n-----------", "Title\n=====", "# ", "#######",
]  # fmt: skip
JUNK = [
    "|", "||", "| |", "\\", "\\|", "---", ":-:", "|-|", "```", "~~~", "    indented",
    '<div align="center">', "</div>", "<p>", "<!--", "-->", "<table>", "</table>",
    "<tr><th>s/step</th><th>img/s</th></tr>", "> quote |", "- item | x", "* * *", "\t|\t",
    "| a | b", "\u00a0|\u00a0", "\ufeff", "\u2028", "\x0c", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]  # fmt: skip


@st.composite
def pipe_row(draw: st.DrawFn, cells: list[str]) -> str:
    lead = draw(st.sampled_from(["| ", "|", "", "  | "]))
    tail = draw(st.sampled_from([" |", "|", "", " | "]))
    sep = draw(st.sampled_from([" | ", "|", "  |  "]))
    return lead + sep.join(cells) + tail


@st.composite
def table(draw: st.DrawFn) -> str:
    names = COLUMNS if draw(st.booleans()) else REQ_COLUMNS
    header = draw(st.lists(st.sampled_from(names), min_size=1, max_size=10))
    n = len(header)
    width = draw(st.sampled_from([n, n, n, max(1, n - 1), n + 1]))
    lines = [draw(pipe_row(header))]
    lines.append(draw(pipe_row(draw(st.lists(st.sampled_from(DELIMS), min_size=width,
                                             max_size=width)))))  # fmt: skip
    for _ in range(draw(st.integers(0, 5))):
        k = draw(st.sampled_from([n, n, n, n - 1, n + 1, 0]))
        lines.append(draw(pipe_row(draw(st.lists(st.sampled_from(VALUES), min_size=k,
                                                  max_size=k)))))  # fmt: skip
    return "\n".join(lines)


TEXTISH = st.text(
    alphabet=st.sampled_from(list("|-:\\ \t`~#<>*_x.0123456789abcé中\u00a0\r\n")),
    max_size=40,
)


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind <= 2:
        return draw(table())
    if kind == 3:
        return draw(st.sampled_from(HEADINGS))
    if kind == 4:
        return draw(st.sampled_from(SENTENCES))
    if kind == 5:
        fence = draw(st.sampled_from(["```", "~~~", "<!--", '<div align="center">', "    "]))
        inner = draw(table())
        if fence == "    ":
            return "\n".join("    " + ln for ln in inner.split("\n"))
        close = {"```": "```", "~~~": "~~~", "<!--": "-->"}.get(fence, "</div>")
        return f"{fence}\n{inner}\n{close}"
    if kind == 6:
        return draw(st.sampled_from(JUNK))
    if kind == 7:
        return draw(TEXTISH)
    if kind == 8:
        return "<table>\n<tr><th>model name</th><th>img/s</th></tr>\n</table>"
    return ""


@st.composite
def document(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(block(), max_size=12))
    seps = draw(st.lists(st.sampled_from(["\n", "\n\n", "\r\n", "\r\n\r\n", "\r", "\n\n\n"]),
                         min_size=len(blocks), max_size=len(blocks)))  # fmt: skip
    text = "".join(b + s for b, s in zip(blocks, seps, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


ANY_TEXT = st.one_of(document(), st.text(max_size=300), TEXTISH)

CONFIGS = st.sampled_from(
    [
        Config(),
        Config(allow=Allow(ms_per_step=True, compile_seconds=True)),
        Config(
            columns=[ColumnConfig(name="acc@top1", aliases=["top-1"], form="decimal2")],
            aliases={"img/s": ["imgs/sec"], "cann toolkit/kernel": ["toolkit"]},
            matrix=[MatrixRowConfig(mindspore="2.3.1", cann="8.0.RC3.beta1")],
            rules={"PB401": "off", "header-case": "info"},
        ),
    ]
)


# --- properties ----------------------------------------------------------------------------------


def assert_positions(src: Source) -> None:
    doc = parse_document(src)
    n = len(src.lines)
    for t in doc.tables:
        for row in t.lines:
            assert 1 <= row.line <= n
            assert row.raw == src.line(row.line)
            for c in row.cells:
                assert c.line == row.line
                assert 0 <= c.start <= c.end <= len(row.raw)
                assert row.raw[c.start : c.end] == c.text
        assert t.start_line <= t.end_line
    for h in doc.headings:
        assert 1 <= h.line <= n
    for s in doc.sentences:
        assert 1 <= s.line <= n
    for h in doc.html_tables:
        assert 1 <= h.line <= h.end_line <= n


@SETTINGS
@given(ANY_TEXT)
def test_parse_and_check_never_crash(text: str) -> None:
    src = Source.from_text(text)
    assert_positions(src)
    result = check_source(src)
    for f in result.findings:
        assert "internal error" not in f.message, f
        assert 1 <= f.line <= f.end_line <= max(1, len(src.lines)), f
        if f.fix is not None:
            for e in f.fix.edits:
                assert 1 <= e.line <= len(src.lines)
                assert 0 <= e.start <= e.end <= len(src.line(e.line))


@SETTINGS
@given(document(), CONFIGS)
def test_fix_is_idempotent_and_leaves_nothing_fixable(text: str, config: Config) -> None:
    src = Source.from_text(text)
    fixed, _ = fix_source(src, config)
    again = Source.from_text(fixed)
    left = [f for f in check_source(again, config).findings if f.fix is not None]
    assert not left, left
    assert fix_source(again, config)[0] == fixed


@SETTINGS
@given(document())
def test_fix_keeps_line_endings(text: str) -> None:
    """Every line the fix keeps or adds ends like the file's lines: no \\n appears in a CRLF
    file that had none, and the file's last line keeps (or lacks) its newline."""
    src = Source.from_text(text)
    fixed, _ = fix_source(src)
    _, eols = split_lines(fixed)
    assert set(eols) - {""} <= set(src.eols) | {src.newline}
    assert (eols[-1] == "") == (src.eols[-1] == "")


@SETTINGS
@given(st.text(max_size=200))
def test_split_lines_round_trips(text: str) -> None:
    lines, eols = split_lines(text)
    assert join_lines(lines, eols) == text
    assert not any("\n" in ln or "\r" in ln for ln in lines)


@SETTINGS
@given(st.binary(max_size=200))
def test_decode_round_trips_any_bytes(data: bytes) -> None:
    text, bom, enc, _notes = decode(data)
    assert Source.from_text(text, bom=bom, encoding=enc).encode(text) == data
