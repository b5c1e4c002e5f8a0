"""Version-string normalisation for the Requirements table (shared/spec/VERSION-SPELLINGS.md).

Four kinds of version: ``mindspore``, ``driver`` (Ascend HDK), ``firmware`` and ``cann``.
``parse_version(kind, text)`` (or ``normalize_<kind>(text)``) turns the text of a table cell into a
:class:`Version`, or ``None`` when the text is not a version of that kind. Nothing here raises on
bad input: any object, any string, any length.

Equality rules (what counts as "the same version"):

* case is ignored; markdown bold/italics, backticks, links, HTML tags and entities are dropped;
* the ``Ascend HDK`` / ``CANN`` / ``CANN-`` / ``cann_`` / ``MindSpore`` / ``v`` prefixes are
  stripped, and so are package file names (``Ascend-cann-toolkit_8.0.RC2_linux-aarch64.run``) and
  ``version.info`` lines (``Version=24.1.rc3``);
* ``24.1RC2`` gets its missing dot; ``rc`` becomes ``RC`` for driver/CANN and ``rc`` for MindSpore;
* ``beta1`` / ``.beta1`` / `` beta1`` / ``-beta.1`` are all ``.beta1``;
* ``same_driver``: a patch level or build (``25.0.rc1.1``, ``24.1.RC3.b080``) is the same driver as
  the release it patches (``25.0.RC1``);
* ``same_cann``: a community build (``8.0.RC2.beta1``, ``8.0.RC3.alpha002``) is the same CANN as the
  commercial release (``8.0.RC2``);
* ``same_firmware``: every component must agree (after case folding);
* MindSpore reads PEP 440 versions: ``2.3.0rc1``, and ``2.7.1.post1`` (a post-release, after
  2.7.1 and before 2.7.2; its ``base`` is ``2.7.1``).
"""

from __future__ import annotations

import dataclasses
import html
import re
import unicodedata
from functools import lru_cache
from typing import Literal

__all__ = [
    "KINDS",
    "Kind",
    "Version",
    "mindspore_versions",
    "normalize_cann",
    "normalize_driver",
    "normalize_firmware",
    "normalize_mindspore",
    "parse_version",
    "same_cann",
    "same_driver",
    "same_firmware",
    "same_mindspore",
]

Kind = Literal["mindspore", "driver", "firmware", "cann"]
KINDS: tuple[Kind, ...] = ("mindspore", "driver", "firmware", "cann")

#: Longer text is not a version cell; refusing it keeps the regexes cheap.
MAX_LEN = 200


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Version:
    """One parsed version.

    ``text`` is the text as given; ``canonical`` the normalised spelling (``24.1.RC2``,
    ``8.0.RC2.beta1``, ``2.6.0rc1``, ``7.3.0.1.231``); ``key`` a tuple of ints that orders the
    versions of one kind; ``base`` the spelling the ``same_*`` helpers compare (driver without
    patch/build, CANN without the community/alpha suffix, firmware = canonical, MindSpore without
    ``.postN``). ``partial`` marks a MindSpore ``major.minor`` (``2.5``); ``in_range`` marks an
    endpoint of a range cell (``2.2.10~2.2.12``).

    Two versions are equal when their kind and canonical spelling are equal.
    """

    kind: Kind
    text: str
    canonical: str
    key: tuple[int, ...]
    base: str
    partial: bool = False
    in_range: bool = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.kind == other.kind and self.canonical == other.canonical

    def __hash__(self) -> int:
        return hash((self.kind, self.canonical))

    def __lt__(self, other: Version) -> bool:
        if not isinstance(other, Version) or other.kind != self.kind:
            return NotImplemented
        return self.key < other.key

    def __le__(self, other: Version) -> bool:
        if not isinstance(other, Version) or other.kind != self.kind:
            return NotImplemented
        return self.key <= other.key

    def __gt__(self, other: Version) -> bool:
        if not isinstance(other, Version) or other.kind != self.kind:
            return NotImplemented
        return self.key > other.key

    def __ge__(self, other: Version) -> bool:
        if not isinstance(other, Version) or other.kind != self.kind:
            return NotImplemented
        return self.key >= other.key

    def __str__(self) -> str:
        return self.canonical


# ---------------------------------------------------------------------------------------------
# Cleaning: markdown and other wrapping that never belongs to a version.

