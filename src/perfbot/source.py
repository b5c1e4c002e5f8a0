"""Reading a file into a :class:`Source`: decoded text, its lines and their line endings.

Nothing here raises for a README's content: a file that cannot be read, is binary or is not
UTF-8 (nor UTF-16 with a BOM) becomes a :class:`FileError` for that one file.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .display import display_path, printable

_ENDING = re.compile(r"(\r\n|\r|\n)")
_ENDINGS = {e: e for e in ("\r\n", "\r", "\n")}

# Files larger than this are reported, not parsed: a model README is a few kB (the largest in
# the corpus is 30 kB). Checking is linear in the size, so this also bounds the time per file.
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class FileError:
    """A file perfbot could not check (not a finding: exit code 2)."""

    path: str
    message: str

    def __str__(self) -> str:
        # one line, whatever the path or message holds (a file name with a newline must not
        # start a line of its own in a CI log: a forged workflow command)
        return f"{display_path(self.path)}: error: {printable(self.message)}"


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
        if not self._newline and "\r" not in self.text:
            self._newline = "\n"  # every ending is "\n" (or the last line has none)
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
    """Split into line contents and endings; ``"".join(l + e)`` gives ``text`` back. Each ending
    is the one shared string object of its kind (a file of 2,000,000 CRLF lines held 100 MB of
    separate "\\r\\n" strings)."""
    if "\r" not in text:  # the common case, without a regex
        return _split_at(text, "\n")
    crlf = text.count("\r\n")
    if crlf == text.count("\r") == text.count("\n"):
        return _split_at(text, "\r\n")
    if not crlf and "\n" not in text:
        return _split_at(text, "\r")
    parts = _ENDING.split(text)  # mixed endings: contents and endings alternate
    lines = parts[0::2]
    eols = list(map(_ENDINGS.__getitem__, parts[1::2]))
    if lines[-1] == "" and eols:
        lines.pop()  # the text ends with a line ending
    else:
        eols.append("")  # a last line without one
    return lines, eols


def _split_at(text: str, eol: str) -> tuple[list[str], list[str]]:
    """split_lines of a text whose every line ending is ``eol``."""
    lines = text.split(eol)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
        return lines, [eol] * len(lines)
    return lines, [eol] * (len(lines) - 1) + [""]


def join_lines(lines: list[str], eols: list[str]) -> str:
    if len(lines) != len(eols):
        raise ValueError("join_lines: as many endings as lines")
    return "".join(map(str.__add__, lines, eols))


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


_PROBE = 8192  # bytes looked at for NULs


def not_markdown(data: bytes) -> str | None:
    """Why ``data`` is not a README perfbot reads (a :class:`FileError`'s message), or None.

    perfbot reads UTF-8 (with or without a BOM) and UTF-16 with a BOM. Anything else is that
    file's error, not a check of garbled text: NUL bytes (binary, or UTF-16 without a BOM), or
    bytes that are not UTF-8, with the encoding they look like where it can be told (GBK/GB18030
    for Chinese text, Windows-1252)."""
    bom = next((b for b in _BOMS if data.startswith(b)), b"")
    head = data[:_PROBE]
    if b"\x00" in head and not bom.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        order = _utf16_without_bom(head)
        if order:
            return (
                f"looks like UTF-16 ({order}) without a byte-order mark, not UTF-8; save the "
                "file as UTF-8"
            )
        return "looks like a binary file (NUL bytes), not Markdown"
    try:
        decode_strict(data)
    except UnicodeDecodeError as e:
        at = e.start + len(bom)
        where = f"byte 0x{data[at]:02x} at offset {at}"
        if bom:  # it says what it is, and is not
            return (
                f"is not valid {_BOMS[bom]} ({where}) although it starts with its byte-order mark"
            )
        guess = _guess(data)
        like = f", it looks like {guess} text" if guess else ""
        return (
            f"is not UTF-8 ({where}){like}; perfbot reads Markdown as UTF-8: save the file as UTF-8"
        )
    return None


_BOMS = {codecs.BOM_UTF8: "UTF-8", codecs.BOM_UTF16_LE: "UTF-16", codecs.BOM_UTF16_BE: "UTF-16"}


def decode_strict(data: bytes) -> str:
    """The text of UTF-8 (BOM or not) or BOM-marked UTF-16 bytes; UnicodeDecodeError otherwise
    (its ``start`` counts from after a BOM)."""
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec)
    return data.decode("utf-8")


def _utf16_without_bom(head: bytes) -> str | None:
    """ "little-endian"/"big-endian" when NUL bytes fill one side of most pairs (text with ASCII
    in UTF-16) and the bytes decode so to printable text, else None."""
    even, odd = head[0::2].count(0), head[1::2].count(0)
    pairs = len(head) // 2
    for order, codec, nuls, other in (
        ("little-endian", "utf-16-le", odd, even),
        ("big-endian", "utf-16-be", even, odd),
    ):
        if pairs >= 4 and nuls * 2 >= pairs and other <= nuls // 20:
            try:
                # not final: the probe may end inside a surrogate pair
                text = codecs.getincrementaldecoder(codec)().decode(head, final=False)
            except UnicodeDecodeError:
                continue
            if all(c.isprintable() or c in "\t\r\n" for c in text):
                return order
    return None


_CJK = re.compile(r"[\u3400-\u9fff]")


def _guess(data: bytes) -> str | None:
    """The legacy encoding non-UTF-8 bytes look like, when one fits: every byte decodes and, for
    GBK, the text holds Chinese characters."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        pass
    else:
        if _CJK.search(text):
            return "GBK/GB18030 (Chinese)"
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return None
    return "Windows-1252 (Western European)"


class UnsafeFileError(OSError):
    """A path perfbot will not read: not a regular file, or too large."""


def read_bytes_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of a **regular** file, at most ``limit`` of them.

    Opened without blocking (a FIFO named README.md does not hang the run) and checked with
    ``fstat`` on the open descriptor (a symlink to ``/dev/zero`` or a device is refused, not read
    until memory runs out). Raises :class:`UnsafeFileError` for a file that is not regular or
    holds more than ``limit`` bytes, ``OSError`` for the rest.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFileError(f"not a regular file ({_kind(st.st_mode)}); not read")
        if st.st_size > limit:
            raise UnsafeFileError(_too_large(limit))
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # it grew after fstat
            raise UnsafeFileError(_too_large(limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def _too_large(limit: int) -> str:
    if limit < 2**20 and limit % 1024 == 0:
        size = f"{limit // 1024} kB"
    else:
        size = f"{limit / 2**20:.3g} MB"
    return f"file is larger than {size}, the most perfbot reads"


def outside(path: str | Path, root: str | Path) -> bool:
    """Whether ``path``, with every symlink resolved, lies outside ``root`` (also resolved)."""
    try:
        real = os.path.realpath(path)
        top = os.path.realpath(root)
        return os.path.commonpath([real, top]) != top
    except (OSError, ValueError):  # e.g. two drives on Windows
        return True


def read_source(path: str | Path, *, root: str | Path | None = None) -> Source | FileError:
    """Read one file; any problem becomes a :class:`FileError` naming the file.

    Only regular files, at most :data:`MAX_BYTES`. With ``root`` (the folder being walked), a
    symlink whose target lies outside ``root`` is not followed.
    """
    name = str(path)
    try:
        if root is not None and os.path.islink(path) and outside(path, root):
            return FileError(name, f"is a symlink to a file outside {root}; not followed")
        data = read_bytes_bounded(path, MAX_BYTES)
    except UnsafeFileError as e:
        note = " (a model README is a few kB)" if "larger than" in str(e) else ""
        return FileError(name, f"{e}{note}")
    except IsADirectoryError:
        return FileError(name, "is a directory")
    except FileNotFoundError:
        return FileError(name, "no such file")
    except OSError as e:
        return FileError(name, f"cannot read: {e.strerror or e}")
    problem = not_markdown(data)
    if problem is not None:
        return FileError(name, problem)
    text, bom, enc, notes = decode(data)
    src = Source.from_text(text, path=name, bom=bom, encoding=enc)
    src.notes.extend(notes)
    return src
