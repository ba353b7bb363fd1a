"""Memory tools for agents that manage memory themselves: search, manage (create / update /
delete), the semantic layer's profiles, the timeline, and MRAgent's traversal tools.

Every tool works under ``agent.invoke`` and ``agent.ainvoke`` and takes its namespace from
the run (a template such as ``("memories", "{user_id}")`` filled from ``runtime.context`` or
``config["configurable"]``, see :class:`NamespaceTemplate`), so one set of tools serves
every user. Bad arguments, unknown ids and empty text come back to the model as an
``error: ...`` tool message; a namespace field missing from the run raises
``ConfigurationError``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Literal

from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from langmemcore._bridge import run_sync
from langmemcore._errors import InvalidInputError, NotFoundError, ObservationConflictError
from langmemcore.agents._memory_source import MemoryLike, MemorySource
from langmemcore.agents._namespace_template import NamespaceLike, NamespaceTemplate
from langmemcore.construction.ingest import checked_observation
from langmemcore.memory import Memory
from langmemcore.retrieval import traversal as tr
from langmemcore.retrieval.active.tools import (
    TRAVERSAL_TOOLS,
    Traversal,
    tool_error,
    validation_message,
)
from langmemcore.retrieval.pack import RetrievedNote

__all__ = [
    "DEFAULT_NAMESPACE",
    "create_manage_memory_tool",
    "create_memory_tools",
    "create_profile_tool",
    "create_search_memory_tool",
    "create_timeline_tool",
    "create_traversal_tools",
]

DEFAULT_NAMESPACE = ("memories", "{user_id}")
"""The namespace template the tools and the middleware use unless told otherwise."""

Body = Callable[..., Awaitable[Any]]


def _render(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)


def _when(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else None


def _configurable(runtime: ToolRuntime | None) -> dict[str, Any]:
    config = getattr(runtime, "config", None) or {}
    return dict(config.get("configurable") or {})


def _memory_tool(
    source: MemorySource,
    namespace: NamespaceTemplate,
    body: Body,
    *,
    name: str,
    description: str,
    schema: type[BaseModel],
    response_format: Literal["content", "content_and_artifact"] = "content",
) -> StructuredTool:
    """A sync-and-async tool running ``body(memory, namespace, **args)`` in the run's
    namespace; input errors of memory become tool errors.
    """

    async def coroutine(runtime: ToolRuntime, **args: Any) -> Any:
        ns = namespace.resolve(runtime, _configurable(runtime))
        memory = await source.aget()
        try:
            return await body(memory, ns, **args)
        except (InvalidInputError, NotFoundError, ObservationConflictError) as exc:
            raise ToolException(str(exc)) from exc

    def func(runtime: ToolRuntime, **args: Any) -> Any:
        return run_sync(coroutine(runtime, **args))

    return StructuredTool.from_function(
        func=func,
        coroutine=coroutine,
        name=name,
        description=description,
        args_schema=schema,
        response_format=response_format,
        handle_tool_error=tool_error,
        handle_validation_error=validation_message,
    )


def _note(note: RetrievedNote) -> dict[str, Any]:
    return {
        "text": note.context,
        "sources": [
            {"id": s.key, "speaker": s.speaker, "time": _when(s.event_time)} for s in note.sources
        ],
    }


class _Search(BaseModel):
    query: str = Field(description="What to look for, in plain words.")


def create_search_memory_tool(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    k: int = 5,
    name: str = "search_memory",
) -> BaseTool:
    """A tool that searches long-term memory (the retrieval graph, ``Memory.asearch``).

    It returns JSON: ``{"memories": [{"text", "sources": [{"id", "speaker", "time"}]}]}``,
    most relevant first; a source's ``id`` is the key ``manage_memory`` updates or deletes.

    Args:
        memory: A ``Memory``, a ``MemoryStore``, or ``None`` for the default memory,
            opened on first use.
        namespace: The namespace template (or a callable of the tool's runtime).
        k: Notes returned at most.
        name: The tool's name.
    """
    source, template = MemorySource.of(memory), NamespaceTemplate(namespace)

    async def search(memory: Memory, ns: tuple[str, ...], query: str) -> str:
        found = await memory.asearch(ns, query, k=k)
        return _render({"memories": [_note(n) for n in found]})

    return _memory_tool(
        source,
        template,
        search,
        name=name,
        description=(
            "Search long-term memory for facts, preferences and past events relevant to a "
            "query. Returns notes (most relevant first) with who said them and when."
        ),
        schema=_Search,
    )


class _Manage(BaseModel):
    content: str | None = Field(
        default=None, description="The memory to create, or the new text of one to update."
    )
    action: Literal["create", "update", "delete"] = Field(
        default="create", description="create a memory, update one by id, or delete one by id."
    )
    id: str | None = Field(
        default=None, description="The id of the memory to update or delete (from search)."
    )


def create_manage_memory_tool(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    speaker: str | None = None,
    name: str = "manage_memory",
) -> BaseTool:
    """A tool that creates, updates and deletes memories (as LangMem's manage tool).

    ``create`` remembers the content under a new id (``Memory.aingest`` with that key);
    ``update`` forgets the memory with the id and remembers the new content under the same
    id; ``delete`` forgets it (``Memory.aforget``, which repairs the notes built from it).
    The tool answers ``"created memory <id>"`` (``updated`` / ``deleted``).

    Args:
        memory: A ``Memory``, a ``MemoryStore``, or ``None`` for the default memory,
            opened on first use.
        namespace: The namespace template (or a callable of the tool's runtime).
        speaker: The speaker recorded for memories the agent writes.
        name: The tool's name.
    """
    source, template = MemorySource.of(memory), NamespaceTemplate(namespace)

    async def manage(
        memory: Memory,
        ns: tuple[str, ...],
        content: str | None = None,
        action: str = "create",
        id: str | None = None,
    ) -> str:
        if action == "create" and id is not None:
            raise ToolException("create takes no id; use update to change a memory")
        if action in ("update", "delete") and not id:
            raise ToolException(f"{action} needs the id of a memory")
        if action != "delete" and not (content and content.strip()):
            raise ToolException(f"{action} needs the content to remember")
        key, now = id or uuid.uuid4().hex, datetime.now(UTC)
        if action != "delete":  # refuse bad content before an update forgets the old one
            limit = memory.config.max_observation_chars
            checked_observation(str(content), key, speaker, now, None, limit)
        if action != "create" and await memory.aforget(ns, key) is None:
            raise ToolException(f"no memory has id {key!r}")
        if action != "delete":
            await memory.aingest(ns, str(content), key=key, speaker=speaker, event_time=now)
        return f"{action}d memory {key}"

    return _memory_tool(
        source,
        template,
        manage,
        name=name,
        description=(
            "Create, update or delete a long-term memory. Call it when the user states a "
            "preference or a fact worth keeping, corrects an earlier one (update, with the "
            "id from search_memory), or asks you to forget something (delete)."
        ),
        schema=_Manage,
    )


class _Profile(BaseModel):
    subject: str | None = Field(
        default=None, description="A person's name; omit to list whom memory knows about."
    )


def create_profile_tool(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    name: str = "memory_profile",
) -> BaseTool:
    """A tool over the semantic layer: what memory knows about a person, per aspect
    (home, work, pets, ...), each value with when it held and its sources
    (``Memory.aprofile``); without a subject, the subjects memory has profiles of
    (``Memory.asubjects``).

    Args:
        memory: A ``Memory``, a ``MemoryStore``, or ``None`` for the default memory,
            opened on first use.
        namespace: The namespace template (or a callable of the tool's runtime).
        name: The tool's name.
    """
    source, template = MemorySource.of(memory), NamespaceTemplate(namespace)

    async def profile(memory: Memory, ns: tuple[str, ...], subject: str | None = None) -> str:
        if subject is None or not subject.strip():
            subjects = await memory.asubjects(ns)
            return _render(
                {"subjects": [{"subject": s.subject, "current": s.current} for s in subjects]}
            )
        return _render((await memory.aprofile(ns, subject.strip())).to_dict())

    return _memory_tool(
        source,
        template,
        profile,
        name=name,
        description=(
            "What long-term memory knows about a person: each aspect (home, work, pets, "
            "...) with its values over time. Without a subject: the people it knows about."
        ),
        schema=_Profile,
    )


class _Timeline(BaseModel):
    start_date: str = Field(description="First day, YYYY-MM-DD.")
    end_date: str | None = Field(
        default=None, description="Last day (included), YYYY-MM-DD; omit for one day."
    )


def _traversal(memory: Memory, ns: tuple[str, ...], limit: int) -> Traversal:
    return Traversal(memory.database, memory.embeddings, ns, limit)


def create_timeline_tool(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    limit: int = tr.DEFAULT_LIMIT,
    name: str = "memory_timeline",
) -> BaseTool:
    """A tool listing what happened from one day to another, oldest first (the traversal
    tools' ``timeline``); its artifact is the ids of the notes it showed.

    Args:
        memory: A ``Memory``, a ``MemoryStore``, or ``None`` for the default memory,
            opened on first use.
        namespace: The namespace template (or a callable of the tool's runtime).
        limit: Notes listed at most.
        name: The tool's name.
    """
    source, template = MemorySource.of(memory), NamespaceTemplate(namespace)

    async def timeline(
        memory: Memory, ns: tuple[str, ...], start_date: str, end_date: str | None = None
    ) -> tuple[str, tuple[int, ...]]:
        return await _traversal(memory, ns, limit).timeline(start_date, end_date)

    return _memory_tool(
        source,
        template,
        timeline,
        name=name,
        description="Long-term memory's notes from start_date to end_date, oldest first.",
        schema=_Timeline,
        response_format="content_and_artifact",
    )


def create_traversal_tools(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    limit: int = tr.DEFAULT_LIMIT,
) -> list[BaseTool]:
    """MRAgent's traversal tools (``find_keywords``, ``keyword_tags``, ``notes_for``,
    ``note_cues``, ``timeline``, ``topic_notes``, ``person_profile``, ``person_aspect``; see
    :func:`~langmemcore.retrieval.active.build_traversal_tools`) with the namespace taken
    from each run.

    Args:
        memory: A ``Memory``, a ``MemoryStore``, or ``None`` for the default memory,
            opened on first use.
        namespace: The namespace template (or a callable of the tool's runtime).
        limit: Rows per result list.
    """
    source, template = MemorySource.of(memory), NamespaceTemplate(namespace)

    def body(tool: str) -> Body:
        async def run(memory: Memory, ns: tuple[str, ...], **args: Any) -> Any:
            return await getattr(_traversal(memory, ns, limit), tool)(**args)

        return run

    return [
        _memory_tool(
            source,
            template,
            body(tool),
            name=tool,
            description=description,
            schema=schema,
            response_format="content_and_artifact",
        )
        for tool, schema, description in TRAVERSAL_TOOLS
    ]


def create_memory_tools(
    memory: MemoryLike = None,
    *,
    namespace: NamespaceLike = DEFAULT_NAMESPACE,
    k: int = 5,
) -> list[BaseTool]:
    """The four memory tools (search, manage, profile, timeline) over one memory and
    namespace template.
    """
    source = MemorySource.of(memory)
    return [
        create_search_memory_tool(source, namespace=namespace, k=k),
        create_manage_memory_tool(source, namespace=namespace),
        create_profile_tool(source, namespace=namespace),
        create_timeline_tool(source, namespace=namespace),
    ]
