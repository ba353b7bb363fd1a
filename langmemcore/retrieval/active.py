"""MRAgent's active retrieval: an LLM agent walks the cue-tag-content graph with tools.

Each step is one model call; every tool call the model makes in it is executed and answered
with a ``ToolMessage``. The agent stops when the model replies without tool calls (its own
sufficiency decision), when the step budget is spent, or when the model endpoint fails
(what was gathered is returned). Works with any ``BaseChatModel`` that supports
``bind_tools``.

The tools (:func:`build_traversal_tools`) are ordinary LangChain tools bound to one
namespace, so they can also be given to another agent (e.g. ``create_react_agent``). Each
returns compact JSON text and, as its artifact, the ids of the notes whose content it showed.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from langmemcore._errors import ConfigurationError, InvalidInputError, NotFoundError
from langmemcore._namespace import validate_namespace
from langmemcore.prompts.active import render_active_prompt
from langmemcore.retrieval import traversal as tr
from langmemcore.storage.database import Database
from langmemcore.storage.queries import ACTIVE
from langmemcore.storage.repository import Repository

__all__ = [
    "MAX_CALLS_PER_STEP",
    "ActiveResult",
    "TraversalStep",
    "active_search",
    "build_traversal_tools",
    "cited_note_ids",
    "rank_evidence",
]

MAX_CALLS_PER_STEP = 8
"""Tool calls executed per step at most; further calls in the same step get an error."""

MAX_CONTEXT_CHARS = 600
"""A note's text is cut to this many characters in tool output."""

StoppedBy = Literal["model", "budget", "error"]

_log = logging.getLogger("langmemcore.retrieval")
_CITATION = re.compile(
    r"\[\s*notes?\s*#?\s*(\d+(?:\s*(?:,|;|and)\s*(?:notes?\s*)?#?\s*\d+)*)\s*\]", re.IGNORECASE
)
ToolOutput = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class TraversalStep:
    """One tool call the agent made.

    Attributes:
        tool: The tool's name.
        args: The arguments as the model gave them.
        note_ids: Notes whose content the call showed, in its order.
        error: The error text the model got instead of a result, if the call failed.
    """

    tool: str
    args: dict[str, Any]
    note_ids: tuple[int, ...]
    error: str | None = None


@dataclass(frozen=True)
class ActiveResult:
    """What an active search gathered.

    Attributes:
        note_ids: The evidence: notes shown by the tools, deduplicated, in order of
            discovery, except that notes the final answer cites as ``[note 12]`` come first
            (in citation order); at most ``max_notes``.
        path: Every tool call, in order.
        stopped_by: ``"model"`` (it answered), ``"budget"`` (steps spent) or ``"error"``
            (the model endpoint failed).
        steps: Model calls made.
        answer: The model's final text (empty unless it stopped by itself).
        error: What went wrong when ``stopped_by == "error"``.
    """

    note_ids: tuple[int, ...]
    path: tuple[TraversalStep, ...]
    stopped_by: StoppedBy
    steps: int
    answer: str = ""
    error: str | None = None


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


def _validation_message(error: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors()
    )
    return f"error: invalid arguments ({problems})"


def _tool_error(error: ToolException) -> str:
    return f"error: {error}"


