"""MRAgent's traversal agent: a tool-calling model walks the graph, step by step.

Each step is one model call; every tool call the model makes in it is executed and answered
with a ``ToolMessage``. The agent stops when the model replies without tool calls (its own
sufficiency decision), when the step budget is spent, when its time is up (the model's
:attr:`~langmemcore.config.LLMConfig.agent_timeout` in all, each call also within
``call_timeout``), or when the model endpoint fails (what was gathered is returned; a
search that gathered nothing says so in a warning).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from langmemcore._errors import ConfigurationError, InvalidInputError
from langmemcore._namespace import validate_namespace
from langmemcore.prompts import StepUsage, current_usage, guard_for
from langmemcore.prompts.active import STEP, render_active_prompt
from langmemcore.retrieval.active.tools import build_traversal_tools
from langmemcore.storage.database import Database

__all__ = [
    "MAX_CALLS_PER_STEP",
    "ActiveResult",
    "StoppedBy",
    "TraversalStep",
    "active_search",
    "bind_traversal_tools",
    "cited_note_ids",
    "rank_evidence",
]

MAX_CALLS_PER_STEP = 8
"""Tool calls executed per step at most; further calls in the same step get an error."""

MAX_WRITTEN_CHARS = 20_000
"""Longest reply whose text is read for tool calls written as JSON."""

StoppedBy = Literal["model", "budget", "time", "error"]

_log = logging.getLogger("langmemcore.retrieval")
_CITATION = re.compile(
    r"\[\s*notes?\s*#?\s*(\d+(?:\s*(?:,|;|and)\s*(?:notes?\s*)?#?\s*\d+)*)\s*\]", re.IGNORECASE
)
ToolModel = Runnable[LanguageModelInput, BaseMessage]


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
        stopped_by: ``"model"`` (it answered), ``"budget"`` (steps spent), ``"time"``
            (its time was up) or ``"error"`` (the model endpoint failed).
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


def _digit_runs(text: str) -> list[str]:
    """The runs of digits in ``text`` ("3, note 4" -> ["3", "4"])."""
    return "".join(char if char.isdigit() else " " for char in text).split()


def cited_note_ids(text: str) -> list[int]:
    """Note ids cited as ``[note 12]`` (also ``[note 3, note 4]``, ``[notes 3, 4]``), in
    order of first citation.
    """
    found = (int(n) for m in _CITATION.finditer(text) for n in _digit_runs(m.group(1)))
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


def bind_traversal_tools(llm: BaseChatModel, tools: Sequence[BaseTool]) -> ToolModel:
    """``llm`` with the traversal tools bound.

    Raises:
        ConfigurationError: The model does not support tool calling.
    """
    try:
        return llm.bind_tools(tools)
    except NotImplementedError as exc:
        raise ConfigurationError(
            f"{type(llm).__name__} does not support tool calling (bind_tools); active search "
            "needs llm= a chat model that does (e.g. ChatOpenAI)"
        ) from exc


def _bound_to_look(llm: BaseChatModel, tools: Sequence[BaseTool], free: ToolModel) -> ToolModel:
    """``llm`` bound to call one of the tools (``tool_choice="any"``, LangChain's name for
    "a tool, whichever"), so that the first step looks in memory before anything is
    answered; ``free`` for a model that takes no tool choice.
    """
    try:
        return llm.bind_tools(tools, tool_choice="any")
    except (NotImplementedError, ValueError, TypeError):
        return free


def _call_error(
    tools: dict[str, BaseTool], call: dict[str, Any], name: str, args: object, index: int
) -> str | None:
    """Why a tool call cannot run (malformed, unknown or over the step's limit), if so."""
    if "error" in call or not isinstance(args, dict):
        return f"error: the arguments of {name} are not valid JSON: {call.get('error') or args}"
    if name not in tools:
        return f"error: unknown tool {name!r}; the tools are {', '.join(tools)}"
    if index >= MAX_CALLS_PER_STEP:
        return f"error: at most {MAX_CALLS_PER_STEP} tool calls run per step; call it again"
    return None


def _args(args: object) -> dict[str, Any]:
    return dict(args) if isinstance(args, dict) else {"arguments": args}


async def _execute(
    tools: dict[str, BaseTool], calls: Sequence[dict[str, Any]], step: int
) -> tuple[list[ToolMessage], list[TraversalStep]]:
    """Run a step's tool calls in order; failures become error texts for the model."""
    messages: list[ToolMessage] = []
    path: list[TraversalStep] = []
    for index, call in enumerate(calls):
        name, args = str(call.get("name")), call.get("args")
        call_id = call.get("id") or f"call_{step}_{index}"
        error = _call_error(tools, call, name, args, index)
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


def _json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects written in ``text`` (code fences or not), in order, at most
    :data:`MAX_CALLS_PER_STEP` of them.
    """
    decoder, at = json.JSONDecoder(), text.find("{")
    found: list[dict[str, Any]] = []
    while at >= 0 and len(found) < MAX_CALLS_PER_STEP:
        try:
            value, end = decoder.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = text.find("{", end)
    return found


def _written_calls(reply: AIMessage, tools: dict[str, BaseTool], step: int) -> AIMessage:
    """``reply``, or when it calls no tool but writes calls in its text as JSON (``{"name":
    tool, "arguments": {...}}``, as a model does whose server does not parse its tool
    calls), the same calls as a reply that makes them.
    """
    if reply.tool_calls or reply.invalid_tool_calls or len(reply.text) > MAX_WRITTEN_CHARS:
        return reply
    calls = [
        ToolCall(name=o["name"], args=args, id=f"call_{step}_{i}", type="tool_call")
        for i, o in enumerate(_json_objects(reply.text))
        if o.get("name") in tools
        and isinstance(args := o.get("arguments", o.get("parameters", o.get("args"))), dict)
    ]
    return AIMessage(content="", tool_calls=calls) if calls else reply


def _tool_calls(reply: BaseMessage) -> list[dict[str, Any]]:
    """The tool calls of a reply, the unparsable ones last."""
    if not isinstance(reply, AIMessage):
        return []
    return [dict(c) for c in reply.tool_calls] + [dict(c) for c in reply.invalid_tool_calls]


@dataclass
class _Walk:
    """The state of one traversal: the conversation, the path taken and the steps made;
    ``first`` answers the first step (bound to call a tool), ``model`` the others.
    """

    model: ToolModel
    first: ToolModel
    tools: dict[str, BaseTool]
    messages: list[BaseMessage]
    path: list[TraversalStep] = field(default_factory=list)
    steps: int = 0

    async def run(
        self, step_budget: int, call_timeout: float | None, timeout: float | None
    ) -> tuple[StoppedBy, str, str | None]:
        """Walk until the model answers, the budget is spent, ``timeout`` seconds have
        passed or the endpoint fails (a call taking over ``call_timeout`` seconds fails).

        Returns:
            Why it stopped, the model's answer and the error, if any.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        usage = current_usage().step(STEP)
        while self.steps < step_budget:
            limit = _limit(call_timeout, deadline)
            try:
                reply = await self._ask(limit, usage)
            except TimeoutError:
                usage.failed += 1
                if deadline is not None and time.monotonic() >= deadline:
                    _log.warning("active search: time up after %d steps", self.steps)
                    return "time", "", None
                _log.warning("active search: the model did not answer at step %d", self.steps + 1)
                return "error", "", f"the language model did not answer in {limit} s"
            except Exception as exc:  # provider errors have no common base class
                usage.failed += 1
                _log.warning(
                    "active search: the model call failed at step %d: %s", self.steps + 1, exc
                )
                return "error", "", f"the language model call failed: {exc}"
            self.steps += 1
            if isinstance(reply, AIMessage):
                reply = _written_calls(reply, self.tools, self.steps)
            self.messages.append(reply)
            calls = _tool_calls(reply)
            if not calls:
                return "model", reply.text, None
            answers, taken = await _execute(self.tools, calls, self.steps)
            self.messages.extend(answers)
            self.path.extend(taken)
        return "budget", "", None

    async def _ask(self, limit: float | None, usage: StepUsage) -> BaseMessage:
        """The model's reply to the conversation so far, within ``limit`` seconds; the call,
        its time and its tokens counted in ``usage``.
        """
        model = self.first if self.steps == 0 else self.model
        usage.calls += 1
        started = time.monotonic()
        try:
            reply = await asyncio.wait_for(model.ainvoke(self.messages), limit)
        finally:
            usage.seconds += time.monotonic() - started
        usage.add_tokens(reply)
        return reply


def _limit(call_timeout: float | None, deadline: float | None) -> float | None:
    """Seconds the next model call may take: the per-call limit, within the deadline."""
    if deadline is None:
        return call_timeout
    left = max(0.0, deadline - time.monotonic())
    return left if call_timeout is None else min(call_timeout, left)


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
    prompt = [SystemMessage(render_active_prompt(step_budget)), HumanMessage(query)]
    model = bind_traversal_tools(llm, tools)
    first = _bound_to_look(llm, tools, model)
    walk = _Walk(model, first, {t.name: t for t in tools}, prompt)
    config = guard_for(llm).config
    stopped_by, answer, error = await walk.run(
        step_budget, config.call_timeout, config.agent_timeout
    )
    discovered = [i for step in walk.path for i in step.note_ids]
    ids = rank_evidence(discovered, cited_note_ids(answer), max_notes)
    if not ids:
        _log.warning(
            "active search gathered no notes (%d steps, stopped by %s)", walk.steps, stopped_by
        )
    return ActiveResult(ids, tuple(walk.path), stopped_by, walk.steps, answer, error)
