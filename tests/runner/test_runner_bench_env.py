"""What the benchmark (the pull request's code) gets from the Actions job's environment."""

import json
import os
import sys
from pathlib import Path

from perfbot.runner.bench import run_benchmark
from perfbot.runner.spec import BenchmarkSpec

JOB = {
    "GITHUB_ENV": "/runner/_temp/_runner_file_commands/set_env_1",
    "GITHUB_OUTPUT": "/runner/_temp/_runner_file_commands/set_output_1",
    "GITHUB_PATH": "/runner/_temp/_runner_file_commands/add_path_1",
    "GITHUB_STATE": "/runner/_temp/_runner_file_commands/save_state_1",
    "GITHUB_STEP_SUMMARY": "/runner/_temp/_runner_file_commands/step_summary_1",
    "GITHUB_TOKEN": "ghs_secret",
    "ACTIONS_RUNTIME_TOKEN": "runtime-secret",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-secret",
    "ACTIONS_RESULTS_URL": "https://results.example/",
}
KEPT = {"GITHUB_SHA": "c" * 40, "RUNNER_NAME": "npu-01", "RUNNER_TRACKING_ID": "github_1"}


def test_the_benchmark_gets_no_job_files_or_tokens(tmp_path):
    code = "import os, json; print('ENV', json.dumps(sorted(os.environ)))"
    spec = BenchmarkSpec.model_validate(
        {"name": "env", "readme": "R.md", "row": 1, "command": [sys.executable, "-c", code],
         "cards": 1, "batch_size": 1}
    )  # fmt: skip
    env = {"PATH": os.environ["PATH"], **JOB, **KEPT}
    result = run_benchmark(spec, workdir=tmp_path, root=tmp_path, env=env)
    out = Path(result.output_path).read_text()
    seen = set(json.loads(out.split("ENV ", 1)[1].splitlines()[0]))
    assert not seen & set(JOB)
    assert set(KEPT) <= seen
