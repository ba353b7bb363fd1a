"""MRAgent's traversal tools: eight LangChain tools over the cue-tag-content graph and the
semantic layer (a person's information, a person's aspect).

The tools (:func:`build_traversal_tools`) are ordinary LangChain tools bound to one
namespace, sync and async, so they can also be given to another agent (e.g.
``create_agent``); ``langmemcore.agents.create_traversal_tools`` builds the same tools with a
namespace filled in from each run. Each returns compact JSON text and, as its artifact, the
ids of the notes whose content it showed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from langmemcore._bridge import run_sync
from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore._namespace import validate_namespace
from langmemcore.profiles.aspects import ASPECTS
from langmemcore.retrieval import traversal as tr
from langmemcore.retrieval.profile_channel import aspect_values
from langmemcore.storage.database import Database
from langmemcore.storage.models import ACTIVE
from langmemcore.storage.profiles.records import StoredValue
from langmemcore.storage.repository import Repository

__all__ = [
    "MAX_CONTEXT_CHARS",
    "TRAVERSAL_TOOLS",
    "Traversal",
    "ToolOutput",
    "build_traversal_tools",
    "tool_error",
    "validation_message",
]

MAX_CONTEXT_CHARS = 600
"""A note's text is cut to this many characters in tool output."""

ToolOutput = tuple[str, tuple[int, ...]]


class _FindKeywords(BaseModel):
    text: str = Field(description="A person, thing, place or theme from the question.")


class _KeywordTags(BaseModel):
    keyword: str = Field(description="A cue, as returned by find_keywords.")


class _NotesFor(BaseModel):
    keyword: str = Field(description="A cue, as returned by find_keywords.")
    tag: str | None = Field(
        default=None, description="A tag (or relation) from keyword_tags; omit for all notes."
    )


class _NoteCues(BaseModel):
    note_id: int = Field(description="The id of a note you have seen.")


class _Timeline(BaseModel):
    start_date: str = Field(description="First day, YYYY-MM-DD.")
    end_date: str | None = Field(
        default=None, description="Last day (included), YYYY-MM-DD; omit for one day."
    )


class _TopicNotes(BaseModel):
    topic: str | int = Field(description="A topic id, a topic label, or a short description.")


class _PersonProfile(BaseModel):
    person: str = Field(description="A person's name, as the conversation names them.")


class _PersonAspect(BaseModel):
    person: str = Field(description="A person's name, as the conversation names them.")
    aspect: str = Field(description=f"One of: {', '.join(ASPECTS)}.")


def validation_message(error: ValidationError) -> str:
    """A tool's argument errors as the text the model reads."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors()
    )
    return f"error: invalid arguments ({problems})"


def tool_error(error: ToolException) -> str:
    """A tool's error as the text the model reads."""
    return f"error: {error}"


