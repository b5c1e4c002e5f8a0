"""The guide's data files (``columns.yaml``, ``matrix.yaml``), read without importing PyYAML.

Maintainers edit the YAML (one line per column, alias or matrix row). Beside each file is its
generated twin, ``columns.yaml.json`` / ``matrix.yaml.json``: the same data as JSON, with the
CRC-32 of the YAML it was made from. :func:`load` returns the JSON's data when that checksum is
the YAML's, and parses the YAML otherwise (an edited YAML whose twin was not regenerated is still
read right, only slower). The standard library's ``json`` is ~1 ms to import and parse; PyYAML
was ~15 ms of every cold one-README check (issue 11).

Regenerate after editing a YAML file::

    python scripts/gen_spec_data.py          # --check: exit 1 if a twin is out of date

``tests/test_spec_data.py`` fails, with that command, when a twin is not what the YAML gives.
"""

from __future__ import annotations

import json
import os
import zlib
from typing import Any

SOURCES = ("columns.yaml", "matrix.yaml", "matrix_cann.yaml", "matrix_wheels.yaml")
SUFFIX = ".json"
REGENERATE = "python scripts/gen_spec_data.py"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _read(name: str) -> bytes:
    try:
        with open(os.path.join(_HERE, name), "rb") as f:
            return f.read()
    except OSError:  # not a plain folder (a zip import): ask the import system
        from importlib import resources

        return resources.files(__package__).joinpath(name).read_bytes()


def checksum(raw: bytes) -> int:
    """The CRC-32 of a YAML file's bytes, line endings as ``\\n`` (a CRLF checkout agrees)."""
    return zlib.crc32(raw.replace(b"\r\n", b"\n"))


def parse_yaml(raw: bytes | str) -> Any:
    """PyYAML's safe load (libyaml's loader when there is one: ~10x the pure-Python one)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(raw, Loader=loader)


def load(name: str) -> Any:
    """The data of the guide's file ``name`` (one of :data:`SOURCES`): its JSON twin when that is
    current, the YAML otherwise."""
    raw = _read(name)
    try:
        twin = json.loads(_read(name + SUFFIX))
    except (OSError, ValueError):
        twin = None
    if isinstance(twin, dict) and twin.get("crc32") == checksum(raw) and "data" in twin:
        return twin["data"]
    return parse_yaml(raw)


def generate(name: str) -> str:
    """The text of ``name``'s JSON twin, from the YAML as it is now."""
    raw = _read(name)
    data = parse_yaml(raw)
    twin = {
        "generated": f"from {name} by `{REGENERATE}`: do not edit, edit {name} and rerun it",
        "crc32": checksum(raw),
        "data": data,
    }
    text = json.dumps(twin, ensure_ascii=False, indent=1) + "\n"
    if json.loads(text)["data"] != data:  # a YAML value JSON cannot hold (a date, an int key)
        raise ValueError(f"{name}: the data does not survive JSON unchanged")
    return text


def path(name: str) -> str:
    """Where ``name`` (a source or its twin) lives in a source checkout."""
    return os.path.join(_HERE, name)
