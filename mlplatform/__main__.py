"""`python -m mlplatform`, the same as the `mlplatform` command."""

import sys

from .cli import main

sys.exit(main())
