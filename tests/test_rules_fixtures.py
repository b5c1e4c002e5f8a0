"""Rule fixtures, markdownlint / ruff style.

Layout:

    tests/fixtures/rules/<RULEID>/<case>.md          a small README, written for the case
    tests/fixtures/rules/<RULEID>/<case>.expected    one line per expected finding:
                                                      LINE RULEID ["message fragment" ...]
                                                      (# comments and blank lines allowed)
    tests/fixtures/rules/<RULEID>/<case>.fixed.md    optional: what `fix_source` must produce
    tests/fixtures/rules/<RULEID>/<case>.perfbot.yml optional: the repository's config
    tests/fixtures/ok/<name>.md (+ .perfbot.yml)      clean READMEs: no finding at all

For each case, the findings of the folder's rule and of every rule named in the .expected must
match the .expected exactly by (line, rule); other rules are not compared. Fixing must give the
.fixed.md byte for byte (line endings and BOM included), leave no fixable finding, and be
idempotent. A case whose text a fix changes must have a .fixed.md, so no fix goes unreviewed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from perfbot.config import Allow, Config, load_config
from perfbot.engine import check_source, fix_source
from perfbot.registry import Finding, all_rules
from perfbot.source import Source, read_source

FIXTURES = Path(__file__).parent / "fixtures"
RULES_DIR = FIXTURES / "rules"
OK_DIR = FIXTURES / "ok"

_EXPECTED_LINE = re.compile(r'^(?P<line>\d+)\s+(?P<rule>PB\d{3})(?P<frags>(?:\s+"[^"]*")*)\s*$')


@dataclass(frozen=True)
class Expected:
    line: int
    rule: str
    fragments: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    rule: str
    md: Path

    @property
    def name(self) -> str:
        return f"{self.rule}/{self.md.stem}"

    def sidecar(self, suffix: str) -> Path:
        return self.md.with_name(self.md.stem + suffix)

    @property
    def expected(self) -> list[Expected]:
        return parse_expected(self.sidecar(".expected"))

    @property
    def rules(self) -> set[str]:
        """The rules this case speaks for: its folder's, and any its .expected names."""
        return {self.rule} | {e.rule for e in self.expected}


def parse_expected(path: Path) -> list[Expected]:
    out = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        m = _EXPECTED_LINE.match(text)
        if not m:
            raise ValueError(f'{path}:{n}: expected `LINE RULEID ["fragment" ...]`, got {raw!r}')
        frags = tuple(re.findall(r'"([^"]*)"', m["frags"]))
        out.append(Expected(int(m["line"]), m["rule"], frags))
    return out


def config_for_md(md: Path) -> Config:
    yml = md.with_name(md.stem + ".perfbot.yml")
    return load_config(yml) if yml.is_file() else Config()


def _is_case(p: Path) -> bool:
    return p.suffix == ".md" and not p.name.endswith(".fixed.md")


def rule_cases() -> list[Case]:
    return [
        Case(d.name, md)
        for d in sorted(RULES_DIR.iterdir())
        if d.is_dir()
        for md in sorted(d.iterdir())
        if _is_case(md)
    ]


def ok_cases() -> list[Path]:
    return sorted(p for p in OK_DIR.iterdir() if _is_case(p))


def read(md: Path) -> Source:
    src = read_source(md)
    assert isinstance(src, Source), src
    return src


def reread(src: Source, text: str) -> Source:
    return Source.from_text(text, path=src.path, bom=src.bom, encoding=src.encoding)


def show(findings: list[Finding]) -> str:
    return "\n".join(
        f"  {f.line} {f.rule} {'(fix) ' if f.fix else ''}{f.message}" for f in findings
    )


@cache
def _run(md: Path) -> tuple[list[Finding], str, list[Finding]]:
    """(findings, fixed text, findings of the fixed text), once per fixture."""
    src = read(md)
    config = config_for_md(md)
    findings = check_source(src, config).findings
    fixed, _ = fix_source(src, config)
    after = check_source(reread(src, fixed), config).findings
    return findings, fixed, after


def assert_fix_settles(md: Path) -> None:
    src = read(md)
    config = config_for_md(md)
    _, fixed, after = _run(md)
    left = [f for f in after if f.fix is not None]
    assert not left, f"fixable findings left after fixing:\n{show(left)}"
    again, _ = fix_source(reread(src, fixed), config)
    assert again == fixed, "fixing the fixed text changed it again"


CASES = rule_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_fixture(case: Case) -> None:
    findings, fixed, _ = _run(case.md)
    internal = [f for f in findings if "internal error" in f.message]
    assert not internal, f"a rule raised:\n{show(internal)}"

    # 1. the findings of the case's rules, exactly, by (line, rule)
    mine = [f for f in findings if f.rule in case.rules]
    got = Counter((f.line, f.rule) for f in mine)
    want = Counter((e.line, e.rule) for e in case.expected)
    assert got == want, (
        f"{case.name}: findings differ\n"
        f"missing: {sorted((want - got).elements())}\n"
        f"unexpected: {sorted((got - want).elements())}\n"
        f"all findings:\n{show(findings)}"
    )

    # 2. message fragments
    for e in case.expected:
        messages = [f.message for f in mine if (f.line, f.rule) == (e.line, e.rule)]
        for frag in e.fragments:
            assert any(frag in m for m in messages), (
                f"{case.name}: no {e.rule} message on line {e.line} contains {frag!r}: {messages}"
            )

    # 3. the fix, byte for byte (BOM and line endings included)
    src = read(case.md)
    fixed_md = case.sidecar(".fixed.md")
    if fixed_md.is_file():
        assert src.encode(fixed) == fixed_md.read_bytes(), (
            f"{case.name}: fix_source output differs from {fixed_md.name}:\n{fixed}"
        )
    else:
        assert fixed == src.text, (
            f"{case.name}: fix_source changed the text but there is no {fixed_md.name}; "
            f"add it:\n{fixed}"
        )

    # 4. fixes settle: nothing fixable is left, and fixing again changes nothing
    assert_fix_settles(case.md)


