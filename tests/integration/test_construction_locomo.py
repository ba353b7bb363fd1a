"""Acceptance of the construction graph on the LoCoMo dev split, offline."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from langmemcore.config import ConstructionConfig
from langmemcore.construction.ingest import draft_texts
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Lineage
from tests.integration.memory_state import snapshot


async def undoable(database: Database, namespace: tuple[str, ...]) -> list[int]:
    """The namespace's lineage rows still in force that can be undone, newest first."""
    async with Repository.open(database) as repo:
        rows = await repo._session.scalars(
            select(Lineage.id)
            .where(
                Lineage.namespace == ".".join(namespace),
                Lineage.undone_at.is_(None),
                Lineage.operation != "undo",
            )
            .order_by(Lineage.id.desc())
        )
        return list(rows)


@pytest.mark.locomo_data
async def test_locomo_dev_builds_a_consistent_memory_and_undoes_cleanly(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    locomo_dev: list[Conversation],
) -> None:
    config = ConstructionConfig()
    memory = Memory(database, embeddings, config=config)
    totals = {"merge": 0, "append": 0, "links": 0}
    for conversation in locomo_dev:
        namespace = (*ns, conversation.sample_id)
        observations = conversation_observations(conversation)
        report = await memory.aingest_many(namespace, observations)
        totals["merge"] += report.count("merge")
        totals["append"] += report.count("append")
        totals["links"] += report.links
        state = await snapshot(database, namespace)
        covered = {
            k for keys, _c, _kw, status, _o in state["notes"] if status == "active" for k in keys
        }
        assert covered == {o.key for o in observations}
        assert state["topics"]
        assert all(
            config.topic_min_size <= size <= config.topic_max_size
            for _label, size, _m in state["topics"]
        )
    assert totals["merge"] > 0 and totals["append"] > 0 and totals["links"] > 0

    for conversation in locomo_dev:
        namespace = (*ns, conversation.sample_id)
        observations = conversation_observations(conversation)
        while rows := await undoable(database, namespace):
            for row in rows:  # an undone merge decides its restored note's validity again,
                await memory.aundo(namespace, row)  # with link rows of its own: undone next
        drafts = await draft_texts(observations, config)
        original = {o.key: d.context for o, d in zip(observations, drafts, strict=True)}
        state = await snapshot(database, namespace)
        active = sorted(
            (keys, context)
            for keys, context, _kw, status, _o in state["notes"]
            if status == "active"
        )
        assert active == sorted(((k,), c) for k, c in original.items())
        assert state["edges"] == []
