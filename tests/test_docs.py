"""docs/rules.md is generated from the registry (``perfbot docs``) and must be up to date."""

from __future__ import annotations

import pytest

from perfbot import registry
from perfbot.cli import main
from perfbot.docs import anchor, render_rule, render_rules_md


def test_rules_md_is_up_to_date(capsys):
    assert main(["docs", "--check"]) == 0, capsys.readouterr().err + " (run `perfbot docs`)"


def test_check_and_write(tmp_path, capsys):
    out = tmp_path / "docs" / "rules.md"
    assert main(["docs", "--check", "--output", str(out)]) == 1  # missing
    assert "out of date" in capsys.readouterr().err
    assert main(["docs", "--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_rules_md()
    assert main(["docs", "--check", "--output", str(out)]) == 0
    out.write_text(render_rules_md() + "\nedited by hand\n", encoding="utf-8")
    assert main(["docs", "--check", "--output", str(out)]) == 1


@pytest.fixture
def doc_rule():
    registry.all_rules()

    @registry.rule(
        "PB697", "test-doc-rule", severity="info", scope="document", fix="sometimes",
        config_keys=("allow.ms_per_step",), enabled=False,
    )  # fmt: skip
    def _rule(ctx):
        """Cells say `x` (a test rule).

        Some prose about why,
        over two lines.

        Example:
            | a |
            |:-:|
            | ```x``` |

        Use instead:
            | a |
            |:-:|
            | y |

        Fix safety:
            The fix is safe.
        """
        yield from ()

    yield registry.RULES["PB697"]
    registry.RULES.pop("PB697")
    registry._BY_SLUG.pop("test-doc-rule")


def test_render_rule(doc_rule):
    assert render_rule(doc_rule) == (
        "## PB697 test-doc-rule\n"
        "\n"
        "Cells say `x` (a test rule).\n"
        "\n"
        "- Severity: info (off by default)\n"
        "- Fix: sometimes (safe)\n"
        "- Config keys: `rules.PB697`, `allow.ms_per_step`\n"
        "- Family: structure\n"
        "\n"
        "Some prose about why,\n"
        "over two lines.\n"
        "\n"
        "### Example\n"
        "\n"
        "````markdown\n"
        "| a |\n"
        "|:-:|\n"
        "| ```x``` |\n"
        "````\n"
        "\n"
        "### Use instead\n"
        "\n"
        "```markdown\n"
        "| a |\n"
        "|:-:|\n"
        "| y |\n"
        "```\n"
        "\n"
        "### Fix safety\n"
        "\n"
        "The fix is safe.\n"
    )


def test_page_lists_every_rule(doc_rule):
    page = render_rules_md()
    for r in registry.all_rules():
        assert f"\n## {r.id} {r.slug}\n" in page
        assert f"[{r.id}](#{anchor(r.id, r.slug)})" in page


def test_anchor():
    assert anchor("PB401", "img-s-mismatch") == "pb401-img-s-mismatch"
