"""Topic evolution under concurrency: one whole generation per run, no error."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from sqlalchemy import func, select

from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import FulltextStatistics, LexemeStats, Lineage, Note, Topic
from tests.conftest import REPO_ROOT
from tests.integration.test_construction import observations

CONFIG = ConstructionConfig(topic_every=0, topic_min_size=2, topic_max_size=4)

RUNS_PER_PROCESS = 3

CHILD = f"""
import json, sys
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database

url, ns = sys.argv[1], tuple(sys.argv[2].split("/"))
config = ConstructionConfig(topic_every=0, topic_min_size=2, topic_max_size=4)
memory = Memory(Database(url), LocalEmbeddings(), config=config)
print("ready", flush=True)
sys.stdin.readline()
generations = [memory.evolve_topics(ns).generation for _ in range({RUNS_PER_PROCESS})]
print(json.dumps(generations), flush=True)
"""


async def _topic_state(database: Database, ns: tuple[str, ...]) -> dict[str, list]:
    """Topics (generation, label), generations of the ``topics`` lineage rows, and the
    stored lexeme counts set against a fresh count.
    """
    name = ".".join(ns)
    async with Repository.open(database) as repo:
        s = repo._session
        topics = list(
            await s.execute(select(Topic.generation, Topic.label).where(Topic.namespace == name))
        )
        logged = await s.scalars(
            select(Lineage.after["generation"].as_integer()).where(
                Lineage.namespace == name, Lineage.operation == "topics"
            )
        )
        stored = sorted(
            await s.execute(
                select(LexemeStats.lexeme, LexemeStats.df).where(LexemeStats.namespace == name)
            )
        )
    async with Repository.open(database) as repo:
        await repo.refresh_fulltext_statistics(ns)
        fresh = sorted(
            await repo._session.execute(
                select(LexemeStats.lexeme, LexemeStats.df).where(LexemeStats.namespace == name)
            )
        )
    return {"topics": topics, "logged": sorted(logged), "stored": stored, "fresh": fresh}


def _assert_one_generation_per_run(state: dict[str, list], runs: int, size: int) -> None:
    assert state["logged"] == list(range(1, runs + 1))
    assert {g for g, _label in state["topics"]} == {runs}
    labels = [label for _g, label in state["topics"]]
    assert len(labels) == len(set(labels)) == size
    assert state["stored"] == state["fresh"] != []


async def test_two_processes_evolving_one_namespace_write_one_generation_each(
    database: Database, database_url: str, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, config=CONFIG)
    ingested = await memory.aingest_many(ns, observations())
    assert [t.generation for t in ingested.topics] == [1]
    size = len(ingested.topics[0].topics)
    assert size >= 2
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, database_url, "/".join(ns)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
        )
        for _ in range(2)
    ]
    for child in children:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready", child.stderr
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    outcomes = [child.communicate(timeout=300) for child in children]
    for child, (_out, err) in zip(children, outcomes, strict=True):
        assert child.returncode == 0, err
        assert "Traceback" not in err, err
    runs = 1 + 2 * RUNS_PER_PROCESS  # the ingest's run, then the children's
    generations = sorted(g for out, _err in outcomes for g in json.loads(out))
    assert generations == list(range(2, runs + 1))
    state = await _topic_state(database, ns)
    _assert_one_generation_per_run(state, runs, size)


async def test_concurrent_evolutions_in_one_process_write_one_generation_each(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, config=CONFIG)
    ingested = await memory.aingest_many(ns, observations())
    assert [t.generation for t in ingested.topics] == [1]
    summaries = await asyncio.gather(*(memory.aevolve_topics(ns) for _ in range(4)))
    assert sorted(s.generation for s in summaries) == [2, 3, 4, 5]
    assert len({s.labels for s in summaries}) == 1
    state = await _topic_state(database, ns)
    _assert_one_generation_per_run(state, 5, len(summaries[0].topics))


async def test_statistics_refreshes_at_once_leave_one_count_per_lexeme(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, config=CONFIG)
    await memory.aingest_many(ns, observations())

    async def refresh() -> None:
        async with Repository.open(database) as repo:
            await repo.refresh_fulltext_statistics(ns)

    await asyncio.gather(*(refresh() for _ in range(4)))
    name = ".".join(ns)
    lexemes = select(func.unnest(func.tsvector_to_array(Note.tsv)).label("lexeme")).where(
        Note.namespace == name, Note.status == "active"
    )
    async with Repository.open(database) as repo:
        s = repo._session
        stored = await s.scalar(
            select(func.sum(LexemeStats.df)).where(LexemeStats.namespace == name)
        )
        live = await s.scalar(select(func.count()).select_from(lexemes.subquery()))
        counted = await s.scalar(
            select(FulltextStatistics.active_notes).where(FulltextStatistics.namespace == name)
        )
        active = await s.scalar(
            select(func.count()).where(Note.namespace == name, Note.status == "active")
        )
    assert stored == live > 0
    assert counted == active > 0


async def test_forgetting_waits_for_a_topic_evolution_in_progress(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, config=CONFIG)
    await memory.aingest_many(ns, observations())
    async with Repository.open(database) as holder:
        await holder.lock_topics(ns)
        forgetting = asyncio.create_task(memory.aforget(ns, observations()[3].key))
        await asyncio.sleep(1.0)
        assert not forgetting.done()
    report = await forgetting
    assert report is not None and report.deleted_notes + report.rederived_notes
