"""Schema ownership by alembic, read back from the Postgres catalog."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import psycopg
import pytest

from langmemcore import MigrationRequiredError
from langmemcore.analysis import analyze
from langmemcore.storage import Database, downgrade, head_revision, upgrade
from langmemcore.text import analyze_observation
from tests.conftest import REPO_ROOT, libpq_url

TABLES = {
    "langmemcore_settings",
    "observations",
    "notes",
    "note_sources",
    "keywords",
    "note_keywords",
    "edges",
    "topics",
    "topic_keywords",
    "lineage",
    "items",
}


def catalog(url: str) -> tuple[set[str], dict[str, str]]:
    """User tables and index name -> definition, read from pg_catalog."""
    with psycopg.connect(libpq_url(url)) as conn:
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
            ).fetchall()
        )
    return tables, indexes


def has_column(url: str, table: str, column: str) -> bool:
    """Whether ``table`` has ``column``, read from pg_catalog."""
    with psycopg.connect(libpq_url(url)) as conn:
        found = conn.execute(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attname = %s AND NOT attisdropped",
            (table, column),
        ).fetchone()
    return found == (1,)


def test_upgrade_downgrade_upgrade_cycle(fresh_database_url: str) -> None:
    db = Database(fresh_database_url)
    upgrade(db)
    tables, _ = catalog(fresh_database_url)
    assert tables >= TABLES
    downgrade(db)
    tables, _ = catalog(fresh_database_url)
    assert tables & TABLES == set()
    upgrade(db)
    tables, _ = catalog(fresh_database_url)
    assert tables >= TABLES
    assert asyncio.run(db.schema_revision()) == head_revision()


def test_catalog_has_hnsw_and_gin_indexes(fresh_database_url: str) -> None:
    upgrade(Database(fresh_database_url))
    _, indexes = catalog(fresh_database_url)
    hnsw = {name: d for name, d in indexes.items() if "USING hnsw" in d}
    assert {
        "ix_notes_embedding_hnsw",
        "ix_keywords_embedding_hnsw",
        "ix_topics_centroid_hnsw",
    } <= set(hnsw)
    assert all("vector_cosine_ops" in d for d in hnsw.values())
    gin = {name: d for name, d in indexes.items() if "USING gin" in d}
    assert "(namespace, tsv)" in gin["ix_notes_namespace_tsv_gin"]
    assert "ix_notes_tsv_gin" not in gin
    covering = indexes["ix_note_keywords_namespace_keyword_note"]
    assert "(namespace, keyword_id, note_id)" in covering
    assert "ix_notes_keywords_gin" not in indexes  # read by no statement (0016)


def test_the_unread_keyword_array_index_comes_back_on_downgrade(fresh_database_url: str) -> None:
    db = Database(fresh_database_url)
    upgrade(db)
    downgrade(db, revision="0015")
    _, indexes = catalog(fresh_database_url)
    assert "USING gin (keywords)" in indexes["ix_notes_keywords_gin"]
    upgrade(db)
    assert "ix_notes_keywords_gin" not in catalog(fresh_database_url)[1]


def test_dimensions_are_chosen_at_setup(fresh_database_url: str) -> None:
    db = Database(fresh_database_url)
    upgrade(db, dims=768)
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        typ = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'notes'::regclass AND attname = 'embedding'"
        ).fetchone()
    assert typ == ("vector(768)",)
    assert asyncio.run(db.check_schema()) == 768


def test_missing_schema_requires_migration(fresh_database_url: str) -> None:
    with pytest.raises(MigrationRequiredError, match="langmemcore migrate"):
        asyncio.run(Database(fresh_database_url).check_schema())


def test_stale_schema_requires_migration(fresh_database_url: str) -> None:
    db = Database(fresh_database_url)
    upgrade(db)
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0000_older'")
    with pytest.raises(MigrationRequiredError, match=r"0000_older.*langmemcore migrate"):
        asyncio.run(db.check_schema())


def test_cli_migrate_wraps_alembic(fresh_database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "langmemcore.cli", "--url", fresh_database_url, "migrate"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"revision {head_revision()}" in result.stdout
    tables, _ = catalog(fresh_database_url)
    assert tables >= TABLES


def test_plain_alembic_upgrade_head_works(fresh_database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "alembic", "-x", "dims=384", "upgrade", "head"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        env={**os.environ, "DATABASE_URL": fresh_database_url},
    )
    assert result.returncode == 0, result.stderr
    tables, _ = catalog(fresh_database_url)
    assert tables >= TABLES


def test_opening_memory_on_a_schema_behind_head_names_the_command(
    fresh_database_url: str,
) -> None:
    from langmemcore.memory import Memory

    with pytest.raises(MigrationRequiredError, match="langmemcore migrate"):
        asyncio.run(Memory.aopen(fresh_database_url))


DUPLICATED_EDGES = """
WITH a AS (INSERT INTO notes (namespace, context, embedding)
           VALUES ('n', 'a', array_fill(0.1::real, ARRAY[384])::vector) RETURNING id),
     b AS (INSERT INTO notes (namespace, context, embedding)
           VALUES ('n', 'b', array_fill(0.2::real, ARRAY[384])::vector) RETURNING id)
