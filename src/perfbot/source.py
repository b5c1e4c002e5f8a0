"""Reading a file into a :class:`Source`: decoded text, its lines and their line endings.

Nothing here raises for a README's content: a file that cannot be read becomes a
:class:`FileError` for that one file, and undecodable bytes are decoded with a fallback and a note.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path

_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")

# Files larger than this are reported, not parsed: a model README is a few kB.
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileError:
    """A file perfbot could not check (not a finding: exit code 2)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: error: {self.message}"


@dataclass(slots=True)
class Source:
    """A decoded file: ``lines`` are the line contents without endings, ``eols`` the endings."""

    path: str
    text: str
    lines: list[str] = field(default_factory=list)
    eols: list[str] = field(default_factory=list)
    bom: bytes = b""
    encoding: str = "utf-8"
    notes: list[str] = field(default_factory=list)
    _newline: str = field(default="", repr=False, compare=False)  # counted once, on first use

    def __reduce__(self):
        # Across processes only the text travels; the lines are split again on arrival
        # (a third of the bytes, and faster than pickling the two lists).
        return _rebuild, (self.path, self.text, self.bom, self.encoding, self.notes)

    @classmethod
    def from_text(cls, text: str, path: str = "<text>", **kw) -> Source:
        lines, eols = split_lines(text)
        return cls(path=path, text=text, lines=lines, eols=eols, **kw)

    @property
    def newline(self) -> str:
        """The dominant line ending, for lines a fix adds (a Source's lines never change: counted
        once, not for every fix)."""
        if not self._newline:
            counts: dict[str, int] = {}
            for e in self.eols:
                if e:
                    counts[e] = counts.get(e, 0) + 1
            self._newline = max(counts, key=lambda k: counts[k]) if counts else "\n"
        return self._newline

    def line(self, n: int) -> str:
        """Content of 1-based line ``n`` (no line ending)."""
        return self.lines[n - 1]

    def normalized(self) -> str:
        """The text with every line ending turned into ``\\n`` (what the parser sees)."""
        return "\n".join(self.lines)

    def encode(self, text: str) -> bytes:
        """Bytes to write back for ``text``, with the file's BOM and encoding."""
        enc = self.encoding
        if enc in ("utf-16", "utf-16-le", "utf-16-be"):
            return self.bom + text.encode(
                "utf-16-le" if self.bom == codecs.BOM_UTF16_LE else "utf-16-be"
            )
        return self.bom + text.encode(enc, errors="surrogateescape")


def _rebuild(path: str, text: str, bom: bytes, encoding: str, notes: list[str]) -> Source:
    return Source.from_text(text, path=path, bom=bom, encoding=encoding, notes=notes)


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """Split into line contents and endings; ``"".join(l + e)`` gives ``text`` back."""
    if "\r" not in text:  # the common case, without a regex
        lines = text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
            return lines, ["\n"] * len(lines)
        return lines, ["\n"] * (len(lines) - 1) + [""]
    lines: list[str] = []
    eols: list[str] = []
    for m in _LINE.finditer(text):
        content, eol = m.group(1), m.group(2)
        if not eol and not content and m.start() == len(text):
            if not lines:
                lines.append("")
                eols.append("")
            break
        lines.append(content)
        eols.append(eol)
    return lines, eols


def join_lines(lines: list[str], eols: list[str]) -> str:
    return "".join(c + e for c, e in zip(lines, eols, strict=True))


def decode(data: bytes) -> tuple[str, bytes, str, list[str]]:
    """Decode README bytes: (text, bom, encoding, notes)."""
    notes: list[str] = []
    for bom, enc in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                if enc == "utf-16":
                    codec = "utf-16-le" if bom == codecs.BOM_UTF16_LE else "utf-16-be"
                    return body.decode(codec), bom, enc, notes
                return body.decode(enc), bom, enc, notes
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), b"", "utf-8", notes
    except UnicodeDecodeError as e:
        notes.append(
            f"file is not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start}); "
            "read with undecodable bytes kept as they are"
        )
        return data.decode("utf-8", errors="surrogateescape"), b"", "utf-8", notes


def read_source(path: str | Path) -> Source | FileError:
    """Read one file; any problem becomes a :class:`FileError` naming the file."""
    p = Path(path)
    name = str(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            return FileError(
                name, f"file is {size / 1e6:.1f} MB; perfbot reads at most {MAX_BYTES / 1e6:.0f} MB"
            )
        data = p.read_bytes()
    except IsADirectoryError:
        return FileError(name, "is a directory")
    except FileNotFoundError:
        return FileError(name, "no such file")
    except OSError as e:
        return FileError(name, f"cannot read: {e.strerror or e}")
    if b"\x00" in data[:8192] and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return FileError(name, "looks like a binary file (NUL bytes), not Markdown")
    text, bom, enc, notes = decode(data)
    src = Source.from_text(text, path=name, bom=bom, encoding=enc)
    src.notes.extend(notes)
    return src
