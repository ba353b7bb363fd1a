"""``python -m langmemcore.cli``: the same as the ``langmemcore`` command."""

from __future__ import annotations

import sys

from langmemcore.cli import main

sys.exit(main())
