"""``python -m perfbot``."""

import sys

from perfbot.cli import main

sys.exit(main())
