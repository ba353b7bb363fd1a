"""MemoryMiddleware in real ``create_agent`` agents over a real memory: recall reaches the
model's system prompt in a later thread, under ``invoke`` and ``ainvoke``; the exchange is
written in the background (questions left out, message ids as keys); the namespace comes
from the run. Only the chat model is scripted."""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from langmemcore import ConfigurationError, InvalidInputError, Memory, MemoryStore
from langmemcore.agents import MemoryMiddleware
from langmemcore.agents._exchange import RECALL_HEADER
from langmemcore.config import ConstructionConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database
from tests.conftest import REPO_ROOT
from tests.integration.scripted_model import ScriptedChatModel, call

FACT = "My dog Biscuit is a beagle and he loves the beach."
QUESTION = "What breed is my dog?"


def recording_model(prompts: list[str], *steps: Any) -> ScriptedChatModel:
    """A model that records the system prompt of every call, then answers with ``steps``
    (after them: "Noted.")."""

    def record(step: Any) -> Callable[[list[BaseMessage]], AIMessage]:
        def answer(messages: list[BaseMessage]) -> AIMessage:
            system = messages[0] if isinstance(messages[0], SystemMessage) else None
            prompts.append(system.text if system else "")
            if callable(step):
                return step(messages)
            return step if isinstance(step, AIMessage) else AIMessage(content=step)

        return answer

    script = itertools.chain(steps, itertools.repeat("Noted."))
    return ScriptedChatModel(messages=(record(s) for s in script))


@pytest.fixture()
def memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings)


def sources_with(memory: Memory, namespace: tuple[str, ...], query: str, text: str) -> list[Any]:
    """The sources of the notes found for ``query`` whose text is ``text``."""
    found = memory.search(namespace, query, k=20)
    return [s for note in found for s in note.sources if s.text == text]


def test_fact_from_thread_one_reaches_the_prompt_in_thread_two_under_invoke(
    memory: Memory,
) -> None:
    user = f"ana{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"))
    prompts: list[str] = []
    agent = create_agent(
        recording_model(prompts, "Biscuit sounds lovely.", "He is a beagle."),
        middleware=[middleware],
        system_prompt="You are a helpful assistant.",
        checkpointer=InMemorySaver(),
    )
    agent.invoke(
        {"messages": [("user", FACT)]},
        {"configurable": {"thread_id": uuid.uuid4().hex}},
        context={"user_id": user},
    )
    middleware.flush()
    assert RECALL_HEADER not in prompts[0]  # nothing in memory yet

    result = agent.invoke(
        {"messages": [("user", QUESTION)]},
        {"configurable": {"thread_id": uuid.uuid4().hex}},
        context={"user_id": user},
    )
    middleware.flush()
    prompt = prompts[-1]
    assert prompt.startswith("You are a helpful assistant.")
    assert RECALL_HEADER in prompt
    assert f"{user}: {FACT}" in prompt  # the speaker is the user id from the context
    # the recall lives in the request only, never in the thread's messages
    assert not any(RECALL_HEADER in m.text for m in result["messages"])

    namespace = ("agents", user)
    said = sources_with(memory, namespace, FACT, FACT)
    assert [(s.speaker, s.event_time is not None) for s in said] == [(user, True)]
    assert sources_with(memory, namespace, QUESTION, QUESTION) == []  # the question is not a fact
    answers = sources_with(memory, namespace, "beagle", "He is a beagle.")
    assert [s.speaker for s in answers] == ["assistant"]


async def test_fact_from_thread_one_reaches_the_prompt_in_thread_two_under_ainvoke(
    memory: Memory,
) -> None:
    user = f"bo{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"), ai_name="Robo")
    prompts: list[str] = []
    agent = create_agent(recording_model(prompts), middleware=[middleware])
    await agent.ainvoke({"messages": [("user", FACT)]}, context={"user_id": user})
    await middleware.aflush()
    await agent.ainvoke({"messages": [("user", QUESTION)]}, context={"user_id": user})
    await middleware.aflush()
    assert FACT in prompts[-1] and RECALL_HEADER in prompts[-1]
    found = await memory.asearch(("agents", user), "Noted.", k=20)
    assert "Robo" in {s.speaker for n in found for s in n.sources}


def test_one_recall_per_turn_in_the_tool_loop(memory: Memory) -> None:
    user = f"cy{uuid.uuid4().hex[:8]}"
    namespace = ("agents", user)
    memory.ingest(namespace, FACT, key="fact", speaker=user)

    @tool
    def lookup(topic: str) -> str:
        """Look a topic up."""
        return f"nothing on {topic}"

    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"), write=False)
    prompts: list[str] = []
    agent = create_agent(
        recording_model(prompts, call("lookup", topic="beagles"), "Beagles are hounds."),
        tools=[lookup],
        middleware=[middleware],
        system_prompt="Be brief.",
    )
    agent.invoke({"messages": [("user", QUESTION)]}, context={"user_id": user})
    assert len(prompts) == 2  # the model was called before and after the tool
    assert prompts[0] == prompts[1]
    assert prompts[1].count(RECALL_HEADER) == 1 and prompts[1].count(FACT) == 1


