"""What a put stores and what it gives memory: value checks, indexed text, speaker and
event time.

Pure functions. Field paths follow LangGraph's ``get_text_at_path`` (``"a.b"``,
``"items[*].text"``, ``"{a,b}"``); the whole-document path ``"$"`` contributes the value's
string leaves (readable text for construction, rather than LangGraph's JSON dump), less the
fields read as the speaker and the time.

Speaker and time (see :func:`attribution_of`) are read, unless the ``index`` mapping names
the fields (``"speaker"`` / ``"time"``: a dotted path, or ``False`` for none), from
``"speaker"`` and ``"time"`` / ``"event_time"`` / ``"timestamp"``; from a LangChain message
dict (``role`` or ``type`` with ``content``, or ``type`` with ``data``: the ``name`` when
given, else the role, ``human`` as ``"user"`` and ``ai`` as ``"assistant"``); and from the
``content`` mapping of langmem's ``{"kind", "content"}`` values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from langgraph.store.base import get_text_at_path

from langmemcore._errors import ConfigurationError, InvalidInputError
from langmemcore._validate import LIMITS, check_mapping, check_string, validate_text
from langmemcore.io import parse_time
from langmemcore.storage.items.view import ITEM_KEY_PREFIX

__all__ = [
    "ITEM_KEY_PREFIX",
    "Attribution",
    "IndexSpec",
    "attribution_of",
    "check_value",
    "index_spec",
    "item_key_of",
    "item_text",
    "observation_key",
]


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
    speaker: str | Literal[False] | None = None
    """Dotted path of the speaker (``None``: the default fields; ``False``: no speaker)."""
    time: str | Literal[False] | None = None
    """Dotted path of the event time (``None``: the default fields; ``False``: the put's
    time always)."""


_FIELD_KEYS = ("speaker", "time")
"""Keys of the ``index`` mapping that name the speaker and time fields."""


def _field_setting(index: Mapping[str, Any], name: str) -> str | Literal[False] | None:
    setting = index.get(name)
    if setting is None or setting is False:
        return setting
    if not isinstance(setting, str) or not all(part.strip() for part in setting.split(".")):
        raise ConfigurationError(
            f"index {name!r} must be a field path such as 'author' or 'meta.{name}', "
            f"False or None, got {setting!r}"
        )
    return setting


def index_spec(index: Mapping[str, Any] | Literal[False] | None) -> IndexSpec:
    """Normalise the constructor's ``index`` argument.

    Args:
        index: ``None`` (index every string of the value), ``False`` (no memory; search
            ignores ``query`` like an unindexed ``PostgresStore``) or an ``IndexConfig``-
            style mapping whose ``fields`` are used (``dims`` / ``embed`` come from the
            memory's embedder and are ignored); ``speaker`` / ``time`` name the fields
            holding a put's speaker and event time (a dotted path, or ``False``).

    Raises:
        ConfigurationError: ``fields`` is not a list of strings, or ``speaker`` / ``time``
            is not a field path, ``False`` or ``None``.
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
    speaker, time = (_field_setting(index, name) for name in _FIELD_KEYS)
    return IndexSpec(True, tuple(fields), speaker, time)


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


Path = tuple[str, ...]
"""Keys from the top of a value down to one field."""


def _leaves(value: Any, skip: frozenset[Path], path: Path = ()) -> list[str]:
    if path in skip:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [t for k, v in value.items() for t in _leaves(v, skip, (*path, k))]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _leaves(v, skip, path)]
    return []


def item_text(
    value: Mapping[str, Any],
    fields: Sequence[str],
    *,
    max_chars: int,
    skip: frozenset[Path] = frozenset(),
) -> str | None:
    """The text an item gives memory: the texts at ``fields`` joined by newlines.

    Args:
        value: The item's value.
        fields: Field paths (``"$"``: every string of the value, less ``skip``).
        max_chars: Longest text accepted.
        skip: Fields that ``"$"`` leaves out (those read as speaker and time).

    Returns:
        ``None`` when no field holds a string (the item is stored but not indexed).

    Raises:
        InvalidInputError: The fields hold strings but every one is empty or blank (as
            :meth:`Memory.aingest <langmemcore.Memory.aingest>` refuses empty text), or
            the text is longer than ``max_chars``; nothing is stored.
    """
    found: list[str] = []
    for path in fields:
        found.extend(_leaves(value, skip) if path == "$" else get_text_at_path(value, path))
    texts = [t for t in found if t.strip()]
    if not texts:
        if found:
            raise InvalidInputError(
                "indexed item text is empty: the value's indexed fields hold only blank "
                "strings (put it with index=False to store it without memory)"
            )
        return None
    text = "\n".join(dict.fromkeys(texts))
    return validate_text(text, max_chars=max_chars, what="indexed item")


