"""Bad input through every entry point: Memory, MemoryStore, MemoryRetriever and the CLI.

Cases are generated as bad values x the arguments they go into. Each must raise a
``LangMemCoreError`` subclass that is also the matching builtin (``ValueError``), with no
SQL or driver text in its message, and leave the database exactly as it was: nothing is
stored by a rejected call or by any part of a rejected batch.
"""

from __future__ import annotations

import inspect
import math
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.store.base import PutOp
from sqlalchemy import func, insert, select, text

from langmemcore import (
    InvalidInputError,
    InvalidNamespaceError,
    LangMemCoreError,
    MemoryRetriever,
    MemoryStore,
)
from langmemcore._validate import LIMITS
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.storage.models import (
    Edge,
    Item,
    ItemTask,
    Keyword,
    Lineage,
    Note,
    Observation,
    QueryLog,
)

FORBIDDEN = ("SELECT", "INSERT", "UPDATE ", "[SQL", "sqlalchemy", "psycopg")
TABLES = (Observation, Note, Edge, Keyword, Lineage, QueryLog, Item, ItemTask)


@dataclass
class Ctx:
    """What the cases run against (one per module)."""

    memory: Memory
    store: MemoryStore
    retriever: MemoryRetriever
    ns: tuple[str, ...]
    query_id: int
    note_id: int


@pytest.fixture(scope="module")
async def ctx(database: Database, embeddings: LocalEmbeddings) -> Ctx:
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    store = MemoryStore(memory)
    ns = ("bad-input", uuid.uuid4().hex[:12])
    result = await memory.aingest(ns, "Alice moved to Paris in May.", speaker="Alice")
    await store.aput(ns, "seed", {"text": "Bob adopted a beagle called Pretzel."})
    found = await memory.asearch(ns, "Where does Alice live?")
    assert found.query_id is not None and result.note_id is not None
    retriever = MemoryRetriever(memory=memory, namespace=ns)
    return Ctx(memory, store, retriever, ns, found.query_id, result.note_id)


async def stored(database: Database) -> dict[str, int]:
    """Rows in every table a write could touch."""
    async with database.session() as session:
        return {
            t.__tablename__: int(await session.scalar(select(func.count()).select_from(t)) or 0)
            for t in TABLES
        }


def deep(levels: int, leaf: Any = "x") -> Any:
    """A dict nested ``levels`` deep."""
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


def fresh(text: str = "A perfectly fine observation about gardening.") -> ObservationIn:
    return ObservationIn(f"ok-{uuid.uuid4().hex}", text, "Carol")


Call = Callable[[Ctx], Any]
CASES: list[Any] = []


def case(name: str, call: Call, expected: type[LangMemCoreError] = InvalidInputError) -> None:
    CASES.append(pytest.param(call, expected, id=name))


