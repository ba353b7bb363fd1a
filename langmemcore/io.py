"""Loading observations from files: a JSON list, JSON Lines, or the LoCoMo format.

A file is a JSON list of records, JSON Lines (one record a line), an object with an
``"observations"`` list of records (the demo conversation's shape), or a LoCoMo file.
A plain record is ``{"text": ..., "speaker"?: ..., "time"?: ..., "key"?: ..., "metadata"?:
{...}}``; ``time`` is ISO 8601 (``"2024-03-02T18:30:00+00:00"``, ``"2024-03-02"``) or
LoCoMo's session style (``"1:56 pm on 8 May, 2023"``). A record without a key gets one from
its content, so loading the same file twice ingests nothing new. A LoCoMo file (a list of
samples with ``"conversation"``) yields one batch per conversation, keyed by dia_id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from langmemcore._errors import InvalidInputError
from langmemcore.construction.ingest import ObservationIn
from langmemcore.locomo import Conversation, parse_locomo, parse_session_datetime
from langmemcore.storage.records import content_hash

__all__ = [
    "ObservationBatch",
    "conversation_observations",
    "load_observations",
    "parse_records",
    "parse_time",
]


@dataclass(frozen=True)
class ObservationBatch:
    """Observations that belong together (one conversation of a file).

    Attributes:
        name: The conversation's id (LoCoMo ``sample_id``), ``None`` for a plain file.
        observations: The observations, in file order.
    """

    name: str | None
    observations: tuple[ObservationIn, ...]


def parse_time(value: str) -> datetime:
    """Parse an ISO 8601 date / datetime or a LoCoMo session date.

    Raises:
        InvalidInputError: If the value has neither shape.
    """
    text = value.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return parse_session_datetime(text)


def conversation_observations(conversation: Conversation) -> list[ObservationIn]:
    """A LoCoMo conversation's turns as observations (key = dia_id, metadata = the session)."""
    return [
        ObservationIn(t.dia_id, t.full_text, t.speaker, t.event_time, {"session": t.session})
        for t in conversation.turns
    ]


def _record(raw: Any, where: str) -> ObservationIn:
    if isinstance(raw, str):
        raw = {"text": raw}
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{where}: expected an object with 'text', got {raw!r:.80}")
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"{where}: 'text' is missing or empty")
    speaker = raw.get("speaker")
    time = raw.get("time")
    metadata = raw.get("metadata") or {}
    if speaker is not None and not isinstance(speaker, str):
        raise InvalidInputError(f"{where}: 'speaker' must be a string")
    if time is not None and not isinstance(time, str):
        raise InvalidInputError(f"{where}: 'time' must be a string")
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{where}: 'metadata' must be an object")
    key = raw.get("key")
    if key is None:
        key = content_hash(f"{speaker or ''}\x1f{time or ''}\x1f{text}")[:24]
    try:
        when = parse_time(time) if time else None
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from exc
    return ObservationIn(str(key), text, speaker, when, dict(metadata))


def parse_records(records: Sequence[Any], source: str = "input") -> ObservationBatch:
    """Turn plain records (or bare strings) into observations.

    Args:
        records: The decoded records.
        source: Name used in error messages.

    Raises:
        InvalidInputError: If a record has no text, a malformed field or a key used twice.
    """
    observations = [_record(r, f"{source} record {i + 1}") for i, r in enumerate(records)]
    seen: dict[str, int] = {}
    for i, observation in enumerate(observations):
        if observation.key in seen and observations[seen[observation.key]] != observation:
            raise InvalidInputError(f"{source} record {i + 1}: key {observation.key!r} used twice")
        seen.setdefault(observation.key, i)
    return ObservationBatch(None, tuple(observations))


def _is_locomo(document: Any) -> bool:
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(s, Mapping) and "conversation" in s for s in document)
    )


def load_observations(path: str | Path) -> list[ObservationBatch]:
    """Read observations from a JSON list, JSON Lines, ``{"observations": [...]}`` or LoCoMo.

    Args:
        path: The file.

    Returns:
        One batch for a plain file; one per conversation for a LoCoMo file.

    Raises:
        InvalidInputError: If the file is not valid JSON / JSON Lines or a record is malformed.
    """
    file = Path(path)
    text = file.read_text(encoding="utf-8")
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError:
        document = None
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        records = []
        for number, line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{file}:{number}: not JSON ({exc.msg})") from exc
    else:
        if _is_locomo(document):
            return [
                ObservationBatch(c.sample_id, tuple(conversation_observations(c)))
                for c in parse_locomo(document)
            ]
        if isinstance(document, Mapping) and isinstance(document.get("observations"), list):
            records = document["observations"]
        elif isinstance(document, Mapping):
            records = [document]
        elif isinstance(document, list):
            records = document
        else:
            raise InvalidInputError(f"{file}: expected a JSON list of records or JSON Lines")
    return [parse_records(records, file.name)]
