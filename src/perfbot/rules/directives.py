"""PB0xx: perfbot's own inline directives (``<!-- perfbot-disable ... -->``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..suppress import directives_of
from .registry import Issue, resolve, rule


@rule("PB001", "unknown-directive-rule", severity="warning", scope="document")
def unknown_directive_rule(ctx: Context) -> Iterator[Issue]:
    """A `perfbot-disable` / `perfbot-enable` comment names a rule that does not exist.

    The name is ignored, so the finding it was meant to silence is still reported (or, for a
    typo in `perfbot-enable`, stays silenced). Rules are named by id (`PB306`) or slug
    (`ms-per-step`); `perfbot rules` lists them.

    Example:
        <!-- perfbot-disable-next-table PB3066 -->

    Use instead:
        <!-- perfbot-disable-next-table PB306 -->
    """
    for line, name in directives_of(ctx, resolve).unknown:
        yield Issue(
            line,
            f"`{name}` in this perfbot directive is not a rule (see `perfbot rules`); it is ignored",
        )
