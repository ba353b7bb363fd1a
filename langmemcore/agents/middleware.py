"""``MemoryMiddleware``: long-term memory for a LangChain v1 agent (``create_agent``).

Before each model call it searches memory with the latest human message and adds the
recalled notes, with the speaker and date of their sources, to the system message (the
request's, not the state's: nothing recalled is kept in the thread). After the agent
finishes it writes the run's exchange in the background. Every hook has a sync and an
async form, so the agent works under ``invoke`` and ``ainvoke`` alike.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from langmemcore._bridge import run_sync
from langmemcore._validate import check_count
from langmemcore.agents._exchange import (
    format_recall,
    latest_human,
    message_time,
    new_exchange,
    stated_time,
)
from langmemcore.agents._memory_source import MemoryLike, MemorySource
from langmemcore.agents._namespace_template import (
    NamespaceLike,
    NamespaceTemplate,
    lookup_field,
)
from langmemcore.agents._writes import BackgroundWrites
from langmemcore.agents.tools import DEFAULT_NAMESPACE, create_memory_tools
from langmemcore.construction.ingest import ObservationIn

__all__ = ["MemoryMiddleware"]

_RECALLS_KEPT = 256
"""Recalls remembered per middleware, so the model calls of one turn's tool loop search once."""

_USER_FIELDS = ("user_name", "user_id")
"""Where the human speaker's name is looked up in the context / configurable by default."""


def _configurable() -> dict[str, Any]:
    """The running graph's ``config["configurable"]`` (empty outside a run)."""
    try:
        config = get_config()
    except RuntimeError:
        return {}
    return dict(config.get("configurable") or {})


def _text_key(role: str, text: str) -> str:
    """The key of a message without an id: its role and a digest of its text."""
    return f"{role}:{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def _with_recall(system: SystemMessage | None, recall: str) -> SystemMessage:
    """The system message with the recall block after its own text."""
    if system is None:
        return SystemMessage(content=recall)
    if isinstance(system.content, str):
        joined = f"{system.content}\n\n{recall}" if system.content else recall
        return SystemMessage(content=joined, **system.model_dump(exclude={"content", "type"}))
    blocks = [*system.content, {"type": "text", "text": recall}]
    return SystemMessage(content=blocks, **system.model_dump(exclude={"content", "type"}))


class MemoryMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Long-term memory for ``langchain.agents.create_agent``: recall before the model,
    write after the agent.

    Example:
        ```python
        memory = MemoryMiddleware()  # the default memory, opened on first use
        agent = create_agent(model, middleware=[memory])
        agent.invoke({"messages": [("user", "I moved to Berlin.")]}, context={"user_id": "ana"})
        ```

    Recall: the latest human message is the query, asked as of the message's time when it
    carries one (see ``message_time``), else now; the notes found
    are added to the system message as ``- [date] speaker: text`` lines within
    ``token_budget``. The model calls of one turn's tool loop reuse that turn's recall.

    Writing: when the agent finishes, the human messages of the run and its final answer
    are ingested in the background, with the message id as key (a re-sent message is not
    stored twice), the message's ``name`` (else ``user_name`` / ``ai_name``) as speaker
    and the message's time (else now) as event time. A human message that only asks
    questions is not stored (it would outrank the facts it asks about). Call
    :meth:`aflush` / :meth:`flush` to wait for the writes; a failed write is logged and
    raised by the next flush.

    Args:
        memory: A ``Memory``, a ``MemoryStore`` (its memory is used), or ``None`` for the
            default memory (``DATABASE_URL``, else the embedded server), opened on first
            use.
        namespace: The namespace template: labels whose ``{field}`` parts are filled from
            ``runtime.context`` (a dict key or an attribute), else from
            ``config["configurable"]``; or a callable taking the runtime.
        k: Notes recalled at most per turn.
        token_budget: (Estimated) tokens the recall may add to the system message.
        tools: Also give the agent the memory tools (search, manage, profile, timeline)
            over the same memory and namespace.
        user_name: Speaker of human messages without a ``name``; default: the run's
            ``user_name``, else its ``user_id`` (context or configurable), else ``"user"``.
        ai_name: Speaker of the agent's answers without a ``name``.
        recall: Search memory before the model call.
        write: Write each run's exchange.

    Raises:
        ConfigurationError: ``memory`` or ``namespace`` is invalid.
        InvalidInputError: ``k`` or ``token_budget`` is not a positive integer.
    """

    def __init__(
        self,
        memory: MemoryLike = None,
        *,
        namespace: NamespaceLike = DEFAULT_NAMESPACE,
        k: int = 5,
        token_budget: int = 800,
        tools: bool = False,
        user_name: str | None = None,
        ai_name: str = "assistant",
        recall: bool = True,
        write: bool = True,
    ) -> None:
        super().__init__()
        check_count(k, "k", minimum=1)
        check_count(token_budget, "token_budget", minimum=1)
        self.source = MemorySource.of(memory)
        self.namespace = NamespaceTemplate(namespace)
        self.k = k
        self.token_budget = token_budget
        self.user_name = user_name
        self.ai_name = ai_name
        self.recall = recall
        self.write = write
        self.tools = create_memory_tools(self.source, namespace=namespace, k=k) if tools else []
        self._writes = BackgroundWrites()
        self._recalls: OrderedDict[tuple[tuple[str, ...], str], str] = OrderedDict()
        self._recalls_lock = threading.Lock()

    # -- recall -------------------------------------------------------------------------

    def _turn(self, request: ModelRequest[Any]) -> tuple[tuple[str, ...], HumanMessage] | None:
        """The namespace and the latest human message of the request (read in the
        hook's own context, where the run's config is visible).
        """
        human = latest_human(request.messages)
        if human is None:
            return None
        return self.namespace.resolve(request.runtime, _configurable()), human

    async def _recall_block(self, turn: tuple[tuple[str, ...], HumanMessage] | None) -> str:
        """The recall block for a turn (searched once per turn)."""
        if turn is None:
            return ""
        namespace, human = turn
        cache_key = (namespace, human.id or human.text)
        with self._recalls_lock:
            cached = self._recalls.get(cache_key)
        if cached is not None:
            return cached
        memory = await self.source.aget()
        found = await memory.asearch(namespace, human.text, k=self.k, as_of=stated_time(human))
        block = format_recall(found, self.token_budget)
        with self._recalls_lock:
            self._recalls[cache_key] = block
            while len(self._recalls) > _RECALLS_KEPT:
                self._recalls.popitem(last=False)
        return block

    def _recalled(self, request: ModelRequest[Any], block: str) -> ModelRequest[Any]:
        if not block:
            return request
        return request.override(system_message=_with_recall(request.system_message, block))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Add the recalled notes to the system message, then call the model."""
        if not self.recall:
            return handler(request)
        block = run_sync(self._recall_block(self._turn(request)))
        return handler(self._recalled(request, block))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async twin of :meth:`wrap_model_call`."""
        if not self.recall:
            return await handler(request)
        block = await self._recall_block(self._turn(request))
        return await handler(self._recalled(request, block))

    # -- write --------------------------------------------------------------------------

    def _speaker(self, message: BaseMessage, role: str, human: str) -> str:
        if message.name:
            return message.name
        return human if role == "human" else self.ai_name

    def _observations(
        self, messages: list[BaseMessage], runtime: Runtime[Any], configurable: dict[str, Any]
    ) -> list[ObservationIn]:
        context = runtime.context
        human = self.user_name or next(
            (v for f in _USER_FIELDS if (v := lookup_field(f, context, configurable)) is not None),
            "user",
        )
        now = datetime.now(UTC)
        thread = configurable.get("thread_id")
        observations = []
        for turn in new_exchange(messages):
            metadata: dict[str, Any] = {"role": turn.role}
            if thread is not None:
                metadata["thread_id"] = str(thread)
            observations.append(
                ObservationIn(
                    key=turn.message.id or _text_key(turn.role, turn.text),
                    text=turn.text,
                    speaker=self._speaker(turn.message, turn.role, human),
                    event_time=message_time(turn.message, now),
                    metadata=metadata,
                )
            )
        return observations

    def _start_write(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        """Queue the run's exchange for writing (returns at once)."""
        if not self.write:
            return
        configurable = _configurable()
        namespace = self.namespace.resolve(runtime, configurable)
        observations = self._observations(list(state["messages"]), runtime, configurable)
        if not observations:
            return
        source = self.source

        async def write() -> None:
            memory = await source.aget()
            await memory.aingest_many(namespace, observations, evolve_at_end=False)

        self._writes.submit(namespace, write)

    def after_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        """Write the run's exchange in the background."""
        self._start_write(state, runtime)

    async def aafter_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        """Async twin of :meth:`after_agent`."""
        self._start_write(state, runtime)

    async def aflush(self) -> None:
        """Wait until every exchange written so far is in memory.

        Raises:
            Exception: The first write that failed since the last flush.
        """
        await self._writes.aflush()

    def flush(self) -> None:
        """Sync twin of :meth:`aflush`."""
        self._writes.flush()
