"""Calls made while the embedded server shuts down: how many fail, and how many fail again
on an immediate retry.

A fresh embedded server (its own data folder) is stopped ``--stops`` times with a fast
shutdown (SIGINT to the postmaster) while one client goes on calling (``SELECT 1``
through :meth:`Database.reader`, ``--calls`` calls after each stop). The database layer
restarts the server and waits for it; a call fails only when the shutdown closes the
connection it is already using.

Usage::

    python benchmarks/quick_stops.py            # 15 stops, 5 calls after each
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import tempfile
from pathlib import Path

import psutil
from sqlalchemy import text

from langmemcore import DatabaseUnavailableError
from langmemcore.storage import Database
from langmemcore.storage.embedded import embedded_database_url


async def one(database: Database) -> None:
    """One call: ``SELECT 1`` on a pooled connection."""
    async with database.reader() as session:
        await session.scalar(text("SELECT 1"))


async def run(home: Path, stops: int, calls: int) -> dict[str, int]:
    """Stop the server ``stops`` times, ``calls`` calls after each; the counts."""
    database = Database(embedded_database_url(home))
    pgdata = home / "pgdata"
    failed = failed_again = 0
    for _stop in range(stops):
        await one(database)
        pid = int((pgdata / "postmaster.pid").read_text().split()[0])
        psutil.Process(pid).send_signal(signal.SIGINT)
        for _call in range(calls):
            try:
                await one(database)
            except DatabaseUnavailableError as exc:
                failed += 1
                print(f"failed: {exc}")
                try:
                    await one(database)
                except DatabaseUnavailableError:
                    failed_again += 1
        await asyncio.sleep(0.2)
    await database.dispose()
    return {"stops": stops, "calls": stops * calls, "failed": failed, "again": failed_again}


def main() -> None:
    """Run the stops in a temporary data folder and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stops", type=int, default=15)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)  # the server's own system user reads it when root
        figures = asyncio.run(run(Path(folder) / "home", args.stops, args.calls))
    print(
        f"{figures['stops']} stops, {figures['calls']} calls: {figures['failed']} failed, "
        f"{figures['again']} of those failed again on an immediate retry"
    )


if __name__ == "__main__":
    main()
