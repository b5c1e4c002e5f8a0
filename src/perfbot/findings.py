"""What checking produces, as data: a rule's :class:`Issue`, the engine's :class:`Finding` and a
file's :class:`FileResult`. A leaf: reporters, the review and the baseline take these types without
importing the rules or the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .fix import Fix
    from .source import Source

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "error")


# a value, never changed once made; not ``frozen`` (whose __init__ sets each field through
# object.__setattr__, 3x the cost: a run makes thousands), with a frozen one's equality and hash
@dataclass(slots=True, unsafe_hash=True)
class Issue:
    """What a rule reports; the engine adds the rule's identity and severity."""

    line: int
    message: str
    fix: Fix | None = None
    end_line: int | None = None
    severity: Severity | None = None  # overrides the rule's default (e.g. matrix warnings)
    table: int | None = None
    row_key: str | None = None


# a value, never changed once made; not ``frozen`` (whose __init__ sets each field through
# object.__setattr__, 3x the cost: a run makes thousands), with a frozen one's equality and hash
@dataclass(slots=True, unsafe_hash=True)
class Finding:
    path: str
    line: int
    end_line: int
    rule: str
    slug: str
    severity: Severity
    message: str
    fix: Fix | None = None
    table: int | None = None
    table_key: str | None = None
    row_key: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    @property
    def safe_fix(self) -> bool:
        """The finding has a fix that `perfbot fix` applies without `--unsafe-fixes`."""
        return self.fix is not None and self.fix.safe

    @property
    def unsafe_fix(self) -> bool:
        return self.fix is not None and not self.fix.safe

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity} {self.rule} {self.message}"


@dataclass(slots=True)
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # a per-file error (unreadable, bad config)
    source: Source | None = None
    # the parsed document has a Requirements or Performance table (pipe or HTML): the content
    # test for "is this a model README" when the config's paths/exclude do not decide
    has_model_tables: bool = False
