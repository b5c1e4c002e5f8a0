"""What the speed and memory tests of issue 11 share: a small model README with both guide
tables and fixable findings, and a counter of the documents perfbot parses."""

from __future__ import annotations

import pytest

from perfbot import context, reparse

NET_README = """\
# Net

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
|:---------:|:-------------:|:--------:|:-------------------:|
| 2.3.1     | 24.1.RC2      | 7.3.0.1.231 | 8.0.RC3.beta1    |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | jit level | graph compile | s/step | img/s | recipe |
|:----------:|:-----:|:----------:|:---------:|:-------------:|:------:|:-----:|:------:|
| net        | 1     | 32         | O2        | 1~2 mins      | 0.5    | 64    | [yaml](./a.yaml) |
"""


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of every document parsed from now on, in order: whole parses and fix's
    re-parses of the edited lines alike."""
    seen: list[str] = []
    real, real_after = context.parse_document, reparse.parse_after

    def counting(source, spec):  # type: ignore[no-untyped-def]
        seen.append(source.path)
        return real(source, spec)

    def counting_after(old, source, spec):  # type: ignore[no-untyped-def]
        seen.append(source.path)  # fix's re-check: a parse, of the edited lines only
        return real_after(old, source, spec)

    monkeypatch.setattr(context, "parse_document", counting)
    monkeypatch.setattr(reparse, "parse_after", counting_after)
    return seen
