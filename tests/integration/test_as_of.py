"""Memory as of a time, against real Postgres: a search ``as_of`` a time returns nothing
observed after it, reads "now" and relative dates against it, and puts the statement that
held then first; on every entry point (``Memory`` async and sync, ``MemoryRetriever``, the
store's view, the CLI), and a naive or malformed time is refused.

The chats are written for these tests: Rui lives in Lisbon (2022), then moves to Berlin
(2024); Ines paints her kitchen in one week of March 2023, goes swimming, cycling and to a
concert in others (the painting shares the fewest words with the week question).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from langmemcore import InvalidInputError
from langmemcore.agents import MemoryMiddleware
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.knowledge_updates import UpdateFact, UpdateSet, evaluate_updates
from langmemcore.memory import Memory
from langmemcore.retrieval.cost import track_search_cost
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.retriever import MemoryRetriever
from langmemcore.storage import Database
from langmemcore.store import MemoryStore

from .conftest import Cli, Ingested
from .scripted_model import ScriptedChatModel

SPRING_2022 = datetime(2022, 4, 9, 10, 0, tzinfo=UTC)
AUTUMN_2022 = datetime(2022, 10, 1, 10, 0, tzinfo=UTC)
SPRING_2024 = datetime(2024, 3, 2, 10, 0, tzinfo=UTC)
MID_2023 = datetime(2023, 6, 30, tzinfo=UTC)
EARLY_2025 = datetime(2025, 1, 15, tzinfo=UTC)

MOVE = [
    ObservationIn("m1-1", "How is life treating you, Rui?", "Sofia", SPRING_2022),
    ObservationIn(
        "m1-2",
        "Great! I live in Lisbon now, in a small flat near the river in Alfama.",
        "Rui",
        SPRING_2022,
    ),
    ObservationIn("m1-3", "I started learning the cello this spring.", "Sofia", SPRING_2022),
    ObservationIn("m2-1", "My cello teacher is very strict but kind.", "Sofia", AUTUMN_2022),
    ObservationIn("m2-2", "I went surfing in Ericeira last weekend.", "Rui", AUTUMN_2022),
    ObservationIn(
        "m3-1",
        "Big change: we moved to Berlin in February, our new flat is in Kreuzberg.",
        "Rui",
        SPRING_2024,
    ),
    ObservationIn("m3-2", "Wow, how is the German going?", "Sofia", SPRING_2024),
]
OLDER, NEWER = "m1-2", "m3-1"
LATER = {"m3-1", "m3-2"}


def rank(notes: list[RetrievedNote], key: str) -> int | None:
    for position, note in enumerate(notes, start=1):
        if any(source.key == key for source in note.sources):
            return position
    return None


def source_keys(notes: list[RetrievedNote]) -> set[str]:
    return {source.key for note in notes for source in note.sources}


def latest_source(notes: list[RetrievedNote]) -> datetime:
    return max(s.event_time for note in notes for s in note.sources if s.event_time)


@pytest.fixture(scope="module")
async def rui(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> tuple[Memory, tuple[str, ...]]:
    return Memory(database, embeddings), await ingested("as-of", MOVE)


async def test_as_of_mid_2023_the_2022_statement_comes_first_and_nothing_later(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = rui
    notes = await memory.asearch(namespace, "Where does Rui live now?", k=5, as_of=MID_2023)
    assert notes and rank(notes, OLDER) == 1, notes
    assert not source_keys(notes) & LATER
    assert latest_source(notes) <= MID_2023


async def test_as_of_2025_the_2024_statement_comes_first(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = rui
    notes = await memory.asearch(namespace, "Where does Rui live now?", k=5, as_of=EARLY_2025)
    newer, older = rank(notes, NEWER), rank(notes, OLDER)
    assert newer == 1, notes
    assert older is not None and older > newer


async def test_k_is_filled_with_notes_observed_by_then(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    """Notes observed later are left out before the cut at ``k``, not after it."""
    memory, namespace = rui
    everything = await memory.asearch(namespace, "Rui Sofia", k=20)
    before = await memory.asearch(namespace, "Rui Sofia", k=20, as_of=MID_2023)
    assert source_keys(everything) & LATER
    eligible = [n for n in everything if not {s.key for s in n.sources} <= LATER]
    k = len(eligible)
    assert 0 < k < len(everything)
    few = await memory.asearch(namespace, "Rui Sofia", k=k, as_of=MID_2023)
    assert len(few) == k == len(before)
    assert not source_keys(few) & LATER


async def test_a_shallow_search_as_of_a_time_goes_deeper_to_fill_k(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    """Channels ranking one note each find the 2024 notes first; the search runs again
    deeper until ``k`` notes observed by mid-2023 are found.
    """
    memory, namespace = rui
    shallow = replace(memory.retrieval, depth=1)
    question = "Did Rui move to Berlin and Kreuzberg?"
    now = await memory.asearch(namespace, question, k=3, config=shallow)
    assert rank(now, NEWER) == 1 and len(now) < 3
    with track_search_cost() as cost:
        then = await memory.asearch(namespace, question, k=3, config=shallow, as_of=MID_2023)
    assert len(then) == 3 and not source_keys(then) & LATER
    assert cost.searches > 1


PRETZEL = [
    ObservationIn("p1", "My beagle Pretzel loves chasing pigeons.", "Jonas", SPRING_2022),
    ObservationIn("p2", "Pretzel, my beagle, still loves chasing pigeons!", "Jonas", SPRING_2024),
]


async def test_a_merged_note_keeps_only_what_was_observed_by_then(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    namespace = await ingested("as-of-merge", PRETZEL)
    memory = Memory(database, embeddings)
    (merged,) = await memory.asearch(namespace, "Which dog does Jonas have?", k=5)
    assert [s.key for s in merged.sources] == ["p1", "p2"]
    assert "2024" in merged.context
    (then,) = await memory.asearch(namespace, "Which dog does Jonas have?", k=5, as_of=MID_2023)
    assert then.note_id == merged.note_id
    assert [s.key for s in then.sources] == ["p1"]
    assert then.context == "Jonas: My beagle Pretzel loves chasing pigeons."


async def test_before_anything_was_said_nothing_is_returned(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = rui
    notes = await memory.asearch(
        namespace, "Where does Rui live?", k=5, as_of=datetime(2020, 1, 1, tzinfo=UTC)
    )
    assert list(notes) == []


def test_the_sync_twin_honours_as_of(rui: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = rui
    notes = memory.search(namespace, "Where does Rui live now?", k=5, as_of=MID_2023)
    assert rank(notes, OLDER) == 1
    assert not source_keys(notes) & LATER


async def test_the_retriever_honours_as_of(rui: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = rui
    then = MemoryRetriever(memory=memory, namespace=namespace, k=5, as_of=MID_2023)
    docs = await then.ainvoke("Where does Rui live now?")
    assert docs and docs[0].metadata["source_keys"] == [OLDER]
    assert not {key for d in docs for key in d.metadata["source_keys"]} & LATER
    later = MemoryRetriever(memory=memory, namespace=namespace, k=5, as_of="2025-01-15T00:00Z")
    docs = await later.ainvoke("Where does Rui live now?")
    assert docs[0].metadata["source_keys"] == [NEWER]


async def test_the_store_view_honours_as_of(rui: tuple[Memory, tuple[str, ...]]) -> None:
    memory, namespace = rui
    store = MemoryStore(memory)
    view = store.as_of(MID_2023)
    assert view.reference_time == MID_2023 and store.reference_time is None
    items = await view.asearch(namespace, query="Where does Rui live now?", limit=5)
    keys = [item.key for item in items]
    assert keys and keys[0] == OLDER, keys
    assert not set(keys) & LATER
    now = await store.asearch(namespace, query="Where does Rui live now?", limit=5)
    assert now[0].key == NEWER
    with pytest.raises(InvalidInputError):
        await view.aput(namespace, "note", {"text": "I live in Porto now."})
    assert await store.aget(namespace, "note") is None


def test_the_cli_honours_as_of(rui: tuple[Memory, tuple[str, ...]], url: str, cli: Cli) -> None:
    _, namespace = rui
    args = ["--url", url, "search", "Where does Rui live now?", "--namespace", ".".join(namespace)]
    code, out, err = cli(*args, "--as-of", "2023-06-30T00:00:00+00:00")
    assert code == 0, err
    assert "Lisbon" in out and "Berlin" not in out
    code, out, err = cli(*args, "--as-of", "2025-01-15T00:00:00+00:00")
    assert code == 0, err
    assert out.index("Berlin") < out.index("Lisbon")
    code, out, err = cli(*args, "--as-of", "2023-06-30")
    assert code != 0 and "timezone" in err
    code, out, err = cli(*args, "--as-of", "last tuesday")
    assert code != 0 and "as_of" in err


@pytest.mark.parametrize(
    "bad", [datetime(2023, 6, 30), "2023-06-30T00:00:00", "30 June 2023", 1688083200, "x"]
)
async def test_a_naive_or_malformed_time_is_refused(
    rui: tuple[Memory, tuple[str, ...]], bad: object
) -> None:
    memory, namespace = rui
    with pytest.raises(InvalidInputError, match="as_of"):
        await memory.asearch(namespace, "Where does Rui live?", as_of=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="as_of"):
        MemoryRetriever(memory=memory, namespace=namespace, as_of=bad)
    with pytest.raises(InvalidInputError, match="as_of"):
        MemoryStore(memory).as_of(bad)  # type: ignore[arg-type]


WEDNESDAY = datetime(2023, 3, 15, 12, 0, tzinfo=UTC)
"""The time the week questions are asked at: its last week is 6-12 March 2023."""

THAT_WEEK = WEDNESDAY - timedelta(days=6)
REAL_LAST_WEEK = datetime.now(UTC) - timedelta(days=7)

WEEKS = [
    ObservationIn(
        "w1", "I went swimming at the lake with my cousin.", "Ines", WEDNESDAY - timedelta(days=60)
    ),
    ObservationIn("w2", "The kitchen got a new coat of paint.", "Ines", THAT_WEEK),
    ObservationIn(
        "w3",
        "I went cycling along the coast with my cousin.",
        "Ines",
        WEDNESDAY - timedelta(days=1),
    ),
    ObservationIn("w4", "I went to a jazz concert with my cousin.", "Ines", REAL_LAST_WEEK),
]


async def test_last_week_is_read_against_as_of(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    namespace = await ingested("as-of-week", WEEKS)
    memory = Memory(database, embeddings)
    notes = await memory.asearch(namespace, "What did Ines do last week?", k=3, as_of=WEDNESDAY)
    assert rank(notes, "w2") == 1, notes
    assert rank(notes, "w4") is None
    now = await memory.asearch(namespace, "What did Ines do last week?", k=3)
    assert rank(now, "w4") == 1, now


def test_the_middleware_asks_as_of_the_message_time(rui: tuple[Memory, tuple[str, ...]]) -> None:
    """A human message stamped mid-2023 recalls the Lisbon statement and not Berlin; an
    unstamped one is asked now, and recalls Berlin.
    """
    memory, namespace = rui
    prompts: list[str] = []

    def record(messages: list[BaseMessage]) -> AIMessage:
        system = messages[0] if isinstance(messages[0], SystemMessage) else None
        prompts.append(system.text if system else "")
        return AIMessage(content="Noted.")

    middleware = MemoryMiddleware(memory, namespace=namespace, write=False)
    model = ScriptedChatModel(messages=iter([record, record]))
    agent = create_agent(model, middleware=[middleware])
    stamped = HumanMessage(
        "Where does Rui live now?", additional_kwargs={"event_time": MID_2023.isoformat()}
    )
    agent.invoke({"messages": [stamped]})
    agent.invoke({"messages": [HumanMessage("Where does Rui live now?")]})
    then, now = prompts
    assert "Lisbon" in then and "Berlin" not in then
    assert "Berlin" in now


async def test_the_knowledge_update_evaluation_scores_as_of_questions(
    rui: tuple[Memory, tuple[str, ...]],
) -> None:
    """Asked at its times the as-of question passes at both; asked now (the baseline) the
    newer statement comes first, so the question at ``as_of`` misses.
    """
    memory, namespace = rui
    fact = UpdateFact(
        "rui-home",
        namespace[1],
        "Rui",
        "home",
        OLDER,
        NEWER,
        "Where does Rui live now?",
        "Where did Rui live in 2022?",
        as_of=MID_2023,
        as_of_question="Where does Rui live?",
        as_of_after=EARLY_2025,
    )
    facts = UpdateSet((), (fact,))
    report = await evaluate_updates(memory, facts, namespace[0], k=5)
    (outcome,) = report.outcomes
    assert outcome.as_of_ok and outcome.after_ok, report.format()
    older, newer = outcome.as_of_ranks or (None, None)
    assert older == 1 and newer is None
    assert report.summary()[1] == (
        "as-of: older in top 3 and above newer at as_of in 1/1 (100.0%); "
        "newer above older at as_of_after in 1/1 (100.0%)"
    )
    baseline = await evaluate_updates(memory, facts, namespace[0], k=5, as_of=False)
    (now,) = baseline.outcomes
    assert now.as_of_ok is False and now.after_ok is True, baseline.format()
    assert now.as_of_ranks == now.after_ranks
    assert "as-of miss rui-home" in baseline.format()
