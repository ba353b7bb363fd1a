"""The model route with a real chat model (``LANGMEMCORE_TEST_LLM_URL``; the reference model
is served by ``python benchmarks/local_model.py serve``): ingestion, profile extraction,
the refining search and the active agent, each on invented conversations, with nothing
lost, failed or echoed from a prompt.
"""

from __future__ import annotations

import os
import uuid

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.prompts import track_usage
from langmemcore.prompts.profile import extract_statements_llm
from langmemcore.storage import Database
from tests.conftest import LOCOMO_MINI
from tests.integration.memory_state import snapshot

pytestmark = pytest.mark.local_model

PROMPT_EXAMPLES = ("wenceslas", "dinghy", "split", "saffron")
"""Words of the grounded prompts' made-up examples, which no fixture says."""


@pytest.fixture(scope="module")
def llm() -> ChatOpenAI:
    """The served model, answering at most 512 tokens a call."""
    return ChatOpenAI(
        model=os.environ.get("LANGMEMCORE_TEST_LLM", "local"),
        base_url=os.environ["LANGMEMCORE_TEST_LLM_URL"],
        api_key=SecretStr("none"),
        max_completion_tokens=512,
        temperature=0,
    )


def _fixture_turns() -> list[ObservationIn]:
    """The first invented conversation's turns (Ines and Tomas)."""
    conversation = load_locomo(LOCOMO_MINI)[0]
    return [
        ObservationIn(turn.dia_id, turn.full_text, turn.speaker, turn.event_time)
        for turn in conversation.turns
    ]


@pytest.fixture(scope="module")
def model_memory(database: Database, embeddings: LocalEmbeddings, llm: ChatOpenAI) -> Memory:
    return Memory(database, embeddings, llm=llm, config=ConstructionConfig(profile_llm=True))


async def test_ingesting_real_turns_loses_nothing_and_echoes_no_example(
    model_memory: Memory, database: Database
) -> None:
    turns = _fixture_turns()
    ns = ("local-model", uuid.uuid4().hex[:10])
    report = await model_memory.aingest_many(ns, turns)
    assert len(report.results) == len(turns)
    usage = report.llm
    assert usage.step("ingestion").calls == len(turns)
    assert usage.failed <= 0.02 * usage.calls, usage.steps
    notes = (await snapshot(database, ns))["notes"]
    sources = sorted(key for keys, *_ in notes for key in keys)
    assert sources == sorted(t.key for t in turns)
    written = set(" ".join(context.casefold() for _, context, *_ in notes).split())
    assert not written & set(PROMPT_EXAMPLES)
    assert sum(origin == "llm" for *_, origin in notes) > len(notes) // 2


async def test_the_model_reads_a_plain_profile_change(llm: ChatOpenAI) -> None:
    with track_usage() as usage:
        statements = await extract_statements_llm(
            llm, "Big news: I moved to Lisbon last month, so long Porto!", "Ines"
        )
    assert usage.failed == 0
    homes = [s for s in statements if s.subject == "Ines" and s.aspect == "home"]
    assert [s.value.casefold() for s in homes if not s.ended] == ["lisbon"]


async def test_a_search_with_the_model_finds_the_evidence(model_memory: Memory) -> None:
    ns = ("local-model", uuid.uuid4().hex[:10])
    await model_memory.aingest_many(ns, _fixture_turns())
    results = await model_memory.asearch(ns, "What is the name of Tomas's sailboat?", k=5)
    assert any(source.key == "D1:2" for r in results for source in r.sources)
    assert results.llm.calls > 0 and results.llm.failed == 0


async def test_the_active_agent_returns_notes(model_memory: Memory) -> None:
    ns = ("local-model", uuid.uuid4().hex[:10])
    await model_memory.aingest_many(ns, _fixture_turns())
    results = await model_memory.asearch(ns, "What class did Ines sign up for?", k=5, mode="active")
    assert len(results) > 0
