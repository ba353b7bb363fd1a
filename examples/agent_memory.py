"""A LangGraph agent with long-term memory in a MemoryStore.

The agent gets langmem's memory tools (manage_memory, search_memory) over a MemoryStore:
what it saves is written to Postgres and built into notes by the construction graph;
what it searches goes through the retrieval graph. Two conversations: the first stores
facts, the second recalls one.

Offline by default (embedded Postgres or DATABASE_URL, local embeddings, a scripted chat
model). With OPENAI_API_KEY (and optionally OPENAI_BASE_URL / OPENAI_MODEL) set it uses
ChatOpenAI instead and says so.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langmem import create_manage_memory_tool, create_search_memory_tool

from langmemcore import MemoryStore
from langmemcore.storage import Database, upgrade

FACTS = ["I love hiking in the Alps.", "My dog is called Rex."]
QUESTION = "What is my dog called?"


class ScriptedChatModel(GenericFakeChatModel):
    """An offline stand-in for a tool-calling model: answers with scripted steps."""

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
        step: AIMessage | Callable[[list[BaseMessage]], AIMessage] = next(self.messages)
        message = step(messages) if callable(step) else step
        return ChatResult(generations=[ChatGeneration(message=message)])


def _call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


def _answer(messages: list[BaseMessage]) -> AIMessage:
    found = next(m for m in reversed(messages) if isinstance(m, ToolMessage))
    name = "Rex" if "Rex" in str(found.content) else "something I did not find"
    return AIMessage(content=f"Your dog is called {name}.")


def choose_model() -> BaseChatModel:
    """ChatOpenAI when an API key is configured, else the scripted offline model."""
    if os.environ.get("OPENAI_API_KEY"):
        from langchain_openai import ChatOpenAI

        name = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
        print(f"model: ChatOpenAI {name} at {os.environ.get('OPENAI_BASE_URL', 'api.openai.com')}")
        return ChatOpenAI(model=name)
    print("model: scripted offline model (set OPENAI_API_KEY to use ChatOpenAI)")
    steps = [
        *(_call("manage_memory", f"save{i}", content=fact) for i, fact in enumerate(FACTS)),
        AIMessage(content="I will remember that."),
        _call("search_memory", "recall", query=QUESTION),
        _answer,
    ]
    return ScriptedChatModel(messages=iter(steps))


async def main() -> None:
    upgrade(Database.connect())
    user = uuid.uuid4().hex[:8]
    namespace = ("memories", "{langgraph_user_id}")
    async with await MemoryStore.aopen() as store:
        agent = create_agent(
            choose_model(),
            [create_manage_memory_tool(namespace), create_search_memory_tool(namespace)],
            system_prompt="You remember facts about the user with your memory tools.",
            store=store,
        )
        config = {"configurable": {"langgraph_user_id": user}}
        told = " ".join(FACTS)
        await agent.ainvoke({"messages": [("user", f"Please remember: {told}")]}, config)
        for item in await store.asearch(("memories", user)):
            print(f"stored: {item.value['content']}")
        asked = await agent.ainvoke({"messages": [("user", QUESTION)]}, config)
        print(f"agent: {asked['messages'][-1].content}")
        for item in await store.asearch(("memories", user), query=QUESTION, limit=2):
            print(f"recalled: {item.value['content']} (score {item.score:.4f})")


if __name__ == "__main__":
    asyncio.run(main())
