"""Pure functions between an agent's messages and memory: what to search with, what to
write, and how recalled notes read in the system message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from langmemcore.retrieval.pack import RetrievedNote, estimate_tokens
from langmemcore.text.tokens import sentences

__all__ = [
    "RECALL_HEADER",
    "Turn",
    "format_recall",
    "is_question",
    "latest_human",
    "message_time",
    "stated_time",
    "new_exchange",
]

RECALL_HEADER = "Long-term memory: notes from earlier conversations, most relevant first."
"""The first line of the recall block added to the system message."""

_TIME_KEYS = ("event_time", "created_at", "timestamp")


@dataclass(frozen=True)
class Turn:
    """One message of an exchange to remember.

    Attributes:
        message: The message.
        role: ``"human"`` or ``"ai"``.
        text: Its text.
    """

    message: BaseMessage
    role: str
    text: str


def is_question(text: str) -> bool:
    """Whether ``text`` only asks (every sentence ends with a question mark)."""
    said = [s for s in sentences(text) if s.strip(" \t\n.!?")]
    return bool(said) and all(s.endswith("?") for s in said)


def latest_human(messages: Sequence[BaseMessage]) -> HumanMessage | None:
    """The last human message with text, or ``None``."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and message.text.strip():
            return message
    return None


def _final(message: BaseMessage) -> bool:
    return isinstance(message, AIMessage) and not message.tool_calls


def new_exchange(messages: Sequence[BaseMessage]) -> list[Turn]:
    """The human turns of the latest run and its final answer, in order.

    The run is what follows the previous final AI answer (an AI message without tool
    calls); tool calls and tool results are left out, and so are human messages that only
    ask questions (they would be stored as statements and outrank the facts).

    Args:
        messages: The agent's messages after the run (the whole thread).

    Returns:
        The turns to remember; empty when the run did not end with an answer.
    """
    if not messages or not _final(messages[-1]):
        return []
    start = len(messages) - 1
    while start > 0 and not _final(messages[start - 1]):
        start -= 1
    turns = [
        Turn(m, "human", m.text.strip())
        for m in messages[start:-1]
        if isinstance(m, HumanMessage) and m.text.strip() and not is_question(m.text)
    ]
    answer = messages[-1].text.strip()
    return [*turns, Turn(messages[-1], "ai", answer)] if answer else turns


def _as_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        try:
            return _as_time(datetime.fromisoformat(value))
        except ValueError:
            return None
    return None


def stated_time(message: BaseMessage) -> datetime | None:
    """When a message says it was said: an ``event_time`` / ``created_at`` / ``timestamp``
    in its ``additional_kwargs`` or ``response_metadata`` (a datetime, ISO text or epoch
    seconds; a naive time is UTC), else ``None``.
    """
    for bag in (message.additional_kwargs, message.response_metadata):
        for key in _TIME_KEYS:
            found = _as_time(bag.get(key))
            if found is not None:
                return found
    return None


def message_time(message: BaseMessage, default: datetime) -> datetime:
    """When a message was said (see :func:`stated_time`), else ``default``."""
    found = stated_time(message)
    return default if found is None else found


def _line(speaker: str | None, when: datetime | None, text: str) -> str:
    date = f"[{when.astimezone(UTC):%Y-%m-%d}] " if when else ""
    who = f"{speaker}: " if speaker else ""
    return f"- {date}{who}{' '.join(text.split())}"


def format_recall(notes: Sequence[RetrievedNote], token_budget: int) -> str:
    """The recall block for the system message: each note's source observations as
    ``- [date] speaker: text`` lines, notes in rank order, each observation once, within
    ``token_budget`` (estimated) tokens. Empty when nothing fits.
    """
    lines: list[str] = []
    seen: set[str] = set()
    used = estimate_tokens(RECALL_HEADER)
    for note in notes:
        entries = [(s.key, _line(s.speaker, s.event_time, s.text)) for s in note.sources] or [
            (f"note:{note.note_id}", _line(None, None, note.context))
        ]
        for key, line in entries:
            if key in seen:
                continue
            cost = estimate_tokens(line)
            if used + cost > token_budget:
                return "\n".join([RECALL_HEADER, *lines]) if lines else ""
            seen.add(key)
            lines.append(line)
            used += cost
    return "\n".join([RECALL_HEADER, *lines]) if lines else ""
