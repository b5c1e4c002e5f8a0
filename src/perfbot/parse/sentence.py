"""The guide's "Experiments are tested on ..." sentence: where a line holds it, what it says, and
the canonical wording (:func:`canonical_sentence`)."""

from __future__ import annotations

import re

from ..model import Sentence

# --- the "Experiments are tested on ..." sentence ----------------------------------------------

_SENTENCE_HINT = re.compile(
    r"(?i)\b(?:experiments?\s+(?:are|were|is|was)\s+(?:tested|conducted|run|measured)"
    r"|(?:performance|speed|results?)\s+(?:are\s+|is\s+)?tested"
    r"|test(?:ing)?\s+results?)\s+on\b"
    r"|实验在"
    # 在采用图模式的ascend 910*上实验结果,
    # 在 Ascend 910* 上使用 MindSpore 2.2.14 的图模式进行实验测试
    # (bounded gaps, no nested quantifiers: linear time on any line)
    r"|在[^，。；,;\n]{0,60}?(?:ascend|昇腾|910)[^，。；,;\n]{0,80}?(?:实验|测试)"
)
# a cheap look before _SENTENCE_HINT: one of the words it needs
_SENTENCE_WORDS = ("tested", "conducted", "measured", "run", "test", "实验", "测试")
_SENTENCE_QUICK = re.compile(r"(?i)tested|conducted|measured|run|test|实验|测试")
_DEVICE = re.compile(
    r"(?i)\[?(?P<d>910\s*\*|910\s*b\d?|atlas\s+800[ti]\s+a2|atlas\s+a2|910a?|910)\]?"
    r"(?:\s+(?:machines?|chips?|npus?|servers?))?"
)
_MS_VERSION = re.compile(
    r"(?i)(?<![a-z])mind[ \t]{0,2}s?p?s?o?r?e(?![a-z])\*{0,2}[ \t]{0,3}"
    r"(?:(?:版本为|版本|version)[ \t]{0,3})?(?:[:：][ \t]{0,3})?"
    r"\[?v?(?P<v>\d{1,4}\.\d{1,4}(?:\.\d{1,4})?(?:[-.]?rc\d{0,4})?)"
    r"(?:\s*/\s*(?P<v2>\d+\.\d+(?:\.\d+)?))?\]?\*?"
)
_MINDSPORE_TYPO = re.compile(r"(?i)\bmind(?:spore|psore|sopre|spre|spor|sproe)\b")
# No leading ``\**``: from every start in a run of stars it scanned the rest of the run (quadratic);
# only the end and the groups of a match are used.
_MODE = re.compile(
    r"(?i)\b(?P<m>graph|pynative|py-native)\b\*{0,2}[ \t]{1,3}mode\b"
    r"|[（(]?(?P<zh>静态图|动态图|图)模式[）)]?"
)
_FOLLOWING = re.compile(r"(?i)(?:the\s+following\s+)$")
# words before the hint that open the sentence (`All experiments are tested ...`): a rewrite takes
# them too, so no `All` is left before the guide's `Experiments` (bounded: the last 120 characters)
_LEAD_WORDS = re.compile(r"(?:[A-Za-z][A-Za-z0-9'’-]{0,30},?[ \t]{1,3}){1,6}$")
_LEAD_STOP = tuple(".!?:;。！？：；>*_-+([")


def _opening_words(line: str, start: int) -> int:
    """Where the sentence whose hint starts at ``start`` begins: at the words before the hint when
    only markup, a list marker or another sentence's end comes before them."""
    lo = max(0, start - 120)
    m = _LEAD_WORDS.search(line, lo, start)
    if m is None:
        return start
    before = line[: m.start()].rstrip()
    if not before or before.endswith(_LEAD_STOP) or before.isdigit():
        return m.start()
    return start


_CLAUSE_END = re.compile(r"[.:](?:\s|$)")
_SPACES = re.compile(r"\s+")
_ZH_MODE = {"图": "graph", "静态图": "graph", "动态图": "pynative"}


def canonical_sentence(device: str, version: str, mode: str, *, continues: bool = False) -> str:
    """The guide's sentence; without its final "." when the line goes on with a clause."""
    end = "" if continues else "."
    return f"Experiments are tested on ascend {device} with mindspore {version} {mode} mode{end}"


