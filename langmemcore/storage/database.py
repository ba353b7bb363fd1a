"""Where the data lives: URL resolution, engines per event loop, schema checks.

``DATABASE_URL`` (or an explicit URL) always wins; with neither, the embedded Postgres
is started or reused (:mod:`langmemcore.storage.embedded`). Async engines are bound to
the loop that created them, so :class:`Database` keeps one per running loop.

A server that went away under a long-running process: a pooled connection whose socket
turned readable while idle (the server closed it) is dropped at checkout, so the pool
connects anew. A refused new connection to an embedded server restarts that server
(:func:`~langmemcore.storage.embedded.revive_embedded_server`), or, while it is shutting
down or starting up, waits for it; the connection is retried with exponential back-off
for up to ``Database.reconnect_timeout`` seconds. Any server answering "shutting down" /
"starting up" (SQLSTATE 57P03) is waited for the same way (a server that refuses
connections outright, such as a stopped one named by a URL, is not). Otherwise, or past that time,
the operation fails with :class:`DatabaseUnavailableError`, whose message gives the
cause.
"""

from __future__ import annotations

import asyncio
import os
import select
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from sqlalchemy import event, make_url, text
from sqlalchemy.exc import (
    ArgumentError,
    DataError,
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    InvalidRequestError,
    OperationalError,
    ProgrammingError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, create_async_engine

from langmemcore._errors import (
    ConfigurationError,
    DatabaseUnavailableError,
    InvalidInputError,
    MigrationRequiredError,
)
from langmemcore.storage._scripts import head_revision
from langmemcore.storage.embedded import embedded_database_url, revive_embedded_server

__all__ = ["Database", "resolve_database_url", "sync_url"]

MIGRATE_HINT = "run `langmemcore migrate` (or `alembic upgrade head`)"

SESSION_OPTIONS = (
    "-c hnsw.iterative_scan=strict_order -c hnsw.ef_search=400 -c plan_cache_mode=force_custom_plan"
)
"""Session settings of every connection: HNSW scans keep going until enough rows pass the
namespace (and speaker) filters, so a small namespace among big ones still gets its k
nearest notes (pgvector >= 0.8), and candidate lists are deep enough for the channels:
400 candidates find nearly all of the exact nearest notes a channel ranks in a namespace
of 100,000 (the vector channel's 60; at 100 candidates, about three quarters).
Statements are planned for their actual parameters every time: the driver prepares a
statement after a few executions, and a generic plan (blind to the namespace, the query
vector and the speaker) can trade the HNSW index for a scan and sort of every matching
note (measured: the speaker channel went from 6 to 60 ms at 100k notes)."""


MAX_OVERFLOW = 10
"""Connections opened beyond ``pool_size`` when all pooled ones are busy."""

RECONNECT_FIRST_S = 0.05
"""Seconds before the first retry of a refused connection (each later wait doubles)."""

RECONNECT_MAX_S = 2.0
"""The longest wait between two retries of a refused connection."""

_CANNOT_CONNECT_NOW = "57P03"
"""SQLSTATE of a server that is shutting down, starting up or in recovery."""

_RESTARTING = (
    "the database system is shutting down",
    "the database system is starting up",
    "the database system is not yet accepting connections",
    "the database system is in recovery mode",
)
"""The server's reasons for refusing a connection with SQLSTATE 57P03 (libpq reports a
refused connection without its SQLSTATE, so the message is read)."""


def _restarting(exc: DBAPIError) -> bool:
    """Whether the server refused the connection because it is shutting down, starting
    up or in recovery (it will accept connections again).
    """
    if str(getattr(exc.orig, "sqlstate", "") or "") == _CANNOT_CONNECT_NOW:
        return True
    message = str(exc.orig)
    return any(reason in message for reason in _RESTARTING)


def sync_url(url: str) -> str:
    """Normalise a Postgres URL to SQLAlchemy's psycopg 3 scheme.

    ``postgres://``, ``postgresql://`` and ``postgresql+psycopg2://`` all become
    ``postgresql+psycopg://``.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    if scheme in ("postgres", "postgresql") or scheme.startswith("postgresql+"):
        return f"postgresql+psycopg://{rest}"
    return url


def resolve_database_url(url: str | None = None) -> str:
    """Pick the database: an explicit URL, else ``DATABASE_URL``, else the embedded one.

    Args:
        url: An explicit SQLAlchemy / libpq URL, or ``None``.

    Returns:
        A ``postgresql+psycopg://`` URL.

    Raises:
        ConfigurationError: If the URL given cannot be parsed.
    """
    chosen = url or os.environ.get("DATABASE_URL")
    if not chosen:
        return embedded_database_url()
    resolved = sync_url(chosen)
    try:
        make_url(resolved)
    except ArgumentError as exc:
        raise ConfigurationError(f"not a database URL: {chosen!r}") from exc
    return resolved


_INPUT_CLASSES = {
    "22": "a value the database cannot store",
    "23": "a value that breaks a constraint",
    "54": "a value over a database limit",
}
"""SQLSTATE classes of permanent errors caused by the input: data exceptions, integrity
violations, program limits (such as the 2,704-byte index row)."""


def _first_line(error: BaseException | None) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _map_error(exc: DBAPIError) -> Exception:
    """The project's error for a driver error, by kind.

    Input the database refused (SQLSTATE classes 22, 23 and 54, or the driver's own
    data errors such as a NUL byte) becomes :class:`InvalidInputError`, a ``ValueError``:
    retrying cannot help. A lost or refused connection (class 08, a connection the
    driver invalidated), a server shutting down (57P) and the other operational errors
    (resources, cancellation, lock and serialization conflicts) become
    :class:`DatabaseUnavailableError`, a ``ConnectionError``. Anything else is returned
    unchanged. Messages carry the server's first line, never the SQL.
    """
    sqlstate = str(getattr(exc.orig, "sqlstate", None) or "")
    kind = _INPUT_CLASSES.get(sqlstate[:2])
    if kind is None and not sqlstate and isinstance(exc, DataError | IntegrityError):
        kind = _INPUT_CLASSES["22"]
    if kind is not None:
        return InvalidInputError(
            f"The input was refused as {kind} ({_first_line(exc.orig)}); nothing was stored."
        )
    if isinstance(exc, OperationalError) or exc.connection_invalidated:
        return DatabaseUnavailableError(
            "The database is unavailable (the server cannot be reached or closed the "
            f"connection): {_first_line(exc.orig)}"
        )
    return exc


@contextmanager
def _unavailable_as_errors(pool_size: int) -> Iterator[None]:
    """Raise driver errors by kind (see :func:`_map_error`); an unreachable database and
    a connection pool that stays exhausted as :class:`DatabaseUnavailableError`.
    """
    try:
        yield
    except DBAPIError as exc:
        raise _map_error(exc) from exc
    except DatabaseUnavailableError:
        raise
    except PoolTimeoutError as exc:
        raise DatabaseUnavailableError(
            f"No database connection became free in time: all {pool_size} pooled "
            f"connections (and {MAX_OVERFLOW} overflow) are in use; raise pool_size or "
            "run fewer operations at once"
        ) from exc
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"The input holds text that is not UTF-8 ({exc.reason}); nothing was stored."
        ) from exc
    except OSError as exc:
        raise DatabaseUnavailableError(f"The database is unavailable: {exc}") from exc


def _drop_if_closed(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """Pool checkout hook: refuse a pooled connection whose socket is readable while idle.

    An idle connection has nothing to read unless the server wrote to it on its own: a
    stop or crash (its farewell error, or end of file). One zero-timeout poll, no round
    trip; the pool then connects anew.

    Raises:
        DisconnectionError: The connection is closed or the server spoke unasked.
    """
    try:
        ready, _, _ = select.select([record.driver_connection.fileno()], [], [], 0)
    except (OSError, ValueError, psycopg.Error) as exc:
        raise DisconnectionError(f"the connection is closed: {exc}") from exc
    if ready:
        raise DisconnectionError("the server wrote to or closed the idle connection")


@dataclass
class Database:
    """A Postgres + pgvector database holding langmemcore's schema.

    Attributes:
        url: The resolved ``postgresql+psycopg://`` URL.
        embedded: Whether the URL points at the embedded server this process started.
        pool_size: Connections kept per event loop (and up to ``MAX_OVERFLOW`` more
            when all are busy).
        pool_timeout: Seconds an operation waits for a free connection before it fails
            with :class:`DatabaseUnavailableError`.
        reconnect_timeout: Seconds an operation retries a refused connection to a server
            that is restarting (an embedded server of this process, or one answering
            SQLSTATE 57P03) before it fails with :class:`DatabaseUnavailableError`.
    """

    url: str
    embedded: bool = False
    pool_size: int = 5
    pool_timeout: float = 30.0
    reconnect_timeout: float = 30.0
    _engines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncEngine] = field(
        default_factory=weakref.WeakKeyDictionary, repr=False
    )
    _readers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncEngine] = field(
        default_factory=weakref.WeakKeyDictionary, repr=False
    )

    @classmethod
    def connect(cls, url: str | None = None) -> Database:
        """Resolve the URL (explicit, ``DATABASE_URL`` or embedded) and wrap it."""
        embedded = not (url or os.environ.get("DATABASE_URL"))
        return cls(resolve_database_url(url), embedded=embedded)

    def engine(self, *, autocommit: bool = False) -> AsyncEngine:
        """The async engine of the running event loop (created on first use); with
        ``autocommit`` the one whose connections read outside transaction blocks (a pool
        of its own, so that no connection ever switches mode).
        """
        loop = asyncio.get_running_loop()
        engines = self._readers if autocommit else self._engines
        engine = engines.get(loop)
        if engine is None:
            engine = create_async_engine(
                self.url,
                pool_size=self.pool_size,
                max_overflow=MAX_OVERFLOW,
                pool_timeout=self.pool_timeout,
                connect_args={"options": SESSION_OPTIONS},
                **({"isolation_level": "AUTOCOMMIT"} if autocommit else {}),
            )
            event.listen(engine.sync_engine, "checkout", _drop_if_closed)
            engines[loop] = engine
        return engine

    @asynccontextmanager
    async def _connection(self, *, autocommit: bool) -> AsyncIterator[AsyncConnection]:
        """A connection of the loop's engine, checked out before any statement runs
        (see :meth:`_connect`).
        """
        connection = await self._connect(self.engine(autocommit=autocommit))
        try:
            yield connection
        finally:
            await connection.close()

    async def _connect(self, engine: AsyncEngine) -> AsyncConnection:
        """Check out a connection; while the server restarts (see the module's
        docstring) retry with exponential back-off for up to ``reconnect_timeout``
        seconds.

        A checkout the pool gave up on (two connections in a row closed before use, as
        when backends are terminated while they are made) is retried the same way.

        Raises:
            OperationalError: The connection was refused by a server that is not
                restarting (mapped by the caller).
            DatabaseUnavailableError: The server did not accept a connection in time;
                the message gives the last cause.
        """
        deadline = time.monotonic() + self.reconnect_timeout
        delay = RECONNECT_FIRST_S
        waited = f"(retried for {self.reconnect_timeout:g} s)"
        while True:
            try:
                return await engine.connect()
            except InvalidRequestError as exc:
                cause: BaseException = exc
                message = f"The database closed each connection it gave {waited}"
            except OperationalError as exc:
                cause, message = await self._refused(exc, waited)
            if time.monotonic() + delay > deadline:
                raise DatabaseUnavailableError(message) from cause
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX_S)

    async def _refused(self, exc: OperationalError, waited: str) -> tuple[BaseException, str]:
        """The cause and the message to give up with when a refused connection is retried
        (the embedded server revived or a server restarting).

        Raises:
            OperationalError: ``exc``, when no server is restarting.
        """
        try:
            embedded = await asyncio.to_thread(revive_embedded_server, self.url)
        except DatabaseUnavailableError as revive_error:
            return revive_error, f"{revive_error} {waited}"
        if not (embedded or _restarting(exc)):
            raise exc
        return exc, f"The database did not accept a connection {waited}: {_first_line(exc.orig)}"

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """One transaction: commits on success, rolls back on error.

        Raises:
            DatabaseUnavailableError: If the database cannot be reached, went away or
                no pooled connection became free in time.
            InvalidInputError: If the database refused a value as input.
        """
        with _unavailable_as_errors(self.pool_size):
            async with (
                self._connection(autocommit=False) as connection,
                AsyncSession(connection, expire_on_commit=False) as session,
                session.begin(),
            ):
                yield session

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[AsyncSession]:
        """A session for reads outside a transaction block (autocommit): each statement
        sees the data committed when it starts, and no ``BEGIN`` / ``COMMIT`` round trips
        are spent. For single-statement reads this is exactly a transaction's view, and a
        single-statement write commits on its own.

        Raises:
            DatabaseUnavailableError: If the database cannot be reached, went away or
                no pooled connection became free in time.
            InvalidInputError: If the database refused a value as input.
        """
        with _unavailable_as_errors(self.pool_size):
            async with (
                self._connection(autocommit=True) as connection,
                AsyncSession(connection, expire_on_commit=False) as session,
            ):
                yield session

    async def schema_revision(self) -> str | None:
        """The alembic revision the database is at, or ``None`` if it has no schema."""
        async with self.session() as session:
            exists = await session.scalar(text("SELECT to_regclass('alembic_version')"))
            if exists is None:
                return None
            return await session.scalar(text("SELECT version_num FROM alembic_version"))

    async def check_schema(self) -> int:
        """Ensure the schema is at the code's head revision.

        Returns:
            The embedding dimensions the schema was created with.

        Raises:
            MigrationRequiredError: If the schema is missing or behind head.
        """
        revision = await self.schema_revision()
        head = head_revision()
        if revision != head:
            state = (
                "has no langmemcore schema"
                if revision is None
                else (f"is at schema revision {revision}, the code needs {head}")
            )
            raise MigrationRequiredError(f"The database {state}: {MIGRATE_HINT}.")
        try:
            async with self.session() as session:
                dims = await session.scalar(
                    text("SELECT value FROM langmemcore_settings WHERE key = 'embedding_dims'")
                )
        except ProgrammingError as exc:
            raise MigrationRequiredError(f"The schema is incomplete: {MIGRATE_HINT}.") from exc
        return int(dims or 0)

    async def dispose(self) -> None:
        """Close the pooled connections of the running loop's engines."""
        loop = asyncio.get_running_loop()
        for engines in (self._engines, self._readers):
            engine = engines.pop(loop, None)
            if engine is not None:
                await engine.dispose()
