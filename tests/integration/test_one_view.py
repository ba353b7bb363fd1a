"""One view of a namespace: what ``Memory`` wrote is seen by ``MemoryStore`` (get, list,
query search, namespaces) and what the store wrote is found by ``Memory.asearch``; store
searches count items and carry the notes that ranked them; empty text and empty queries
are refused alike on every entry point."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from langmemcore import (
    InvalidInputError,
    Memory,
    MemoryRetriever,
    MemoryStore,
    ObservationIn,
    RetrievalConfig,
)
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database, Repository
from langmemcore.store import MemorySearchItem
from tests.integration.conftest import sql_statements

LISBON = "Greetings from Lisbon, I am sitting at my favourite cafe in Alfama."
DOG = "Our dog Biscuit learned to catch a frisbee in the park today."
BAKING = "I baked sourdough bread with a new starter this morning."
MARCH = datetime(2024, 3, 2, 18, 30, tzinfo=UTC)


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


async def test_what_memory_wrote_is_an_item_of_the_store(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    await memory.aingest(ns, LISBON, key="m1", speaker="Maya", event_time=MARCH)
    await memory.aingest_many(
        ns, [ObservationIn("m2", DOG, "Jonas", MARCH), ObservationIn("m3", BAKING, "Maya")]
    )
    store = MemoryStore(memory)

    item = await store.aget(ns, "m1")
    assert item is not None
    assert item.value == {
        "text": LISBON,
        "speaker": "Maya",
        "event_time": "2024-03-02T18:30:00+00:00",
    }
    baked = await store.aget(ns, "m3")
    assert baked is not None and baked.value["event_time"] is None
    assert await store.aget(ns, "missing") is None

    listed = await store.asearch(ns, limit=10)
    assert sorted(i.key for i in listed) == ["m1", "m2", "m3"]
    by_maya = await store.asearch(ns, filter={"speaker": "Maya"})
    assert sorted(i.key for i in by_maya) == ["m1", "m3"]

    found = await store.asearch(ns, query="What is the name of the dog?", limit=1)
    assert [i.key for i in found] == ["m2"]
    assert found[0].value["text"] == DOG and found[0].score is not None
    settled = await store.afeedback(found, 1.0, query="What is the name of the dog?")
    assert list(settled) == [n.note_id for n in found[0].notes]  # type: ignore[attr-defined]

    assert ns in await store.alist_namespaces(prefix=ns[:1])
    assert await store.alist_namespaces(prefix=ns) == [ns]


async def test_a_store_write_to_a_key_replaces_what_memory_wrote_under_it(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    await memory.aingest(ns, LISBON, key="home", speaker="Maya")
    await memory.aingest(ns, DOG, key="pet", speaker="Jonas")
    store = MemoryStore(memory)
    await store.aput(ns, "home", {"text": "I moved to Berlin last month.", "speaker": "Maya"})
    item = await store.aget(ns, "home")
    assert item is not None and item.value == {
        "text": "I moved to Berlin last month.",
        "speaker": "Maya",
    }
    assert sorted(i.key for i in await store.asearch(ns)) == ["home", "pet"]
    notes = await memory.asearch(ns, "Where does Maya live?", k=5)
    assert {s.key for n in notes for s in n.sources} == {"item:home", "pet"}
    await store.adelete(ns, "pet")
    assert await store.aget(ns, "pet") is None
    assert [i.key for i in await store.asearch(ns)] == ["home"]
    notes = await memory.asearch(ns, "What is the name of the dog?", k=5)
    assert {s.key for n in notes for s in n.sources} == {"item:home"}


async def test_what_the_store_wrote_is_found_by_memory(memory: Memory, ns: tuple[str, ...]) -> None:
    store = MemoryStore(memory)
    await store.aput(ns, "pet", {"text": DOG, "speaker": "Jonas"})
    await store.aput(ns, "bread", {"text": BAKING, "speaker": "Maya"})
    notes = await memory.asearch(ns, "What is the name of the dog?", k=1)
    assert [s.key for s in notes[0].sources] == ["item:pet"]
    assert notes[0].sources[0].speaker == "Jonas"


async def test_store_results_carry_the_notes_that_ranked_them(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await store.aput(ns, "pet", {"text": DOG, "speaker": "Jonas"})
    await memory.aingest(ns, BAKING, key="m1", speaker="Maya")
    found = await store.asearch(ns, query="Who baked bread?", limit=2)
    assert [i.key for i in found] == ["m1", "pet"]
    assert all(isinstance(i, MemorySearchItem) for i in found)
    first = found[0]
    assert isinstance(first, MemorySearchItem)
    assert first.notes and first.score == first.notes[0].score
    assert [s.key for s in first.sources] == ["m1"]
    second = found[1]
    assert isinstance(second, MemorySearchItem)
    assert [s.key for s in second.sources] == ["item:pet"]
    assert second.value == {"text": DOG, "speaker": "Jonas"}
    assert "notes" not in first.dict()
    listed = await store.asearch(ns)
    assert all(isinstance(i, MemorySearchItem) and i.notes == () for i in listed)


async def test_limit_counts_items_that_match_the_filter(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database,
        embeddings,
        config=ConstructionConfig(topic_every=0),
        retrieval=RetrievalConfig(k_final=1),
    )
    store = MemoryStore(memory)
    gardens = [
        "The garden roses finally bloomed after the rain.",
        "I dug a new vegetable bed in the garden for tomatoes.",
        "Garden snails ate half of the lettuce overnight.",
        "We put a bench under the apple tree in the garden.",
        "My garden hose burst while watering the hedges.",
        "Bees swarmed the lavender in the back garden.",
    ]
    for i, text in enumerate(gardens):
        await store.aput(ns, f"jonas{i}", {"text": text, "speaker": "Jonas"})
    await store.aput(ns, "maya", {"text": "I repaired my bicycle chain.", "speaker": "Maya"})
    found = await store.asearch(ns, query="garden", filter={"speaker": "Maya"}, limit=1)
    assert [i.key for i in found] == ["maya"]
    three = await store.asearch(ns, query="garden", limit=3)
    assert len(three) == 3


async def test_empty_text_and_empty_queries_are_refused_alike(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    retriever = MemoryRetriever(memory=memory, namespace=ns)
    for blank in ("", "  \n"):
        with pytest.raises(InvalidInputError, match="empty"):
            await memory.aingest(ns, blank)
        with pytest.raises(InvalidInputError, match="empty"):
            await store.aput(ns, "k", {"text": blank, "speaker": "Maya"})
        with pytest.raises(InvalidInputError, match="empty"):
            await memory.asearch(ns, blank)
        with pytest.raises(InvalidInputError, match="empty"):
            await store.asearch(ns, query=blank)
        with pytest.raises(InvalidInputError, match="empty"):
            await retriever.ainvoke(blank)
    assert await store.aget(ns, "k") is None
    await store.aput(ns, "count", {"n": 3})
    await MemoryStore(memory, index=False).aput(ns, "raw", {"text": ""})
    await store.aput(ns, "unindexed", {"text": ""}, index=False)
    listed = await store.asearch(ns, query=None)
    assert sorted(i.key for i in listed) == ["count", "raw", "unindexed"]


GLASS = "My sister Ingrid blows glass vases in a workshop on Murano."
GLASS_QUERY = "Who blows glass vases on Murano?"
FILLER = {
    "a": [DOG, BAKING, "I repaired my bicycle chain before the ride."],
    "b": [LISBON, GLASS, "We watched the football final at a crowded bar."],
    "c": [
        "The garden roses finally bloomed after the rain.",
        "My daughter started violin lessons on Tuesday.",
        "I finished reading a novel about a lighthouse keeper.",
        "I dropped a wine glass on the kitchen floor.",
    ],
}


async def _three_namespaces(store: MemoryStore, ns: tuple[str, ...]) -> None:
    """Three namespaces under ``ns`` with ten items (``a0``..``c3``, ``c`` written last);
    ``b1`` holds the only fact about Ingrid's glass vases, ``c3`` mentions a glass."""
    for label, texts in FILLER.items():
        for i, text in enumerate(texts):
            speaker = "Maya" if i == 0 else "Jonas"
            await store.aput((*ns, label), f"{label}{i}", {"text": text, "speaker": speaker})


