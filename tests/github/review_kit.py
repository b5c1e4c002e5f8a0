"""Helpers for the tests of ``perfbot review`` / ``perfbot post``: README fixtures, a runner that
sets the environment a GitHub Actions runner sets for a Docker action, and GitHub's way of
applying suggestions.

The READMEs are written for these tests (not taken from any corpus).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from github_fake import GitHubFake, Pull, load_event
from perfbot.cli import main

README = "configs/toynet/README.md"

# A model README with the usual mistakes, one row per problem so each row gets its own comment:
# line 7 a driver spelled without its dot, 15 img/s wrong and s/step with one decimal, 16 img/s
# wrong and a spaced resolution, 17 a lowercase jit level; row 18 is right.
BROKEN = """\
# ToyNet

## Requirements

| mindspore | ascend driver | firmware | cann toolkit/kernel |
| :-------: | :-----------: | :------: | :-----------------: |
| 2.3.1 | 24.1rc2 | 7.3.0.1.231 | 8.0.RC2.beta1 |

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | batch size | resolution | jit level | graph compile | s/step | img/s |
| :--------: | :---: | :--------: | :--------: | :-------: | :-----------: | :----: | :---: |
| toynet-s | 1 | 16 | 256x256 | O2 | 2~3 mins | 0.5 | 20.00 |
| toynet-m | 8 | 16 | 256 x 256 | O2 | 3~5 mins | 0.80 | 99.99 |
| toynet-l | 8 | 32 | 512x512 | o2 | 5~8 mins | 1.60 | 160.00 |
| toynet-xl | 8 | 32 | 512x512 | O2 | 8~10 mins | 2.40 | 106.67 |
"""

# The same README once the contributor fixed rows 15 and 16 by hand (17 and line 7 still wrong).
HALF_FIXED = BROKEN.replace(
    "| toynet-s | 1 | 16 | 256x256 | O2 | 2~3 mins | 0.5 | 20.00 |",
    "| toynet-s | 1 | 16 | 256x256 | O2 | 2~3 mins | 0.50 | 32.00 |",
).replace(
    "| toynet-m | 8 | 16 | 256 x 256 | O2 | 3~5 mins | 0.80 | 99.99 |",
    "| toynet-m | 8 | 16 | 256x256 | O2 | 3~5 mins | 0.80 | 160.00 |",
)

# Table-wide problems: columns out of order, a header alias, rows that also need fixes.
REORDER = """\
# ToyGAN

## Performance

Experiments are tested on ascend 910* with mindspore 2.3.1 graph mode.

| model name | cards | bs | resolution | jit level | graph compile | s/step | img/s |
| :--------: | :---: | :-: | :--------: | :-------: | :-----------: | :----: | :---: |
| toygan | 1 | 8 | 256 x 256 | O2 | 1~2 mins | 0.40 | 20.00 |
"""

CLEAN_TABLE_ROW = "| toynet-xl | 8 | 32 | 512x512 | O2 | 8~10 mins | 2.40 | 106.67 |"

WRITE = GitHubFake.WRITE_TOKEN
READ = GitHubFake.READ_TOKEN

_SUGGESTION = re.compile(r"^(`{3,})suggestion\n(.*?)^\1$", re.MULTILINE | re.DOTALL)


def suggestion_of(body: str) -> str | None:
    """The replacement text of a comment's ```suggestion block, as GitHub reads it."""
    m = _SUGGESTION.search(body)
    if m is None:
        return None
    return m[2][:-1] if m[2].endswith("\n") else m[2]


def apply_like_github(text: str, comments: list[dict[str, Any]]) -> str:
    """Commit every suggestion of ``comments`` (review comments as the API lists them) the way
    GitHub does: the lines ``start_line..line`` (or ``line``) become the block's lines."""
    lines = text.splitlines(keepends=True)
    edits = []
    for c in comments:
        s = suggestion_of(c["body"])
        if s is None:
            continue
        end = c["line"] if c["line"] is not None else c["original_line"]
        start = c.get("start_line") or c.get("original_start_line") or end
        edits.append((start, end, s))
    edits.sort(reverse=True)
    last = 0
    for start, end, s in edits:
        assert last == 0 or end < last, "suggestions overlap"
        last = start
        new = [ln + "\n" for ln in s.split("\n")] if s else []
        lines[start - 1 : end] = new
    return "".join(lines)


