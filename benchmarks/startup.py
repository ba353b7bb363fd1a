"""Benchmark: how long a fresh process takes to open memory and write and search once.

Run from the repository root: ``python benchmarks/startup.py [--work SECONDS]``.

The embedded default in a fresh temporary ``LANGMEMCORE_HOME`` (``DATABASE_URL`` unset);
``Memory.open`` (timed: it starts the server and creates the schema), then
``--work`` seconds of the caller's own start-up (a sleep: while it runs, the models load
in the background), then the first ``ingest`` and the first ``search`` (each timed). Prints
one line of seconds: import, open, first ingest, first search, and the whole run.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

__all__ = ["main"]


def main() -> None:
    """Parse the arguments and print the timings."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=float, default=0.0, help="caller's own start-up (s)")
    args = parser.parse_args()
    os.environ.pop("DATABASE_URL", None)
    os.environ["LANGMEMCORE_HOME"] = tempfile.mkdtemp(prefix="lmc-start-")
    start = time.perf_counter()
    from langmemcore import Memory

    imported = time.perf_counter()
    memory = Memory.open()
    opened = time.perf_counter()
    time.sleep(args.work)
    worked = time.perf_counter()
    memory.ingest(("startup",), "I moved to Berlin last year.", speaker="Ana")
    ingested = time.perf_counter()
    memory.search(("startup",), "Where does Ana live?")
    searched = time.perf_counter()
    print(
        f"import {imported - start:.2f} s, open {opened - imported:.2f} s, "
        f"own start-up {worked - opened:.2f} s, first ingest {ingested - worked:.2f} s, "
        f"first search {searched - ingested:.2f} s, total {searched - start:.2f} s"
    )


if __name__ == "__main__":
    main()
