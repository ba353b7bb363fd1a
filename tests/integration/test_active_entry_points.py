"""Active mode (MRAgent) through every entry point: ``Memory.search`` / ``asearch``,
``MemoryRetriever`` (invoke and ainvoke) and ``langmemcore search --active``.

Only the model is scripted: in process a tool-calling fake (tests/integration/scripted_model.py);
for the command line the real ``ChatOpenAI`` over HTTP to the local OpenAI-compatible stub
(tests/stub_openai.py), answering with tool calls, with ``main([...])`` run in process.
The walk is the same everywhere: find_keywords -> notes_for(the cue "max") -> an answer
citing the last note shown, which therefore comes first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage

from langmemcore import ConfigurationError, InvalidInputError, Memory, MemoryRetriever
from langmemcore.cli import main
from langmemcore.cli._format import evidence_lines
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.storage import Database
from tests.integration.conftest import Ingested
from tests.integration.scripted_model import ScriptedChatModel, call, last_tool_result, script
from tests.stub_openai import openai_stub

MAY_1 = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
JUNE_3 = datetime(2024, 6, 3, 18, 0, tzinfo=UTC)
TURNS = [
    ObservationIn("d1", "I adopted a puppy named Max last Saturday.", "Alice", MAY_1),
    ObservationIn("d2", "Max is a golden retriever and he is ten weeks old.", "Alice", MAY_1),
    ObservationIn("d3", "I'm training for the Lisbon marathon in October.", "Bob", MAY_1),
    ObservationIn("d4", "I moved to Porto for a new job at a bakery.", "Alice", JUNE_3),
    ObservationIn("d5", "Max chewed my running shoes, so I bought new ones.", "Bob", JUNE_3),
    ObservationIn("d6", "I adopted a puppy named Max last Saturday!", "Alice", JUNE_3),
]
QUERY = "What is the name of Alice's puppy?"


@dataclass
class Walk:
    """The scripted traversal, and what it saw (to compute the expected evidence)."""

    shown: list[int] = field(default_factory=list)
    cited: int | None = None

    def cue(self, found: str) -> str:
        keywords = [k["keyword"] for k in json.loads(found)["keywords"]]
        assert "max" in keywords, keywords
        return "max"

    def answer(self, notes: str) -> str:
        self.shown = [n["id"] for n in json.loads(notes)["notes"]]
        self.cited = self.shown[-1]
        return f"Alice's puppy is called Max [note {self.cited}]."

    @property
    def expected(self) -> list[int]:
        """The agent's rank order: the cited note, then the others as they were shown."""
        return [self.cited, *(i for i in self.shown if i != self.cited)]

    def model(self) -> ScriptedChatModel:
        return script(
            call("find_keywords", text="Alice's puppy Max"),
            lambda seen: call("notes_for", "call_2", keyword=self.cue(last_tool_result(seen))),
            lambda seen: AIMessage(content=self.answer(last_tool_result(seen))),
        )


@pytest.fixture(scope="module")
async def filled(ingested: Ingested) -> tuple[str, ...]:
    """A namespace with a short conversation; three turns mention Max (one repeated)."""
    return await ingested("active-entry", TURNS)


def walking(database: Database, embeddings: LocalEmbeddings) -> tuple[Memory, Walk]:
    walk = Walk()
    return Memory(database, embeddings, llm=walk.model()), walk