_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
_TAG = re.compile(r"<[^<>]*>")
_TRAILING_NOTE = re.compile(r"(?<=\S)\s*\([^()]*\)$")
_EDGE = " \t.,;:'\"()[]{}|"


def _clean(text: object) -> str | None:
    """Strip markdown/HTML wrapping and collapse whitespace; ``None`` if nothing usable is left."""
    if not isinstance(text, str) or len(text) > MAX_LEN:
        return None
    s = unicodedata.normalize("NFKC", text)  # full-width ～ and digits, NBSP -> space
    s = html.unescape(s)
    s = _LINK.sub(r"\1", s)
    s = _TAG.sub(" ", s)
    s = s.replace("`", "").replace("*", "")
    s = " ".join(s.split())
    s = _TRAILING_NOTE.sub("", s)
    s = s.strip(_EDGE)
    if len(s) >= 2 and s[0] == s[-1] == "_":  # _italic_
        s = s.strip("_")
    return s or None


_VERSION_INFO = re.compile(r"^(?:package_)?version\s*[=:]\s*", re.I)


# ---------------------------------------------------------------------------------------------
# MindSpore: 2.3.1, 2.5 (major.minor), 2.6.0rc1 / 2.6.0-rc1 / v2.6.0rc1, 2.0.0-alpha.

_MS = re.compile(
    r"""^(?:mind[\s_-]?spore(?:\s*==\s*|[\s_-]*))?v?\s*
    (?P<maj>[0-9]{1,4})\.(?P<min>[0-9]{1,4})(?:\.(?P<mic>[0-9]{1,4}))?
    (?:[.\s_-]?(?P<pre>rc|alpha|beta|a|b)[.\s_-]?(?P<pn>[0-9]{1,4})?)?
    (?:[.\s_-]?post[.\s_-]?(?P<post>[0-9]{1,4}))?$""",
    re.I | re.X | re.ASCII,
)
_MS_PRE = {"a": ("a", 0), "alpha": ("a", 0), "b": ("b", 1), "beta": ("b", 1), "rc": ("rc", 2)}


def _parse_mindspore(text: str, s: str) -> Version | None:
    m = _MS.match(s)
    if not m:
        return None
    maj, mnr = int(m["maj"]), int(m["min"])
    mic = m["mic"]
    pre = m["pre"]
    post = -1 if m["post"] is None else int(m["post"])
    if mic is None:
        if pre is not None or post >= 0:
            return None  # "2.5rc1" / "2.5.post1" name no release
        canon = f"{maj}.{mnr}"
        return Version("mindspore", text, canon, (maj, mnr, -1, 3, 0, -1), canon, partial=True)
    mic_i = int(mic)
    # PEP 440: a post-release (2.7.1.post1) comes after its release, before the next one
    post_text = "" if post < 0 else f".post{post}"
    if pre is None:
        canon = f"{maj}.{mnr}.{mic_i}"
        return Version("mindspore", text, canon + post_text, (maj, mnr, mic_i, 3, 0, post), canon)
    tag, rank = _MS_PRE[pre.lower()]
    pn = int(m["pn"]) if m["pn"] else 0
    canon = f"{maj}.{mnr}.{mic_i}{tag}{pn}"
    return Version("mindspore", text, canon + post_text, (maj, mnr, mic_i, rank, pn, post), canon)


# ---------------------------------------------------------------------------------------------
# Driver (Ascend HDK): 24.1.RC2, 24.1RC2, 23.0.3, 25.0.RC1.1 (patch), 24.1.RC3.b080 (build),
# 1.0.22.alpha / 1.0.RC2 (legacy).

_DRIVER_FILE = re.compile(r"driver[\w-]*?_(?P<v>[0-9][^_\s]*?)(?:_linux[\w.-]*)?(?:\.run)?$", re.I)
_DRIVER_PREFIX = re.compile(
    r"^(?:ascend[\s+_-]*)?(?:hdk[\s+_-]*)?(?:(?:npu[\s_-]*)?driver[\s_:=-]*)?", re.I
)
_DRIVER = re.compile(
    r"""^(?P<maj>[0-9]{1,4})\.(?P<min>[0-9]{1,4})
    (?:\.?RC(?P<rc>[0-9]{1,4})|\.(?P<ga>[0-9]{1,4}))
    (?:\.(?P<patch>[0-9]{1,4}))?
    (?:[.\s_-]?(?P<pre>alpha|beta)[.\s_-]?(?P<pn>[0-9]{1,4})?)?
    (?:[.\s_-]?B(?P<build>[0-9]{1,5}))?$""",
    re.I | re.X | re.ASCII,
)
_PRE_RANK = {"alpha": 0, "beta": 1}