def sentence_span(line: str) -> tuple[int, int] | None:
    """Columns of the sentence in a line: from its first word through ``mode`` and a ``.``/``:``."""
    m = _SENTENCE_HINT.search(line)
    if not m:
        return None
    start = m.start()
    if m.group(0).startswith(("实验在", "在")):  # a Chinese sentence: the rest of its line
        return start, len(line.rstrip())
    lead = line[:start]
    lm = _FOLLOWING.search(lead)
    start = lm.start() if lm else _opening_words(line, start)
    mode = None
    for mm in _MODE.finditer(line, m.end()):
        mode = mm
        break
    if mode:
        end = mode.end()
        # "graph mode." / "graph mode :" / "**mindspore 2.3.1 graph mode**." / "graph mode.**"
        stop = _SENTENCE_STOP.match(line, end)
        if stop and stop.end() > end:
            end = stop.end()
    else:
        dot = _CLAUSE_END.search(line[m.end() :])
        end = m.end() + dot.end() if dot else len(line)
        end = len(line[:end].rstrip())
    return _balance_emphasis(line, start, end)


# after "mode": a closing emphasis mark, then the sentence's stop (or the stop, then the mark)
_SENTENCE_STOP = re.compile(r"(?:\*\*|__)?(?:[ \t]{0,4}[.:：。])?(?:(?<=[.:：。])(?:\*\*|__))?")


def _balance_emphasis(line: str, start: int, end: int) -> tuple[int, int]:
    """Widen a sentence's span so it holds both marks of any ``**``/``__`` it holds one of.

    A rewrite replaces the span with the guide's plain words: half of a bold pair left outside it
    would break the line (``... pynative mode.**.``), so the span takes the whole emphasis.
    """
    for mark in ("**", "__"):
        if line.count(mark, start, end) % 2 == 0:
            continue
        opener = line.rfind(mark, 0, start)
        if opener >= 0 and line.count(mark, 0, opener) % 2 == 0:
            start = opener  # "**Experiments are ... mode**." / "Note: **the experiments ...**"
            continue
        closer = line.find(mark, end)
        if closer >= 0:  # "... with **mindspore 2.3.1 graph** mode."
            end = closer + len(mark)
            stop = re.match(r"[ \t]{0,4}[.:：。]", line[end : end + 5])
            if stop:
                end += stop.end()
    return start, end


# a word before "mode" that is one of the guide's modes misspelt (`pyantive mode`)
_NEAR_MODE = re.compile(r"(?i)\b(?P<w>[a-z][a-z-]{2,11})\*{0,2}[ \t]{1,3}mode\b")


def misspelt_mode(text: str) -> tuple[str, str] | None:
    """(the word, the mode it stands for) when ``text`` names a mode misspelt (`pyantive mode`)."""
    from difflib import SequenceMatcher

    for m in _NEAR_MODE.finditer(text[:2000]):
        word = m.group("w").lower()
        for mode in ("pynative", "graph"):
            if word != mode and SequenceMatcher(None, word, mode).ratio() >= 0.75:
                return m.group("w"), mode
    return None


def mode_words(text: str) -> tuple[str | None, str | None]:
    """(mode, MindSpore version) that ``text`` names in any words (`PYNATIVE mode`, `MindSpore
    2.6.0`), or None for each it does not."""
    mm = _MODE.search(text[:2000])
    mode = None
    if mm:
        zh = mm.group("zh")
        mode = _ZH_MODE[zh] if zh else mm.group("m").lower().replace("-", "")
    vm = _MS_VERSION.search(text[:2000])
    return mode, vm.group("v") if vm else None


def parse_sentence(line: str, lineno: int) -> Sentence | None:
    span = sentence_span(line)
    if span is None:
        return None
    text = line[span[0] : span[1]].strip()
    hint = _SENTENCE_HINT.search(text)
    assert hint is not None  # the span starts with it
    # the device comes after the English hint ("tested on ascend 910*"), inside a Chinese one
    dm = _DEVICE.search(text, hint.start() if hint.group(0).startswith("在") else hint.end())
    device = device_text = None
    if dm:
        device_text = dm.group(0)
        d = _SPACES.sub(" ", dm.group("d")).lower()
        device = "910" if d in ("910", "910a") else "910*"
    versions: list[str] = []
    vm = _MS_VERSION.search(text)
    if vm:
        versions.append(vm.group("v"))
        if vm.group("v2"):
            versions.append(vm.group("v2"))
    mm = _MODE.search(text)
    mode = None
    if mm:
        mode = (
            _ZH_MODE[mm.group("zh")] if mm.group("zh") else mm.group("m").lower().replace("-", "")
        )
    # "... graph mode, using bf16." goes on after the sentence: its canonical form has no "."
    # so does "... graph mode and jit level O1." / "... graph mode (jit level O1)." (no stop
    # after "mode": a "." there would cut the line's sentence in two)
    rest = line[span[1] :].strip()
    continues = rest[:1] in (",", ";") or (
        bool(rest) and not text.endswith((".", ":", "：", "。")) and rest[:1] not in "。.:："
    )
    canonical = (
        device is not None
        and len(versions) == 1
        and mode is not None
        and text == canonical_sentence(device, versions[0], mode, continues=continues)
    )
    return Sentence(lineno, text, device, device_text, tuple(versions), mode, canonical, continues)
