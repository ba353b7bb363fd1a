"""``get`` returns exactly what was put: numbers keep their type, sign and value (JSONB
alone would read ``-0.0`` as ``0`` and ``1e16`` as an integer), strings and key order are
kept, through put / batch / search and the sync and async APIs."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import GetOp, PutOp

from langmemcore._bridge import run_sync
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from langmemcore.store import MemoryStore

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([-0.0, 1e16, 1e300, 1.7976931348623157e308, 5e-324, 2.0**53 + 1])
    | TEXT
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
VALUES = st.dictionaries(TEXT, JSON, max_size=5)


def same(a: Any, b: Any) -> bool:
    """Equal with the same types, float signs and dict key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_same_tells_apart_what_jsonb_would_merge() -> None:
    assert same({"x": -0.0, "y": [1e16]}, {"x": -0.0, "y": [1e16]})
    assert not same({"x": -0.0}, {"x": 0.0})
    assert not same({"x": 1e16}, {"x": 10**16})
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1})


@pytest.fixture(scope="module")
def plain_store(database: Database, embeddings: LocalEmbeddings) -> Iterator[MemoryStore]:
    yield MemoryStore(Memory(database, embeddings), index=False)


@pytest.mark.parametrize("api", ["sync", "async"])
def test_values_come_back_exactly(plain_store: MemoryStore, api: str) -> None:
    @settings(
        max_examples=150,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(VALUES, VALUES)
    def check(first: dict[str, Any], second: dict[str, Any]) -> None:
        ns = ("roundtrip", uuid.uuid4().hex[:12])
        if api == "sync":
            plain_store.put(ns, "one", first)
            plain_store.batch([PutOp(ns, "two", second, index=False)])
            got = plain_store.get(ns, "one")
            [batched] = plain_store.batch([GetOp(ns, "two")])
            listed = plain_store.search(ns, limit=10)
        else:
            run_sync(plain_store.aput(ns, "one", first))
            run_sync(plain_store.abatch([PutOp(ns, "two", second, index=False)]))
            got = run_sync(plain_store.aget(ns, "one"))
            [batched] = run_sync(plain_store.abatch([GetOp(ns, "two")]))
            listed = run_sync(plain_store.asearch(ns, limit=10))
        assert got is not None and same(got.value, first)
        assert batched is not None and same(batched.value, second)
        by_key = {item.key: item.value for item in listed}
        assert same(by_key["one"], first) and same(by_key["two"], second)

    check()
