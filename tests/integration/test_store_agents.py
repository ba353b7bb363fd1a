"""MemoryStore inside LangGraph agents: compiled StateGraphs (runtime.store and
get_store()), langchain's create_agent, and langmem's memory tools.

Real Postgres, real local embeddings, real graphs; only the chat model is scripted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from typing import Any, TypedDict

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langmem import create_manage_memory_tool, create_search_memory_tool

from langmemcore import MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database
from tests.conftest import REPO_ROOT
from tests.integration.scripted_model import answer_with_tool_result, call, script
from tests.stub_openai import openai_stub


@pytest.fixture()
def store(database: Database, embeddings: LocalEmbeddings) -> MemoryStore:
    return MemoryStore(Memory(database, embeddings, config=ConstructionConfig(topic_every=0)))


@pytest.fixture()
def user() -> str:
    return uuid.uuid4().hex[:12]


class Turn(TypedDict, total=False):
    """State of the remember -> recall graph."""

    user: str
    text: str
    question: str
    recalled: list[str]


async def test_state_graph_nodes_use_runtime_store_and_get_store(
    store: MemoryStore, user: str
) -> None:
    async def remember(state: Turn, runtime: Runtime[Any]) -> dict[str, Any]:
        assert runtime.store is not None
        await runtime.store.aput(("profile", state["user"]), "fact", {"text": state["text"]})
        return {}

    async def recall(state: Turn) -> dict[str, Any]:
        found = await get_store().asearch(("profile", state["user"]), query=state["question"])
        return {"recalled": [item.value["text"] for item in found]}

    graph = StateGraph(Turn)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    app = graph.compile(store=store)

    fact = "Melanie painted a sunrise over the lake last weekend."
    out = await app.ainvoke({"user": user, "text": fact, "question": "What did Melanie paint?"})
    assert out["recalled"] == [fact]
    item = await store.aget(("profile", user), "fact")
    assert item is not None and item.value == {"text": fact}


def _tool_messages(messages: list[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, ToolMessage)]


def test_agent_with_langmem_tools_creates_updates_and_searches(
    store: MemoryStore, user: str
) -> None:
    namespace = ("memories", "{langgraph_user_id}")
    tools = [create_manage_memory_tool(namespace), create_search_memory_tool(namespace)]
    config = {"configurable": {"langgraph_user_id": user}}
    ns = ("memories", user)

    created = create_agent(
        script(call("manage_memory", content="I love hiking in the Alps."), "Noted."),
        tools,
        store=store,
    ).invoke({"messages": [("user", "Remember that I love hiking in the Alps.")]}, config)
    assert _tool_messages(created["messages"])[0].startswith("created memory")
    [memory] = store.search(ns)
    assert memory.value == {"content": "I love hiking in the Alps."}

    searched = create_agent(
        script(call("search_memory", query="Where do I like to hike?"), answer_with_tool_result),
        tools,
        store=store,
    ).invoke({"messages": [("user", "Where do I like hiking?")]}, config)
    assert "hiking in the Alps" in str(searched["messages"][-1].content)

    create_agent(
        script(
            call("manage_memory", action="update", id=memory.key, content="I now prefer sailing."),
            "Updated.",
        ),
        tools,
        store=store,
    ).invoke({"messages": [("user", "Actually I prefer sailing now.")]}, config)
    [updated] = store.search(ns)
    assert updated.key == memory.key and updated.value == {"content": "I now prefer sailing."}
    found = store.search(ns, query="sailing")
    assert [i.key for i in found] == [memory.key]

    create_agent(
        script(call("manage_memory", action="delete", id=memory.key), "Forgotten."),
        tools,
        store=store,
    ).invoke({"messages": [("user", "Forget that.")]}, config)
    assert store.search(ns) == [] and store.search(ns, query="sailing") == []


async def test_create_agent_tool_reads_store_through_get_store(
    store: MemoryStore, user: str
) -> None:
    @tool
    async def save_fact(fact: str) -> str:
        """Save a fact about the user."""
        await get_store().aput(("facts", user), uuid.uuid4().hex, {"text": fact})
        return "saved"

    @tool
    async def find_facts(question: str) -> str:
        """Find saved facts relevant to a question."""
        found = await get_store().asearch(("facts", user), query=question, limit=1)
        return "; ".join(item.value["text"] for item in found)

    agent = create_agent(
        script(
            call("save_fact", fact="Caroline is researching adoption agencies.", call_id="c1"),
            call("save_fact", fact="We roasted marshmallows while camping.", call_id="c2"),
            call("find_facts", question="What is Caroline researching?", call_id="c3"),
            answer_with_tool_result,
        ),
        [save_fact, find_facts],
        store=store,
    )
    out = await agent.ainvoke({"messages": [("user", "Note these and tell me about Caroline.")]})
    final = out["messages"][-1]
    assert isinstance(final, AIMessage)
    assert final.content == "From memory: Caroline is researching adoption agencies."
    assert {i.value["text"] for i in await store.asearch(("facts", user))} == {
        "Caroline is researching adoption agencies.",
        "We roasted marshmallows while camping.",
    }


def test_agent_memory_example_runs_offline(database_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "agent_memory.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "DATABASE_URL": database_url, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert "model: scripted offline model" in result.stdout
    assert "stored: I love hiking in the Alps." in result.stdout
    assert "stored: My dog is called Rex." in result.stdout
    assert "agent: Your dog is called Rex." in result.stdout
    assert "recalled: My dog is called Rex." in result.stdout.splitlines()[-2]


def _stub_agent(body: dict[str, Any]) -> dict[str, Any] | str:
    """The agent's model over HTTP: save each fact, then search and answer from the tool."""
    facts = ["I love hiking in the Alps.", "My dog is called Rex."]
    messages = body["messages"]
    asked = next(m for m in reversed(messages) if m["role"] == "user")["content"]
    results = [m for m in messages if m["role"] == "tool"]

    def call(name: str, **args: str) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{name}_{len(results)}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }

    if "Please remember" in asked:
        if len(results) < len(facts):
            return call("manage_memory", content=facts[len(results)])
        return "I will remember that."
    if not results:
        return call("search_memory", query=asked)
    return "Your dog is called Rex." if "Rex" in results[-1]["content"] else "I do not know."


def test_agent_memory_example_with_chat_openai_over_http(database_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    with openai_stub(_stub_agent) as (base_url, received):
        result = subprocess.run(
            [sys.executable, str(REPO_ROOT / "examples" / "agent_memory.py")],
            capture_output=True,
            text=True,
            timeout=300,
            env={
                **env,
                "DATABASE_URL": database_url,
                "PYTHONPATH": str(REPO_ROOT),
                "OPENAI_API_KEY": "stub",
                "OPENAI_BASE_URL": base_url,
                "OPENAI_MODEL": "stub-model",
            },
        )
    assert result.returncode == 0, result.stderr
    assert f"model: ChatOpenAI stub-model at {base_url}" in result.stdout
    assert "stored: I love hiking in the Alps." in result.stdout
    assert "stored: My dog is called Rex." in result.stdout
    assert "agent: Your dog is called Rex." in result.stdout
    tools = {t["function"]["name"] for t in received[0]["tools"]}
    assert {"manage_memory", "search_memory"} <= tools
    searched = [m for m in received[-1]["messages"] if m["role"] == "tool"]
    assert "My dog is called Rex." in searched[-1]["content"]
