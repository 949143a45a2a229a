"""`python -m nika.cli`: the CLI in this interpreter (the tests and child runs spawn it)."""

import sys

from nika.cli import main

sys.exit(main())
