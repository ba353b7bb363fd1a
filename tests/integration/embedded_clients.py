"""Light clients of the embedded server for test_embedded_lifecycle.

Importing langmemcore costs seconds of CPU, so this process pays it once and forks one
client per command read from stdin. Each client is a real process of its own: it opens
the embedded server (``Database.connect()``, no DATABASE_URL), runs ``SELECT 1``, prints
``ready <pid>`` and either waits to be killed (``linger``) or exits normally (``run``),
leaving through the interpreter's normal shutdown so its exit handlers run.

Commands: ``linger``, ``run``, ``wait <pid>`` (reaps a client and prints
``status <exit code>``, negative for a signal).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from sqlalchemy import text

from langmemcore.storage import Database


async def _select_one() -> None:
    database = Database.connect()
    async with database.reader() as session:
        assert await session.scalar(text("SELECT 1")) == 1
    await database.dispose()


def _client(linger: bool) -> None:
    asyncio.run(_select_one())
    print(f"ready {os.getpid()}", flush=True)
    while linger:
        time.sleep(60)


def main() -> None:
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command in ("linger", "run"):
            sys.stdout.flush()
            if os.fork() == 0:
                _client(linger=command == "linger")
                return
        elif command == "wait":
            _, status = os.waitpid(int(argument), 0)
            print(f"status {os.waitstatus_to_exitcode(status)}", flush=True)


if __name__ == "__main__":
    main()
