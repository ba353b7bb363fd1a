"""The construction graph's LLM paths: scripted fake chat models and ChatOpenAI over HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_openai import ChatOpenAI

from langmemcore.config import ConstructionConfig, LLMConfig
from langmemcore.construction.ingest import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from tests.integration.memory_state import snapshot
from tests.integration.scripted_model import INGESTION
from tests.stub_openai import openai_stub

PLAIN = LLMConfig(json_schema=False)
"""For a server that refuses OpenAI's ``response_format``."""
EVERY_CANDIDATE_TO_LLM = ConstructionConfig(topic_every=0, ambiguous_band=(0.0, 1.01))
FIRST = "I adopted a golden retriever puppy named Max last month."
SECOND = "Max the puppy chewed up my running shoes this morning."


def ingestion(context: str, keywords: list[str]) -> str:
    return json.dumps({"keywords": keywords, "context": context})


def gate(
    note_id: int, relation: str, strength: float, operation: str, merged: str | None = None
) -> str:
    return (
        "Here is my analysis:\n```json\n"
        + json.dumps(
            {
                "judgements": [
                    {
                        "candidate_id": note_id,
                        "relation_type": relation,
                        "connection_strength": strength,
                        "operation": operation,
                        "merged_context": merged,
                        "reason": "scripted",
                    }
                ]
            }
        )
        + "\n```"
    )


def memory_with(
    database: Database,
    embeddings: LocalEmbeddings,
    llm: Any,
    config: ConstructionConfig = EVERY_CANDIDATE_TO_LLM,
) -> Memory:
    return Memory(database, embeddings, llm=llm, config=config)