@dataclass
class Result:
    rc: int
    out: str
    err: str
    summary: str
    outputs: dict[str, str] = field(default_factory=dict)
    requests: list = field(default_factory=list)


class Action:
    """Runs ``perfbot review`` (or ``post``) as the Docker action would: through
    ``perfbot.cli.main`` with the variables a runner sets (``GITHUB_EVENT_PATH``,
    ``GITHUB_WORKSPACE``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``, ...)."""

    def __init__(self, gh: GitHubFake, tmp_path: Path, monkeypatch, capsys):
        self.gh = gh
        self.tmp = tmp_path
        self.mp = monkeypatch
        self.capsys = capsys
        self.n = 0

    def event(self, pr: Pull, *, name: str = "pull_request") -> dict[str, Any]:
        fork = pr.head_repo != self.gh.repo
        fixture = "pull_request_opened_fork" if fork else "pull_request_synchronize"
        data = copy.deepcopy(load_event(fixture))
        data["number"] = pr.number
        p = data["pull_request"]
        p["number"] = pr.number
        p["head"]["sha"] = pr.head_sha
        p["head"]["repo"]["full_name"] = pr.head_repo
        p["base"]["sha"] = pr.base_sha
        return data

    def workspace(self, pr: Pull, sha: str | None = None) -> Path:
        """A checkout of the PR's head (the files of the PR and ``.git/HEAD``)."""
        sha = sha or pr.head_sha
        ws = self.tmp / f"ws{self.n}"
        (ws / ".git").mkdir(parents=True)
        (ws / ".git" / "HEAD").write_text(sha + "\n")
        for (s, path), data in self.gh.blobs.items():
            if s == pr.head_sha:
                f = ws / path
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(data)
        return ws

    def env(
        self,
        *,
        token: str | None = WRITE,
        event: dict[str, Any] | None = None,
        event_name: str = "pull_request",
        workspace: Path | None = None,
    ) -> tuple[Path, Path]:
        self.n += 1
        summary = self.tmp / f"summary{self.n}.md"
        output = self.tmp / f"output{self.n}.txt"
        for k, v in self.gh.env(token).items():
            self.mp.setenv(k, v)
        if not token:
            self.mp.delenv("GITHUB_TOKEN", raising=False)
        self.mp.delenv("GH_TOKEN", raising=False)
        self.mp.setenv("GITHUB_EVENT_NAME", event_name)
        if event is not None:
            path = self.tmp / f"event{self.n}.json"
            path.write_text(json.dumps(event))
            self.mp.setenv("GITHUB_EVENT_PATH", str(path))
        else:
            self.mp.delenv("GITHUB_EVENT_PATH", raising=False)
        if workspace is not None:
            self.mp.setenv("GITHUB_WORKSPACE", str(workspace))
            self.mp.chdir(workspace)
        else:
            self.mp.setenv("GITHUB_WORKSPACE", str(self.tmp / "nonexistent"))
            self.mp.chdir(self.tmp)
        self.mp.setenv("GITHUB_STEP_SUMMARY", str(summary))
        self.mp.setenv("GITHUB_OUTPUT", str(output))
        self.mp.setenv("GITHUB_SHA", "0" * 40)
        return summary, output

    def run(
        self,
        pr: Pull,
        *args: str,
        token: str | None = WRITE,
        checkout: bool = True,
        command: str = "review",
    ) -> Result:
        ws = self.workspace(pr) if checkout else None
        summary, output = self.env(token=token, event=self.event(pr), workspace=ws)
        return self.call([command, *args], summary, output)

    def call(self, argv: list[str], summary: Path, output: Path) -> Result:
        self.capsys.readouterr()
        start = len(self.gh.requests)
        rc = main(argv)
        cap = self.capsys.readouterr()
        outputs = {}
        if output.exists():
            for line in output.read_text().splitlines():
                k, _, v = line.partition("=")
                outputs[k] = v
        return Result(
            rc,
            cap.out,
            cap.err,
            summary.read_text() if summary.exists() else "",
            outputs,
            self.gh.requests[start:],
        )


@pytest.fixture
def action(gh, tmp_path, monkeypatch, capsys) -> Action:
    from perfbot.github.client import Client

    monkeypatch.setattr(Client, "write_interval", None)
    return Action(gh, tmp_path, monkeypatch, capsys)
