"""What a put stores and what it gives memory: value checks and indexed text.

Pure functions. Field paths follow LangGraph's ``get_text_at_path`` (``"a.b"``,
``"items[*].text"``, ``"{a,b}"``); the whole-document path ``"$"`` contributes the value's
string leaves (readable text for construction, rather than LangGraph's JSON dump).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.store.base import get_text_at_path

from langmemcore._errors import ConfigurationError
from langmemcore._validate import check_mapping, validate_text

__all__ = [
    "ITEM_KEY_PREFIX",
    "IndexSpec",
    "check_value",
    "index_spec",
    "item_key_of",
    "item_text",
    "observation_key",
]

ITEM_KEY_PREFIX = "item:"
"""Observation keys of store items: ``"item:" + item key`` in the item's namespace."""


@dataclass(frozen=True)
class IndexSpec:
    """The store's indexing settings.

    Attributes:
        enabled: Whether puts feed memory at all (``index=False`` turns it off).
        fields: Default field paths of a put's indexed text.
    """

    enabled: bool
    """Whether puts feed memory at all (``index=False`` turns it off)."""
    fields: tuple[str, ...]
    """Default field paths of a put's indexed text."""


def index_spec(index: Mapping[str, Any] | Literal[False] | None) -> IndexSpec:
    """Normalise the constructor's ``index`` argument.

    Args:
        index: ``None`` (index every string of the value), ``False`` (no memory; search
            ignores ``query`` like an unindexed ``PostgresStore``) or an ``IndexConfig``-
            style mapping whose ``fields`` are used (``dims`` / ``embed`` come from the
            memory's embedder and are ignored).

    Raises:
        ConfigurationError: ``fields`` is not a list of strings.
    """
    if index is False:
        return IndexSpec(False, ())
    if index is None:
        return IndexSpec(True, ("$",))
    if not isinstance(index, Mapping):
        raise ConfigurationError(f"index must be a mapping, False or None, got {index!r}")
    fields = index.get("fields") or ["$"]
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        raise ConfigurationError(f"index fields must be a list of strings, got {fields!r}")
    return IndexSpec(True, tuple(fields))


def check_value(value: object) -> dict[str, Any]:
    """Refuse a value that cannot be stored and read back exactly.

    Returns:
        The value as a plain dict (after a JSON round trip check).

    Raises:
        InvalidInputError: Not a mapping, or holds what JSON cannot (see
            :func:`~langmemcore._validate.check_json`: non-JSON data, NaN / infinity,
            NUL, lone surrogates, nesting deeper than ``Limits.value_depth``).
    """
    result: dict[str, Any] = json.loads(json.dumps(check_mapping(value, "store value")))
    return result


def _leaves(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _leaves(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _leaves(v)]
    return []


def item_text(
    value: Mapping[str, Any],
    fields: Sequence[str],
    *,
    max_chars: int,
) -> str | None:
    """The text an item gives memory: the texts at ``fields`` joined by newlines.

    Returns:
        ``None`` when no field holds text (the item is stored but not indexed).

    Raises:
        InvalidInputError: The text is longer than ``max_chars`` (nothing is stored).
    """
    texts: list[str] = []
    for path in fields:
        found = _leaves(value) if path == "$" else get_text_at_path(value, path)
        texts.extend(t for t in found if t.strip())
    if not texts:
        return None
    text = "\n".join(dict.fromkeys(texts))
    return validate_text(text, max_chars=max_chars, what="indexed item")


def observation_key(key: str) -> str:
    """The observation key of the store item ``key``."""
    return ITEM_KEY_PREFIX + key


def item_key_of(observation_key: str) -> str | None:
    """The store item key behind an observation key, or ``None`` for other observations."""
    if observation_key.startswith(ITEM_KEY_PREFIX):
        return observation_key[len(ITEM_KEY_PREFIX) :]
    return None