def _when(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTEXT_CHARS else text[: MAX_CONTEXT_CHARS - 1] + "…"


def _note(hit: tr.NoteHit) -> dict[str, Any]:
    return {"id": hit.id, "time": _when(hit.event_time), "text": _clip(hit.context)}


def _value(stored: StoredValue) -> dict[str, Any]:
    return {"value": stored.value, "since": _when(stored.first_time)}


def _render(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class Traversal:
    """The traversal tools' bodies, bound to one database, embedder and namespace."""

    def __init__(
        self, database: Database, embeddings: Embeddings, namespace: tuple[str, ...], limit: int
    ) -> None:
        self.database = database
        self.embeddings = embeddings
        self.namespace = namespace
        self.limit = limit

    async def _embed(self, text: str) -> list[float]:
        return await self.embeddings.aembed_query(text)

    @asynccontextmanager
    async def _repo(self) -> AsyncIterator[Repository]:
        """A read transaction; unknown names / ids and bad input become tool errors."""
        try:
            async with Repository.open(self.database) as repo:
                yield repo
        except (NotFoundError, InvalidInputError) as exc:
            raise ToolException(str(exc)) from exc

    @staticmethod
    def _notes(head: dict[str, Any], found: tr.NoteList) -> ToolOutput:
        body = {**head, "total": found.total, "notes": [_note(n) for n in found.notes]}
        return _render(body), tuple(n.id for n in found.notes)

    async def find_keywords(self, text: str) -> ToolOutput:
        """Cues closest in meaning to ``text``, with their note counts."""
        if not text.strip():
            raise ToolException("text is empty")
        vector = await self._embed(text)
        async with self._repo() as repo:
            hits = await tr.find_keywords(repo, self.namespace, vector, self.limit)
        return _render({"keywords": [h._asdict() for h in hits]}), ()

    async def keyword_tags(self, keyword: str) -> ToolOutput:
        """The tags and relations of the associations around a cue."""
        async with self._repo() as repo:
            name, notes, tags = await tr.keyword_tags(repo, self.namespace, keyword, self.limit)
        return _render({"keyword": name, "notes": notes, "tags": [t._asdict() for t in tags]}), ()

    async def notes_for(self, keyword: str, tag: str | None = None) -> ToolOutput:
        """Notes carrying a cue, optionally through associations with a tag."""
        async with self._repo() as repo:
            found = await tr.notes_for(repo, self.namespace, keyword, tag, self.limit)
        return self._notes({"keyword": keyword, "tag": tag}, found)

    async def note_cues(self, note_id: int) -> ToolOutput:
        """A note's text, cues, links and topics."""
        async with self._repo() as repo:
            cues = await tr.note_cues(repo, self.namespace, note_id, self.limit)
        body = {
            **_note(cues.note),
            "status": cues.status,
            "keywords": list(cues.keywords),
            "links": [n._asdict() for n in cues.neighbours],
            "topics": [t._asdict() for t in cues.topics],
        }
        return _render(body), (cues.note.id,) if cues.status == ACTIVE else ()

    async def timeline(self, start_date: str, end_date: str | None = None) -> ToolOutput:
        """Notes that happened from ``start_date`` to ``end_date``, oldest first."""
        async with self._repo() as repo:
            start, end = tr.date_range(start_date, end_date)
            found = await tr.timeline(repo, self.namespace, start, end, self.limit)
        return self._notes({"from": _when(start), "before": _when(end)}, found)

    async def topic_notes(self, topic: str | int) -> ToolOutput:
        """The notes of a topic (by id, label or description)."""
        async with self._repo() as repo:
            hit, found = await tr.topic_notes(
                repo, self.namespace, str(topic), self._embed, self.limit
            )
        return self._notes({"topic": hit._asdict()}, found)

    async def _subject(self, repo: Repository, person: str) -> str:
        """The profile subject ``person`` names (case-insensitive), or a tool error."""
        subjects = [s for s, _values, _current in await repo.profile_subjects(self.namespace)]
        for subject in subjects:
            if subject.casefold() == " ".join(person.split()).casefold():
                return subject
        known = ", ".join(subjects[: self.limit]) or "none"
        raise ToolException(f"memory has no profile of {person!r}; profiles: {known}")

    async def person_profile(self, person: str) -> ToolOutput:
        """A person's aspects with their current values."""
        async with self._repo() as repo:
            subject = await self._subject(repo, person)
            values = await aspect_values(repo, self.namespace, subject, ())
        aspects: dict[str, dict[str, Any]] = {}
        shown: list[int] = []
        for stored, value in values:
            entry = aspects.setdefault(stored.aspect, {"aspect": stored.aspect, "current": []})
            if stored.current:
                entry["current"].append({**_value(stored), "note_ids": list(value.note_ids)})
                shown.extend(value.note_ids)
            else:
                entry["earlier"] = entry.get("earlier", 0) + 1
        ordered = [aspects[a] for a in ASPECTS if a in aspects]
        return _render({"person": subject, "aspects": ordered}), tuple(dict.fromkeys(shown))

    async def person_aspect(self, person: str, aspect: str) -> ToolOutput:
        """One aspect of a person with its history, newest first."""
        name = aspect.strip().casefold()
        if name not in ASPECTS:
            raise ToolException(f"unknown aspect {aspect!r}; the aspects are {', '.join(ASPECTS)}")
        async with self._repo() as repo:
            subject = await self._subject(repo, person)
            values = await aspect_values(repo, self.namespace, subject, (name,))
            ids = list(dict.fromkeys(n for _s, v in values for n in v.note_ids))
            rows = await repo.note_summaries(self.namespace, ids)
        notes = {i: tr.NoteHit(i, context, when) for i, context, _keywords, when in rows}
        history = [
            {
                **_value(stored),
                "current": stored.current,
                "until": _when(stored.ended_at),
                "end": stored.end,
                "notes": [_note(notes[n]) for n in value.note_ids if n in notes],
            }
            for stored, value in sorted(values, key=lambda sv: sv[0].first_time, reverse=True)
        ]
        body = {"person": subject, "aspect": name, "values": history}
        return _render(body), tuple(n for n in ids if n in notes)


TRAVERSAL_TOOLS: tuple[tuple[str, type[BaseModel], str], ...] = (
    (
        "find_keywords",
        _FindKeywords,
        "Cues (keywords) in memory closest in meaning to a text, with how many notes carry "
        "each. The entry point of every traversal.",
    ),
    (
        "keyword_tags",
        _KeywordTags,
        "Forward move cue -> tag: the tags and relations of the associations around a cue, "
        "with edge counts. Choose a direction before reading contents.",
    ),
    (
        "notes_for",
        _NotesFor,
        "Forward move (cue, tag) -> content: notes carrying the cue that have an association "
        "with that tag (or relation); without a tag, every note with the cue. Returns note "
        "id, time and text.",
    ),
    (
        "note_cues",
        _NoteCues,
        "Reverse move content -> (cue, tag): a note's text, its cues, the notes it is linked "
        "to (relation, tag, strength) and its topics.",
    ),
    (
        "timeline",
        _Timeline,
        "Notes that happened from start_date to end_date (both included), oldest first.",
    ),
    (
        "topic_notes",
        _TopicNotes,
        "Notes of a topic group (by topic id, label, or the topic closest to a description).",
    ),
    (
        "person_profile",
        _PersonProfile,
        "Semantic layer: what memory knows about a person: each aspect (home, work, pets, "
        "...) with its current values, since when, the ids of the notes stating them, and "
        "how many earlier values it had.",
    ),
    (
        "person_aspect",
        _PersonAspect,
        "Semantic layer: one aspect of a person with its history: every value, newest "
        "first, whether it is current, since and until when, and the notes stating it.",
    ),
)


def _sync(body: Callable[..., Coroutine[Any, Any, ToolOutput]]) -> Callable[..., ToolOutput]:
    """A tool body's sync twin, run through the loop bridge."""

    def run(**args: Any) -> ToolOutput:
        return run_sync(body(**args))

    return run


def build_traversal_tools(
    database: Database,
    embeddings: Embeddings,
    namespace: Sequence[str],
    *,
    limit: int = tr.DEFAULT_LIMIT,
) -> list[BaseTool]:
    """The traversal tools, bound to one namespace, for sync and async invocation.

    Each tool returns JSON text, with ``response_format="content_and_artifact"``: invoked
    with a tool call it yields a ``ToolMessage`` whose ``artifact`` is the tuple of note ids
    it showed. Bad arguments, unknown keywords / notes / topics and unparsable dates come
    back as an ``error: ...`` text with ``status="error"`` instead of raising.

    Args:
        database: The memory's database.
        embeddings: The embedder the memory was built with.
        namespace: The namespace every call is confined to.
        limit: Rows per result list.

    Raises:
        InvalidNamespaceError: The namespace is invalid.
    """
    traversal = Traversal(database, embeddings, validate_namespace(namespace), limit)
    return [
        StructuredTool.from_function(
            func=_sync(getattr(traversal, name)),
            coroutine=getattr(traversal, name),
            name=name,
            description=description,
            args_schema=schema,
            response_format="content_and_artifact",
            handle_tool_error=tool_error,
            handle_validation_error=validation_message,
        )
        for name, schema, description in TRAVERSAL_TOOLS
    ]
