"""The `/perfbot` comment grammar (pure: no I/O): what a comment asks perfbot to do.

The grammar reads the first non-blank line of a comment and nothing else::

    /perfbot rerun [TARGET ...] [KEY=VALUE ...]
    /perfbot ok-to-test SHA [plan=DIGEST]
    /perfbot help

A TARGET is a README path (or a folder holding READMEs), a model name or a benchmark name: ASCII
letters, digits, `.`, `_`, `-` and `/`, no `..`. KEYs are a closed set with typed values
(:data:`KEYS`). The line must be plain printable ASCII: it is NFKC-normalised and compared with a
skeleton of look-alike characters only to *recognise* a command written with look-alikes or
invisible characters, which is then refused, never run. No part of a comment ever reaches a shell:
tokens are split on spaces and tabs, matched against the grammar, and handed on as data.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "KEYS",
    "MAX_LINE",
    "USAGE",
    "Help",
    "Invalid",
    "KeySpec",
    "OkToTest",
    "Rerun",
    "code",
    "first_line",
    "parse_comment",
]

PREFIX = "/perfbot"
MAX_LINE = 1000  # characters of the command line
MAX_TOKENS = 40
MAX_TARGETS = 20
MAX_TARGET_LEN = 200
_QUOTE_LEN = 40  # characters of a token quoted back in a reply


# --- the closed key set ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One `key=value` option: an integer in [lo, hi] or one of ``choices``."""

    name: str
    help: str
    lo: int = 1
    hi: int = 0
    choices: tuple[str, ...] = ()

    def parse(self, raw: str) -> int | str:
        """The typed value, or ValueError with a message for the contributor."""
        if self.choices:
            v = raw.lower()
            if v not in self.choices:
                raise ValueError(f"`{self.name}` is one of {', '.join(self.choices)}")
            return v
        if not re.fullmatch(r"[0-9]{1,9}", raw):
            raise ValueError(f"`{self.name}` takes a whole number, e.g. `{self.name}={self.lo}`")
        n = int(raw)
        if not self.lo <= n <= self.hi:
            raise ValueError(f"`{self.name}` must be between {self.lo} and {self.hi}")
        return n


KEYS: Mapping[str, KeySpec] = MappingProxyType(
    {
        k.name: k
        for k in (
            KeySpec("cards", "only the benchmarks on this many cards", 1, 4096),
            KeySpec("batch", "only the benchmarks with this batch size per card", 1, 1_000_000),
            KeySpec("steps", "only the inference benchmarks with this many sampling steps", 1,
                    100_000),
            KeySpec("kind", "only training or only inference benchmarks",
                    choices=("training", "inference")),
        )
    }
)  # fmt: skip

USAGE = (
    "**perfbot commands** (the first line of a new comment on a pull request):\n"
    "\n"
    "- `/perfbot rerun [TARGET ...] [KEY=VALUE ...]`: measure the benchmarks of `.perfbot.yml` "
    "again on the Ascend runners, at this pull request's head commit, and suggest the new "
    "numbers. A TARGET is a README path, a folder, a model name or a benchmark name; without "
    "one, the benchmarks of the READMEs this pull request changes. "
    + "KEYs: "
    + "; ".join(f"`{k.name}=` {k.help}" for k in KEYS.values())
    + ".\n"
    "- `/perfbot ok-to-test SHA [plan=DIGEST]`: for a pull request from a fork, allow "
    "benchmarks to run the head commit SHA (all 40 characters; a new push needs a new "
    "approval; `plan=` as perfbot's reply gives it, where the default branch asks for it).\n"
    "- `/perfbot help`: this message.\n"
    "\n"
    "`rerun` and `ok-to-test` need write access to the repository."
)


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rerun:
    targets: tuple[str, ...] = ()
    options: Mapping[str, int | str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OkToTest:
    sha: str | None = None  # lowercase hex, 7 to 40 digits, when given
    plan: str | None = None  # the digest of perfbot's listing of what would run, when given


@dataclass(frozen=True, slots=True)
class Help:
    pass


@dataclass(frozen=True, slots=True)
class Invalid:
    """A comment addressed to perfbot that is not a valid command; ``reason`` is safe to post."""

    reason: str


Command = Rerun | OkToTest | Help | Invalid


# --- recognising a command --------------------------------------------------------------------

_NEWLINE = re.compile(r"\r\n|\r|\n")
# Look-alikes of the letters and signs of "/perfbot" that NFKC keeps apart (Cyrillic, Greek,
# dashes, slashes). Only used to recognise, and refuse, a disguised command.
_CONFUSABLE = str.maketrans(
    {
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
        "ѕ": "s", "ј": "j", "һ": "h", "ԁ": "d", "ɡ": "g", "ո": "n", "ք": "q", "ԝ": "w",
        "ο": "o", "ρ": "p", "τ": "t", "ε": "e", "ν": "v", "κ": "k", "ι": "i", "β": "b",
        "Ь": "b", "Ϝ": "f", "ғ": "f", "ſ": "f", "ƅ": "b", "ɾ": "r", "г": "r",
        "∕": "/", "⁄": "/", "⧸": "/", "╱": "/", "／": "/",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
    }
)  # fmt: skip


def _skeleton(text: str, invisible: str = "") -> str:
    """``text`` as it looks: NFKC, invisible characters dropped (or replaced by ``invisible``),
    look-alikes mapped, lowercase."""
    t = unicodedata.normalize("NFKC", text)
    t = "".join(c if unicodedata.category(c) not in ("Cf", "Cc", "Mn") else invisible for c in t)
    return t.translate(_CONFUSABLE).lower()


def first_line(body: str | None) -> str:
    """The first line of ``body`` that is not blank (ASCII space and tab only count as blank)."""
    for line in _NEWLINE.split(body or ""):
        if line.strip(" \t"):
            return line
    return ""


def _addressed(line: str) -> bool:
    """Whether ``line`` starts with ``/perfbot`` as a word, even disguised.

    At most three leading spaces and no tab, as in CommonMark: a line indented further is shown
    as code, so it is not a command. An invisible character right after ``/perfbot`` still
    addresses perfbot (and is then refused by name), rather than being silently ignored."""
    indent = len(line) - len(line.lstrip(" \t"))
    if indent > 3 or "\t" in line[:indent]:
        return False
    for head in (_skeleton(line[:64]), _skeleton(line[:64], invisible=" ")):
        head = head.lstrip()
        if not head.startswith(PREFIX):
            continue
        rest = head[len(PREFIX) :]
        if not rest or not (rest[0].isalnum() or rest[0] in "_-."):
            return True
    return False


def code(text: str, limit: int = _QUOTE_LEN) -> str:
    """``text`` as an inline code span for a reply: shortened, on one line, never closed early
    by a backtick, never ``<!--``, and so never a link, a mention, HTML or a forged marker
    (:func:`perfbot.github.markdown.code`, the one escaping path)."""
    from perfbot.github.markdown import code as inert_code

    return inert_code(text, limit)


def _describe(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}" + (f" {name}" if name else "")


# --- parsing ------------------------------------------------------------------------------------

_KEY = re.compile(r"[a-z][a-z_-]{0,31}")
_TARGET = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/-]*")
_SHA = re.compile(r"[0-9a-f]{7,40}")
PLAN_DIGITS = 16
_PLAN = re.compile(rf"[0-9a-f]{{{PLAN_DIGITS}}}")
_SUBCOMMANDS = ("rerun", "ok-to-test", "help")


