"""Ready for a distributed Postgres: every key of the memory tables includes the namespace
(read back from the catalog of the migrated schema), a row refers only to rows of its own
namespace, and revision 0013 keeps a populated database both ways."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg.types.json import Jsonb

from langmemcore.storage import Database, downgrade, head_revision, upgrade
from tests.conftest import libpq_url

from .conftest import UNANALYSED

GLOBAL = {"alembic_version", "langmemcore_settings"}
"""Tables that hold no namespace's data (a Citus reference table and alembic's own)."""

_CONSTRAINTS = """
SELECT c.conrelid::regclass::text, c.conname, c.contype,
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i),
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)
FROM pg_constraint c
WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('p', 'u', 'f')
"""

_UNIQUE_INDEXES = """
SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text,
       ARRAY(SELECT a.attname::text FROM unnest(i.indkey) k
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k)
FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
WHERE i.indisunique AND t.relnamespace = 'public'::regnamespace
"""

VECTOR = "[" + ",".join(["0.1"] * 384) + "]"


def _catalog(url: str) -> tuple[set[str], set[str], list[tuple], list[tuple]]:
    with psycopg.connect(libpq_url(url)) as conn:
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
        with_namespace = {
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND column_name = 'namespace'"
            )
        }
        constraints = conn.execute(_CONSTRAINTS).fetchall()
        unique = conn.execute(_UNIQUE_INDEXES).fetchall()
    return tables - GLOBAL, with_namespace, constraints, unique


def test_every_key_of_the_memory_tables_includes_the_namespace(fresh_database_url: str) -> None:
    upgrade(Database(fresh_database_url))
    tables, with_namespace, constraints, unique = _catalog(fresh_database_url)
    assert len(tables) >= 17
    assert tables <= with_namespace
    keys = [c for c in constraints if c[0] in tables]
    assert {c[0] for c in keys if c[2] == "p"} == tables
    missing = [(table, name) for table, name, _, columns, _ in keys if "namespace" not in columns]
    assert missing == []
    references = [c for c in keys if c[2] == "f"]
    assert len(references) == 12
    for _, name, _, columns, referenced in references:
        # The namespace refers to the namespace: a row names rows of its own namespace only.
        assert dict(zip(columns, referenced, strict=True))["namespace"] == "namespace", name
    indexes = [(table, name) for table, name, columns in unique if table in tables]
    assert [(t, n) for t, n, c in unique if t in tables and "namespace" not in c] == []
    assert len(indexes) >= len(tables)


def _observation(conn: psycopg.Connection, namespace: str, key: str) -> int:
    row = conn.execute(
        "INSERT INTO observations (namespace, key, content, content_hash, analysis) "
        "VALUES (%s, %s, 'said', %s, %s) RETURNING id",
        (namespace, key, key, Jsonb(UNANALYSED)),
    ).fetchone()
    assert row is not None
    return int(row[0])


def _note(conn: psycopg.Connection, namespace: str) -> int:
    row = conn.execute(
        "INSERT INTO notes (namespace, context, embedding, thread_embedding) "
        "VALUES (%s, 'a note', %s, %s) RETURNING id",
        (namespace, VECTOR, VECTOR),
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_row_refers_only_to_rows_of_its_own_namespace(fresh_database_url: str) -> None:
    upgrade(Database(fresh_database_url))
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        note, theirs = _note(conn, "a"), _observation(conn, "b", "k")
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO note_sources (namespace, note_id, observation_id) "
                "VALUES ('a', %s, %s)",
                (note, theirs),
            )
        ours = _observation(conn, "a", "k")
        conn.execute(
            "INSERT INTO note_sources (namespace, note_id, observation_id) VALUES ('a', %s, %s)",
            (note, ours),
        )
        conn.execute("DELETE FROM observations WHERE id = %s", (ours,))
        left = conn.execute("SELECT count(*) FROM note_sources").fetchone()
    assert left == (0,)


def _value(conn: psycopg.Connection, position: int, replaced_by: int | None) -> int:
    row = conn.execute(
        "INSERT INTO profile_values (namespace, subject, subject_key, aspect, position, value, "
        "value_key, first_time, last_time, current, replaced_by) VALUES ('a', 'Maya', 'maya', "
        "'home', %s, 'Lisbon', 'lisbon', now(), now(), false, %s) RETURNING id",
        (position, replaced_by),
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_the_key_migration_keeps_a_populated_database_both_ways(fresh_database_url: str) -> None:
    """Rows written at 0012 survive 0013 and its downgrade; at 0013 a value whose
    replacement goes loses only its ``replaced_by``.
    """
    db = Database(fresh_database_url)
    upgrade(db, revision="0012")
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        older, newer = _note(conn, "a"), _note(conn, "a")
        conn.execute(
            "INSERT INTO note_sources (namespace, note_id, observation_id) VALUES ('a', %s, %s)",
            (older, _observation(conn, "a", "k")),
        )
        conn.execute(
            "INSERT INTO edges (namespace, source_id, target_id, relation, strength) "
            "VALUES ('a', %s, %s, 'conflicts', 0.8)",
            (newer, older),
        )
        replacement = _value(conn, 2, None)
        _value(conn, 1, replacement)
    counts = "SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM note_sources), "
    counts += "(SELECT count(*) FROM edges), (SELECT count(*) FROM profile_values)"
    upgrade(db)
    with psycopg.connect(libpq_url(fresh_database_url), autocommit=True) as conn:
        assert conn.execute(counts).fetchone() == (2, 1, 1, 2)
        conn.execute("DELETE FROM profile_values WHERE id = %s", (replacement,))
        kept = conn.execute("SELECT namespace, replaced_by FROM profile_values").fetchall()
    assert kept == [("a", None)]
    downgrade(db, revision="0012")
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        assert conn.execute(counts).fetchone() == (2, 1, 1, 1)
        primary = conn.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'notes_pkey'"
        ).fetchone()
    assert primary == ("PRIMARY KEY (id)",)
    upgrade(db)
    assert asyncio.run(db.schema_revision()) == head_revision()