NUL, SURROGATE = "bad\x00value", "bad\ud800value"
BAD_STRINGS = {"nul": NUL, "surrogate": SURROGATE}
TOO_LONG_TEXT = "x " * (LIMITS.text_chars // 2 + 1)
LONG_KEY = secrets.token_hex(LIMITS.key_bytes)  # 2x the byte limit, incompressible

BAD_NAMESPACES: dict[str, Any] = {
    "empty": (),
    "dot": ("a.b",),
    "langgraph-root": ("langgraph", "x"),
    "empty-label": ("a", ""),
    "nul-label": ("a\x00",),
    "surrogate-label": ("\ud800",),
    "int-label": ("a", 3),
    "string": "users",
    "3000-char-label": (secrets.token_hex(1500),),
    "1000-labels": ("a",) * 1000,
    "too-many-bytes": tuple(secrets.token_hex(200) for _ in range(4)),
}

# Memory.ingest: every field.
for label, bad in {**BAD_STRINGS, "blank": "   ", "empty": "", "int": 42, "none": None}.items():
    case(f"ingest-text-{label}", lambda c, b=bad: c.memory.aingest(c.ns, b))
case("ingest-text-too-long", lambda c: c.memory.aingest(c.ns, TOO_LONG_TEXT))
for label, bad in {**BAD_STRINGS, "empty": "", "int": 5, "long": LONG_KEY}.items():
    case(f"ingest-key-{label}", lambda c, b=bad: c.memory.aingest(c.ns, "fine text", key=b))
for label, bad in {**BAD_STRINGS, "int": 7, "long": LONG_KEY}.items():
    case(f"ingest-speaker-{label}", lambda c, b=bad: c.memory.aingest(c.ns, "hi", speaker=b))
for label, bad in {"yesterday": "yesterday", "epoch": 1_700_000_000, "iso": "2024-01-01"}.items():
    case(f"ingest-event-time-{label}", lambda c, b=bad: c.memory.aingest(c.ns, "hi", event_time=b))
BAD_JSON: dict[str, Any] = {
    "nan": {"a": math.nan},
    "inf": {"a": -math.inf},
    "object": {"a": object()},
    "bytes": {"a": b"x"},
    "set": {"a": {1, 2}},
    "nul-value": {"a": NUL},
    "nul-key": {NUL: 1},
    "surrogate-value": {"a": [SURROGATE]},
    "surrogate-key": {SURROGATE: 1},
    "int-key": {1: "x"},
    "deep-500": deep(500),
    "deep-10000": deep(10_000),
}
for label, bad in {**BAD_JSON, "list": ["not", "a", "dict"]}.items():
    case(f"ingest-metadata-{label}", lambda c, b=bad: c.memory.aingest(c.ns, "hi", metadata=b))
for label, bad in BAD_NAMESPACES.items():
    case(
        f"ingest-namespace-{label}",
        lambda c, b=bad: c.memory.aingest(b, "hi"),
        InvalidNamespaceError,
    )

# Memory.ingest_many: one bad observation in the middle of good ones stores nothing.
BAD_OBSERVATIONS: dict[str, Callable[[], Any]] = {
    "nul-text": lambda: ObservationIn("k-nul", NUL),
    "surrogate-text": lambda: ObservationIn("k-sur", SURROGATE),
    "surrogate-speaker": lambda: ObservationIn("k-sp", "fine", SURROGATE),
    "nul-key": lambda: ObservationIn(NUL, "fine"),
    "long-key": lambda: ObservationIn(LONG_KEY, "fine"),
    "nan-metadata": lambda: ObservationIn("k-nan", "fine", metadata={"a": math.nan}),
    "too-long": lambda: ObservationIn("k-long", TOO_LONG_TEXT),
    "not-an-observation": lambda: "just a string",
}
for label, make in BAD_OBSERVATIONS.items():
    case(
        f"ingest-many-{label}",
        lambda c, m=make: c.memory.aingest_many(c.ns, [fresh(), fresh(), m(), fresh()]),
    )
case("observation-event-time-string", lambda c: ObservationIn("k", "t", event_time="yesterday"))
for label, bad in {"zero": 0, "negative": -1, "float": 2.5}.items():
    case(
        f"ingest-many-batch-{label}",
        lambda c, b=bad: c.memory.aingest_many(c.ns, [fresh()], batch_size=b),
    )

# Memory.search.
QUERIES: dict[str, Any] = {
    **BAD_STRINGS,
    "empty": "",
    "blank": " \n ",
    "int": 42,
    "none": None,
    "too-long": "where " * (LIMITS.query_chars // 6 + 1),
    "1mb": "w" * 1_000_000,
}
for label, bad in QUERIES.items():
    case(f"search-query-{label}", lambda c, b=bad: c.memory.asearch(c.ns, b))
BAD_K: dict[str, Any] = {
    "zero": 0,
    "negative": -1,
    "float": 2.5,
    "string": "3",
    "bool": True,
    "over-limit": LIMITS.k + 1,
    "2**63": 2**63,
}
for label, bad in BAD_K.items():
    case(f"search-k-{label}", lambda c, b=bad: c.memory.asearch(c.ns, "Paris", k=b))
for label, bad in {"zero": 0, "float": 1.5}.items():
    case(f"search-budget-{label}", lambda c, b=bad: c.memory.asearch(c.ns, "x", token_budget=b))
for label, bad in {"nan": math.nan, "two": 2.0, "string": "x"}.items():
    case(
        f"search-confidence-{label}", lambda c, b=bad: c.memory.asearch(c.ns, "x", min_confidence=b)
    )
for label in ("dot", "3000-char-label", "1000-labels"):
    bad_ns = BAD_NAMESPACES[label]
    case(
        f"search-namespace-{label}",
        lambda c, b=bad_ns: c.memory.asearch(b, "x"),
        InvalidNamespaceError,
    )

# Memory maintenance and feedback.
for label, bad in {**BAD_STRINGS, "empty": ""}.items():
    case(f"forget-key-{label}", lambda c, b=bad: c.memory.aforget(c.ns, b))
for label, bad in {"zero": 0, "2**63": 2**63, "string": "1"}.items():
    case(f"undo-id-{label}", lambda c, b=bad: c.memory.aundo(c.ns, b))
case("unmerge-id-float", lambda c: c.memory.aunmerge(c.ns, 2.5))
case("feedback-outcome-nan", lambda c: c.memory.afeedback(c.ns, c.query_id, [c.note_id], math.nan))
case("feedback-outcome-big", lambda c: c.memory.afeedback(c.ns, c.query_id, [c.note_id], 1.5))
case("feedback-query-id", lambda c: c.memory.afeedback(c.ns, 2**63, [c.note_id], 1.0))
case("feedback-note-id", lambda c: c.memory.afeedback(c.ns, c.query_id, [-1], 1.0))

# MemoryStore.put / batch.
for label, bad in {**BAD_STRINGS, "long": LONG_KEY}.items():
    case(f"put-key-{label}", lambda c, b=bad: c.store.aput(c.ns, b, {"text": "fine"}))
EMPTY_TEXTS: dict[str, Any] = {
    "empty-text": {"text": ""},
    "blank-text": {"text": " \n "},
    "blank-text-with-speaker": {"text": "  ", "speaker": "Maya"},
    "blank-message": {"role": "user", "content": ""},
}
for label, bad in {
    **BAD_JSON,
    **EMPTY_TEXTS,
    "list": ["x"],
    "too-long-text": {"text": TOO_LONG_TEXT},
}.items():
    case(f"put-value-{label}", lambda c, b=bad: c.store.aput(c.ns, "k", b))
case(
    "put-value-empty-indexed-field",
    lambda c: c.store.aput(c.ns, "k", {"text": "", "note": "fine"}, index=["text"]),
)
case("put-value-deep-unindexed", lambda c: c.store.aput(c.ns, "k", deep(10_000), index=False))
BAD_TTL: dict[str, Any] = {
    "nan": math.nan,
    "inf": math.inf,
    "negative": -1.0,
    "zero": 0,
    "1e300": 1e300,
    "string": "5",
}
for label, bad in BAD_TTL.items():
    case(f"put-ttl-{label}", lambda c, b=bad: c.store.aput(c.ns, "k", {"t": "x"}, ttl=b))
for label, bad in {"string": "text", "ints": [1]}.items():
    case(f"put-index-{label}", lambda c, b=bad: c.store.aput(c.ns, "k", {"t": "x"}, index=b))
for label, bad in BAD_NAMESPACES.items():
    case(
        f"put-namespace-{label}",
        lambda c, b=bad: c.store.aput(b, "k", {"t": "x"}),
        InvalidNamespaceError,
    )
case(
    "batch-good-then-bad",
    lambda c: c.store.abatch(
        [PutOp(c.ns, f"ok-{uuid.uuid4().hex}", {"text": "fine"}), PutOp(c.ns, "k", {"x": math.nan})]
    ),
)

# MemoryStore.search / list_namespaces / get.
BAD_FILTERS: dict[str, Any] = {
    "nul-key": {NUL: 1},
    "nul-value": {"a": NUL},
    "surrogate": {"a": SURROGATE},
    "nan": {"a": math.nan},
    "-inf": {"a": {"$gt": -math.inf}},
    "deep-10000": deep(10_000),
    "operator": {"a": {"$in": [1]}},
    "list": ["a"],
}
for label, bad in BAD_FILTERS.items():
    case(f"store-filter-{label}", lambda c, b=bad: c.store.asearch(c.ns, filter=b))
for label, bad in {
    **BAD_STRINGS,
    "empty": "",
    "blank": "   ",
    "int": 42,
    "too-long": QUERIES["too-long"],
}.items():
    case(f"store-query-{label}", lambda c, b=bad: c.store.asearch(c.ns, query=b))
for label, bad in {"2**63": 2**63, "negative": -1, "float": 2.5, "string": "3"}.items():
    case(f"store-limit-{label}", lambda c, b=bad: c.store.asearch(c.ns, limit=b))
    case(f"store-query-limit-{label}", lambda c, b=bad: c.store.asearch(c.ns, query="x", limit=b))
    case(f"store-offset-{label}", lambda c, b=bad: c.store.asearch(c.ns, offset=b))
case("store-search-prefix", lambda c: c.store.asearch(("a.b",)), InvalidNamespaceError)
case("list-prefix-dot", lambda c: c.store.alist_namespaces(prefix=("a.b",)), InvalidNamespaceError)
case(
    "list-suffix-nul", lambda c: c.store.alist_namespaces(suffix=("a\x00",)), InvalidNamespaceError
)
case("list-max-depth-zero", lambda c: c.store.alist_namespaces(max_depth=0))
case("list-limit-2**63", lambda c: c.store.alist_namespaces(limit=2**63))
case("get-namespace-surrogate", lambda c: c.store.aget(("\ud800",), "k"), InvalidNamespaceError)
case("get-key-nul", lambda c: c.store.aget(c.ns, NUL))

# MemoryRetriever: construction and calls.
for label, bad in BAD_NAMESPACES.items():
    case(
        f"retriever-namespace-{label}",
        lambda c, b=bad: MemoryRetriever(memory=c.memory, namespace=b),
        InvalidNamespaceError,
    )
for label, bad in {"zero": 0, "string": "3", "float": 2.5, "over-limit": LIMITS.k + 1}.items():
    case(
        f"retriever-k-{label}",
        lambda c, b=bad: MemoryRetriever(memory=c.memory, namespace=c.ns, k=b),
    )
    case(f"retriever-call-k-{label}", lambda c, b=bad: c.retriever.ainvoke("Paris", k=b))
case("retriever-memory", lambda c: MemoryRetriever(memory="not memory", namespace=c.ns))
case(
    "retriever-confidence",
    lambda c: MemoryRetriever(memory=c.memory, namespace=c.ns, min_confidence=2),
)
for label, bad in {
    **BAD_STRINGS,
    "empty": "",
    "blank": " \t ",
    "too-long": QUERIES["too-long"],
}.items():
    case(f"retriever-query-{label}", lambda c, b=bad: c.retriever.ainvoke(b))
case("retriever-min-score-nan", lambda c: c.retriever.ainvoke("Paris", min_score=math.nan))


def test_the_suite_is_big_enough() -> None:
    assert len(CASES) >= 100


@pytest.mark.parametrize(("call", "expected"), CASES)
async def test_bad_input_is_refused_cleanly(
    ctx: Ctx, database: Database, call: Call, expected: type[LangMemCoreError]
) -> None:
    before = await stored(database)
    with pytest.raises(LangMemCoreError) as info:
        result = call(ctx)
        if inspect.isawaitable(result):
            await result
    error = info.value
    assert isinstance(error, expected), repr(error)
    assert isinstance(error, ValueError), repr(error)
    message = str(error)
    assert not any(word in message for word in FORBIDDEN), message
    assert len(message) < 1000, message
    assert await stored(database) == before


async def test_good_input_next_to_the_bad_still_works(ctx: Ctx, database: Database) -> None:
    """The checks refuse only what cannot be stored: limits themselves are accepted."""
    edge_key = "k" * (LIMITS.key_bytes - len("item:"))
    await ctx.store.aput(ctx.ns, edge_key, {"text": "Dana keeps bees.", "n": deep(10)}, ttl=5)
    assert (await ctx.store.aget(ctx.ns, edge_key)) is not None
    ns = ("a" * LIMITS.label_bytes, "b")
    report = await ctx.memory.aingest_many(ns, [fresh(), fresh("Erin plays the oboe.")])
    assert report.count("append") + report.count("merge") == 2
    found = await ctx.memory.asearch(ctx.ns, "bees " * 100, k=LIMITS.k)
    assert len(found) >= 1


async def test_the_database_refusing_input_is_invalid_input(database: Database) -> None:
    """Past the checks, what Postgres itself refuses (class 22 or 54) is an
    InvalidInputError in the project's words, and the transaction leaves nothing."""
    before = await stored(database)
    with pytest.raises(InvalidInputError, match="bigint out of range") as out_of_range:
        async with database.session() as session:
            await session.execute(text("SELECT CAST(:v AS bigint)"), {"v": 2**63})
    oversized = insert(Item).values(namespace="bad-raw", key=secrets.token_hex(3000), value={})
    with pytest.raises(InvalidInputError, match="index row") as too_big:
        async with database.session() as session:
            await session.execute(oversized)
    for error in (out_of_range.value, too_big.value):
        assert not isinstance(error, ConnectionError)
        assert not any(word in str(error) for word in FORBIDDEN), str(error)
    assert await stored(database) == before
