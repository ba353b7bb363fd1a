"""A LangChain v1 agent with long-term memory in three lines: MemoryMiddleware.

The middleware recalls what memory holds about the user into the system message before
each model call, and writes each exchange to memory after the agent answers. One user
talks to the agent in two threads: the fact said in thread 1 is in the model's prompt in
thread 2. It runs once under ``invoke`` and once under ``ainvoke``.

Offline (embedded Postgres or DATABASE_URL, local embeddings). The chat model is a scripted
stand-in that answers from its system prompt; any chat model works in its place, e.g.
``init_chat_model("openai:gpt-4o-mini")``.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from langmemcore import MemoryMiddleware
from langmemcore.storage import Database, upgrade

FACT = "My dog Biscuit is a beagle who loves the beach."
QUESTION = "What is my dog called?"


class PromptReadingModel(GenericFakeChatModel):
    """A scripted chat model: answers the question from what its system prompt recalls,
    and keeps every system prompt it saw."""

    messages: Any = Field(default_factory=lambda: iter(()))
    prompts: list[str] = Field(default_factory=list)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        system = messages[0].text if isinstance(messages[0], SystemMessage) else ""
        self.prompts.append(system)
        asked = next(m.text for m in reversed(messages) if isinstance(m, HumanMessage))
        if asked != QUESTION:
            answer = "Noted!"
        elif "Biscuit" in system:
            answer = "Your dog is called Biscuit."
        else:
            answer = "I don't know yet."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def two_threads(user: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The run configs of thread 1 and thread 2 and the user's context."""
    first = {"configurable": {"thread_id": f"{user}-1"}}
    second = {"configurable": {"thread_id": f"{user}-2"}}
    return first, second, {"user_id": user}


def report(mode: str, model: PromptReadingModel, reply: dict[str, Any]) -> None:
    print(f"{mode}: thread 2's prompt holds the fact from thread 1: {FACT in model.prompts[-1]}")
    print(f"{mode}: agent: {reply['messages'][-1].text}")


def with_invoke(memory: MemoryMiddleware) -> None:
    model = PromptReadingModel()
    agent = create_agent(model, middleware=[memory], checkpointer=InMemorySaver())
    first, second, context = two_threads(f"ana-{uuid.uuid4().hex[:8]}")
    agent.invoke({"messages": [("user", FACT)]}, first, context=context)
    memory.flush()  # the exchange is written in the background; wait for it here
    reply = agent.invoke({"messages": [("user", QUESTION)]}, second, context=context)
    report("invoke", model, reply)


async def with_ainvoke(memory: MemoryMiddleware) -> None:
    model = PromptReadingModel()
    agent = create_agent(model, middleware=[memory], checkpointer=InMemorySaver())
    first, second, context = two_threads(f"bo-{uuid.uuid4().hex[:8]}")
    await agent.ainvoke({"messages": [("user", FACT)]}, first, context=context)
    await memory.aflush()
    reply = await agent.ainvoke({"messages": [("user", QUESTION)]}, second, context=context)
    report("ainvoke", model, reply)
    print("recalled into the system message:")
    print(model.prompts[-1])


def main() -> None:
    upgrade(Database.connect())  # a database named by DATABASE_URL is migrated explicitly
    memory = MemoryMiddleware(namespace=("memories", "{user_id}"))
    with_invoke(memory)
    asyncio.run(with_ainvoke(memory))


if __name__ == "__main__":
    main()
