"""Reading a ``.perfbot.yml`` into plain data: untrusted YAML, bounded (no pydantic here).

:func:`read_config_data` is what :func:`perfbot.config.load_config` validates with pydantic, and
what :mod:`perfbot.config_light` answers a plain config from without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .config_light import ConfigError

# A .perfbot.yml is a few hundred bytes; anything near these limits is hostile or a mistake.
MAX_CONFIG_BYTES = 256 * 1024
MAX_CONFIG_DEPTH = 32


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader without anchors and aliases (no "billion laughs": a document is never
    larger than its text) and with a nesting limit (no RecursionError in the composer)."""

    def __init__(self, stream: str, source_name: str):
        super().__init__(stream)
        self._source_name = source_name
        self._depth = 0

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ConfigError(
                f"{self._source_name}: YAML anchors and aliases (&name, *name) are not "
                f"allowed{_at(event)}; write the values out"
            )
        self._depth += 1
        try:
            if self._depth > MAX_CONFIG_DEPTH:
                raise ConfigError(
                    f"{self._source_name}: nested more than {MAX_CONFIG_DEPTH} levels deep"
                    f"{_at(event)}"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _at(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def load_yaml_bounded(text: str | bytes, source_name: str) -> Any:
    """Parse untrusted YAML (a ``.perfbot.yml`` from a pull request, a branch, a checkout).

    At most :data:`MAX_CONFIG_BYTES`, UTF-8 (a BOM is allowed), no anchors or aliases, at most
    :data:`MAX_CONFIG_DEPTH` levels of nesting, safe tags only. Every problem, whatever PyYAML or
    Python raises inside, is a :class:`ConfigError` whose message starts with ``source_name``;
    nothing else escapes. Returns the plain data (``None`` for an empty document).
    """
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{source_name}: {size} bytes; a config file may be at most {MAX_CONFIG_BYTES} bytes"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ConfigError(
                f"{source_name}: not UTF-8 (byte 0x{text[e.start]:02x} at offset {e.start})"
            ) from None
    text = text.removeprefix("\ufeff")
    loader = _BoundedLoader(text, source_name)
    try:
        return loader.get_single_data()
    except ConfigError:
        raise
    except yaml.YAMLError as e:
        raise ConfigError(f"{source_name}: not valid YAML: {_yaml_problem(e)}") from None
    except RecursionError:
        raise ConfigError(f"{source_name}: nested too deeply") from None
    except Exception as e:  # e.g. ValueError: an int of more than 4300 digits
        raise ConfigError(f"{source_name}: not a usable YAML value: {e}") from None
    finally:
        loader.dispose()


def _yaml_problem(e: yaml.YAMLError) -> str:
    """PyYAML's error on one line: the problem and where (not its multi-line excerpt)."""
    if isinstance(e, yaml.MarkedYAMLError) and (e.problem or e.context):
        what = e.problem or e.context or ""
        mark = e.problem_mark or e.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        tab = "; YAML indents with spaces, not tabs" if "'\\t'" in what else ""
        return f"{what}{where}{tab}"
    return " ".join(str(e).split())


def read_config_data(p: Path) -> dict[str, Any]:
    """The settings of the config file ``p`` as plain data (a mapping), or :class:`ConfigError`."""
    from .source import UnsafeFileError, read_bytes_bounded

    try:
        data_bytes = read_bytes_bounded(p, MAX_CONFIG_BYTES)
    except UnsafeFileError as e:
        raise ConfigError(f"{p}: {str(e).replace('file is ', '', 1)}") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror or e}") from None
    data = load_yaml_bounded(data_bytes, str(p))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a mapping of settings at the top level")
    return data