def _when(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTEXT_CHARS else text[: MAX_CONTEXT_CHARS - 1] + "…"


def _note(hit: tr.NoteHit) -> dict[str, Any]:
    return {"id": hit.id, "time": _when(hit.event_time), "text": _clip(hit.context)}


def _render(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class _Traversal:
    """The six tools' bodies, bound to one database, embedder and namespace."""

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
        if not text.strip():
            raise ToolException("text is empty")
        vector = await self._embed(text)
        async with self._repo() as repo:
            hits = await tr.find_keywords(repo, self.namespace, vector, self.limit)
        return _render({"keywords": [h._asdict() for h in hits]}), ()

    async def keyword_tags(self, keyword: str) -> ToolOutput:
        async with self._repo() as repo:
            name, notes, tags = await tr.keyword_tags(repo, self.namespace, keyword, self.limit)
        return _render({"keyword": name, "notes": notes, "tags": [t._asdict() for t in tags]}), ()

    async def notes_for(self, keyword: str, tag: str | None = None) -> ToolOutput:
        async with self._repo() as repo:
            found = await tr.notes_for(repo, self.namespace, keyword, tag, self.limit)
        return self._notes({"keyword": keyword, "tag": tag}, found)

    async def note_cues(self, note_id: int) -> ToolOutput:
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
        async with self._repo() as repo:
            start, end = tr.date_range(start_date, end_date)
            found = await tr.timeline(repo, self.namespace, start, end, self.limit)
        return self._notes({"from": _when(start), "before": _when(end)}, found)

    async def topic_notes(self, topic: str | int) -> ToolOutput:
        async with self._repo() as repo:
            hit, found = await tr.topic_notes(
                repo, self.namespace, str(topic), self._embed, self.limit
            )
        return self._notes({"topic": hit._asdict()}, found)


_TOOLS: tuple[tuple[str, type[BaseModel], str], ...] = (
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
)


def build_traversal_tools(
    database: Database,
    embeddings: Embeddings,
    namespace: Sequence[str],
    *,
    limit: int = tr.DEFAULT_LIMIT,
) -> list[BaseTool]:
    """The traversal tools, bound to one namespace.

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
    traversal = _Traversal(database, embeddings, validate_namespace(namespace), limit)
    return [
        StructuredTool.from_function(
            coroutine=getattr(traversal, name),
            name=name,
            description=description,
            args_schema=schema,
            response_format="content_and_artifact",
            handle_tool_error=_tool_error,
            handle_validation_error=_validation_message,
        )
        for name, schema, description in _TOOLS
    ]


def cited_note_ids(text: str) -> list[int]:
    """Note ids cited as ``[note 12]`` (also ``[note 3, note 4]``, ``[notes 3, 4]``), in
    order of first citation.
    """
    found = (int(n) for m in _CITATION.finditer(text) for n in re.findall(r"\d+", m.group(1)))
    return list(dict.fromkeys(found))


def rank_evidence(
    discovered: Sequence[int], cited: Sequence[int], max_notes: int
) -> tuple[int, ...]:
    """Deduplicate ``discovered``, put the ids in ``cited`` first (citation order; ids never
    discovered are ignored), and keep ``max_notes``.
    """
    found = list(dict.fromkeys(discovered))
    known = set(found)
    first = [i for i in dict.fromkeys(cited) if i in known]
    chosen = set(first)
    return tuple([*first, *(i for i in found if i not in chosen)][:max_notes])


def _call_id(call_id: str | None, step: int, index: int) -> str:
    return call_id or f"call_{step}_{index}"


async def _execute(
    tools: dict[str, BaseTool], calls: Sequence[dict[str, Any]], step: int
) -> tuple[list[ToolMessage], list[TraversalStep]]:
    """Run a step's tool calls in order; failures become error texts for the model."""
    messages: list[ToolMessage] = []
    path: list[TraversalStep] = []
    for index, call in enumerate(calls):
        name, args = str(call.get("name")), call.get("args")
        call_id = _call_id(call.get("id"), step, index)
        error: str | None = None
        if "error" in call or not isinstance(args, dict):
            error = (
                f"error: the arguments of {name} are not valid JSON: {call.get('error') or args}"
            )
        elif name not in tools:
            error = f"error: unknown tool {name!r}; the tools are {', '.join(tools)}"
        elif index >= MAX_CALLS_PER_STEP:
            error = f"error: at most {MAX_CALLS_PER_STEP} tool calls run per step; call it again"
        if error is not None:
            messages.append(ToolMessage(error, tool_call_id=call_id, name=name, status="error"))
            path.append(TraversalStep(name, _args(args), (), error))
            continue
        reply = await tools[name].ainvoke(
            {"type": "tool_call", "name": name, "args": args, "id": call_id}
        )
        assert isinstance(reply, ToolMessage)
        shown = tuple(reply.artifact or ()) if reply.status == "success" else ()
        failed = str(reply.content) if reply.status == "error" else None
        messages.append(reply)
        path.append(TraversalStep(name, dict(args or {}), shown, failed))
    return messages, path


def _args(args: object) -> dict[str, Any]:
    return dict(args) if isinstance(args, dict) else {"arguments": args}


async def active_search(
    database: Database,
    embeddings: Embeddings,
    llm: BaseChatModel,
    namespace: Sequence[str],
    query: str,
    *,
    step_budget: int = 6,
    max_notes: int = 20,
) -> ActiveResult:
    """Answer ``query`` by letting ``llm`` traverse the namespace's memory.

    Args:
        database: The memory's database.
        embeddings: The embedder the memory was built with.
        llm: A chat model supporting tool calling (``bind_tools``).
        namespace: The namespace to search (nothing outside it is ever shown).
        query: The question.
        step_budget: Model calls allowed (each may hold several tool calls).
        max_notes: Evidence notes returned at most.

    Returns:
        The evidence, the path taken and why the agent stopped. A failing model endpoint
        does not raise: what was gathered comes back with ``stopped_by="error"``.

    Raises:
        InvalidInputError: Empty query, or a budget or ``max_notes`` below 1.
        InvalidNamespaceError: The namespace is invalid.
        ConfigurationError: The model does not support tool calling.
        DatabaseUnavailableError: The database went away during a tool call.
    """
    ns = validate_namespace(namespace)
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("the query is empty")
    if step_budget < 1 or max_notes < 1:
        raise InvalidInputError("step_budget and max_notes must be at least 1")
    tools = build_traversal_tools(database, embeddings, ns)
    try:
        model = llm.bind_tools(tools)
    except NotImplementedError as exc:
        raise ConfigurationError(
            f"{type(llm).__name__} does not support tool calling (bind_tools)"
        ) from exc
    by_name = {t.name: t for t in tools}
    messages: list[BaseMessage] = [
        SystemMessage(render_active_prompt(step_budget)),
        HumanMessage(query),
    ]
    path: list[TraversalStep] = []

    def result(stopped_by: StoppedBy, answer: str = "", error: str | None = None) -> ActiveResult:
        discovered = [i for step in path for i in step.note_ids]
        ids = rank_evidence(discovered, cited_note_ids(answer), max_notes)
        return ActiveResult(ids, tuple(path), stopped_by, steps, answer, error)

    steps = 0
    while steps < step_budget:
        try:
            reply = await model.ainvoke(messages)
        except Exception as exc:  # provider errors have no common base class
            _log.warning("active search: the model call failed at step %d: %s", steps + 1, exc)
            return result("error", error=f"the language model call failed: {exc}")
        steps += 1
        messages.append(reply)
        calls: list[dict[str, Any]] = []
        if isinstance(reply, AIMessage):
            calls = [dict(c) for c in reply.tool_calls] + [
                dict(c) for c in reply.invalid_tool_calls
            ]
        if not calls:
            return result("model", answer=reply.text)
        answers, taken = await _execute(by_name, calls, steps)
        messages.extend(answers)
        path.extend(taken)
    return result("budget")