def parse_comment(body: str | None) -> Command | None:
    """The command in a comment's first non-blank line, or None when it is not addressed to
    perfbot (the comment is then ignored)."""
    line = first_line(body)
    if not _addressed(line):
        return None
    if len(line) > MAX_LINE:
        return Invalid(f"the command line is {len(line)} characters long; the limit is {MAX_LINE}")
    for i, c in enumerate(line, 1):
        if c == "\t" or " " <= c <= "~":
            continue
        return Invalid(
            f"the command must be plain ASCII, but column {i} holds {_describe(c)} "
            "(a look-alike or invisible character); type it again by hand"
        )
    tokens = line.split()
    if len(tokens) > MAX_TOKENS:
        return Invalid(f"the command has {len(tokens)} words; the limit is {MAX_TOKENS}")
    if tokens[0].lower() != PREFIX:
        return Invalid(f"write the command as `{PREFIX}`, not {code(tokens[0])}")
    if len(tokens) == 1:
        return Help()
    sub, args = tokens[1].lower(), tokens[2:]
    if sub == "help":
        return Help()
    if sub == "ok-to-test":
        return _parse_ok_to_test(args)
    if sub == "rerun":
        return _parse_rerun(args)
    guess = difflib.get_close_matches(sub, _SUBCOMMANDS, 1, 0.6)
    hint = f"; did you mean `{guess[0]}`?" if guess else ""
    return Invalid(f"{code(tokens[1])} is not a perfbot command{hint}")


def _parse_ok_to_test(args: list[str]) -> Command:
    if not args:
        return OkToTest()
    if len(args) > 2:
        return Invalid(
            "`ok-to-test` takes the head commit SHA and, where asked for, `plan=` and the digest "
            "of perfbot's listing"
        )
    sha = args[0].lower()
    if not _SHA.fullmatch(sha):
        return Invalid(f"{code(args[0])} is not a commit SHA (7 to 40 hexadecimal digits)")
    plan = None
    if len(args) == 2:
        key, eq, value = args[1].partition("=")
        if key.lower() != "plan" or not eq or not _PLAN.fullmatch(value.lower()):
            return Invalid(
                f"{code(args[1])}: after the SHA, only `plan=` and the {PLAN_DIGITS}-digit digest "
                "perfbot's reply gave"
            )
        plan = value.lower()
    return OkToTest(sha, plan)


def _parse_rerun(args: list[str]) -> Command:
    targets: list[str] = []
    options: dict[str, int | str] = {}
    for tok in args:
        if "=" in tok:
            key, _, raw = tok.partition("=")
            key = key.lower()
            if not _KEY.fullmatch(key) or key not in KEYS:
                guess = difflib.get_close_matches(key, list(KEYS), 1, 0.6)
                hint = f" (did you mean `{guess[0]}=`?)" if guess else ""
                return Invalid(
                    f"{code(tok)}: unknown key{hint}; the keys are "
                    + ", ".join(f"`{k}=`" for k in KEYS)
                )
            if key in options:
                return Invalid(f"`{key}=` is given twice")
            try:
                options[key] = KEYS[key].parse(raw)
            except ValueError as e:
                return Invalid(f"{code(tok)}: {e}")
            continue
        target = tok
        while target.startswith("./"):
            target = target[2:]
        if (
            not target
            or len(target) > MAX_TARGET_LEN
            or not _TARGET.fullmatch(target)
            or ".." in target.split("/")
            or "//" in target
        ):
            return Invalid(
                f"{code(tok)} is not a README path, folder, model name or benchmark name "
                "(letters, digits, `.`, `_`, `-` and `/` only), nor a `key=value`"
            )
        if target not in targets:
            targets.append(target)
    if len(targets) > MAX_TARGETS:
        return Invalid(f"at most {MAX_TARGETS} targets in one command")
    return Rerun(tuple(targets), MappingProxyType(options))
