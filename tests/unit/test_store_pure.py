"""The store's pure parts: item SQL builders (compiled, no database), value checks,
indexed text, index settings and op validation."""

from __future__ import annotations

import re

import pytest
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from sqlalchemy.dialects import postgresql

from langmemcore import ConfigurationError, InvalidInputError, InvalidNamespaceError
from langmemcore.storage.items import queries as q
from langmemcore.storage.items.filters import filter_condition
from langmemcore.storage.prepared import Prepared
from langmemcore.store._index import (
    check_value,
    index_spec,
    item_key_of,
    item_text,
    observation_key,
)
from langmemcore.store._ops import check_op, prepare_puts


def sql(stmt: object) -> str:
    if isinstance(stmt, Prepared):
        stmt = stmt.statement
    compiled = stmt.compile(  # type: ignore[attr-defined]
        dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}
    )
    return str(compiled)


def test_search_filters_by_prefix_then_orders_by_last_update() -> None:
    text = sql(q.search_items("a_b", {"n": 1}, limit=3, offset=2))
    assert "item_view.namespace = 'a_b' OR item_view.namespace LIKE 'a\\_b.%%'" in text
    assert re.search(r"ORDER BY item_view.updated_at DESC, item_view.namespace COLLATE \"C\"", text)
    assert "LIMIT 3 OFFSET 2" in text
    assert "expires_at" not in text.split("WHERE")[-1]
    omitting = sql(q.search_items(None, None, limit=1, offset=0, omit_expired=True))
    assert "item_view.expires_at > now()" in omitting.split("WHERE")[-1]


def test_filter_operators_compare_same_json_types_and_missing_as_null() -> None:
    text = sql(filter_condition({"n": {"$gt": 2, "$ne": 5}, "m": None, "nested": {"x": 1}}))
    assert "jsonb_typeof(items.value['n']) = jsonb_typeof(CAST('2' AS JSONB))" in text
    assert "items.value['n'] > CAST('2' AS JSONB)" in text
    assert "coalesce(items.value['n'], CAST('null' AS JSONB)) != CAST('5' AS JSONB)" in text
    assert "coalesce(items.value['m'], CAST('null' AS JSONB)) = CAST('null' AS JSONB)" in text
    assert "jsonb_typeof(items.value['nested']) = 'object'" in text
    assert "coalesce(items.value['nested']['x'], CAST('null' AS JSONB))" in text
    with pytest.raises(ValueError, match="Unsupported operator"):
        filter_condition({"n": {"$in": [1]}})


@pytest.mark.parametrize(
    ("path", "kind", "matches", "misses"),
    [
        (("a", "*", "c"), "prefix", ["a.b.c", "a.x.c.d"], ["a.c", "ab.b.c", "a.b.cd"]),
        (("c",), "suffix", ["c", "a.b.c"], ["a.bc", "c.d"]),
        (("a_b",), "prefix", ["a_b", "a_b.c"], ["aXb", "a_bc"]),
    ],
)
def test_namespace_match_patterns_work_on_whole_labels(
    path: tuple[str, ...], kind: str, matches: list[str], misses: list[str]
) -> None:
    pattern = q.namespace_match_pattern(path, kind)
    assert all(re.search(pattern, m) for m in matches)
    assert not any(re.search(pattern, m) for m in misses)


def test_list_namespaces_truncates_and_orders_in_code_point_order() -> None:
    text = sql(q.list_namespaces([("prefix", ("a",))], max_depth=2, limit=5, offset=1))
    assert "string_to_array(item_view.namespace, '.')" in text and "[1:2]" in text
    assert 'COLLATE "C"' in text and "LIMIT 5 OFFSET 1" in text


def test_upsert_keeps_created_at_and_task_requeue_bumps_version() -> None:
    text = str(
        q.upsert_items(
            [{"namespace": "a", "key": "k", "value": {}, "index_text": None, "ttl_minutes": 2.0}]
        ).statement.compile(dialect=postgresql.dialect())
    )
    assert "ON CONFLICT (namespace, key) DO UPDATE" in text
    assert "created_at" not in text.split("DO UPDATE")[1]
    assert "version = (item_tasks.version + 1)" in sql(q.enqueue_tasks([("a", "k")]))
    assert "FOR UPDATE SKIP LOCKED" in sql(q.claim_tasks(None, 10))
    assert "item_tasks.version" in sql(q.finish_tasks([("a", "k", 1)]))


def test_check_value_refuses_what_cannot_round_trip() -> None:
    assert check_value({"a": [1, {"b": None}], "c": 1.5}) == {"a": [1, {"b": None}], "c": 1.5}
    for bad, message in [
        (["x"], "dict"),
        ({"a": float("inf")}, "JSON"),
        ({"a": {1: "x"}}, "non-string key"),
        ({"a": "x\x00"}, "NUL"),
        ({"a": object()}, "not JSON"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            check_value(bad)


def test_item_text_joins_field_texts_and_skips_blank() -> None:
    value = {"title": "Trip", "body": {"text": "Alps hike"}, "tags": ["a", " "], "n": 3}
    assert item_text(value, ["$"], max_chars=100) == "Trip\nAlps hike\na"
    assert item_text(value, ["body.text", "title"], max_chars=100) == "Alps hike\nTrip"
    assert item_text(value, ["tags[*]"], max_chars=100) == "a"
    assert item_text(value, ["missing"], max_chars=100) is None
    assert item_text({"n": 1}, ["$"], max_chars=100) is None
    with pytest.raises(InvalidInputError, match="limit is 5"):
        item_text(value, ["title", "body.text"], max_chars=5)


def test_index_settings_and_observation_keys() -> None:
    assert index_spec(None).fields == ("$",) and index_spec(None).enabled
    assert not index_spec(False).enabled
    assert index_spec({"fields": ["text"], "dims": 384}).fields == ("text",)
    with pytest.raises(ConfigurationError):
        index_spec({"fields": "text"})
    assert item_key_of(observation_key("k")) == "k"
    assert item_key_of("D1:3") is None


def test_check_op_uses_langmemcore_errors() -> None:
    check_op(PutOp(("langgraph",), "k", {}))  # refused by put / aput only, as in LangGraph
    with pytest.raises(InvalidNamespaceError):
        check_op(PutOp((), "k", {}))
    with pytest.raises(InvalidNamespaceError):
        check_op(GetOp(("a.b",), "k"))
    with pytest.raises(InvalidNamespaceError):
        check_op(ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a", "")),)))
    with pytest.raises(InvalidInputError, match="empty"):
        check_op(SearchOp(("a",), query="  "))
    with pytest.raises(InvalidInputError, match="Unsupported filter operator '\\$in'"):
        check_op(SearchOp(("a",), filter={"n": {"$in": [1]}}))
    with pytest.raises(InvalidInputError, match="limit must be between 0 and"):
        check_op(SearchOp(("a",), limit=-1))
    with pytest.raises(InvalidInputError, match="Unknown operation"):
        check_op("get")
    check_op(ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("*",)),)))


def test_last_put_of_a_key_wins_and_index_false_skips_text() -> None:
    spec = index_spec(None)
    puts = prepare_puts(
        [
            PutOp(("a",), "k", {"t": "first"}),
            PutOp(("a",), "k", {"t": "second"}),
            PutOp(("a",), "j", {"t": "quiet"}, index=False),
            PutOp(("a",), "gone", None),
        ],
        spec,
        100,
    )
    assert [(p.key, p.value, p.text) for p in puts] == [
        ("k", {"t": "second"}, "second"),
        ("j", {"t": "quiet"}, None),
        ("gone", None, None),
    ]
