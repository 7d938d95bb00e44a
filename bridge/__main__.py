"""``python -m bridge`` runs the ``bridge`` command."""

import sys

from bridge.cli import main

sys.exit(main())