def _release(m: re.Match[str]) -> tuple[int, int, int, int, str]:
    """(major, minor, stage, n, text) of a driver or CANN release: ``24.1.RC2`` is stage 0
    (RC) n=2, ``24.1.0`` stage 1 (GA) n=0; the text is the upper-case RC spelling."""
    maj, mnr = int(m["maj"]), int(m["min"])
    if m["rc"] is not None:
        return maj, mnr, 0, int(m["rc"]), f"{maj}.{mnr}.RC{int(m['rc'])}"
    return maj, mnr, 1, int(m["ga"]), f"{maj}.{mnr}.{int(m['ga'])}"


def _hdk_parts(s: str) -> tuple[str, str, tuple[int, ...]] | None:
    """(canonical, base, key) of an HDK/driver spelling, or None."""
    m = _DRIVER.match(s)
    if not m:
        return None
    maj, mnr, stage, n, release = _release(m)
    patch = -1 if m["patch"] is None else int(m["patch"])
    pre_key: tuple[int, int] = (2, -1)
    pre_text = ""
    if m["pre"]:
        pre = m["pre"].lower()
        pn = int(m["pn"]) if m["pn"] else None
        pre_text = f".{pre}{'' if pn is None else pn}"
        pre_key = (_PRE_RANK[pre], -1 if pn is None else pn)
    build = -1 if m["build"] is None else int(m["build"])
    base = release + pre_text
    canon = release + ("" if patch < 0 else f".{patch}") + pre_text
    if build >= 0:
        canon += f".B{build:03d}"
    return canon, base, (maj, mnr, stage, n, *pre_key, patch, build)


def _strip_driver_prefix(s: str) -> str:
    f = _DRIVER_FILE.search(s)
    if f:
        return f["v"]
    s = _VERSION_INFO.sub("", s)
    return _DRIVER_PREFIX.sub("", s.replace("+", " ")).strip()


def _parse_driver(text: str, s: str) -> Version | None:
    parts = _hdk_parts(_strip_driver_prefix(s))
    if parts is None:
        return None
    canon, base, key = parts
    return Version("driver", text, canon, key, base)


# ---------------------------------------------------------------------------------------------
# Firmware: 7.3.0.1.231, internal builds 7.5.T11.0.B088 / 7.3.t10, or an HDK version written in the
# firmware column (25.0.RC1). "7.3.0.1.231:8.0.RC2" is a CANN runtime:CANN pair, not firmware.

_FIRMWARE_FILE = re.compile(
    r"firmware[\w-]*?_(?P<v>[0-9][^_\s]*?)(?:_linux[\w.-]*)?(?:\.run)?$", re.I
)
_FIRMWARE_PREFIX = re.compile(
    r"^(?:ascend[\s+_-]*)?(?:hdk[\s+_-]*)?(?:(?:npu[\s_-]*)?firmware)?", re.I
)
_FIRMWARE = re.compile(
    r"^[0-9]{1,4}(?:\.(?:[0-9]{1,6}|[TB][0-9]{1,6})){2,6}$",
    re.I | re.ASCII,
)


def _parse_firmware(text: str, s: str) -> Version | None:
    f = _FIRMWARE_FILE.search(s)
    if f:
        s = f["v"]
    else:
        s = _VERSION_INFO.sub("", s)
        s = _FIRMWARE_PREFIX.sub("", s.replace("+", " ")).strip(" _:=-")
    if ":" in s:
        return None
    if _FIRMWARE.match(s):
        comps: list[str] = []
        key: list[int] = [0]
        for c in s.split("."):
            head = c[0].upper()
            if head in "TB":
                n = int(c[1:])
                comps.append(f"T{n}" if head == "T" else f"B{n:03d}")
                key += [1 if head == "T" else 0, n]
            else:
                n = int(c)
                comps.append(str(n))
                key += [2, n]
        canon = ".".join(comps)
        return Version("firmware", text, canon, tuple(key), canon)
    parts = _hdk_parts(_DRIVER_PREFIX.sub("", s).strip())
    if parts is None or parts[2][2] != 0:  # only an RC release reads as an HDK spelling here
        return None
    canon, _base, hkey = parts
    # key[0] == 1: an HDK spelling; (key[2], key[4]) stays (major, minor) for ``series``.
    return Version("firmware", text, canon, (1, 2, hkey[0], 2, hkey[1], *hkey[2:]), canon)