@dataclass(frozen=True)
class Attribution:
    """Who said an item and when, as read from its value.

    Attributes:
        speaker: The speaker, or ``None``.
        event_time: When it happened (naive times taken as UTC), or ``None`` for the
            put's time.
        fields: The fields read, which the whole-document path ``"$"`` leaves out.
    """

    speaker: str | None
    """The speaker, or ``None``."""
    event_time: datetime | None
    """When it happened (naive times taken as UTC), or ``None`` for the put's time."""
    fields: frozenset[Path]
    """The fields read, which the whole-document path ``"$"`` leaves out."""


Found = tuple[Path, Any]
"""A field's path and its raw value."""

_TIME_KEYS = ("time", "event_time", "timestamp")
_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
}
"""LangChain / OpenAI message roles and the speaker each stands for."""


def _first(value: Mapping[str, Any], base: Path, keys: Sequence[str]) -> Found | None:
    for key in keys:
        if value.get(key) is not None:
            return (*base, key), value[key]
    return None


def _message_speaker(value: Mapping[str, Any], base: Path) -> tuple[Found, Path] | None:
    """A LangChain message's speaker (its ``name``, else its role) and its role field."""
    role_key = "role" if "role" in value else "type"
    role = value.get(role_key)
    if not isinstance(role, str) or role not in _ROLES:
        return None
    body: Any = value if "content" in value else value.get("data")
    at = base if body is value else (*base, "data")
    if not isinstance(body, Mapping) or "content" not in body:
        return None
    role_path = (*base, role_key)
    if body.get("name") is not None:
        return ((*at, "name"), body["name"]), role_path
    return (role_path, _ROLES[role]), role_path


class _Fields(NamedTuple):
    speaker: Found | None
    time: Found | None
    role: Path | None
    """The role field of a LangChain message, also left out of ``"$"``."""


def _defaults(value: Mapping[str, Any], base: Path = ()) -> _Fields:
    """The speaker and time fields found by the default rules (see the module)."""
    found = _Fields(_first(value, base, ("speaker",)), _first(value, base, _TIME_KEYS), None)
    if found.speaker is None:
        message = _message_speaker(value, base)
        if message is not None:
            found = found._replace(speaker=message[0], role=message[1])
    content = value.get("content")
    if "kind" in value and isinstance(content, Mapping) and None in found[:2]:
        inner = _defaults(content, (*base, "content"))
        if found.speaker is None:
            found = found._replace(speaker=inner.speaker, role=inner.role)
        found = found._replace(time=found.time or inner.time)
    return found


def _configured(value: Mapping[str, Any], setting: str | Literal[False]) -> Found | None:
    if setting is False:
        return None
    node: Any = value
    path = tuple(setting.split("."))
    for part in path:
        if not isinstance(node, Mapping) or node.get(part) is None:
            return None
        node = node[part]
    return path, node


def _field_name(path: Path) -> str:
    return ".".join(path)


def _parse_time(found: Found) -> datetime:
    path, raw = found
    field = _field_name(path)
    number = isinstance(raw, int | float) and not isinstance(raw, bool)
    if not isinstance(raw, str) and not number:
        raise InvalidInputError(
            f"store value field {field!r} (the time) must be an ISO 8601 string or "
            f"POSIX seconds, got {type(raw).__name__}"
        )
    try:
        moment = parse_time(raw) if isinstance(raw, str) else datetime.fromtimestamp(raw, UTC)
    except (InvalidInputError, OverflowError, OSError, ValueError) as exc:
        raise InvalidInputError(
            f"store value field {field!r} (the time) is not a time: {raw!r:.80} "
            "(use ISO 8601, e.g. '2024-03-02T18:30:00+00:00', or POSIX seconds)"
        ) from exc
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def attribution_of(value: Mapping[str, Any], spec: IndexSpec) -> Attribution:
    """Read the speaker and event time of a put's value (see the module for where).

    Raises:
        InvalidInputError: The speaker is not a string (or one Postgres cannot store or
            longer than ``Limits.speaker_bytes``), or the time does not parse; the
            message names the field.
    """
    found = _defaults(value)
    if spec.speaker is not None:
        found = found._replace(speaker=_configured(value, spec.speaker), role=None)
    if spec.time is not None:
        found = found._replace(time=_configured(value, spec.time))
    speaker = None
    if found.speaker is not None:
        what = f"store value field {_field_name(found.speaker[0])!r} (the speaker)"
        speaker = check_string(found.speaker[1], what, max_bytes=LIMITS.speaker_bytes)
    moment = None if found.time is None else _parse_time(found.time)
    read = {f[0] for f in (found.speaker, found.time) if f is not None}
    if found.role is not None:
        read.add(found.role)
    return Attribution(speaker, moment, frozenset(read))


def observation_key(key: str) -> str:
    """The observation key of the store item ``key``."""
    return ITEM_KEY_PREFIX + key


def item_key_of(observation_key: str) -> str | None:
    """The store item key behind an observation key, or ``None`` for other observations."""
    if observation_key.startswith(ITEM_KEY_PREFIX):
        return observation_key[len(ITEM_KEY_PREFIX) :]
    return None
