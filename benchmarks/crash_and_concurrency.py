"""Concurrency and crash figures of langmemcore on the embedded server.

1. Concurrency: 8 writer processes ingest 1,000 observations each through
   ``Memory.aingest_many`` at the same time: four share one namespace with overlapping key
   ranges (each overlaps the next by half), four write a namespace of their own with the
   same key names.
2. Crashes: 20 processes are killed with SIGKILL mid-ingest, alternately a ``Memory``
   (``aingest_many``) and a ``MemoryStore(background=True)`` (``aput`` while construction
   runs in the background); runs overlap each other's keys.
3. Reopen: count observations lost (acknowledged but absent), duplicated (one key, several
   rows) and notes whose sources are missing; the store's pending tasks left by the kills
   must be resumed by the next ``MemoryStore.aopen`` and drained by ``aflush``; the killed
   Memory runs are ingested again (idempotent) and counted again.

Every process has a fresh data folder of its own (``LANGMEMCORE_HOME``, no DATABASE_URL),
so the embedded server is started, shared and stopped by the processes themselves. The
embedder is a deterministic hash embedding (``--local-embedder`` for the real
all-MiniLM-L6-v2): the figures are about storage, not retrieval quality.

Usage::

    python benchmarks/crash_and_concurrency.py            # 8 x 1,000 and 20 kills
    python benchmarks/crash_and_concurrency.py --scale 0.25   # 8 x 250 and 5 kills
    python benchmarks/crash_and_concurrency.py --scale 0.5 --kills 20
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import multiprocessing
import os
import random
import signal
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psycopg
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from sqlalchemy import make_url

from langmemcore import Memory, MemoryStore
from langmemcore.construction import ObservationIn
from langmemcore.store._index import observation_key

WRITERS = 8
SHARED = ("bench", "shared")
CRASH_MEMORY = ("crash", "memory")
CRASH_STORE = ("crash", "store")
FORK = multiprocessing.get_context("fork")


def embedder(local: bool) -> Embeddings | None:
    """The benchmark's embedder: ``None`` (the local model) or a hash embedding."""
    return None if local else DeterministicFakeEmbedding(size=384)


def text_of(key: int) -> str:
    """The one text of key ``key`` (the same in every namespace and process)."""
    return (
        f"Observation {key}: user {key % 97} talked about project {key % 31} "
        f"and city {key % 13} on day {key % 365}."
    )


