"""MemoryStore puts carry a speaker and an event time like ``Memory.ingest``: read from the
value's fields (``speaker`` / ``time``, LangChain messages, langmem's ``{"kind",
"content"}``, or the fields the ``index`` mapping names), the put's time otherwise; the
speaker and time channels then find the items. A batch, concurrent puts and background puts
(built together in bulk) give each item its own. Bad values raise; settings given to
``MemoryStore.aopen`` reach the memory it builds; ``index_config`` as LangGraph's stores.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from langgraph.store.base import PutOp
from sqlalchemy import func, select

from langmemcore import ConfigurationError, InvalidInputError, MemoryStore
from langmemcore.config import ConstructionConfig, RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.models import Note, Observation

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
PAINTED = "I painted a sunrise over the lake last weekend."
CAMPING = "We took the kids camping in the mountains and roasted marshmallows."
ADOPTION = "I am researching adoption agencies to give a kid a home."


def _memory(database: Database, embeddings: LocalEmbeddings, *channels: str) -> Memory:
    retrieval = RetrievalConfig(channels=channels) if channels else None
    return Memory(
        database, embeddings, config=ConstructionConfig(topic_every=0), retrieval=retrieval
    )


async def _observation(database: Database, ns: tuple[str, ...], key: str) -> Observation:
    async with database.session() as s:
        found = await s.scalar(
            select(Observation).where(
                Observation.namespace == ".".join(ns), Observation.key == "item:" + key
            )
        )
    assert found is not None, key
    return found


SHAPES: list[tuple[str, dict[str, Any], Any, str | None, datetime | None]] = [
    (
        "fields",
        {"text": PAINTED, "speaker": "Melanie", "time": "2023-05-08T13:56:00+00:00"},
        None,
        "Melanie",
        MAY_8,
    ),
    (
        "locomo-time",
        {"text": PAINTED, "speaker": "Mel", "time": "1:56 pm on 8 May, 2023"},
        None,
        "Mel",
        MAY_8,
    ),
    ("event-time-naive", {"text": PAINTED, "event_time": "2023-05-08T13:56"}, None, None, MAY_8),
    ("timestamp", {"text": PAINTED, "timestamp": MAY_8.timestamp()}, None, None, MAY_8),
    ("openai-message", {"role": "user", "content": PAINTED}, None, "user", None),
    ("langchain-ai", {"type": "ai", "content": PAINTED}, None, "assistant", None),
    (
        "named-message",
        {"type": "human", "content": PAINTED, "name": "Caroline"},
        None,
        "Caroline",
        None,
    ),
    (
        "message-data",
        {"type": "human", "data": {"content": PAINTED, "name": "Caroline"}},
        None,
        "Caroline",
        None,
    ),
    (
        "langmem",
        {
            "kind": "Memory",
            "content": {"content": PAINTED, "speaker": "Mel", "time": "2023-05-08T13:56Z"},
        },
        {"fields": ["content.content"]},
        "Mel",
        MAY_8,
    ),
    (
        "configured",
        {"body": PAINTED, "author": "Mel", "meta": {"sent_at": "2023-05-08T15:56:00+02:00"}},
        {"fields": ["body"], "speaker": "author", "time": "meta.sent_at"},
        "Mel",
        MAY_8,
    ),
    (
        "switched-off",
        {"text": PAINTED, "speaker": "not a speaker", "time": "not a time"},
        {"fields": ["text"], "speaker": False, "time": False},
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("value", "index", "speaker", "when"),
    [shape[1:] for shape in SHAPES],
    ids=[shape[0] for shape in SHAPES],
)
async def test_each_value_shape_gives_the_observation_its_speaker_and_time(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    value: dict[str, Any],
    index: Any,
    speaker: str | None,
    when: datetime | None,
) -> None:
    store = MemoryStore(_memory(database, embeddings), index=index)
    await store.aput(ns, "k", value)
    observation = await _observation(database, ns, "k")
    item = await store.aget(ns, "k")
    assert item is not None and item.value == value
    assert observation.content == PAINTED
    assert observation.speaker == speaker
    assert observation.event_time == (item.updated_at if when is None else when)


BULK_SHAPES = [shape for shape in SHAPES if shape[2] is None]
"""The value shapes that the default index settings read (one store takes them all)."""


async def _bulk_attributions(database: Database, store: MemoryStore, ns: tuple[str, ...]) -> None:
    """Each item put by the batch or the concurrent puts has its own speaker and time."""
    for name, value, _index, speaker, when in BULK_SHAPES:
        observation = await _observation(database, ns, name)
        item = await store.aget(ns, name)
        assert item is not None and item.value == value
        assert observation.content == PAINTED, name
        assert observation.speaker == speaker, name
        assert observation.event_time == (item.updated_at if when is None else when), name


async def test_a_batch_gives_each_item_its_own_speaker_and_time(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings))
    await store.abatch([PutOp(ns, name, value) for name, value, *_ in BULK_SHAPES])
    await _bulk_attributions(database, store, ns)


async def test_concurrent_puts_give_each_item_its_own_speaker_and_time(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings))
    await asyncio.gather(*(store.aput(ns, name, value) for name, value, *_ in BULK_SHAPES))
    await _bulk_attributions(database, store, ns)


async def test_background_puts_give_each_item_its_own_speaker_and_time(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), background=True)
    await asyncio.gather(*(store.aput(ns, name, value) for name, value, *_ in BULK_SHAPES))
    await store.aflush()
    await _bulk_attributions(database, store, ns)


async def test_a_batch_rebuilds_only_the_items_whose_speaker_or_time_changed(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), index={"fields": ["text"]})
    first = {"text": PAINTED, "speaker": "Mel", "time": "2023-05-08T13:56Z"}
    await store.abatch([PutOp(ns, k, first) for k in ("same", "renamed", "redated")])
    before = {k: (await _observation(database, ns, k)).id for k in ("same", "renamed", "redated")}
    await store.abatch(
        [
            PutOp(ns, "same", {**first, "tags": ["art"]}),
            PutOp(ns, "renamed", {**first, "speaker": "Melanie"}),
            PutOp(ns, "redated", {**first, "time": "2023-06-08T13:56Z"}),
        ]
    )
    same, renamed, redated = [
        await _observation(database, ns, k) for k in ("same", "renamed", "redated")
    ]
    assert same.id == before["same"]
    assert renamed.id != before["renamed"] and renamed.speaker == "Melanie"
    assert renamed.event_time == MAY_8
    assert redated.id != before["redated"] and redated.speaker == "Mel"
    assert redated.event_time == datetime(2023, 6, 8, 13, 56, tzinfo=UTC)


async def test_speaker_and_time_channels_find_the_items(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    puts = [
        ("paint", {"text": PAINTED, "speaker": "Melanie", "time": "2023-05-08T13:56:00Z"}),
        ("camp", {"text": CAMPING, "speaker": "Caroline", "time": "2023-07-20T10:00:00Z"}),
        ("adopt", {"role": "user", "content": ADOPTION, "name": "Caroline", "time": "2023-09-01"}),
    ]
    await MemoryStore(_memory(database, embeddings)).abatch([PutOp(ns, k, v) for k, v in puts])
    by_speaker = MemoryStore(_memory(database, embeddings, "speaker"))
    found = await by_speaker.asearch(ns, query="What did Caroline do with her family?")
    assert {i.key for i in found} == {"camp", "adopt"}
    by_time = MemoryStore(_memory(database, embeddings, "time"))
    found = await by_time.asearch(ns, query="What happened on 8 May 2023?")
    assert [i.key for i in found] == ["paint"]
    found = await by_time.asearch(ns, query="What happened in September 2023?")
    assert [i.key for i in found] == ["adopt"]


async def test_a_new_speaker_or_time_rebuilds_the_observation(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    store = MemoryStore(_memory(database, embeddings), index={"fields": ["text"]})
    await store.aput(ns, "k", {"text": PAINTED, "speaker": "Mel"})
    first = await _observation(database, ns, "k")
    await store.aput(ns, "k", {"text": PAINTED, "speaker": "Mel", "tags": ["art"]})
    assert (await _observation(database, ns, "k")).id == first.id
    await store.aput(ns, "k", {"text": PAINTED, "speaker": "Melanie"})
    renamed = await _observation(database, ns, "k")
    assert renamed.id != first.id and renamed.speaker == "Melanie"
    await store.aput(ns, "k", {"text": PAINTED, "speaker": "Melanie", "time": "2023-05-08T13:56Z"})
    dated = await _observation(database, ns, "k")
    assert dated.id != renamed.id and dated.event_time == MAY_8
    async with database.session() as s:
        count = await s.scalar(select(func.count()).where(Observation.namespace == ".".join(ns)))
    assert count == 1


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"text": PAINTED, "speaker": 7}, "'speaker'"),
        ({"text": PAINTED, "speaker": "x" * 2000}, "'speaker'"),
        ({"text": PAINTED, "time": "yesterday"}, "'time'"),
        ({"text": PAINTED, "timestamp": True}, "'timestamp'"),
        ({"text": PAINTED, "event_time": 1e300}, "'event_time'"),
        ({"role": "user", "content": PAINTED, "name": ["Mel"]}, "'name'"),
    ],
)
async def test_a_bad_speaker_or_time_is_refused_and_nothing_is_written(
    database: Database,
    embeddings: LocalEmbeddings,
    ns: tuple[str, ...],
    value: dict[str, Any],
    field: str,
) -> None:
    store = MemoryStore(_memory(database, embeddings))
    with pytest.raises(InvalidInputError, match=field):
        await store.abatch([PutOp(ns, "good", {"text": CAMPING}), PutOp(ns, "bad", value)])
    assert await store.aget(ns, "good") is None and await store.aget(ns, "bad") is None
    await store.aput(ns, "quiet", value, index=False)
    assert (await store.aget(ns, "quiet")) is not None


@pytest.mark.parametrize(
    "index",
    [
        {"speaker": 3},
        {"time": ""},
        {"speaker": "a..b"},
        {"fields": ["text"], "time": ["sent_at"]},
    ],
)
def test_a_bad_index_mapping_is_a_configuration_error(
    database: Database, embeddings: LocalEmbeddings, index: dict[str, Any]
) -> None:
    with pytest.raises(ConfigurationError):
        MemoryStore(_memory(database, embeddings), index=index)


async def test_settings_given_to_aopen_reach_the_memory(
    database_url: str, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    construction = ConstructionConfig(topic_every=0, merge_threshold=1.0)
    retrieval = RetrievalConfig(channels=("time",))
    store = await MemoryStore.aopen(
        database_url, embeddings=embeddings, construction=construction, retrieval=retrieval
    )
    assert store.memory.config is construction and store.memory.retrieval is retrieval
    await store.aput(ns, "a", {"text": PAINTED, "time": "2023-05-08T13:56Z"})
    await store.aput(ns, "b", {"text": PAINTED + "!", "time": "2023-05-08T14:56Z"})
    async with store.memory.database.session() as s:
        notes = await s.scalar(select(func.count()).where(Note.namespace == ".".join(ns)))
    assert notes == 2  # the default merge_threshold (0.7) merges the two
    assert await store.asearch(ns, query="a sunrise over the lake") == []
    found = await store.asearch(ns, query="What did I paint on 8 May 2023?")
    assert {i.key for i in found} == {"a", "b"}
    opened = await asyncio.to_thread(
        MemoryStore.open, database_url, embeddings=embeddings, retrieval=retrieval
    )
    assert opened.memory.retrieval is retrieval


def test_index_config_is_the_index_settings_or_none(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = _memory(database, embeddings)
    assert MemoryStore(memory, index=False).index_config is None
    assert MemoryStore(memory).index_config == {"dims": 384, "embed": embeddings, "fields": ["$"]}
    config = MemoryStore(
        memory, index={"dims": 1, "fields": ["text"], "speaker": "who"}
    ).index_config
    assert config == {"dims": 384, "embed": embeddings, "fields": ["text"], "speaker": "who"}
