"""The rules, one family per module. Importing this package registers them all."""

from . import columns, directives, matrix, requirements, sentence, structure, values  # noqa: F401