# ---------------------------------------------------------------------------------------------
# CANN: 8.0.RC2.beta1, 8.0.RC2, 8.0.0beta1, 7.0.0 beta1, CANN-7.0.RC1, cann_8.0.rc3,
# 8.0.RC3.alpha002, 8.5.0-beta.1, Ascend-cann-toolkit_8.0.RC2_linux-aarch64.run.

_CANN_FILE = re.compile(
    r"cann[\w-]*?_(?P<v>[0-9][^_\s]*?)(?:_linux[\w.-]*)?(?:\.run|\.zip|\.tar\.gz)?$", re.I
)
_CANN_PREFIX = re.compile(
    r"^(?:ascend[\s_-]*)?cann(?:[\s_/-]*(?:toolkit|kernels?|tookit|nnae))*[\s_:=-]*", re.I
)
_CANN = re.compile(
    r"""^(?P<maj>[0-9]{1,4})\.(?P<min>[0-9]{1,4})
    (?:\.?RC(?P<rc>[0-9]{1,4})|\.(?P<ga>[0-9]{1,4}))
    (?:\.(?P<patch>[0-9]{1,4}))?
    (?:[.\s_-]*(?P<pre>alpha|beta)[.\s_-]?(?P<pn>[0-9]{1,4})?)?$""",
    re.I | re.X | re.ASCII,
)


def _parse_cann(text: str, s: str) -> Version | None:
    f = _CANN_FILE.search(s)
    if f and not _CANN.match(s):
        s = f["v"]
    else:
        s = _VERSION_INFO.sub("", s)
        if ":" in s:  # version.cfg "7.3.0.1.231:8.0.RC2" = runtime:CANN
            s = s.rsplit(":", 1)[1].strip()
        s = _CANN_PREFIX.sub("", s).strip()
    m = _CANN.match(s)
    if not m:
        return None
    maj, mnr, stage, n, base = _release(m)
    canon = base
    patch = -1
    if m["patch"] is not None:
        patch = int(m["patch"])
        canon += f".{patch}"
    pre_key = (2, -1)
    if m["pre"]:
        pre = m["pre"].lower()
        pn = int(m["pn"]) if m["pn"] else None
        if pn is None:
            canon += f".{pre}"
        elif pre == "alpha":
            canon += f".alpha{pn:03d}"
        else:
            canon += f".beta{pn}"
        pre_key = (_PRE_RANK[pre], -1 if pn is None else pn)
    return Version("cann", text, canon, (maj, mnr, stage, n, patch, *pre_key), base)


# ---------------------------------------------------------------------------------------------
# Public API.

_PARSERS = {
    "mindspore": _parse_mindspore,
    "driver": _parse_driver,
    "firmware": _parse_firmware,
    "cann": _parse_cann,
}


@lru_cache(maxsize=4096)
def _parse_cached(kind: str, text: str) -> Version | None:
    s = _clean(text)
    if s is None:
        return None
    if kind != "mindspore":
        s = _VERSION_INFO.sub("", s)
    return _PARSERS[kind](text, s)


def parse_version(kind: str, text: object) -> Version | None:
    """Parse ``text`` as a version of ``kind`` (one of :data:`KINDS`); ``None`` if it is not one."""
    if kind not in _PARSERS or not isinstance(text, str) or len(text) > MAX_LEN:
        return None
    try:
        return _parse_cached(kind, text)
    except Exception:  # pragma: no cover - the parsers are regex-bounded; this is a last guard
        return None


def normalize_mindspore(text: object) -> Version | None:
    """One MindSpore version (``2.3.1``, ``2.5``, ``2.6.0rc1``); ranges/lists give ``None``."""
    return parse_version("mindspore", text)


def normalize_driver(text: object) -> Version | None:
    """An Ascend driver / HDK version (``24.1.RC2``)."""
    return parse_version("driver", text)


def normalize_firmware(text: object) -> Version | None:
    """A firmware version (``7.3.0.1.231``, ``7.5.T11.0.B088``, or an HDK spelling)."""
    return parse_version("firmware", text)


