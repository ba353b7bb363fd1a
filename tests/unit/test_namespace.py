from __future__ import annotations

import pytest
from langgraph.store.base import InvalidNamespaceError as LangGraphInvalidNamespaceError

from langmemcore import InvalidNamespaceError, LangMemCoreError
from langmemcore._namespace import (
    decode_namespace,
    encode_namespace,
    encode_prefix,
    like_prefix_pattern,
    validate_namespace,
)


@pytest.mark.parametrize(
    "namespace",
    [
        (),
        [],
        "users",
        None,
        42,
        ("",),
        ("users", ""),
        ("users.alice",),
        ("users", "a.b"),
        ("langgraph",),
        ("langgraph", "x"),
        ("users", 3),
        ("nul\x00byte",),
    ],
    ids=[
        "empty-tuple",
        "empty-list",
        "bare-string",
        "none",
        "int",
        "empty-label",
        "empty-second-label",
        "dot",
        "dot-second",
        "langgraph-root",
        "langgraph-root-2",
        "non-string-label",
        "nul-byte",
    ],
)
def test_each_invalid_namespace_form_is_refused(namespace: object) -> None:
    with pytest.raises(InvalidNamespaceError) as info:
        validate_namespace(namespace)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, LangMemCoreError)
    assert isinstance(info.value, LangGraphInvalidNamespaceError)


def test_langgraph_is_allowed_below_the_root() -> None:
    assert validate_namespace(["users", "langgraph"]) == ("users", "langgraph")


def test_encoding_round_trips() -> None:
    ns = ("users", "alice", "memories")
    assert encode_namespace(ns) == "users.alice.memories"
    assert decode_namespace(encode_namespace(ns)) == ns


def test_a_prefix_encodes_like_a_namespace_but_may_be_empty_or_rooted_at_langgraph() -> None:
    assert encode_prefix(("users", "alice")) == "users.alice"
    assert encode_prefix(()) is None
    assert encode_prefix(("langgraph",)) == "langgraph"
    with pytest.raises(InvalidNamespaceError):
        encode_prefix(("a.b",))


def test_prefix_pattern_escapes_like_wildcards() -> None:
    assert like_prefix_pattern("a") == "a.%"
    assert like_prefix_pattern("a_b") == "a\\_b.%"
    assert like_prefix_pattern("100%") == "100\\%.%"