async def test_a_prefix_over_several_namespaces_ranks_the_best_match_first(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    found = await store.asearch(ns, query=GLASS_QUERY, limit=10)
    assert (found[0].namespace, found[0].key) == ((*ns, "b"), "b1")
    assert {i.namespace for i in found} == {(*ns, "a"), (*ns, "b"), (*ns, "c")}
    scores = [i.score or 0.0 for i in found]
    assert scores == sorted(scores, reverse=True)
    first = found[0]
    assert isinstance(first, MemorySearchItem)
    assert first.score == first.notes[0].score
    assert [s.key for s in first.sources] == ["item:b1"]
    assert set(first.notes[0].channels) <= {"vector", "fulltext"}
    assert "fulltext" in first.notes[0].channels


async def test_limit_and_offset_of_a_prefix_search_count_items(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    query = "What did they do at the weekend?"
    everything = [(i.namespace, i.key) for i in await store.asearch(ns, query=query, limit=20)]
    assert len(everything) == 10
    pages = [
        [(i.namespace, i.key) for i in await store.asearch(ns, query=query, limit=4, offset=o)]
        for o in (0, 4, 8)
    ]
    assert [len(page) for page in pages] == [4, 4, 2]
    assert [ref for page in pages for ref in page] == everything


async def test_a_filter_applies_to_a_prefix_search(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(
        database,
        embeddings,
        config=ConstructionConfig(topic_every=0),
        retrieval=RetrievalConfig(k_final=1),
    )
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    glass = [
        "Ingrid showed me how she blows glass vases on Murano.",
        "The glass vases Ingrid blew on Murano sold out.",
        "Ingrid's Murano workshop blows glass vases for hotels.",
        "On Murano, Ingrid blows a blue glass vase every morning.",
        "Ingrid blows glass vases; Murano tourists watch her work.",
        "A glass vase blown by Ingrid on Murano stands in our hall.",
    ]
    for i, text in enumerate(glass):
        await store.aput((*ns, "c"), f"glass{i}", {"text": text, "speaker": "Jonas"})
    found = await store.asearch(ns, query=GLASS_QUERY, filter={"speaker": "Maya"}, limit=3)
    assert sorted((i.namespace, i.key) for i in found) == [
        ((*ns, "a"), "a0"),
        ((*ns, "b"), "b0"),
        ((*ns, "c"), "c0"),
    ]


async def test_a_prefix_search_leaves_out_items_without_notes_and_expired_ones(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    unindexed = {"text": "Ingrid blows glass vases on Murano too.", "speaker": "Ole"}
    await store.aput((*ns, "c"), "plain", unindexed, index=False)
    short = {"text": "Ingrid sold her glass vases from Murano at a market.", "speaker": "Ole"}
    await store.aput((*ns, "a"), "short", short, ttl=0.0005)
    await asyncio.sleep(0.1)
    keys = [i.key for i in await store.asearch(ns, query=GLASS_QUERY, limit=20)]
    assert "plain" not in keys
    assert "short" in keys
    omitting = MemoryStore(memory, ttl={"omit_expired": True})
    kept = [i.key for i in await omitting.asearch(ns, query=GLASS_QUERY, limit=20)]
    assert "short" not in kept
    assert "b1" in kept


async def test_feedback_settles_items_found_by_a_prefix_search(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    found = await store.asearch(ns, query=GLASS_QUERY, limit=10)
    async with Repository.open(memory.database) as repo:
        logged = {label: await repo.recent_queries((*ns, label), 5) for label in FILLER}
    for label, rows in logged.items():
        ((_query_id, returned, _used),) = rows
        own = [n.note_id for i in found if i.namespace == (*ns, label) for n in i.notes]
        assert returned and set(returned) == set(own)
    used = [i for i in found if i.key in ("b1", "c3")]
    assert {i.namespace for i in used} == {(*ns, "b"), (*ns, "c")}
    settled = await store.afeedback(used, 1.0, query=GLASS_QUERY)
    notes = {n.note_id for i in used if isinstance(i, MemorySearchItem) for n in i.notes}
    assert set(settled) == notes
    assert all(tau > 0.5 for tau in settled.values())


async def test_a_prefix_search_sends_as_many_statements_for_six_namespaces_as_for_two(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    texts = [*FILLER["a"], *FILLER["b"], *FILLER["c"]]
    for i in range(6):
        for prefix in [("few",), ("many",)] if i < 2 else [("many",)]:
            await store.aput((*ns, *prefix, f"n{i}"), "k", {"text": texts[i]})
    counts = []
    for prefix in ["few", "many"]:
        with sql_statements(database) as sent:
            found = await store.asearch((*ns, prefix), query=GLASS_QUERY, limit=10)
        assert len({i.namespace for i in found}) == (2 if prefix == "few" else 6)
        counts.append(len(sent))
    assert counts[0] == counts[1]


async def test_the_vector_ranking_across_namespaces_merges_their_own_rankings(
    memory: Memory, database: Database, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    await _three_namespaces(store, ns)
    (best, *_) = await store.asearch(ns, query=GLASS_QUERY, limit=1)
    assert isinstance(best, MemorySearchItem)
    spaces = [(*ns, label) for label in FILLER]
    vector = await memory.query_vectors.aembed_query(GLASS_QUERY)
    async with Repository.open(database) as repo:
        across = await repo.rankings_across(spaces, vector, GLASS_QUERY, 5, threaded=True)
        each = [
            s for space in spaces for s in await repo.nearest_notes(space, vector, 9, threaded=True)
        ]
        nothing = await repo.rankings_across(spaces, vector, "Who is it?", 5, threaded=True)
    each.sort(key=lambda s: (-s.score, s.id))
    assert across["vector"] == [s.id for s in each[:5]]
    assert len(across["fulltext"]) == 2
    assert across["fulltext"][0] == best.notes[0].note_id
    assert nothing["fulltext"] == []
    assert nothing["vector"] == across["vector"]


async def test_a_prefix_covering_one_namespace_searches_it_through_the_retrieval_graph(
    memory: Memory, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(memory)
    only = (*ns, "b")
    for i, text in enumerate(FILLER["b"]):
        await store.aput(only, f"b{i}", {"text": text, "speaker": "Jonas"})
    await store.aput((*ns, "c"), "plain", {"text": GLASS}, index=False)
    notes = await memory.asearch(only, GLASS_QUERY)
    found = await store.asearch(ns, query=GLASS_QUERY, limit=3)
    best: dict[str, float] = {}
    for note in notes:
        for source in note.sources:
            best.setdefault(source.key.removeprefix("item:"), note.score)
    assert [(i.key, i.score) for i in found] == sorted(best.items(), key=lambda kv: -kv[1])[:3]
    first = found[0]
    assert isinstance(first, MemorySearchItem)
    assert first.notes[0] == notes[0]


async def test_sources_come_most_query_relevant_first(memory: Memory, ns: tuple[str, ...]) -> None:
    first = "I painted a sunrise over the lake last weekend."
    second = "I painted a sunrise over the lake last weekend with my sister Anna."
    await memory.aingest(ns, first, key="t1", speaker="Maya", event_time=MARCH)
    await memory.aingest(ns, second, key="t2", speaker="Maya", event_time=MARCH.replace(day=3))
    (note,) = await memory.asearch(ns, "What did Maya paint with her sister Anna?", k=1)
    assert [s.key for s in note.sources] == ["t2", "t1"]
    (plain,) = await memory.asearch(ns, "sunrise painting", k=1)
    assert [s.key for s in plain.sources] == ["t1", "t2"]