def normalize_cann(text: object) -> Version | None:
    """A CANN toolkit/kernel version (``8.0.RC2.beta1``, ``8.0.0``)."""
    return parse_version("cann", text)


def _as_version(kind: str, v: object) -> Version | None:
    if isinstance(v, Version):
        return v if v.kind == kind else parse_version(kind, v.text)
    return parse_version(kind, v)


def same_mindspore(a: object, b: object) -> bool:
    """Same MindSpore release (``2.6.0-rc1`` == ``v2.6.0rc1``; ``2.5`` != ``2.5.0``)."""
    va, vb = _as_version("mindspore", a), _as_version("mindspore", b)
    return va is not None and vb is not None and va.canonical == vb.canonical


def same_driver(a: object, b: object) -> bool:
    """Same driver release; a patch or build matches its release (``25.0.rc1.1`` ~ ``25.0.RC1``)."""
    va, vb = _as_version("driver", a), _as_version("driver", b)
    return va is not None and vb is not None and va.base == vb.base


def same_firmware(a: object, b: object) -> bool:
    """Same firmware build (every component, case-insensitive)."""
    va, vb = _as_version("firmware", a), _as_version("firmware", b)
    return va is not None and vb is not None and va.base == vb.base


def same_cann(a: object, b: object) -> bool:
    """Same CANN release; a community/alpha build matches commercial (``8.0.RC2.beta1``)."""
    va, vb = _as_version("cann", a), _as_version("cann", b)
    return va is not None and vb is not None and va.base == vb.base


_RANGE_SEP = re.compile(r"\s*(?:~|〜|–|—|-|\bto\b)\s*", re.I)
_LIST_SEP = re.compile(r"\s*(?:/|,|、|;|&|\band\b|\bor\b)\s*", re.I)

# These patterns backtrack on long text (a run of spaces, "driver" repeated), but they only ever
# see text of at most MAX_LEN characters (whitespace collapsed): `_clean` and `parse_version` check
# the length before any pattern runs. tests/test_linear_time.py exempts them and tests the guard.
LENGTH_BOUNDED_PATTERNS = frozenset(
    {"_DRIVER_FILE", "_FIRMWARE_FILE", "_CANN_FILE", "_RANGE_SEP", "_LIST_SEP"}
)


def mindspore_versions(cell: object) -> list[Version]:
    """The MindSpore versions a Requirements cell names.

    ``2.3.1`` -> one version; ``2.3.0/2.3.1`` (also ``,``/``、``/``and``) -> each listed version;
    ``2.2.10～2.2.12`` / ``2.2.10~2.2.12`` / ``2.2.10-2.2.12`` -> the two endpoints, both with
    ``in_range=True``. An empty list when the cell is not (entirely) made of versions.
    """
    if isinstance(cell, str) and len(cell) <= MAX_LEN:
        # a pure function of the text, memoised (a README asks about one cell several times,
        # and a repository's READMEs name the same versions); a new list each call
        return list(_mindspore_versions_cached(cell))
    return _mindspore_versions(cell)


def _mindspore_versions(cell: object) -> list[Version]:
    s = _clean(cell)
    if s is None:
        return []
    one = parse_version("mindspore", s)
    if one is not None:
        # the version with the cell's own text (dataclasses.replace, without its cost)
        return [Version(one.kind, str(cell), one.canonical, one.key, one.base, one.partial,
                        one.in_range)]  # fmt: skip
    # A range: try every separator position, so "2.6.0-rc1-2.7.0" splits at the right dash.
    for m in _RANGE_SEP.finditer(s):
        left, right = s[: m.start()], s[m.end() :]
        a, b = parse_version("mindspore", left), parse_version("mindspore", right)
        if a is not None and b is not None:
            return [dataclasses.replace(a, in_range=True), dataclasses.replace(b, in_range=True)]
    parts = [p for p in _LIST_SEP.split(s) if p]
    if len(parts) < 2:
        return []
    out: list[Version] = []
    for p in parts:
        v = parse_version("mindspore", p)
        if v is None:
            return []
        if v not in out:
            out.append(v)
    return out


@lru_cache(maxsize=4096)
def _mindspore_versions_cached(cell: str) -> tuple[Version, ...]:
    return tuple(_mindspore_versions(cell))
