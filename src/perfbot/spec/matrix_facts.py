"""What a MindSpore release accepts and what a CANN pairs with, read from the guide's data:
``matrix_wheels.yaml`` (the CANN each release's wheel accepts) and ``matrix_cann.yaml`` (the HDKs
known to work with a CANN, CANN's internal numbers, numbers that are not firmware).
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from typing import Any

from perfbot.spec.versions import Version, normalize_cann, normalize_driver, normalize_mindspore

_CHECK_FILE = "mindspore/run_check/_check_version.py"
_SERIES = re.compile(r"^\s*([0-9]{1,4})\.([0-9]{1,4})\s*$")


@dataclasses.dataclass(frozen=True, slots=True)
class _Accepts:
    """One accepted CANN: a ``series`` (major, minor: every ``8.5.x``) or a ``release`` (and its
    patch releases); ``label`` its public name (``8.5``, ``8.1.RC1``); neither = an internal
    number no public CANN release is known to carry (accepts nothing)."""

    label: str
    series: tuple[int, int] | None = None
    release: Version | None = None
    exact: bool = False  # that release only, not its patch releases (8.5.2 is not 8.5.0)

    def accepts(self, v: Version) -> bool:
        if self.series is not None:
            return v.key[:2] == self.series
        if self.release is None:
            return False
        return v.base == self.release.base if self.exact else same_release(v, self.release)


def _accepted_spec(text: str) -> _Accepts | None:
    """``8.2`` (a series; an internal number such as ``7.7`` maps to its CANN release), or a CANN
    release (``8.1.RC1``); None when it is neither."""
    m = _SERIES.match(text)
    if m:
        number = f"{int(m[1])}.{int(m[2])}"
        internal = _cann_facts().internal
        if number in internal:
            name = internal[number]
            if name is None:
                return _Accepts(f"{number} (internal; no public name)")
            rel = normalize_cann(name)
            return _Accepts(name, release=rel) if rel is not None else None
        return _Accepts(number, series=(int(m[1]), int(m[2])))
    rel = normalize_cann(text)
    return _Accepts(rel.canonical, release=rel) if rel is not None else None


def same_release(a: Version, b: Version) -> bool:
    """Same CANN release, or a patch release of it: ``8.5.1`` for ``8.5.0`` (both GA, same
    major.minor), ``8.0.RC2.beta1`` for ``8.0.RC2`` (as :func:`same_cann`)."""
    if a.base == b.base:
        return True
    return a.key[2] == 1 and b.key[2] == 1 and a.key[:2] == b.key[:2]


_DRIVER_TOP = (9999, 9999, 9, 9999)


def _driver_bound(text: str, high: bool) -> tuple[int, ...] | None:
    text = text.strip()
    if text.upper().endswith(".X"):
        m = _SERIES.match(text[:-2])
        if not m:
            return None
        return (int(m[1]), int(m[2]), *(_DRIVER_TOP[2:] if high else ()))
    v = normalize_driver(text)
    return None if v is None else v.key[:4]


@dataclasses.dataclass(frozen=True, slots=True)
class _DriverSpec:
    """HDK releases: ``25.5.X``, ``25.0.X-26.1.0`` (a range), ``23.0.3`` (one release)."""

    text: str
    low: tuple[int, ...]
    high: tuple[int, ...]

    def matches(self, v: Version) -> bool:
        return self.low <= v.key[:4] <= self.high


def _driver_spec(text: str) -> _DriverSpec | None:
    left, sep, right = text.partition("-")
    if sep:
        lo, hi = _driver_bound(left, False), _driver_bound(right, True)
    else:
        lo, hi = _driver_bound(text, False), _driver_bound(text, True)
    if lo is None or hi is None:
        return None
    return _DriverSpec(text.strip().replace("-", "–"), lo, hi)


@dataclasses.dataclass(frozen=True, slots=True)
class CannFacts:
    """matrix_cann.yaml: ``internal`` number -> CANN release (or None); ``hdk``: (accepted CANN,
    compatible HDK specs, sources); ``not_firmware``: firmware-looking value -> what it is."""

    internal: dict[str, str | None]
    hdk: tuple[tuple[_Accepts, tuple[_DriverSpec, ...], tuple[str, ...]], ...]
    not_firmware: dict[str, str]
    raw: dict[str, Any]


@cache
def _cann_facts() -> CannFacts:
    from perfbot.spec import data

    raw = data.load("matrix_cann.yaml") or {}
    internal = {str(e["number"]): e.get("cann") for e in raw.get("internal", [])}
    hdk = []
    for e in raw.get("hdk", []):
        m = _SERIES.match(e["cann"])
        acc = (
            _Accepts(e["cann"], series=(int(m[1]), int(m[2])))
            if m
            else _Accepts(e["cann"], release=normalize_cann(e["cann"]), exact=True)
        )
        specs = tuple(sp for sp in (_driver_spec(d) for d in e.get("drivers", [])) if sp)
        hdk.append((acc, specs, tuple(e.get("sources", []))))
    nf = {str(e["value"]): str(e["is"]) for e in raw.get("not_firmware", [])}
    return CannFacts(internal, tuple(hdk), nf, raw)


@cache
def _wheels() -> dict[str, dict[str, Any]]:
    """matrix_wheels.yaml by MindSpore version (canonical): what each wheel accepts."""
    from perfbot.spec import data

    out = {}
    for e in data.load("matrix_wheels.yaml") or []:
        v = normalize_mindspore(e.get("mindspore"))
        if v is not None:
            out[v.canonical] = e
    return out


def wheel_facts(mindspore: str | Version) -> dict[str, Any] | None:
    """What the wheel of ``mindspore`` says (``accepted``, ``built_with``, ``wheel``, ...)."""
    v = mindspore if isinstance(mindspore, Version) else normalize_mindspore(mindspore)
    return None if v is None else _wheels().get(v.canonical)


def _range_text(items: list[_Accepts]) -> str:
    known = [a for a in items if a.series is not None or a.release is not None]
    names = [a.label for a in known]
    text = ", ".join(names)
    if len(names) >= 3 and all(a.series is not None for a in known):
        text = f"{names[0]}–{names[-1]} ({text})"
    unknown = [a.label for a in items if a not in known]
    return "; ".join([text, *unknown]) if text else "; ".join(unknown)