async def test_asearch_active_returns_the_agents_evidence_in_rank_order(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    memory, walk = walking(database, embeddings)
    results = await memory.asearch(filled, QUERY, mode="active")
    assert len(walk.shown) >= 2 and walk.cited != walk.shown[0]
    assert [r.note_id for r in results] == walk.expected
    assert [r.channels for r in results] == [{"active": i} for i in range(1, len(results) + 1)]
    assert [r.score for r in results] == pytest.approx([1 / i for i in range(1, len(results) + 1)])
    assert results.query_id is not None
    passive = await Memory(database, embeddings).asearch(filled, QUERY, k=20)
    by_id = {n.note_id: n for n in passive}
    for note in results:
        same = by_id[note.note_id]
        assert (note.context, note.keywords, note.topic) == (
            same.context,
            same.keywords,
            same.topic,
        )
        assert {s.key for s in note.sources} == {s.key for s in same.sources}
    merged = next(n for n in results if {s.key for s in n.sources} == {"d1", "d6"})
    assert "Max" in merged.context


def test_search_active_sync_twin_and_its_cuts(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    memory, walk = walking(database, embeddings)
    results = memory.search(filled, QUERY, mode="active")
    assert [r.note_id for r in results] == walk.expected
    memory, walk = walking(database, embeddings)
    assert [r.note_id for r in memory.search(filled, QUERY, k=1, mode="active")] == [walk.cited]
    memory, walk = walking(database, embeddings)
    assert [r.note_id for r in memory.search(filled, QUERY, token_budget=1, mode="active")] == [
        walk.cited
    ]
    memory, walk = walking(database, embeddings)
    assert list(memory.search(filled, QUERY, min_confidence=1.0, mode="active")) == []
    assert walk.shown, "the walk ran before the confidence floor left every note out"


async def test_retriever_active_invoke_and_ainvoke(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    memory, walk = walking(database, embeddings)
    retriever = MemoryRetriever(memory=memory, namespace=filled, k=3, mode="active")
    docs = await retriever.ainvoke(QUERY)
    assert [d.metadata["note_id"] for d in docs] == walk.expected[:3]
    assert docs[0].metadata["channels"] == {"active": 1} and docs[0].metadata["score"] == 1.0
    assert docs[0].metadata["query_id"] is not None

    memory, walk = walking(database, embeddings)
    retriever = MemoryRetriever(memory=memory, namespace=filled, mode="active")
    docs = retriever.invoke(QUERY, k=2)
    assert [d.metadata["note_id"] for d in docs] == walk.expected[:2]
    passive = await Memory(database, embeddings).asearch(filled, QUERY, k=20)
    contexts = {n.note_id: n.context for n in passive}
    assert [d.page_content for d in docs] == [contexts[i] for i in walk.expected[:2]]


async def test_active_mode_without_a_tool_calling_model_is_a_configuration_error(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    offline = Memory(database, embeddings)
    with pytest.raises(ConfigurationError, match="needs a tool-calling chat model: pass llm="):
        await offline.asearch(filled, QUERY, mode="active")
    with pytest.raises(ConfigurationError, match="pass llm="):
        offline.search(filled, QUERY, mode="active")
    with pytest.raises(ConfigurationError, match="pass llm="):
        await MemoryRetriever(memory=offline, namespace=filled, mode="active").ainvoke(QUERY)
    plain = Memory(database, embeddings, llm=FakeMessagesListChatModel(responses=[]))
    with pytest.raises(ConfigurationError, match="does not support tool calling"):
        await plain.asearch(filled, QUERY, mode="active")
    with pytest.raises(ConfigurationError, match="does not support tool calling"):
        MemoryRetriever(memory=plain, namespace=filled, mode="active").invoke(QUERY)
    with pytest.raises(InvalidInputError, match="mode must be 'passive' or 'active'"):
        await offline.asearch(filled, QUERY, mode="agentic")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mode"):
        MemoryRetriever(memory=offline, namespace=filled, mode="agentic")


def tool_call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """An OpenAI assistant message calling one tool."""
    function = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def stub_walk(walk: Walk) -> Any:
    """The walk of :class:`Walk`, answering OpenAI chat-completion requests."""

    def respond(body: dict[str, Any]) -> dict[str, Any] | str:
        replies = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        if not replies:
            return tool_call("find_keywords", "call_1", text="Alice's puppy Max")
        if len(replies) == 1:
            return tool_call("notes_for", "call_2", keyword=walk.cue(replies[-1]))
        return walk.answer(replies[-1])

    return respond


def test_cli_search_active_with_chat_openai_over_the_stub(
    database: Database,
    embeddings: LocalEmbeddings,
    database_url: str,
    filled: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    active_tools: list[str],
) -> None:
    memory, expected_walk = walking(database, embeddings)
    expected = memory.search(filled, QUERY, k=5, mode="active")
    walk = Walk()
    ns = ".".join(filled)
    with openai_stub(stub_walk(walk)) as (base_url, received):
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "stub")
        args = ["search", QUERY, "--namespace", ns, "--active", "--llm", "openai:stub-model"]
        code = main([*args, "--url", database_url])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert walk.expected == expected_walk.expected
    assert out == "\n".join([f"Q: {QUERY}", *evidence_lines(expected)]) + "\n"
    assert "channels: active #1" in out
    assert len(received) == 3 and received[0]["model"] == "stub-model"
    assert [t["function"]["name"] for t in received[0]["tools"]] == active_tools
    assert received[0]["messages"][0]["role"] == "system"
    assert received[0]["messages"][1] == {"role": "user", "content": QUERY}


def test_cli_search_active_without_a_model_exits_2(
    database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    base = ["search", QUERY, "--namespace", "a.b", "--url", database_url]
    for extra, message in [
        (["--active"], "search --active needs a tool-calling chat model: pass --llm openai:"),
        (["--active", "--llm", "gpt-4o"], "--llm expects 'provider:model'"),
        (["--active", "--llm", "openai:gpt-4o"], "--llm openai:<model> needs OPENAI_API_KEY"),
    ]:
        assert main([*base, *extra]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"error: {message}"), err
        assert err.count("\n") == 1
