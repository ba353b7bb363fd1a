"""A model's output is untrusted input: hostile JSON never loses an observation, and a
model endpoint that accepts and never answers is skipped by its circuit breaker.

Only the model is fake: a scripted chat model answering hostile JSON, and ChatOpenAI over
HTTP against a local TCP endpoint that never answers. Memory is real Postgres.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_openai import ChatOpenAI
from sqlalchemy import func, select

from langmemcore.config import (
    LLM_MAX_CONTEXT_CHARS,
    LLM_MAX_KEYWORD_CHARS,
    LLM_MAX_LABEL_CHARS,
    ConstructionConfig,
    LLMConfig,
)
from langmemcore.construction.ingest import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Edge, ItemTask, Lineage, Note, Observation
from langmemcore.store import MemoryStore
from tests.dead_endpoint import dead_endpoint
from tests.integration.scripted_model import INGESTION, ScriptedChatModel

EVERY_CANDIDATE_TO_LLM = ConstructionConfig(topic_every=0, ambiguous_band=(0.0, 1.01))
NO_BREAKER = LLMConfig(failure_threshold=0)
SUBJECTS = ["green tea", "a puppy named Max", "pottery class", "the charity race", "Paris"]


def observations(count: int, prefix: str = "o") -> list[ObservationIn]:
    return [
        ObservationIn(
            f"{prefix}{i}",
            f"Note {i}: Caroline told Melanie about {SUBJECTS[i % len(SUBJECTS)]} today.",
            speaker="Caroline",
        )
        for i in range(count)
    ]


def hostile_ingestion(i: int) -> str:
    """Case ``i % 10`` of hostile ingestion answers (valid-looking JSON and worse)."""
    cases: list[Any] = [
        {"keywords": ["tea\x00"], "context": f"Caroline\x00 likes tea number {i}."},
        {"keywords": ["tea"], "context": "word " * 200_000},
        {"keywords": ["tea"], "context": "y" * (LLM_MAX_CONTEXT_CHARS + 5)},
        {"keywords": ["k" * 4096, "pottery"], "context": f"Caroline made pots {i}."},
        {"keywords": 42, "context": "Caroline counts."},
        {"keywords": ["tea"], "context": None},
        {"keywords": [{"a": [1, {"b": None}]}], "context": {"x": [1, 2]}},
        {"keywords": ["pottery"], "context": f"Caroline \ud800took a pottery class {i}."},
        "[" * 50_000,
        [1, 2, 3],
    ]
    case = cases[i % len(cases)]
    return case if isinstance(case, str) else json.dumps(case)


def hostile_gate(call: int, candidate: int) -> str:
    """Case ``call % 6`` of hostile gate answers for ``candidate``."""
    good = {
        "candidate_id": candidate,
        "relation_type": "RELATED_TO",
        "connection_strength": 0.6,
        "operation": "LINK",
        "reason": "linked\x00" + "!" * 50_000,
    }
    cases: list[Any] = [
        {"judgements": [good]},
        {"judgements": [{**good, "connection_strength": float("nan")}]},
        {"judgements": [{**good, "candidate_id": "abc"}]},
        {"judgements": "nope"},
        {"judgements": [{**good, "operation": "MERGE", "merged_context": "z" * 30_000}]},
        {"judgements": [{**good, "relation_type": None, "operation": ["LINK"]}]},
    ]
    return json.dumps(cases[call % len(cases)])


def hostile_model() -> ScriptedChatModel:
    """A model answering every prompt of the library with hostile output."""
    gate_calls = itertools.count()

    def answer(messages: list[BaseMessage]) -> str:
        prompt = str(messages[-1].content)
        if INGESTION in prompt:
            found = re.search(r"Note (\d+):", prompt)
            return hostile_ingestion(int(found.group(1)) if found else 0)
        if "Knowledge Graph Updater" in prompt:
            found = re.search(r"- id (\d+):", prompt)
            return hostile_gate(next(gate_calls), int(found.group(1)) if found else 0)
        if "reflector agent" in prompt:
            return json.dumps({"sufficient": False, "missing_info": "\x00" * 10_000})
        if "Query Evolution Agent" in prompt:
            return "Where does\x00 Caroline drink \ud800tea?" + "?" * 100_000
        return json.dumps({"topic_desc": "Tea\x00 habits", "keywords": ["te\x00a", "k" * 4096]})

    return ScriptedChatModel(messages=itertools.repeat(answer))


async def stored_text(database: Database, ns: tuple[str, ...]) -> dict[str, list[str]]:
    """Every text memory stored in the namespace that a model could have written."""
    name = ".".join(ns)
    async with Repository.open(database) as repo:
        s = repo._session
        notes = (
            await s.execute(
                select(Note.context, Note.keywords, Note.origin).where(Note.namespace == name)
            )
        ).all()
        reasons = [
            *await s.scalars(select(Edge.reason).where(Edge.namespace == name)),
            *await s.scalars(select(Lineage.reason).where(Lineage.namespace == name)),
        ]
        keys = list(await s.scalars(select(Observation.key).where(Observation.namespace == name)))
    return {
        "keys": keys,
        "contexts": [n[0] for n in notes],
        "keywords": [k for n in notes for k in n[1]],
        "origins": [n[2] for n in notes],
        "reasons": [r for r in reasons if r is not None],
    }


def assert_storable(stored: dict[str, list[str]]) -> None:
    texts = [*stored["contexts"], *stored["keywords"], *stored["reasons"]]
    assert not [t for t in texts if "\x00" in t or re.search("[\ud800-\udfff]", t)]
    assert max(len(c) for c in stored["contexts"]) <= LLM_MAX_CONTEXT_CHARS
    assert max(len(k) for k in stored["keywords"]) <= LLM_MAX_KEYWORD_CHARS


async def test_hostile_json_never_loses_an_observation(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database,
        embeddings,
        llm=hostile_model(),
        config=EVERY_CANDIDATE_TO_LLM,
        llm_config=NO_BREAKER,
    )
    report = await memory.aingest_many(ns, observations(24))
    assert [r.operation for r in report.results].count("unchanged") == 0
    stored = await stored_text(database, ns)
    assert sorted(stored["keys"]) == sorted(f"o{i}" for i in range(24))
    assert_storable(stored)
    # usable answers were cleaned and kept; unusable ones fell back to the offline path
    for cleaned in ("Caroline likes tea number 0.", "Caroline took a pottery class 7."):
        assert any(cleaned in c for c in stored["contexts"])  # alone or merged
    # what the turns say was kept ("tea"); "pots" for a turn about the race was not
    assert {"tea", "pottery"} <= set(stored["keywords"])
    assert not any("pots" in c for c in stored["contexts"])
    assert report.llm.rejected > 0
    assert {"llm", "fallback"} <= set(stored["origins"])
    assert max(r.count("!") for r in stored["reasons"]) <= LLM_MAX_LABEL_CHARS  # cut
    assert any(r.startswith("LLM: linked") for r in stored["reasons"])
    assert report.llm.calls > 24 and report.llm.failed > 0 and report.llm.skipped == 0


async def test_hostile_json_through_search_and_store_put(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database,
        embeddings,
        llm=hostile_model(),
        config=EVERY_CANDIDATE_TO_LLM,
        llm_config=NO_BREAKER,
    )
    store = MemoryStore(memory, index={"fields": ["text"]})
    items = (*ns, "items")  # searched by its own prefix: other tests' notes stay out
    await store.aput(items, "item", {"text": "Note 0: Caroline drinks green tea every morning."})
    async with Repository.open(database) as repo:
        pending = await repo._session.scalar(
            select(func.count()).select_from(ItemTask).where(ItemTask.namespace == ".".join(items))
        )
    assert pending == 0
    stored = await stored_text(database, items)
    assert stored["contexts"] == ["Caroline likes tea number 0."]
    assert_storable(stored)
    found = await store.asearch(ns, query="What tea does Caroline drink?")
    assert [i.key for i in found if i.namespace == items] == ["item"]
    results = await memory.asearch(items, "What tea does Caroline drink?")
    assert [r.context for r in results] == ["Caroline likes tea number 0."]
    assert results.llm.calls >= 3 and results.llm.skipped == 0


async def test_dead_endpoint_is_skipped_by_the_breaker(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    with dead_endpoint() as dead:
        llm = ChatOpenAI(
            model="stub", base_url=dead.base_url, api_key="x", timeout=0.5, max_retries=0
        )
        memory = Memory(
            database,
            embeddings,
            llm=llm,
            config=EVERY_CANDIDATE_TO_LLM,
            llm_config=LLMConfig(failure_threshold=3, cooldown_seconds=3600),
        )
        report = await memory.aingest_many(ns, observations(20))
        searches = [
            await memory.asearch(ns, q)
            for q in ("What tea does Caroline like?", "Who is Max?", "Where is Paris?")
        ]
        connections = dead.connections
    stored = await stored_text(database, ns)
    assert sorted(stored["keys"]) == sorted(f"o{i}" for i in range(20))
    assert set(stored["origins"]) == {"fallback"}
    assert all(len(s) > 0 for s in searches)
    calls = report.llm.calls + sum(s.llm.calls for s in searches)
    assert report.llm.skipped > 0 and all(s.llm.skipped == s.llm.calls for s in searches)
    assert report.llm.failed + report.llm.skipped == report.llm.calls
    # without the breaker every call would cost two connections (an attempt and a retry)
    assert connections > 0 and connections * 4 < calls
