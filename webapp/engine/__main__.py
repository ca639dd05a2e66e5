"""Entry point: ``python -m webapp.engine``."""

import sys

from webapp.engine.cli import main

sys.exit(main())
