"""The rules' names as data (spec/rule_names.json) are the registry's: the config checks rule
names against that file without importing the rules (issue 19)."""

from __future__ import annotations

from perfbot.rules import all_rules, get_rule
from perfbot.spec import rule_names


def test_the_file_names_every_rule_as_the_registry_does():
    registry = {r.id: r.slug for r in all_rules()}
    assert rule_names.slugs() == registry, f"out of date: run `{rule_names.REGENERATE}`"


def test_a_name_resolves_as_get_rule_reads_it():
    for r in all_rules():
        for name in (r.id, r.id.lower(), r.slug, r.slug.upper()):
            assert rule_id_of(name) == get_rule(name).id == r.id  # type: ignore[union-attr]
    for name in ("PB999", "not-a-rule", "PB4", "ALL", ""):
        assert rule_id_of(name) is None and get_rule(name) is None


def rule_id_of(name: str) -> str | None:
    return rule_names.rule_id(name)
