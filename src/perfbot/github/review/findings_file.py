"""The findings file of the two-workflow pattern for pull requests from forks: ``perfbot review
--findings-out`` writes a review's plan as data in the unprivileged run, ``perfbot post
--findings`` reads it in the privileged one. The reader treats it as untrusted (pydantic, strict
types, no unknown keys, bounded sizes) and recomputes fingerprints from its fields."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...source import FileError
from ..suggest import MAX_BODY
from .plan import FilePlan, Item, Plan, Report, report_fields

FILE_VERSION: Literal[1] = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


_PATH = Field(min_length=1, max_length=1024)
_LINE = Field(ge=1, le=1_000_000)


class FindingRecord(_Strict):
    path: str = _PATH
    line: int = _LINE
    end_line: int = _LINE
    rule: str = Field(pattern=r"^PB\d{3}$")
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    severity: Literal["error", "warning", "info"]
    message: str = Field(max_length=4000)
    fixable: bool
    table_key: str | None = Field(default=None, max_length=20_000)
    row_key: str | None = Field(default=None, max_length=20_000)
    table_lines: tuple[int, int] | None = None
    unsafe: bool = False  # its fix changes a measured or declared value (the review says so)


class ItemRecord(_Strict):
    path: str = _PATH
    start_line: int = _LINE
    end_line: int = _LINE
    kind: Literal["row", "table", "lines"]
    suggestion: str | None = Field(default=None, max_length=MAX_BODY)
    findings: list[int] = Field(max_length=1000)


class ErrorRecord(_Strict):
    path: str = _PATH
    message: str = Field(max_length=2000)


class FindingsFile(_Strict):
    """What ``perfbot review --findings-out`` writes and ``perfbot post --findings`` reads.

    The reader treats it as untrusted: strict types, no unknown keys, bounded sizes; items point
    into ``findings`` by index; fingerprints are not stored but recomputed.
    """

    version: Literal[1]
    repository: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    pull_request: int = Field(ge=1)
    head_sha: str = Field(pattern=r"^[0-9a-f]{40}$")
    checked: list[str] = Field(max_length=3000)
    findings: list[FindingRecord] = Field(max_length=20_000)
    items: list[ItemRecord] = Field(max_length=20_000)
    errors: list[ErrorRecord] = Field(default_factory=list, max_length=3000)

    @model_validator(mode="after")
    def _consistent(self) -> FindingsFile:
        n = len(self.findings)
        checked = set(self.checked)
        for i, f in enumerate(self.findings):
            if f.end_line < f.line:
                raise ValueError(f"findings[{i}]: end_line is before line")
            if f.path not in checked:
                raise ValueError(f"findings[{i}]: {f.path!r} is not among the checked files")
        for i, it in enumerate(self.items):
            if it.end_line < it.start_line:
                raise ValueError(f"items[{i}]: end_line is before start_line")
            if it.path not in checked:
                raise ValueError(f"items[{i}]: {it.path!r} is not among the checked files")
            for j in it.findings:
                if not 0 <= j < n or self.findings[j].path != it.path:
                    raise ValueError(f"items[{i}]: finding {j} is not a finding of {it.path!r}")
        return self


def to_file(plan: Plan) -> FindingsFile:
    index: dict[int, int] = {}
    findings: list[FindingRecord] = []
    for r in plan.reports:
        index[id(r)] = len(findings)
        fields = report_fields(r)
        fields["message"] = r.message[:4000]
        findings.append(FindingRecord(**fields, table_lines=r.table_lines, unsafe=r.unsafe))
    items = [
        ItemRecord(
            path=it.path,
            start_line=it.start_line,
            end_line=it.end_line,
            kind=it.kind,
            suggestion=it.suggestion,
            findings=[index[id(r)] for r in it.reports],
        )
        for it in plan.items
    ]
    return FindingsFile(
        version=FILE_VERSION,
        repository=plan.repo,
        pull_request=plan.number,
        head_sha=plan.head_sha,
        checked=plan.paths,
        findings=findings,
        items=items,
        errors=[ErrorRecord(path=e.path, message=e.message[:2000]) for e in plan.errors],
    )


def from_file(data: FindingsFile) -> tuple[list[FilePlan], list[FileError]]:
    """Plans rebuilt from a validated file (fingerprints are recomputed from the fields)."""
    reports = [
        Report(**report_fields(f), table_lines=f.table_lines, unsafe=f.unsafe)
        for f in data.findings
    ]
    plans = {p: FilePlan(p, [], []) for p in data.checked}
    for r in reports:
        plans[r.path].reports.append(r)
    for it in data.items:
        plans[it.path].items.append(
            Item(
                it.path,
                it.start_line,
                it.end_line,
                [reports[j] for j in it.findings],
                it.suggestion,
                it.kind,
            )
        )
    return list(plans.values()), [FileError(e.path, e.message) for e in data.errors]
