"""The rerun's data: what a benchmark result does to its README row (:class:`RowRefresh`, its
:class:`CellChange` s), the insertions for rows measured on another MindSpore version
(:class:`TableProposal`), and whether a run was PyNative (:func:`is_pynative`). Both
:mod:`perfbot.rerun.refresh` and :mod:`perfbot.rerun.versions_table` import them."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfbot.fix import Fix
from perfbot.model import Table
from perfbot.runner.bench import BenchResult

__all__ = ["CellChange", "RowRefresh", "TableProposal", "is_pynative"]


@dataclass(frozen=True, slots=True)
class CellChange:
    column: str  # canonical column name
    old: str  # the cell's raw text before (a pipe in it is still escaped: `\\|`)
    new: str  # after (== old when unchanged)
    line: int

    @property
    def changed(self) -> bool:
        return self.old != self.new


@dataclass
class RowRefresh:
    """What a result does to its README row."""

    result: BenchResult
    readme: str  # path of the README, as the results name it
    line: int | None = None  # the row's line, when found
    cells: list[CellChange] = field(default_factory=list)
    fix: Fix | None = None
    problem: str | None = None  # why the row gets no fix
    notes: list[str] = field(default_factory=list)
    old_s_per_step: float | None = None  # seconds, as the row showed it
    unit: str = "s/step"  # the table's step-time unit: "s/step" or "ms/step"
    # measured on another MindSpore than the row's table is for (see versions_table.py): the
    # row's new text goes into a table for ``new_version``; ``proposal`` is shared by the README's
    # moved rows and holds the insertions
    new_version: str | None = None
    new_row: str | None = None
    # the placeholder ``new_row`` holds in the result cells the benchmark did not measure (None:
    # every result cell of the new row was measured); the new table gets a note saying so
    unmeasured: str | None = None
    proposal: TableProposal | None = None
    table: Table | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.result.name

    @property
    def new_s_per_step(self) -> float | None:
        return self.result.s_per_step

    @property
    def change(self) -> float | None:
        """Relative change of s/step (+0.05 = 5 % slower), when both are known."""
        old, new = self.old_s_per_step, self.new_s_per_step
        if old is None or new is None or old <= 0:
            return None
        return new / old - 1

    def cell(self, column: str) -> CellChange | None:
        return next((c for c in self.cells if c.column == column), None)


@dataclass
class TableProposal:
    """The insertions for the rows that go into another version's table: ``fixes`` holds the
    performance-table insertion(s) first, then the Requirements row(s); ``requirements`` the
    Requirements rows proposed (as table lines), ``notes`` what the maintainer should know."""

    versions: list[str]
    fixes: list[Fix] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def is_pynative(r: BenchResult, table: Table) -> bool:
    """Whether ``r`` ran in PyNative mode: as the result says (``run_mode``, from ``perfbot
    bench``: the benchmark's ``mode``, its command or the log's mode banner), else when the
    row's table is one of PyNative runs (``... with mindspore X pynative mode.``). A result
    whose mode differs from its table's goes to a table of its own mode (``move_target``)."""
    mode = getattr(r, "run_mode", None)
    if isinstance(mode, str) and mode.strip().lower() in ("graph", "pynative"):
        return mode.strip().lower() == "pynative"  # the run itself (its row may move: see below)
    return table.sentence is not None and table.sentence.mode == "pynative"
