"""perfbot: checks and fixes the Requirements and Performance tables of MindSpore model READMEs."""

__version__ = "0.1.0"
