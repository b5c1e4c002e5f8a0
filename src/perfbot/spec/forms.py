"""Value forms of SPEC §2.2: how a cell must look, and the mechanical repair when there is one.

Each form is a :class:`Form` in :data:`FORMS`, keyed by the name ``columns.yaml`` uses. A form's
``normalize`` returns the guide's spelling of a value that means the same thing, or ``None`` when
no mechanical repair exists (then the finding has no fix).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

# Cells that say "no value" rather than a wrong value.
PLACEHOLDER = re.compile(
    r"^(?:|-+|—|–|/|n[/.]?a\.?|none|null|tbd|todo|x+\.x+|\?+|…|\.\.\.)$", re.I
)  # `N.A.` is `n/a` too

_NUM = r"[0-9]+(?:\.[0-9]+)?"
NUMBER = re.compile(rf"^{_NUM}$")


@dataclass(frozen=True, slots=True)
class Form:
    name: str
    want: str  # what the guide wants, for messages
    example: str
    match: Callable[[str], bool]
    normalize: Callable[[str], str | None]


def _strip_md(v: str) -> str:
    v = v.strip()
    for mark in ("**", "__", "`"):
        if len(v) > 2 * len(mark) and v.startswith(mark) and v.endswith(mark):
            v = v[len(mark) : -len(mark)].strip()
    return v


# Cells repeat (`8`, `64`, `0.89`, `O2` in every row and README): the parsers of a cell's text
# below are pure, and memoised per text up to this length, in caches of bounded size.
_MEMO_MAX_LEN = 64
_MEMO_SIZE = 4096


def parse_number(v: str) -> float | None:
    """A plain decimal number in a cell (markdown emphasis, ``~``, thousands commas and a
    decimal comma such as ``47,34`` allowed)."""
    if len(v) <= _MEMO_MAX_LEN:
        return _parse_number_memo(v)
    return _parse_number(v)


def _parse_number(v: str) -> float | None:
    v = _strip_md(v).lstrip("~≈").strip()
    if re.fullmatch(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", v):
        v = v.replace(",", "")
    elif re.fullmatch(r"[0-9]+,[0-9]{1,2}", v):
        v = v.replace(",", ".")
    if NUMBER.match(v):
        return float(v)
    return None


_parse_number_memo = lru_cache(maxsize=_MEMO_SIZE)(_parse_number)


_TIME = re.compile(rf"^(?P<n>{_NUM}|[0-9]+,[0-9]{{1,2}})\s*(?P<u>s|sec|secs|seconds?|ms)?$", re.I)


def parse_time(v: str) -> tuple[float, str | None, str] | None:
    """A time cell: (number, unit written or None, the number's text). ``0.89s`` -> (0.89, "s")."""
    if len(v) <= _MEMO_MAX_LEN:
        return _parse_time_memo(v)
    return _parse_time(v)


def _parse_time(v: str) -> tuple[float, str | None, str] | None:
    m = _TIME.match(_strip_md(v).lstrip("~≈").strip())
    if not m:
        return None
    text = m.group("n").replace(",", ".")
    unit = m.group("u")
    return float(text), ("ms" if unit and unit.lower() == "ms" else "s" if unit else None), text


_parse_time_memo = lru_cache(maxsize=_MEMO_SIZE)(_parse_time)


def round2(x: float) -> str:
    """Round half away from zero to 2 decimals (what people do by hand), as text."""
    q = math.floor(abs(x) * 100 + 0.5 + 1e-9) / 100
    return f"{math.copysign(q, x):.2f}"


# positive integer ------------------------------------------------------------------------------
_INT = re.compile(r"^[1-9][0-9]*$")


def _int_norm(v: str) -> str | None:
    s = _strip_md(v)
    m = re.fullmatch(r"([1-9][0-9]*)(?:\.0+)?", s)
    return m.group(1) if m else None


# resolution ------------------------------------------------------------------------------------
_RES = re.compile(r"^[1-9][0-9]*x[1-9][0-9]*(?:x[1-9][0-9]*)?$")
_RES_LOOSE = re.compile(r"^([1-9][0-9]*)\s*[xX×*]\s*([1-9][0-9]*)(?:\s*[xX×*]\s*([1-9][0-9]*))?$")


def _res_norm(v: str) -> str | None:
    m = _RES_LOOSE.match(_strip_md(v))
    if not m:
        return None
    if frames_last(v):
        return None  # `256x256x32`: which number is which is the author's to say
    return "x".join(g for g in m.groups() if g)


def frames_last(v: str) -> int | None:
    """The frames of a video resolution written frames last (`256x256x32` for the guide's
    `32x256x256`): a third number of at least 4 (not 3 colour channels) and at most a quarter of
    the image's sides (not a cube such as a 3D volume's `96x96x96`), else None."""
    m = _RES_LOOSE.match(_strip_md(v)[:40])
    if not m or not m.group(3):
        return None
    a, b, f = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return f if f >= 4 and 4 * f <= min(a, b) else None


def _res_match(v: str) -> bool:
    return bool(_RES.match(v)) and frames_last(v) is None


# jit level -------------------------------------------------------------------------------------
_JIT = re.compile(r"^O[012]$")


def _jit_norm(v: str) -> str | None:
    s = _strip_md(v)
    m = re.fullmatch(r"[oO0]([012])", s)
    return f"O{m.group(1)}" if m else None


# graph compile ---------------------------------------------------------------------------------
# "1 min" is as right as "5 mins" (the runner writes both)
_COMPILE = re.compile(rf"^(?:{_NUM}~{_NUM} mins|1 min|{_NUM} mins)$")
_COMPILE_LOOSE = re.compile(
    rf"^(?P<a>{_NUM})\s*(?:(?:~|～|-|–|to)\s*(?P<b>{_NUM})\s*)?"  # one \s* per gap: linear
    r"(?P<u>mins?|minutes?|m)\.?$",
    re.I,
)
_COMPILE_SECONDS = re.compile(rf"^(?P<a>{_NUM})\s*(?:s|sec|secs|seconds?)\.?$", re.I)


def _compile_norm(v: str) -> str | None:
    s = _strip_md(v).replace("<br>", "").replace("<br/>", "").strip()
    m = _COMPILE_LOOSE.match(s)
    if m:
        a, b = m.group("a"), m.group("b")
        if b:
            return f"{a}~{b} mins"
        return "1 min" if a == "1" else f"{a} mins"
    return None


def compile_seconds(v: str) -> float | None:
    """Seconds of a graph-compile cell written in seconds (``77s``, ``403.87 s``), else None."""
    s = _strip_md(v).replace("<br>", "").replace("<br/>", "").strip()
    m = _COMPILE_SECONDS.match(s)
    return float(m.group("a")) if m else None


def compile_minutes(v: str) -> tuple[float, float] | None:
    """(low, high) minutes of a graph-compile cell in any accepted spelling."""
    s = _strip_md(v).replace("<br>", "").strip()
    m = _COMPILE_LOOSE.match(s)
    if m:
        a = float(m.group("a"))
        return a, float(m.group("b") or a)
    sec = compile_seconds(v)
    if sec is not None:
        return sec / 60, sec / 60
    return None


# 2 decimals ------------------------------------------------------------------------------------
_DEC2 = re.compile(r"^[0-9]+\.[0-9]{2}$")


def _dec2_norm(v: str) -> str | None:
    if any(mark in v for mark in "~≈<>"):
        return None  # an approximate value: 2 decimals would claim a precision it does not have
    x = parse_number(v)
    if x is None:
        t = parse_time(v)  # "0.89s" under s/step: the unit is the header's
        x = t[0] if t and t[1] == "s" else None
    return None if x is None else round2(x)


# switches --------------------------------------------------------------------------------------
_ON = {"on", "yes", "y", "true", "enabled", "enable", "✓", "✔", "√", "1"}
_OFF = {"off", "no", "n", "false", "disabled", "disable", "✗", "✘", "×", "0"}


def _switch_norm(v: str) -> str | None:
    s = _strip_md(v).lower()
    if s in _ON:
        return "ON"
    if s in _OFF:
        return "OFF"
    return None


# precision -------------------------------------------------------------------------------------
_PREC = {
    "fp32": "fp32", "float32": "fp32", "f32": "fp32",
    "fp16": "fp16", "float16": "fp16", "f16": "fp16", "half": "fp16",
    "bf16": "bf16", "bfloat16": "bf16",
}  # fmt: skip


def _prec_norm(v: str) -> str | None:
    return _PREC.get(_strip_md(v).lower().replace(" ", ""))


# links -----------------------------------------------------------------------------------------
_ONE_LINK = r"\[[^\]]+\]\([^)\s]+(?:\s+\"[^\"]*\")?\)"
# one link, or several (`[ckpt](...) \| [mindir](...)`, `[yaml(LF_1)](...) [yaml(LA)](...)`)
# separated by spaces, `|`, `/`, `,`, `;` or `<br>`
_LINK = re.compile(rf"^{_ONE_LINK}(?:(?:\s|\\?\||/|,|;|<br\s*/?>)*{_ONE_LINK})*$", re.I)
_URL = re.compile(r"^(?:https?://|\./|\.\./)\S+$")


def _link_norm_factory(label: str) -> Callable[[str], str | None]:
    def norm(v: str) -> str | None:
        s = v.strip()
        if _URL.match(s):
            return f"[{label}]({s})"
        return None

    return norm


# version (requirements cells: checked against the matrix, not by form) ------------------------
def _any(v: str) -> bool:
    return True


def _none(v: str) -> str | None:
    return None


FORMS: dict[str, Form] = {
    f.name: f
    for f in (
        Form("positive_int", "a positive integer", "64", lambda v: bool(_INT.match(v)), _int_norm),
        Form("resolution", "`WxH` (or `FxHxW` for video, frames first) with a lowercase x",
             "1024x1024", _res_match, _res_norm),
        Form("jit_level", "`O0`, `O1` or `O2` (capital letter O)", "O2",
             lambda v: bool(_JIT.match(v)), _jit_norm),
        Form("graph_compile", "minutes, one value or a range", "3~5 mins",
             lambda v: bool(_COMPILE.match(v)), _compile_norm),
        Form("decimal2", "a number with exactly 2 decimals", "0.89",
             lambda v: bool(_DEC2.match(v)), _dec2_norm),
        Form("switch", "`ON` or `OFF`", "ON", lambda v: v in ("ON", "OFF"), _switch_norm),
        Form("precision", "`fp32`, `fp16` or `bf16`", "bf16",
             lambda v: v in ("fp32", "fp16", "bf16"), _prec_norm),
        Form("link", "a Markdown link (or several)", "[yaml](configs/dit.yaml)",
             lambda v: bool(_LINK.match(v.strip())), _none),
        Form("version", "a version", "2.3.1", _any, _none),
        Form("any", "any text", "", _any, _none),
    )
}  # fmt: skip


def link_normalizer(column: str) -> Callable[[str], str | None]:
    """Links are labelled by column: a bare URL under ``weight`` becomes ``[weight](url)``."""
    return _link_norm_factory({"recipe": "yaml"}.get(column, column))
