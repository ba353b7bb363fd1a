"""Unique edges and an exact lineage log after merges, forgetting and undoing, on the
first turns of a LoCoMo dev conversation (offline construction, real embedder)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository

pytestmark = pytest.mark.locomo_data

TURNS = 240

DUPLICATE_EDGES = """
SELECT count(*) FROM (
    SELECT 1 FROM edges WHERE namespace = :ns
    GROUP BY source_id, target_id, relation HAVING count(*) > 1
) AS d
"""

STALE_LINEAGE = """
SELECT l.id FROM lineage l
WHERE l.namespace = :ns AND l.undone_at IS NULL AND (
    (l.note_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = l.note_id))
    OR (l.operation = 'link' AND NOT EXISTS (
        SELECT 1 FROM edges e WHERE e.id = (l.after ->> 'edge_id')::bigint))
    OR (l.operation = 'link' AND NOT EXISTS (
        SELECT 1 FROM notes n WHERE n.id = (l.after ->> 'target_id')::bigint))
)
"""

SHARED_EDGES = """
SELECT (after ->> 'edge_id')::bigint, array_agg(id ORDER BY id),
       array_agg(observation_id ORDER BY id)
FROM lineage
WHERE namespace = :ns AND operation = 'link' AND undone_at IS NULL
GROUP BY 1 HAVING count(DISTINCT observation_id) > 1
ORDER BY 1
"""
"""Edges that in-force link rows of several observations refer to: (edge, rows,
their observations)."""

LINKED_SOLE_SOURCE = """
SELECT o.key, l.id
FROM note_sources s JOIN observations o ON o.id = s.observation_id
JOIN lineage l ON l.namespace = s.namespace AND l.operation = 'link' AND l.undone_at IS NULL
    AND (l.after ->> 'target_id')::bigint = s.note_id AND l.observation_id <> s.observation_id
WHERE s.namespace = :ns
  AND (SELECT count(*) FROM note_sources t WHERE t.note_id = s.note_id) = 1
ORDER BY l.id
"""


async def _rows(database: Database, sql: str, **values: Any) -> list[tuple[Any, ...]]:
    async with Repository.open(database) as repo:
        return [tuple(r) for r in await repo._session.execute(text(sql), values)]


@pytest.fixture()
async def memory(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    locomo_dev: list[Conversation],
) -> Memory:
    """A memory holding the first turns of the first LoCoMo dev conversation in ``ns``."""
    observations = conversation_observations(locomo_dev[0])[:TURNS]
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    report = await memory.aingest_many(ns, observations)
    assert report.count("merge") >= 10
    return memory


async def test_merges_write_unique_edges_and_share_the_ones_they_repeat(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    name = ".".join(ns)
    assert await _rows(database, DUPLICATE_EDGES, ns=name) == [(0,)]
    assert await _rows(database, STALE_LINEAGE, ns=name) == []
    shared = await _rows(database, SHARED_EDGES, ns=name)
    assert shared, "no merge repeated a link: the upsert went untested"
    edge_id, links, observations = shared[0]
    first_link, repeater = links[0], observations[-1]
    async with Repository.open(database) as repo:
        key = await repo._session.scalar(
            text("SELECT key FROM observations WHERE id = :i"), {"i": repeater}
        )
    report = await memory.aforget(ns, key)
    assert report is not None and edge_id not in report.deleted_edges
    kept = await _rows(database, "SELECT id FROM edges WHERE id = :i", i=edge_id)
    in_force = await _rows(
        database, "SELECT id FROM lineage WHERE id = :i AND undone_at IS NULL", i=first_link
    )
    assert kept == [(edge_id,)]
    assert in_force == [(first_link,)]
    assert await _rows(database, STALE_LINEAGE, ns=name) == []


async def test_forgetting_a_linked_note_retires_every_lineage_row_it_leaves_stale(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    name = ".".join(ns)
    candidates = await _rows(database, LINKED_SOLE_SOURCE, ns=name)
    assert candidates, "no note with a single source is the target of another's link"
    key, link = candidates[0]
    report = await memory.aforget(ns, key)
    assert report is not None and report.deleted_notes
    undone = await _rows(
        database, "SELECT undone_at IS NOT NULL FROM lineage WHERE id = :i", i=link
    )
    assert undone == [(True,)]
    assert await _rows(database, STALE_LINEAGE, ns=name) == []
    for other_key, _link in candidates[1:4]:
        if other_key != key:
            await memory.aforget(ns, other_key)
    assert await _rows(database, STALE_LINEAGE, ns=name) == []
    assert await _rows(database, DUPLICATE_EDGES, ns=name) == [(0,)]


async def test_undoing_a_repeated_link_keeps_the_edge_the_first_link_wrote(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    name = ".".join(ns)
    pairs = [row for row in await _rows(database, SHARED_EDGES, ns=name) if len(row[1]) == 2]
    assert pairs
    edge_id, (first_link, later_link), _observations = pairs[0]
    await memory.aundo(ns, later_link)
    assert await _rows(database, "SELECT id FROM edges WHERE id = :i", i=edge_id) == [(edge_id,)]
    await memory.aundo(ns, first_link)
    assert await _rows(database, "SELECT id FROM edges WHERE id = :i", i=edge_id) == []
    assert await _rows(database, STALE_LINEAGE, ns=name) == []