def test_a_resent_message_is_stored_once(memory: Memory) -> None:
    user = f"di{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"), recall=False)
    agent = create_agent(recording_model([]), middleware=[middleware])
    message_id = uuid.uuid4().hex
    for _ in range(2):  # e.g. a client retrying the same message in another thread
        agent.invoke({"messages": [HumanMessage(FACT, id=message_id)]}, context={"user_id": user})
    middleware.flush()
    said = sources_with(memory, ("agents", user), FACT, FACT)
    assert [s.key for s in said] == [message_id]


def test_a_message_with_a_statement_and_a_question_is_stored(memory: Memory) -> None:
    user = f"ed{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"), recall=False)
    agent = create_agent(recording_model([]), middleware=[middleware])
    text = "I just adopted a cat named Miso. Do you have tips for the first week?"
    agent.invoke({"messages": [("user", text)]}, context={"user_id": user})
    middleware.flush()
    assert len(sources_with(memory, ("agents", user), "cat named Miso", text)) == 1


@dataclass
class UserContext:
    account: str


def test_namespace_from_an_attribute_of_the_context_and_from_configurable(
    memory: Memory,
) -> None:
    account, org = f"acc{uuid.uuid4().hex[:8]}", f"org{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(
        memory, namespace=("tenants", "{org}", "{account}"), recall=False, user_name="Fran"
    )
    agent = create_agent(recording_model([]), middleware=[middleware], context_schema=UserContext)
    agent.invoke(
        {"messages": [("user", FACT)]},
        {"configurable": {"org": org}},
        context=UserContext(account=account),
    )
    middleware.flush()
    said = sources_with(memory, ("tenants", org, account), FACT, FACT)
    assert [s.speaker for s in said] == ["Fran"]


@pytest.mark.parametrize("use_async", [False, True])
async def test_recall_reads_a_namespace_from_configurable(memory: Memory, use_async: bool) -> None:
    org = f"org{uuid.uuid4().hex[:8]}"
    memory.ingest(("orgs", org), FACT, key="fact", speaker="Ana")
    middleware = MemoryMiddleware(memory, namespace=("orgs", "{org}"), write=False)
    prompts: list[str] = []
    agent = create_agent(recording_model(prompts), middleware=[middleware])
    inputs, config = {"messages": [("user", QUESTION)]}, {"configurable": {"org": org}}
    if use_async:
        await agent.ainvoke(inputs, config)
    else:
        await asyncio.to_thread(agent.invoke, inputs, config)
    assert f"Ana: {FACT}" in prompts[-1]


def test_namespace_from_a_callable_of_the_runtime(memory: Memory) -> None:
    user = f"gu{uuid.uuid4().hex[:8]}"
    middleware = MemoryMiddleware(
        memory, namespace=lambda runtime: ("callable", runtime.context["who"]), recall=False
    )
    agent = create_agent(recording_model([]), middleware=[middleware])
    agent.invoke({"messages": [("user", FACT)]}, context={"who": user})
    middleware.flush()
    assert len(sources_with(memory, ("callable", user), FACT, FACT)) == 1


def test_a_missing_namespace_field_is_named(memory: Memory) -> None:
    middleware = MemoryMiddleware(memory, namespace=("agents", "{user_id}"))
    agent = create_agent(recording_model([]), middleware=[middleware])
    with pytest.raises(ConfigurationError, match="'user_id'"):
        agent.invoke({"messages": [("user", FACT)]}, context={"name": "x"})


def test_a_failed_write_is_raised_by_flush_and_the_reply_is_not_delayed(
    database: Database, embeddings: LocalEmbeddings
) -> None:
    memory = Memory(database, embeddings, config=ConstructionConfig(max_observation_chars=40))
    middleware = MemoryMiddleware(memory, recall=False)
    agent = create_agent(recording_model([], "Fine."), middleware=[middleware])
    result = agent.invoke(
        {"messages": [("user", FACT + " " + FACT)]}, context={"user_id": uuid.uuid4().hex}
    )
    assert result["messages"][-1].text == "Fine."
    with pytest.raises(InvalidInputError):
        middleware.flush()
    middleware.flush()  # each failure is raised once


def test_a_memory_store_is_accepted(memory: Memory) -> None:
    user = f"ha{uuid.uuid4().hex[:8]}"
    store = MemoryStore(memory)
    middleware = MemoryMiddleware(store, recall=False)
    agent = create_agent(recording_model([]), middleware=[middleware])
    agent.invoke({"messages": [("user", FACT)]}, context={"user_id": user})
    middleware.flush()
    assert len(sources_with(memory, ("memories", user), FACT, FACT)) == 1


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        MemoryMiddleware(k=0)
    with pytest.raises(ConfigurationError):
        MemoryMiddleware(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        MemoryMiddleware(namespace="memories")


EXIT_SCRIPT = """
import sys
from langchain.agents import create_agent
from langmemcore import MemoryMiddleware
from tests.integration.scripted_model import script

middleware = MemoryMiddleware(namespace=("exit", sys.argv[1]))
agent = create_agent(script("Noted."), middleware=[middleware])
agent.invoke({"messages": [("user", sys.argv[2])]}, context={"user_id": "ana"})
print("answered")
"""


def test_pending_writes_finish_when_a_script_exits_without_flush(
    memory: Memory, database_url: str
) -> None:
    label = uuid.uuid4().hex[:12]
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, label, FACT],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered"
    assert len(sources_with(memory, ("exit", label), FACT, FACT)) == 1
