"""The output formats, in one table: each format's name and its module's ``render`` (the whole
output at once), ``part`` (one checked file's share, see :mod:`perfbot.report.stream`) and
``write_document`` (the whole document from the parts; None for text, which is only streamed).

A new format is a module in :mod:`perfbot.report` with those functions and a line in
:data:`NAMES`. The table imports a format's module when the format is first asked for (a text
check does not load the SARIF writer); no format imports this table or the stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from ..findings import FileResult
    from ..source import FileError
    from ._jsondoc import Parts

NAMES = ("text", "json", "sarif", "github", "rdjson")


class Renderer(Protocol):
    def __call__(
        self, results: Sequence[FileResult], errors: Sequence[FileError] = (), **kw: object
    ) -> str: ...


class Format(NamedTuple):
    name: str
    render: Renderer
    part: Callable[[FileResult, str | None], str]
    write_document: Callable[[Callable[[str], object], Parts, Sequence[FileError]], None] | None


class _Formats(Mapping[str, Format]):
    def __init__(self) -> None:
        self._loaded: dict[str, Format] = {}

    def __getitem__(self, name: str) -> Format:
        got = self._loaded.get(name)
        if got is None:
            if name not in NAMES:
                raise KeyError(name)
            mod = import_module(f"{__package__}.{name}")
            got = Format(name, mod.render, mod.part, getattr(mod, "write_document", None))
            self._loaded[name] = got
        return got

    def __contains__(self, name: object) -> bool:
        return name in NAMES

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


FORMATS: Mapping[str, Format] = _Formats()


def renderer(name: str) -> Renderer:
    """The ``render`` function of format ``name`` (one of :data:`FORMATS`)."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    return FORMATS[name].render