OK = ok_cases()


@pytest.mark.parametrize("md", OK, ids=[p.stem for p in OK])
def test_ok_fixture_has_no_finding(md: Path) -> None:
    findings, fixed, _ = _run(md)
    assert findings == [], f"{md.name} should be clean:\n{show(findings)}"
    assert fixed == read(md).text


# --- the harness's own rules -----------------------------------------------------------------


def test_fixture_folders_are_rule_ids() -> None:
    ids = {r.id for r in all_rules()}
    stray = [d.name for d in RULES_DIR.iterdir() if d.is_dir() and d.name not in ids]
    assert not stray, f"fixture folders that are not rule ids: {stray}"


def test_every_case_has_an_expected_file() -> None:
    missing = [c.name for c in CASES if not c.sidecar(".expected").is_file()]
    assert not missing, f"cases without a .expected: {missing}"
    orphans = [
        p.relative_to(RULES_DIR).as_posix()
        for p in RULES_DIR.rglob("*")
        if p.is_file()
        and p.name.endswith((".expected", ".fixed.md", ".perfbot.yml"))
        and not p.with_name(p.name.split(".")[0] + ".md").is_file()
    ]
    assert not orphans, f"sidecars without their .md: {orphans}"


def test_expected_files_name_known_rules() -> None:
    ids = {r.id for r in all_rules()}
    bad = [(c.name, e.rule) for c in CASES for e in c.expected if e.rule not in ids]
    assert not bad, f".expected lines naming unknown rules: {bad}"


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    lacking = []
    for r in all_rules():
        mine = [c for c in CASES if c.rule == r.id]
        failing = [c for c in mine if any(e.rule == r.id for e in c.expected)]
        passing = [c for c in mine if not any(e.rule == r.id for e in c.expected)]
        if not failing:
            lacking.append(f"{r.id} ({r.slug}): no failing case")
        if not passing:
            lacking.append(f"{r.id} ({r.slug}): no passing case")
    assert not lacking, "rules lacking fixtures:\n" + "\n".join(lacking)


def _all_findings() -> list[Finding]:
    out: list[Finding] = []
    for md in [c.md for c in CASES] + OK:
        findings, _, after = _run(md)
        out.extend(findings)
        out.extend(after)
    return out


def test_fix_availability_is_declared_truthfully() -> None:
    """markdownlint's "Fixable rule ... is not tagged as such", both ways."""
    by_rule: dict[str, list[Finding]] = {}
    for f in _all_findings():
        by_rule.setdefault(f.rule, []).append(f)
    wrong = []
    for r in all_rules():
        fs = by_rule.get(r.id, [])
        fixed = [f for f in fs if f.fix is not None]
        if r.fix == "never" and fixed:
            wrong.append(f"{r.id} is declared fix='never' but fixed: {fixed[0].message}")
        if r.fix in ("always", "sometimes") and not fixed:
            wrong.append(f"{r.id} is declared fix={r.fix!r} but no fixture shows a fix")
        if r.fix == "always":
            unfixed = [f for f in fs if f.fix is None]
            if unfixed:
                wrong.append(
                    f"{r.id} is declared fix='always' but line {unfixed[0].line} of a fixture "
                    f"has no fix: {unfixed[0].message}"
                )
    assert not wrong, "\n".join(wrong)


def test_every_fix_has_a_title_and_edits() -> None:
    for f in _all_findings():
        if f.fix is not None:
            assert f.fix.title and f.fix.edits, f


def test_crlf_fixture_really_is_crlf() -> None:
    """Guard against a checkout that normalised the fixture's line endings."""
    crlf = list(FIXTURES.rglob("*crlf*.md"))
    assert crlf
    for p in crlf:
        data = p.read_bytes()
        assert data.count(b"\r\n") == data.count(b"\n") > 0, p


def test_ms_per_step_allowed_by_config_object() -> None:
    """PB306 is reported unless Config(allow=Allow(ms_per_step=True)), same as the YAML sidecar."""
    src = read(RULES_DIR / "PB306" / "ms_per_step.md")

    def rules(cfg: Config) -> list[str]:
        return [f.rule for f in check_source(src, cfg).findings]

    assert "PB306" in rules(Config())
    assert "PB306" not in rules(Config(allow=Allow(ms_per_step=True)))


# --- known wrong behaviour, recorded (strict: fixing it makes these fail, then drop the mark) ---


def _sentence_going_on_after_mode() -> str:
    text = (RULES_DIR / "PB202" / "pass_canonical.md").read_text(encoding="utf-8")
    return text.replace(
        "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.",
        "Experiments were conducted on Ascend 910* with MindSpore 2.3.1 in graph mode, with "
        "the batch size per card.",
        1,
    )


def test_pb202_rewrite_of_a_sentence_going_on_after_mode_settles() -> None:
    src = Source.from_text(_sentence_going_on_after_mode())
    fixed, _ = fix_source(src)
    assert "Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode" in fixed
    assert not [f for f in check_source(reread(src, fixed)).findings if f.fix]


def test_pb202_rewrite_does_not_double_punctuation() -> None:
    fixed, _ = fix_source(Source.from_text(_sentence_going_on_after_mode()))
    assert "mode., " not in fixed
