"""Reading a pull request's model READMEs (step 1 of the flow in :mod:`perfbot.github.review`):
which changed files to check, each at the head commit (from the checkout when it is at that
commit, else from the contents API), and the :class:`~.plan.Plan` of them all."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ...config import Config, ConfigError, load_config
from ...engine import check_source
from ...hunks import FilterMode, hunks_by_path
from ...source import MAX_BYTES, FileError, Source, decode, not_markdown, read_source
from ...targets import OneConfig, Target, WorkTree, target, walked
from ..client import Client, GitHubError, NetworkError
from ..event import PullRequestInfo, workspace_head
from .plan import Plan, decide, plan_file


def _source_from_bytes(path: str, data: bytes) -> Source | FileError:
    if len(data) > MAX_BYTES:
        return FileError(path, f"file is {len(data) / 1e6:.1f} MB; perfbot reads at most "
                               f"{MAX_BYTES / 1e6:.0f} MB")  # fmt: skip
    problem = not_markdown(data)
    if problem is not None:
        return FileError(path, problem)
    text, bom, enc, notes = decode(data)
    src = Source.from_text(text, path=path, bom=bom, encoding=enc)
    src.notes.extend(notes)
    return src


@dataclass
class _Reader:
    client: Client
    pr: PullRequestInfo
    workspace: str | None
    config_path: str | None
    paths: list[str]
    from_workspace: bool = False

    def __post_init__(self) -> None:
        if self.workspace:
            head = workspace_head(self.workspace)
            self.from_workspace = head is not None and head == self.pr.head_sha.lower()

    def target(self, path: str) -> Target:
        """The file's config and whether it is a model README, as ``perfbot check`` decides on the
        checkout (:func:`perfbot.targets.target`). Raises ConfigError."""
        if self.workspace and os.path.isdir(self.workspace):
            full = os.path.join(self.workspace, path)
            got = target(full, WorkTree(self.config_path), self.workspace)
        else:  # no checkout: no nested configs to read
            config = load_config(self.config_path) if self.config_path else Config()
            got = target(path, OneConfig(config), ".")
        decision = got.decision
        if self.paths:  # the action's `paths`: these files, as if named on the command line
            if Config(paths=self.paths).is_model_readme(path) is not True or decision is False:
                decision = False
            else:
                decision = True
        elif not walked(path):
            decision = False  # `perfbot check .` would not visit it
        return got._replace(decision=decision)

    def read(self, path: str) -> Source | FileError:
        if self.from_workspace:
            assert self.workspace is not None
            full = os.path.join(self.workspace, path)
            root = os.path.realpath(self.workspace)
            if os.path.islink(full) or not os.path.realpath(full).startswith(root + os.sep):
                return FileError(path, "is a symbolic link or outside the checkout; not read")
            src = read_source(full)
            if isinstance(src, FileError):
                return FileError(path, src.message)
            src.path = path
            return src
        try:
            data = self.client.file_content(path, self.pr.head_sha)
        except NetworkError:
            raise
        except GitHubError as e:
            return FileError(path, f"cannot read it at {self.pr.head_sha[:7]}: {e}")
        return _source_from_bytes(path, data)


def build_plan(
    client: Client,
    repo: str,
    pr: PullRequestInfo,
    files: list[dict[str, Any]],
    *,
    workspace: str | None,
    config_path: str | None,
    paths: list[str],
    mode: FilterMode,
) -> Plan:
    reader = _Reader(client, pr, workspace, config_path, paths)
    plan = Plan(repo, pr.number, pr.head_sha, mode=mode)
    hunks = hunks_by_path(files)
    bad_configs: set[str] = set()
    for f in files:
        path = f["filename"]
        if f.get("status") == "removed":
            continue
        try:
            config, decision, _ = reader.target(path)
        except ConfigError as e:
            msg = str(e)
            if msg not in bad_configs:
                bad_configs.add(msg)
                plan.errors.append(FileError(path, msg))
            continue
        if decision is False:
            continue
        src = reader.read(path)
        if isinstance(src, FileError):
            plan.errors.append(src)
            continue
        result = check_source(src, config, require_model_tables=decision is None)
        if decision is None and not result.has_model_tables:
            continue
        fplan = plan_file(result, config)
        lenient = f.get("patch") is None and int(f.get("changes") or 0) > 0
        decide(fplan, hunks.get(path, []), mode, lenient=lenient)
        plan.files.append(fplan)
        plan.results.append(result)
    return plan