INSERT INTO edges (namespace, source_id, target_id, relation, strength)
SELECT 'n', a.id, b.id, r.relation, r.strength
FROM a, b, (VALUES ('related_to', 0.4), ('related_to', 0.9), ('related_to', 0.9),
                   ('supports', 0.5)) AS r(relation, strength)
ORDER BY r.strength
RETURNING id, relation, strength
"""


def test_unique_edges_migration_keeps_the_strongest_and_relinks_lineage(
    fresh_database_url: str,
) -> None:
    db = Database(fresh_database_url)
    upgrade(db, revision="0007")
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        edges = conn.execute(DUPLICATED_EDGES).fetchall()
        for edge_id, _relation, _strength in edges:
            conn.execute(
                "INSERT INTO lineage (namespace, operation, after) "
                "VALUES ('n', 'link', jsonb_build_object('edge_id', %s::bigint))",
                (edge_id,),
            )
    strongest = min(i for i, rel, s in edges if rel == "related_to" and s == 0.9)
    supports = next(i for i, rel, _s in edges if rel == "supports")
    upgrade(db)
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        kept = conn.execute("SELECT id FROM edges ORDER BY id").fetchall()
        linked = conn.execute("SELECT (after ->> 'edge_id')::bigint FROM lineage").fetchall()
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO edges (namespace, source_id, target_id, relation, strength) "
                "SELECT namespace, source_id, target_id, relation, 0.1 FROM edges LIMIT 1"
            )
    assert [i for (i,) in kept] == sorted([strongest, supports])
    assert sorted(i for (i,) in linked) == sorted([strongest] * 3 + [supports])
    downgrade(db, revision="0007")
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        conn.execute(
            "INSERT INTO edges (namespace, source_id, target_id, relation, strength) "
            "SELECT namespace, source_id, target_id, relation, 0.1 FROM edges"
        )
        assert conn.execute("SELECT count(*) FROM edges").fetchone() == (4,)
    upgrade(db)
    assert asyncio.run(db.schema_revision()) == head_revision()
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        assert conn.execute("SELECT count(*) FROM edges").fetchone() == (2,)


def test_thread_vectors_migration_gives_existing_notes_their_own_embedding(
    fresh_database_url: str,
) -> None:
    db = Database(fresh_database_url)
    upgrade(db, revision="0009")
    vector = "[" + ",".join(["0.1"] * 383 + ["0.9"]) + "]"
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        conn.execute(
            "INSERT INTO notes (namespace, context, embedding) VALUES ('n', 'a note', %s)",
            (vector,),
        )
    upgrade(db)
    _, indexes = catalog(fresh_database_url)
    assert "hnsw (thread_embedding vector_cosine_ops)" in indexes["ix_notes_thread_embedding_hnsw"]
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        same = conn.execute("SELECT thread_embedding = embedding FROM notes").fetchall()
        with pytest.raises(psycopg.errors.NotNullViolation):
            conn.execute(
                "INSERT INTO notes (namespace, context, embedding) VALUES ('n', 'b', %s)", (vector,)
            )
    assert same == [(True,)]
    downgrade(db, revision="0009")
    assert not has_column(fresh_database_url, "notes", "thread_embedding")
    upgrade(db)
    assert asyncio.run(db.schema_revision()) == head_revision()


def test_analysis_migration_analyses_existing_observations(fresh_database_url: str) -> None:
    """Revision 0012 analyses every observation already stored: the one a note was built
    from alone through that note's context, the others through their offline draft; the
    column is required from then on, and a downgrade drops it.
    """
    db = Database(fresh_database_url)
    upgrade(db, revision="0011")
    vector = "[" + ",".join(["0.1"] * 384) + "]"
    said, context = "I sold the Panda, no more car for me.", "Dana: Dana sold the Panda."
    reply = "ur dog is cuter tho"
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        conn.execute(
            "INSERT INTO observations (namespace, key, content, content_hash, speaker) "
            "VALUES ('n', 'a', %s, 'h1', 'Dana'), ('n', 'b', %s, 'h2', 'Omar')",
            (said, reply),
        )
        conn.execute(
            "INSERT INTO notes (namespace, context, embedding, thread_embedding) "
            "VALUES ('n', %s, %s, %s)",
            (context, vector, vector),
        )
        conn.execute(
            "INSERT INTO note_sources (namespace, note_id, observation_id) "
            "SELECT 'n', (SELECT id FROM notes), id FROM observations WHERE key = 'a'"
        )
    upgrade(db)
    with psycopg.connect(libpq_url(fresh_database_url)) as conn:
        stored = dict(conn.execute("SELECT key, analysis FROM observations").fetchall())
        with pytest.raises(psycopg.errors.NotNullViolation):
            conn.execute(
                "INSERT INTO observations (namespace, key, content, content_hash) "
                "VALUES ('n', 'c', 't', 'h3')"
            )
    drafted = analyze_observation(reply, speaker="Omar", event_time=None).context
    assert stored == {
        "a": analyze(said, context).to_json(),
        "b": analyze(reply, drafted).to_json(),
    }
    assert stored["a"]["changes"] and "panda" in stored["a"]["change_stems"]
    assert "pet" in stored["b"]["refers_to"]
    downgrade(db, revision="0011")
    assert not has_column(fresh_database_url, "observations", "analysis")
    upgrade(db)
    assert asyncio.run(db.schema_revision()) == head_revision()
