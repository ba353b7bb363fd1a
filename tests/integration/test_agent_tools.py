"""The memory tools in real ``create_agent`` agents, driven by a scripted tool-calling
model, under ``invoke`` and ``ainvoke``: one tool set serves two users without leaks;
create / update / delete; profile, timeline and traversal tools with a templated
namespace. Only the chat model is scripted."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from langmemcore import ConfigurationError, Memory
from langmemcore.agents import (
    MemoryMiddleware,
    create_memory_tools,
    create_traversal_tools,
)
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.retrieval.active import build_traversal_tools
from langmemcore.storage import Database
from tests.integration.scripted_model import call, script

NAMESPACE = ("tooltest", "{user_id}")


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings)


@pytest.fixture()
def tools(memory: Memory) -> list[BaseTool]:
    return create_memory_tools(memory, namespace=NAMESPACE)


def tool_results(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def user() -> str:
    return f"u{uuid.uuid4().hex[:10]}"


def test_two_users_one_tool_set_under_invoke(tools: list[BaseTool]) -> None:
    ana, bo = user(), user()
    writer = create_agent(
        script(
            call("manage_memory", content="My favourite colour is teal."),
            "Saved.",
        ),
        tools,
    )
    result = writer.invoke(
        {"messages": [("user", "Remember my colour.")]}, context={"user_id": ana}
    )
    (created,) = tool_results(result["messages"])
    assert created.status == "success" and created.text.startswith("created memory ")

    def searcher() -> Any:
        return create_agent(script(call("search_memory", query="favourite colour"), "Done."), tools)

    found = searcher().invoke({"messages": [("user", "My colour?")]}, context={"user_id": ana})
    (hit,) = tool_results(found["messages"])
    assert "teal" in hit.text
    memory_id = created.text.removeprefix("created memory ")
    assert memory_id in [s["id"] for m in json.loads(hit.text)["memories"] for s in m["sources"]]

    other = searcher().invoke({"messages": [("user", "My colour?")]}, context={"user_id": bo})
    (miss,) = tool_results(other["messages"])
    assert "teal" not in miss.text and json.loads(miss.text) == {"memories": []}


async def test_two_users_one_tool_set_under_ainvoke(tools: list[BaseTool]) -> None:
    ana, bo = user(), user()
    for who, fact in ((ana, "I play the cello on Sundays."), (bo, "I collect vintage maps.")):
        agent = create_agent(script(call("manage_memory", content=fact), "Saved."), tools)
        await agent.ainvoke({"messages": [("user", fact)]}, context={"user_id": who})
    for who, mine, theirs in ((ana, "cello", "maps"), (bo, "maps", "cello")):
        agent = create_agent(script(call("search_memory", query=f"{mine} {theirs}"), "Ok."), tools)
        result = await agent.ainvoke({"messages": [("user", "?")]}, context={"user_id": who})
        (hit,) = tool_results(result["messages"])
        assert mine in hit.text and theirs not in hit.text


def test_update_and_delete_by_id(tools: list[BaseTool], memory: Memory) -> None:
    who = user()
    namespace = ("tooltest", who)

    def run(*steps: Any) -> list[ToolMessage]:
        agent = create_agent(script(*steps, "Ok."), tools)
        return tool_results(
            agent.invoke({"messages": [("user", "go")]}, context={"user_id": who})["messages"]
        )

    (created,) = run(call("manage_memory", content="My gym is Iron Temple."))
    memory_id = created.text.removeprefix("created memory ")
    (updated,) = run(
        call("manage_memory", action="update", id=memory_id, content="My gym is Blue Lotus.")
    )
    assert updated.text == f"updated memory {memory_id}"
    texts = [s.text for n in memory.search(namespace, "gym", k=10) for s in n.sources]
    assert "My gym is Blue Lotus." in texts and "My gym is Iron Temple." not in texts

    (too_long,) = run(
        call(
            "manage_memory",
            action="update",
            id=memory_id,
            content="gym " * (memory.config.max_observation_chars // 4 + 1),
        )
    )
    assert too_long.status == "error"
    texts = [s.text for n in memory.search(namespace, "gym", k=10) for s in n.sources]
    assert "My gym is Blue Lotus." in texts  # a refused update keeps the memory

    (deleted,) = run(call("manage_memory", action="delete", id=memory_id))
    assert deleted.text == f"deleted memory {memory_id}"
    assert memory.search(namespace, "gym", k=10) == []

    (missing,) = run(call("manage_memory", action="delete", id=memory_id))
    assert missing.status == "error" and "no memory has id" in missing.text
    (no_content,) = run(call("manage_memory", action="create"))
    assert no_content.status == "error" and "content" in no_content.text


def test_profile_and_timeline_tools(tools: list[BaseTool], memory: Memory) -> None:
    who = user()
    namespace = ("tooltest", who)
    memory.ingest(
        namespace,
        "I moved to Lisbon last month.",
        key="home",
        speaker="Ana",
        event_time=datetime(2024, 3, 2, 10, tzinfo=UTC),
    )
    agent = create_agent(
        script(
            call("memory_profile", "c1"),
            call("memory_profile", "c2", subject="Ana"),
            call("memory_timeline", "c3", start_date="2024-03-02"),
            call("memory_timeline", "c4", start_date="2024-03-03"),
            "Ok.",
        ),
        tools,
    )
    result = agent.invoke({"messages": [("user", "go")]}, context={"user_id": who})
    subjects, profile, day, next_day = tool_results(result["messages"])
    assert "Ana" in [s["subject"] for s in json.loads(subjects.text)["subjects"]]
    assert json.loads(profile.text)["subject"] == "Ana" and "Lisbon" in profile.text
    assert "Lisbon" in day.text and day.artifact
    assert json.loads(next_day.text)["notes"] == []


def notes_for_first_keyword(messages: list[BaseMessage]) -> AIMessage:
    """Follow the first cue ``find_keywords`` returned (or one that does not exist)."""
    found = json.loads(tool_results(messages)[-1].text)["keywords"]
    return call("notes_for", "c2", keyword=found[0]["keyword"] if found else "nothing")


async def test_traversal_tools_with_a_templated_namespace(memory: Memory) -> None:
    ana, bo = user(), user()
    await memory.aingest(("tooltest", ana), "My beagle Pretzel chases pigeons.", key="a")
    traversal = create_traversal_tools(memory, namespace=NAMESPACE)
    steps = (call("find_keywords", "c1", text="Pretzel the dog"), notes_for_first_keyword)
    for who in (ana, bo):
        agent = create_agent(script(*steps, "Ok."), traversal)
        sync = agent.invoke({"messages": [("user", "go")]}, context={"user_id": who})
        agent = create_agent(script(*steps, "Ok."), traversal)
        coro = await agent.ainvoke({"messages": [("user", "go")]}, context={"user_id": who})
        for result in (sync, coro):
            keywords, notes = tool_results(result["messages"])
            if who == ana:
                assert keywords.status == "success" and notes.status == "success"
                assert "pigeons" in notes.text and notes.artifact
            else:
                assert json.loads(keywords.text) == {"keywords": []}
                assert notes.status == "error"


def test_middleware_registers_the_tools(memory: Memory) -> None:
    middleware = MemoryMiddleware(memory, namespace=NAMESPACE, tools=True)
    assert [t.name for t in middleware.tools] == [
        "search_memory",
        "manage_memory",
        "memory_profile",
        "memory_timeline",
    ]
    who = user()
    agent = create_agent(
        script(call("manage_memory", content="I am allergic to peanuts."), "Noted."),
        middleware=[middleware],
    )
    result = agent.invoke({"messages": [("user", "Peanuts?")]}, context={"user_id": who})
    (created,) = tool_results(result["messages"])
    assert created.status == "success"
    middleware.flush()
    found = memory.search(("tooltest", who), "allergy", k=5)
    assert "I am allergic to peanuts." in [s.text for n in found for s in n.sources]


def test_a_missing_namespace_field_raises(tools: list[BaseTool]) -> None:
    agent = create_agent(script(call("search_memory", query="x"), "Ok."), tools)
    with pytest.raises(ConfigurationError, match="'user_id'"):
        agent.invoke({"messages": [("user", "go")]}, context={})


def test_fixed_namespace_traversal_tools_run_under_a_sync_agent(memory: Memory) -> None:
    namespace = ("tooltest", user())
    memory.ingest(namespace, "My beagle Pretzel chases pigeons.", key="a")
    tools = build_traversal_tools(memory.database, memory.embeddings, namespace)
    steps = (call("find_keywords", "c1", text="Pretzel the dog"), notes_for_first_keyword)
    result = create_agent(script(*steps, "Ok."), tools).invoke({"messages": [("user", "go")]})
    keywords, notes = tool_results(result["messages"])
    assert keywords.status == "success" and "pigeons" in notes.text