def writer_plan(writer: int, count: int) -> tuple[tuple[str, ...], list[int]]:
    """Namespace and keys of writer ``writer``: even writers share a namespace with
    key ranges overlapping by half, odd ones have their own namespace.
    """
    if writer % 2 == 0:
        start = (writer // 2) * count // 2
        return SHARED, list(range(start, start + count))
    return ("bench", f"own{writer}"), list(range(count))


def observations(keys: list[int]) -> list[ObservationIn]:
    """The observations of ``keys``."""
    return [ObservationIn(f"k{key}", text_of(key)) for key in keys]


def leave() -> None:
    """End a forked child like a normal exit (its exit handlers run), which
    ``multiprocessing`` skips.
    """
    atexit._run_exitfuncs()


def write(writer: int, count: int, local: bool) -> None:
    """Writer process: ingest this writer's observations."""
    namespace, keys = writer_plan(writer, count)

    async def run() -> None:
        memory = await Memory.aopen(embeddings=embedder(local))
        await memory.aingest_many(namespace, observations(keys))
        await memory.database.dispose()

    asyncio.run(run())
    leave()


def crash_memory(run: int, count: int, local: bool, acks: Connection) -> None:
    """Crash-run process: ingest through Memory, acknowledging each applied key."""
    keys = crash_keys(run, count)

    async def main() -> None:
        memory = await Memory.aopen(embeddings=embedder(local))

        def progress(done: int, total: int) -> None:
            if done:
                acks.send(f"k{keys[done - 1]}")

        await memory.aingest_many(CRASH_MEMORY, observations(keys), progress=progress)

    asyncio.run(main())
    time.sleep(3600)  # finished before the kill: wait for it


def crash_store(run: int, count: int, local: bool, acks: Connection) -> None:
    """Crash-run process: put items (construction in the background), acknowledging
    each put that returned.
    """
    keys = crash_keys(run, count)

    async def main() -> None:
        store = await MemoryStore.aopen(embeddings=embedder(local), background=True)
        for key in keys:
            await store.aput(CRASH_STORE, f"i{key}", {"text": text_of(key)})
            acks.send(f"i{key}")

    asyncio.run(main())
    time.sleep(3600)


def crash_keys(run: int, count: int) -> list[int]:
    """Keys of crash run ``run``: each run overlaps the previous one of its kind by half."""
    start = (run // 2) * count // 2
    return list(range(start, start + count))


def concurrency(count: int, local: bool) -> float:
    """Run the writers at once; their wall time in seconds."""
    started = time.monotonic()
    writers = [FORK.Process(target=write, args=(w, count, local)) for w in range(WRITERS)]
    for process in writers:
        process.start()
    for process in writers:
        process.join()
        if process.exitcode != 0:
            raise SystemExit(f"a writer failed (exit code {process.exitcode})")
    return time.monotonic() - started


def kill_once(run: int, count: int, local: bool) -> set[str]:
    """One crash run, killed with SIGKILL after a random number of acknowledgements."""
    target = crash_memory if run % 2 == 0 else crash_store
    receive, send = FORK.Pipe(duplex=False)
    process = FORK.Process(target=target, args=(run, count, local, send))
    process.start()
    send.close()
    threshold = random.Random(run).randint(1, max(1, count * 7 // 10))
    acked: set[str] = set()
    while len(acked) < threshold and receive.poll(600):
        try:
            acked.add(receive.recv())
        except EOFError:
            break
    assert process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join()
    while receive.poll(0):  # acknowledgements sent before the kill (whole messages)
        try:
            acked.add(receive.recv())
        except (EOFError, OSError):
            break
    return acked


def libpq(url: str) -> str:
    """A SQLAlchemy URL as a libpq connection string."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


COUNTS = """
SELECT
  (SELECT count(*) FROM observations WHERE namespace = %(ns)s),
  (SELECT count(*) FROM (SELECT key FROM observations WHERE namespace = %(ns)s
                         GROUP BY key HAVING count(*) > 1) d),
  (SELECT count(*) FROM notes n WHERE n.namespace = %(ns)s AND n.status = 'active'
     AND NOT EXISTS (SELECT 1 FROM note_sources s JOIN observations o
                     ON o.id = s.observation_id WHERE s.note_id = n.id)),
  (SELECT count(*) FROM note_sources s WHERE s.namespace = %(ns)s
     AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.id = s.observation_id))
"""


def census(url: str, namespace: tuple[str, ...], expected: set[str]) -> dict[str, int]:
    """Observation counts of ``namespace`` against the keys that must be there."""
    ns = ".".join(namespace)
    with psycopg.connect(libpq(url)) as conn:
        rows, duplicated, orphan_notes, dangling = conn.execute(COUNTS, {"ns": ns}).fetchone()
        keys = {
            key
            for (key,) in conn.execute("SELECT key FROM observations WHERE namespace = %s", (ns,))
        }
    return {
        "expected": len(expected),
        "rows": rows,
        "lost": len(expected - keys),
        "duplicated": duplicated,
        "notes_without_live_source": orphan_notes,
        "sources_pointing_at_missing_observations": dangling,
    }


def pending_tasks(url: str) -> int:
    """Store tasks still queued in the database."""
    with psycopg.connect(libpq(url)) as conn:
        return int(conn.execute("SELECT count(*) FROM item_tasks").fetchone()[0])


def missing_items(url: str, keys: set[str]) -> int:
    """How many of the store item ``keys`` have no row."""
    with psycopg.connect(libpq(url)) as conn:
        present = {
            key
            for (key,) in conn.execute(
                "SELECT key FROM items WHERE namespace = %s", (".".join(CRASH_STORE),)
            )
        }
    return len(keys - present)


def written_keys(count: int) -> dict[tuple[str, ...], set[str]]:
    """Every namespace the writers wrote, with its keys."""
    expected: dict[tuple[str, ...], set[str]] = {}
    for writer in range(WRITERS):
        namespace, keys = writer_plan(writer, count)
        expected.setdefault(namespace, set()).update(f"k{key}" for key in keys)
    return expected


async def reopen(args: argparse.Namespace, acked: dict[str, set[str]]) -> dict[str, Any]:
    """Reopen after the kills and count; the killed Memory runs are then ingested again."""
    store = await MemoryStore.aopen(embeddings=embedder(args.local_embedder), background=True)
    url = store.memory.database.url
    figures: dict[str, Any] = {"pending_store_tasks_at_reopen": pending_tasks(url)}
    await store.aflush()  # the tasks the kills left, resumed by aopen
    figures["pending_store_tasks_after_flush"] = pending_tasks(url)
    figures["store_items_lost"] = missing_items(url, acked["store"])
    figures["store"] = census(url, CRASH_STORE, {observation_key(k) for k in acked["store"]})
    figures["memory_after_kills"] = census(url, CRASH_MEMORY, acked["memory"])
    runs = range(0, args.kills, 2)
    again = sorted({key for run in runs for key in crash_keys(run, args.crash_count)})
    await store.memory.aingest_many(CRASH_MEMORY, observations(again))
    figures["memory_ingested_again"] = census(url, CRASH_MEMORY, {f"k{k}" for k in again})
    figures["writers"] = {
        ".".join(ns): census(url, ns, keys) for ns, keys in written_keys(args.count).items()
    }
    await store.aclose()
    await store.memory.database.dispose()
    return figures


def arguments() -> argparse.Namespace:
    """Command-line options (``--scale`` shrinks observations and kills together)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0: 8 x 1,000 and 20 kills")
    parser.add_argument("--home", type=Path, help="data folder (default: a new temporary one)")
    parser.add_argument("--kills", type=int, help="crash runs (default: 20 x scale)")
    parser.add_argument("--local-embedder", action="store_true", help="real all-MiniLM-L6-v2")
    args = parser.parse_args()
    args.count = max(2, round(1000 * args.scale))
    args.kills = args.kills or max(2, round(20 * args.scale))
    args.crash_count = max(10, round(200 * args.scale))
    return args


def totals(figures: dict[str, Any]) -> dict[str, int]:
    """Lost, duplicated and dangling counts summed over every census."""
    censuses = [
        figures["store"],
        figures["memory_after_kills"],
        figures["memory_ingested_again"],
        *figures["writers"].values(),
    ]
    return {
        name: sum(c[name] for c in censuses)
        for name in (
            "lost",
            "duplicated",
            "notes_without_live_source",
            "sources_pointing_at_missing_observations",
        )
    }


def main() -> None:
    """Run the three phases and print the figures as JSON."""
    args = arguments()
    home = args.home or Path(tempfile.mkdtemp(prefix="lmc-crash-bench-"))
    os.environ.pop("DATABASE_URL", None)
    os.environ["LANGMEMCORE_HOME"] = str(home)
    print(
        f"data folder {home}; {WRITERS} writers x {args.count}, {args.kills} kills", file=sys.stderr
    )
    writers_s = concurrency(args.count, args.local_embedder)
    print(f"writers done in {writers_s:.0f} s", file=sys.stderr)
    acked: dict[str, set[str]] = {"memory": set(), "store": set()}
    started = time.monotonic()
    for run in range(args.kills):
        keys = kill_once(run, args.crash_count, args.local_embedder)
        acked["memory" if run % 2 == 0 else "store"] |= keys
        print(f"kill {run + 1}: {len(keys)} acknowledged", file=sys.stderr)
    kills_s = time.monotonic() - started
    figures = asyncio.run(reopen(args, acked))
    figures.update(
        scale=args.scale,
        writer_processes=WRITERS,
        observations_per_writer=args.count,
        kills=args.kills,
        writers_wall_s=round(writers_s, 1),
        kills_wall_s=round(kills_s, 1),
        totals=totals(figures),
    )
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
