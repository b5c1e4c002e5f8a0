"""PB0xx: perfbot's own inline directives (``<!-- perfbot-disable ... -->``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from ..display import code_span
from ..suppress import UNUSED_DIRECTIVE, directives_of
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
            f"{code_span(name)} in this perfbot directive is not a rule (see `perfbot rules`); it is ignored",
        )


@rule(UNUSED_DIRECTIVE, "unused-directive", severity="warning", scope="document")
def unused_directive(ctx: Context) -> Iterator[Issue]:
    """A `perfbot-disable` comment silences nothing (ruff's RUF100).

    A suppression left behind after the README was fixed hides the next real finding of that
    rule. Each rule a directive names is judged on its own: one that finds nothing under the
    directive is reported, so it can be removed from the comment. A directive naming no rule is
    reported when it silences nothing at all, a `perfbot-disable-next-table` with no table after
    it always. Rules turned off (by `.perfbot.yml` or `--select`) are not judged. perfbot works
    this out after every other rule has run (this rule's own body reports nothing).

    Example:
        <!-- perfbot-disable-next-table PB306 PB414 -->
        | model name | ... | graph compile | s/step | img/s |

    Use instead:
        <!-- perfbot-disable-next-table PB414 -->
        | model name | ... | graph compile | s/step | img/s |
    """
    return iter(())
