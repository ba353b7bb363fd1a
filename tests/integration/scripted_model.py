"""A scripted tool-calling fake chat model for agent tests (the only faked part)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langmemcore.prompts.ingestion import GROUNDED

INGESTION = GROUNDED.splitlines()[0]
"""The first line of the ingestion prompt, by which a scripted model tells it apart."""

Step = AIMessage | str | Callable[[list[BaseMessage]], AIMessage]


class ScriptedChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` whose steps may be callables of the conversation so far,
    and which accepts ``bind_tools`` (the script decides the tool calls)."""

    messages: Iterator[Any]  # type: ignore[assignment]

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        step: Step = next(self.messages)
        if callable(step):
            step = step(messages)
        message = AIMessage(content=step) if isinstance(step, str) else step
        return ChatResult(generations=[ChatGeneration(message=message)])


def script(*steps: Step) -> ScriptedChatModel:
    """A model answering with ``steps`` in order."""
    return ScriptedChatModel(messages=iter(steps))


def call(name: str, call_id: str = "call_1", **args: Any) -> AIMessage:
    """An assistant turn that calls one tool."""
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


def last_tool_result(messages: list[BaseMessage]) -> str:
    """The content of the latest tool message."""
    return str(next(m for m in reversed(messages) if isinstance(m, ToolMessage)).content)


def answer_with_tool_result(messages: list[BaseMessage]) -> AIMessage:
    """A final answer quoting the latest tool result."""
    return AIMessage(content=f"From memory: {last_tool_result(messages)}")
