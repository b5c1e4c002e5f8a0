"""The benchmark's MindSpore version comes from the benchmark's interpreter, read from its
installed metadata, never by running code from the checkout (issue 23 item 1, security-2
finding 6a)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from perfbot.runner.bench import run_benchmark
from perfbot.runner.msversion import benchmark_interpreter, interpreter_mindspore
from perfbot.runner.spec import BenchmarkSpec

BASE_PYTHON = Path(getattr(sys, "_base_executable", sys.executable))


def _venv(where: Path, mindspore: str | None, *, system: bool = False) -> Path:
    """A venv-shaped folder whose python is this interpreter and whose site-packages hold a
    `mindspore` distribution of version `mindspore` (none when None)."""
    ver = f"{sys.version_info[0]}.{sys.version_info[1]}"
    (where / "bin").mkdir(parents=True)
    site = where / "lib" / f"python{ver}" / "site-packages"
    site.mkdir(parents=True)
    (where / "pyvenv.cfg").write_text(
        f"home = {BASE_PYTHON.parent}\n"
        f"include-system-site-packages = {'true' if system else 'false'}\n"
        f"version = {ver}.0\n"
    )
    py = where / "bin" / "python"
    py.symlink_to(BASE_PYTHON)
    if mindspore:
        dist = site / f"mindspore-{mindspore}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: mindspore\nVersion: {mindspore}\n\nbody\n"
        )
    return py


def _spec(**kw) -> BenchmarkSpec:
    base = dict(name="b", readme="README.md", row=1, cards=1, batch_size=1, timeout=60)
    base.update(kw)
    return BenchmarkSpec(**base)


def test_another_interpreters_mindspore_is_the_benchmarks(tmp_path: Path) -> None:
    py = _venv(tmp_path / "ms271", "2.7.1")
    r = run_benchmark(_spec(command=[str(py), "-c", "print(1)"]), workdir=tmp_path)
    assert r.environment.mindspore == "2.7.1"
    assert str(py) in (r.environment.mindspore_source or "")


def test_a_console_script_such_as_msrun_gives_its_interpreter(tmp_path: Path) -> None:
    py = _venv(tmp_path / "ms", "2.10.0")
    msrun = py.parent / "msrun"
    msrun.write_text(f"#!{py}\nimport sys\nprint('msrun', sys.argv)\n")
    msrun.chmod(0o755)
    env = {"PATH": f"{py.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    r = run_benchmark(_spec(command=["msrun", "--help"]), workdir=tmp_path, env=env)
    assert r.environment.mindspore == "2.10.0"
    bash = run_benchmark(
        _spec(command=["bash", "-c", "A=1 python -c 'print(2)'"]), workdir=tmp_path, env=env
    )
    assert bash.environment.mindspore == "2.10.0"


def test_python_key_names_the_interpreter(tmp_path: Path) -> None:
    py = _venv(tmp_path / "ms", "2.5.0")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    spec = _spec(command=["sh", "run.sh"], python=str(py))
    assert benchmark_interpreter(spec.command, {}, explicit=spec.python) == py
    r = run_benchmark(spec, workdir=tmp_path)
    assert r.environment.mindspore == "2.5.0"


def test_system_site_packages_of_a_venv_are_the_base_interpreters(tmp_path: Path) -> None:
    py = _venv(tmp_path / "v", None, system=True)
    version, source = interpreter_mindspore(py)
    assert version is None and "no MindSpore" in source


def test_the_probe_never_imports_from_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old probe ran `python -c 'import importlib.metadata'` in the checkout (perfbot runs
    from its root), which imported the checkout's csv.py (security-2 finding 6a)."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"
    for mod in ("csv", "textwrap", "base64", "socket"):
        (tmp_path / f"{mod}.py").write_text(
            f"open({str(marker)!r}, 'a').write('{mod}\\n')\nraise SystemExit(3)\n"
        )
    spec = _spec(command=[str(BASE_PYTHON), "-I", "-c", "print('trained')"])
    r = run_benchmark(spec, workdir=tmp_path)
    assert not marker.exists()
    assert r.environment.mindspore is None
    assert r.environment.mindspore_source


def test_an_interpreter_inside_the_checkout_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {marker}\n")
    fake.chmod(0o755)
    spec = _spec(command=["/bin/true"], python="bin/python3")
    r = run_benchmark(spec, workdir=tmp_path)
    assert not marker.exists()
    assert r.environment.mindspore is None
    assert "could not be found" in (r.environment.mindspore_source or "")


@pytest.mark.parametrize(
    "command",
    [["env", "-i", "X=1", "python3", "t.py"], ["bash", "-c", "python3 t.py --x 1"]],
)
def test_wrappers_are_followed_to_their_python(tmp_path: Path, command: list[str]) -> None:
    py = _venv(tmp_path / "v", "2.7.1")
    (py.parent / "python3").symlink_to(BASE_PYTHON)
    found = benchmark_interpreter(command, {"PATH": str(py.parent)})
    assert found == py.parent / "python3"
    assert interpreter_mindspore(found)[0] == "2.7.1"