async def test_llm_ingestion_is_used_when_well_formed(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    llm = FakeListChatModel(
        responses=[ingestion("Caroline adopted a puppy named Max.", ["Max", "Golden Retrievers"])]
    )
    memory = memory_with(database, embeddings, llm)
    await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    state = await snapshot(database, ns)
    assert state["notes"] == [
        (
            ("a",),
            "Caroline adopted a puppy named Max.",
            ("golden retriever", "max"),
            "active",
            "llm",
        )
    ]


async def test_malformed_output_is_retried_once(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    llm = FakeListChatModel(
        responses=["not json at all", ingestion("Caroline adopted Max.", ["Max"])]
    )
    memory = memory_with(database, embeddings, llm)
    await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    state = await snapshot(database, ns)
    assert [(n[1], n[4]) for n in state["notes"]] == [("Caroline adopted Max.", "llm")]


async def test_malformed_output_twice_falls_back_to_offline(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    llm = FakeListChatModel(responses=['{"keywords": "oops"}', "```json\n{broken\n```"])
    memory = memory_with(database, embeddings, llm)
    offline = Memory(database, embeddings, config=EVERY_CANDIDATE_TO_LLM)
    await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    await offline.aingest((ns[0], ns[1] + "offline"), FIRST, key="a", speaker="Caroline")
    fallback = (await snapshot(database, ns))["notes"]
    reference = (await snapshot(database, (ns[0], ns[1] + "offline")))["notes"]
    assert [n[4] for n in fallback] == ["fallback"]
    assert [n[:4] for n in fallback] == [n[:4] for n in reference]


async def test_an_answer_the_observation_does_not_support_falls_back_and_is_counted(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """A small model echoing the prompt's example writes a note about a dinghy for a turn
    about a puppy: the context is rejected (the offline draft is written) and counted; a
    grounded context keeps only the keywords the turn says."""
    echo = ingestion(
        "Wenceslas repainted the old dinghy saffron yellow on 13 March 2021.",
        ["dinghy", "saffron yellow"],
    )
    grounded = ingestion("Caroline's puppy Max chewed her running shoes.", ["Max", "dinghy"])
    llm = FakeListChatModel(responses=[echo, grounded])
    memory = memory_with(database, embeddings, llm, ConstructionConfig(topic_every=0))
    report = await memory.aingest_many(
        ns,
        [
            ObservationIn("a", FIRST, speaker="Caroline"),
            ObservationIn("b", SECOND, speaker="Caroline"),
        ],
    )
    offline = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    other = (ns[0], ns[1] + "offline")
    await offline.aingest(other, FIRST, key="a", speaker="Caroline")
    notes = (await snapshot(database, ns))["notes"]
    reference = (await snapshot(database, other))["notes"]
    assert [n[:4] for n in notes[:1]] == [n[:4] for n in reference]
    assert [n[4] for n in notes] == ["fallback", "llm"]
    assert notes[1][1:3] == ("Caroline's puppy Max chewed her running shoes.", ("max",))
    assert report.llm.rejected == 2


async def test_endpoint_error_falls_back_and_keeps_the_observation(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    dead = ChatOpenAI(
        model="stub", base_url="http://127.0.0.1:9/v1", api_key="x", max_retries=0, timeout=3
    )
    memory = memory_with(database, embeddings, dead)
    await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    await memory.aingest(ns, SECOND, key="b", speaker="Caroline")
    state = await snapshot(database, ns)
    assert state["observations"] == ["a", "b"]
    assert {n[4] for n in state["notes"]} == {"fallback"}


@pytest.mark.parametrize(
    ("relation", "strength", "operation", "expect_edge", "expect_notes"),
    [
        ("SUPPORTS", 0.9, "MERGE", None, 1),
        ("RELATED_TO", 0.6, "LINK", "related_to", 2),
        ("CONFLICTS", 0.8, "LINK", "conflicts", 2),
        ("RELATED_TO", 0.2, "APPEND", None, 2),
    ],
    ids=["merge", "link", "conflict", "append"],
)
async def test_gate_branches_follow_the_llm(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    relation: str,
    strength: float,
    operation: str,
    expect_edge: str | None,
    expect_notes: int,
) -> None:
    first = FakeListChatModel(responses=[ingestion("Caroline adopted Max.", ["Max"])])
    memory = memory_with(database, embeddings, first)
    result = await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    merged = "Caroline adopted Max. Specifically, Max chewed her shoes."
    memory = memory_with(
        database,
        embeddings,
        FakeListChatModel(
            responses=[
                ingestion("Max chewed Caroline's running shoes.", ["Max", "running shoes"]),
                gate(result.note_id or 0, relation, strength, operation, merged),
            ]
        ),
    )
    second = await memory.aingest(ns, SECOND, key="b", speaker="Caroline")
    state = await snapshot(database, ns)
    assert len([n for n in state["notes"] if n[3] == "active"]) == expect_notes
    assert [e[2] for e in state["edges"]] == ([expect_edge] if expect_edge else [])
    if operation == "MERGE":
        assert second.operation == "merge"
        assert state["notes"][0][:2] == (("a", "b"), merged)
    else:
        assert second.operation == "append"
    if expect_edge:
        assert state["edges"][0][3] == strength


async def test_chat_openai_over_http_against_a_local_stub(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    def respond(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if INGESTION in prompt:
            return ingestion("Caroline adopted a puppy named Max.", ["Max", "puppy"])
        raise AssertionError(f"unexpected prompt: {prompt[:80]}")

    with openai_stub(respond) as (base_url, received):
        llm = ChatOpenAI(
            model="stub-model", base_url=base_url, api_key="test-key", max_retries=0, timeout=10
        )
        memory = memory_with(database, embeddings, llm, ConstructionConfig(topic_every=0))
        await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    assert len(received) == 1
    assert received[0]["model"] == "stub-model"
    asked = received[0]["response_format"]
    assert asked["type"] == "json_schema" and asked["json_schema"]["name"] == "SemanticIngestion"
    assert set(asked["json_schema"]["schema"]["properties"]) == {"keywords", "context"}
    state = await snapshot(database, ns)
    assert state["notes"] == [
        (("a",), "Caroline adopted a puppy named Max.", ("max", "puppy"), "active", "llm")
    ]


async def test_a_server_refusing_response_format_gets_none(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    def respond(body: dict[str, Any]) -> str:
        return ingestion("Caroline adopted a puppy named Max.", ["Max", "puppy"])

    with openai_stub(respond) as (base_url, received):
        llm = ChatOpenAI(
            model="stub-model", base_url=base_url, api_key="test-key", max_retries=0, timeout=10
        )
        config = ConstructionConfig(topic_every=0)
        memory = Memory(database, embeddings, llm=llm, config=config, llm_config=PLAIN)
        await memory.aingest(ns, FIRST, key="a", speaker="Caroline")
    assert len(received) == 1 and "response_format" not in received[0]
    assert (await snapshot(database, ns))["notes"][0][4] == "llm"
