"""``.perfbot.yml``: what a repository accepts beyond the guide.

Found by walking up from each checked file to the repository root (the folder holding ``.git``),
like ``.mdformat.toml``, composed with the files above it (:mod:`perfbot.config_tree`), read into
one :class:`~perfbot.config_light.Settings`. A bad key is a :class:`ConfigError` whose message
names the file, the key and what is allowed, never a traceback (worded by the pydantic schema,
:mod:`perfbot.config_schema`, imported only for a file the fast reader refuses).

This module is the door callers import; ``Config``, ``Allow``, ``ColumnConfig``,
``MatrixRowConfig``, ``ReviewConfig`` and ``RerunConfig`` are the settings types' older names.

```yaml
paths: ["configs/**/README.md", "examples/*/README.md"]   # which files are model READMEs
exclude: ["**/README_CN.md"]
allow:
  ms_per_step: true        # mindcv / mindyolo write ms/step
  compile_seconds: true    # graph compile written in seconds (77s)
columns:                   # the repository's own optional columns
  - name: acc@top1
    aliases: [top-1]
aliases:                   # more spellings of the guide's columns
  img/s: [imgs/sec]
matrix:                    # add or override matrix rows
  - {mindspore: 2.5.0, driver: 24.1.0, firmware: 7.5.0.3.220, cann: 8.0.0.beta1}
rules:
  PB203: off               # disable a rule (id or slug)
  img-s-mismatch: warning  # change a severity
```
"""

from __future__ import annotations

from .config_light import (
    DEFAULT,
    AllowSettings,
    ColumnSettings,
    MatrixRowSettings,
    RerunSettings,
    ReviewSettings,
    Settings,
    load_config,
)
from .config_read import (
    CONFIG_NAMES,
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    ConfigError,
    find_config_file,
    load_yaml_bounded,
    read_config_data,
)
from .config_tree import clear_caches, compose, config_for

__all__ = [
    "CONFIG_NAMES",
    "DEFAULT",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "Allow",
    "ColumnConfig",
    "Config",
    "ConfigError",
    "MatrixRowConfig",
    "RerunConfig",
    "ReviewConfig",
    "Settings",
    "clear_caches",
    "compose",
    "config_for",
    "find_config_file",
    "load_config",
    "load_yaml_bounded",
    "read_config_data",
]

# the older names of the one settings type and its parts (the same classes)
Config = Settings
Allow = AllowSettings
ColumnConfig = ColumnSettings
MatrixRowConfig = MatrixRowSettings
ReviewConfig = ReviewSettings
RerunConfig = RerunSettings
