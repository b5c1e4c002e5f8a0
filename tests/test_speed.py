"""Speed without changing results (issue 11): work perfbot no longer does twice.

No wall-clock assertions here (those are in bench/): these tests count the work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfbot import cli, context
from perfbot.engine import check_source
from perfbot.source import read_source

README = """\
# Net

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of every document parsed, in order."""
    seen: list[str] = []
    real = context.parse_document

    def counting(source, spec):  # type: ignore[no-untyped-def]
        seen.append(source.path)
        return real(source, spec)

    monkeypatch.setattr(context, "parse_document", counting)
    return seen


def test_fix_parses_a_file_fixed_in_one_pass_twice(
    tmp_path: Path, parses: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # once to find the fixes, once to check the fixed text (reported and confirming it settled);
    # it used to be four times (the fix loop re-parsed the original, the CLI the result)
    p = tmp_path / "README.md"
    p.write_text(README, encoding="utf-8")
    assert cli.main(["fix", "--fail-on", "never", str(p)]) == 0
    assert parses == [str(p), str(p)]
    out = capsys.readouterr().out
    assert "fixed 3 findings" in out
    # what fix reports for the new text is what check says about the written file
    src = read_source(p)
    after = check_source(src)
    assert [f.rule for f in after.findings] == ["PB303"]  # no Requirements fix left, no values
    assert after.findings[0].fix is None
    assert "1 finding (1 error" in out
