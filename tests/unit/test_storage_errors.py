"""Driver errors mapped by kind (constructed exceptions, no database): input the
database refused is an InvalidInputError, a lost connection or an exhausted pool a
DatabaseUnavailableError, and no message carries SQL."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import errors
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from langmemcore import DatabaseUnavailableError, InvalidInputError
from langmemcore.storage.database import _map_error, _unavailable_as_errors

SQL = "INSERT INTO items (namespace, key) VALUES (%(a)s, %(b)s)"


def wrapped(orig: Exception) -> DBAPIError:
    """The exception SQLAlchemy raises for ``orig`` during a statement."""
    return DBAPIError.instance(SQL, {"a": 1}, orig, psycopg.Error)


@pytest.mark.parametrize(
    "orig",
    [
        errors.NumericValueOutOfRange("bigint out of range"),
        errors.DatetimeFieldOverflow("interval out of range"),
        errors.UntranslatableCharacter("unsupported Unicode escape sequence"),
        errors.ProgramLimitExceeded("index row size 3016 exceeds btree version 4 maximum 2704"),
        errors.StatementTooComplex("stack depth limit exceeded"),
        errors.CheckViolation('new row violates check constraint "ck_notes_confidence"'),
        psycopg.DataError("PostgreSQL text fields cannot contain NUL (0x00) bytes"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_refused_input_is_an_invalid_input_error(orig: Exception) -> None:
    error = _map_error(wrapped(orig))
    assert isinstance(error, InvalidInputError) and isinstance(error, ValueError)
    assert not isinstance(error, ConnectionError)
    assert str(orig).splitlines()[0] in str(error)
    assert "INSERT" not in str(error) and "[SQL" not in str(error)


@pytest.mark.parametrize(
    "orig",
    [
        errors.AdminShutdown("terminating connection due to administrator command"),
        errors.CannotConnectNow("the database system is starting up"),
        errors.ConnectionFailure("connection failure"),
        psycopg.OperationalError("consuming input failed: server closed the connection"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_lost_connections_are_unavailable(orig: Exception) -> None:
    error = _map_error(wrapped(orig))
    assert isinstance(error, DatabaseUnavailableError) and isinstance(error, ConnectionError)
    assert "INSERT" not in str(error)


def test_other_errors_pass_unchanged() -> None:
    exc = wrapped(errors.UndefinedTable('relation "nope" does not exist'))
    assert _map_error(exc) is exc


def test_an_invalidated_connection_is_unavailable() -> None:
    exc = wrapped(psycopg.InterfaceError("the connection is closed"))
    exc.connection_invalidated = True
    assert isinstance(_map_error(exc), DatabaseUnavailableError)


def test_an_exhausted_pool_names_its_size() -> None:
    expected = pytest.raises(DatabaseUnavailableError, match="all 3 pooled connections")
    with expected as info, _unavailable_as_errors(3):
        raise PoolTimeoutError("QueuePool limit of size 3 overflow 10 reached")
    assert isinstance(info.value, ConnectionError)


def test_text_that_is_not_utf8_is_invalid_input() -> None:
    with pytest.raises(InvalidInputError, match="not UTF-8"), _unavailable_as_errors(5):
        "\ud800".encode()
