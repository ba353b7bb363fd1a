"""Active mode (MRAgent): a scripted tool-calling model walks a real memory.

The memory is built by the construction graph; the expected results are computed from the
rows read back into Python (plain set logic, independent of the traversal SQL).
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatResult
from pydantic import Field
from sqlalchemy import select

from langmemcore import ConfigurationError
from langmemcore.config import ConstructionConfig, LLMConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.prompts import configure_model, track_usage
from langmemcore.retrieval.active import ActiveResult, TraversalStep, active_search
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import (
    Edge,
    Keyword,
    Note,
    NoteKeyword,
    NoteSource,
    Observation,
    Topic,
    TopicKeyword,
)

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)

CONVERSATION = [
    ("Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "I painted a sunrise over the lake last weekend."),
    ("Caroline", "The support group made me feel accepted and brave."),
    ("Caroline", "I'm researching adoption agencies because I want to give a kid a home."),
    ("Melanie", "We took the kids camping in the mountains and roasted marshmallows."),
    ("Caroline", "Adoption agencies asked me for references and a home study."),
    ("Melanie", "My painting of the lake sunrise now hangs in the living room."),
    ("Caroline", "I gave a talk about my transition at the support group meeting."),
    ("Melanie", "The kids loved the camping trip, they want to go back to the mountains."),
    ("Caroline", "The adoption agency approved my home study last Friday."),
    ("Melanie", "I signed up for a pottery class to try something new."),
    ("Caroline", "My friends from the support group threw me a party after the adoption news."),
]
ONLY_IN_B = ("Caroline", "Caroline adopted a kid named Max from the agency in Boston.")


def observations(items: Sequence[tuple[str, str]]) -> list[ObservationIn]:
    """One observation a day from T0 (D1 on 8 May 2023, D2 on 9 May, ...)."""
    return [
        ObservationIn(f"D{i + 1}", text, speaker, T0 + timedelta(days=i))
        for i, (speaker, text) in enumerate(items)
    ]


@dataclass(frozen=True)
class Graph:
    """A namespace's memory as plain Python data (active notes only)."""

    namespace: tuple[str, ...]
    keys: dict[int, set[str]]
    keywords: dict[int, set[str]]
    times: dict[int, datetime]
    edges: list[tuple[int, int, str, str | None, float]]
    topics: dict[int, tuple[str, set[str]]]

    def carriers(self, keyword: str) -> set[int]:
        return {n for n, kws in self.keywords.items() if keyword in kws}

    def tagged(self, keyword: str, tag: str) -> list[int]:
        """Carriers with an edge tagged ``tag``, strongest such edge first."""
        best: dict[int, float] = {}
        for a, b, _rel, t, s in self.edges:
            if t == tag:
                for n in (a, b):
                    if n in self.carriers(keyword):
                        best[n] = max(best.get(n, 0.0), s)
        return sorted(best, key=lambda n: (-best[n], n))

    def note_of(self, key: str) -> int:
        return next(n for n, keys in self.keys.items() if key in keys)


async def load_graph(database: Database, namespace: tuple[str, ...]) -> Graph:
    ns = ".".join(namespace)
    async with Repository.open(database) as repo:
        s = repo._session
        rows = (
            await s.execute(
                select(Note.id, Note.event_time).where(
                    Note.namespace == ns, Note.status == "active"
                )
            )
        ).all()
        active = {i for i, _t in rows}
        times = {i: t for i, t in rows if t is not None}
        keys: dict[int, set[str]] = {n: set() for n in active}
        for note_id, key in await s.execute(
            select(NoteSource.note_id, Observation.key)
            .join(Observation, Observation.id == NoteSource.observation_id)
            .where(NoteSource.namespace == ns)
        ):
            if note_id in keys:
                keys[note_id].add(key)
        names = dict(
            (await s.execute(select(Keyword.id, Keyword.name).where(Keyword.namespace == ns))).all()
        )
        keywords: dict[int, set[str]] = {n: set() for n in active}
        for note_id, kw in await s.execute(
            select(NoteKeyword.note_id, NoteKeyword.keyword_id).where(NoteKeyword.namespace == ns)
        ):
            if note_id in keywords:
                keywords[note_id].add(names[kw])
        edges = [
            (e.source_id, e.target_id, e.relation, e.tag, e.strength)
            for e in await s.scalars(select(Edge).where(Edge.namespace == ns))
            if e.source_id in active and e.target_id in active
        ]
        topics: dict[int, tuple[str, set[str]]] = {
            t.id: (t.label, set())
            for t in await s.scalars(select(Topic).where(Topic.namespace == ns))
        }
        for topic_id, kw in await s.execute(
            select(TopicKeyword.topic_id, TopicKeyword.keyword_id).where(
                TopicKeyword.namespace == ns
            )
        ):
            topics[topic_id][1].add(names[kw])
    return Graph(namespace, keys, keywords, times, edges, topics)


@pytest.fixture(scope="module")
async def graphs(database: Database, embeddings: LocalEmbeddings) -> tuple[Graph, Graph]:
    """Namespace A (the conversation) and B (the same plus one observation about Max)."""
    memory = Memory(database, embeddings, config=ConstructionConfig(topic_every=0))
    run = uuid.uuid4().hex[:10]
    a, b = ("active", run, "a"), ("active", run, "b")
    await memory.aingest_many(a, observations(CONVERSATION))
    extra = ObservationIn("B1", ONLY_IN_B[1], ONLY_IN_B[0], T0 + timedelta(days=20))
    await memory.aingest_many(b, [*observations(CONVERSATION), extra])
    for ns in (a, b):
        await memory.aevolve_topics(ns)
    return await load_graph(database, a), await load_graph(database, b)


class ScriptedModel(FakeMessagesListChatModel):
    """Plays scripted replies (cycling) and records what it was sent."""

    received: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[str] = Field(default_factory=list)
    choices: list[Any] = Field(default_factory=list)
    fail_at: int | None = None

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        self.bound = [t.name for t in tools]
        self.choices.append(kwargs.get("tool_choice"))
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        if self.fail_at is not None and len(self.received) >= self.fail_at:
            raise ConnectionError("connection refused")
        return super()._generate(messages, stop, run_manager, **kwargs)


_ids = itertools.count()


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"c{next(_ids)}", "type": "tool_call"}


def step(*calls: dict[str, Any], invalid: Sequence[dict[str, Any]] = ()) -> AIMessage:
    return AIMessage(content="", tool_calls=list(calls), invalid_tool_calls=list(invalid))


def tool_replies(model: ScriptedModel, call_index: int) -> list[ToolMessage]:
    """The tool messages the model saw at its ``call_index``-th call (0-based), last step."""
    seen = model.received[call_index]
    tail: list[ToolMessage] = []
    for message in reversed(seen):
        if not isinstance(message, ToolMessage):
            break
        tail.insert(0, message)
    return tail


def payload(message: ToolMessage) -> Any:
    assert message.status == "success", message.content
    return json.loads(str(message.content))


async def search(
    database: Database,
    embeddings: LocalEmbeddings,
    graph: Graph,
    model: ScriptedModel,
    *,
    step_budget: int = 6,
    max_notes: int = 20,
) -> ActiveResult:
    return await active_search(
        database,
        embeddings,
        model,
        graph.namespace,
        "What did the adoption agency ask Caroline for?",
        step_budget=step_budget,
        max_notes=max_notes,
    )


def narrowing_cue(graph: Graph) -> tuple[str, str, list[int]]:
    """A keyword and an edge tag that select some, not all, of the keyword's notes."""
    options = []
    for keyword in sorted({k for kws in graph.keywords.values() for k in kws}):
        for tag in sorted({t for *_e, t, _s in graph.edges if t}):
            tagged = graph.tagged(keyword, tag)
            if tagged and len(tagged) < len(graph.carriers(keyword)):
                options.append((keyword, tag, tagged))
    assert options, "the memory has no tag that narrows a keyword's notes"
    return options[0]


async def test_scripted_cue_tag_content_path_returns_exactly_its_evidence(
    database: Database,
    embeddings: LocalEmbeddings,
    graphs: tuple[Graph, Graph],
    active_tools: list[str],
) -> None:
    graph = graphs[0]
    keyword, tag, tagged = narrowing_cue(graph)
    first = tagged[0]
    links = sorted(
        ((s, b if a == first else a, rel, t) for a, b, rel, t, s in graph.edges if first in (a, b)),
        reverse=True,
    )
    assert links, "the first tagged note has no neighbour"
    _s, neighbour, relation, link_tag = links[0]
    model = ScriptedModel(
        responses=[
            step(call("find_keywords", text=keyword)),
            step(call("keyword_tags", keyword=keyword.upper())),
            step(call("notes_for", keyword=keyword, tag=tag)),
            step(call("note_cues", note_id=first)),
            step(call("note_cues", note_id=str(neighbour))),
            AIMessage(content=f"The answer is in [note {neighbour}] and [note {first}]."),
        ]
    )
    result = await search(database, embeddings, graph, model)

    assert result.stopped_by == "model" and result.steps == 6
    assert result.answer.startswith("The answer is in")
    assert [(s.tool, s.note_ids, s.error) for s in result.path] == [
        ("find_keywords", (), None),
        ("keyword_tags", (), None),
        ("notes_for", tuple(tagged), None),
        ("note_cues", (first,), None),
        ("note_cues", (neighbour,), None),
    ]
    assert result.path[2] == TraversalStep(
        "notes_for", {"keyword": keyword, "tag": tag}, tuple(tagged)
    )
    assert result.note_ids == (
        neighbour,
        first,
        *(n for n in tagged if n not in (first, neighbour)),
    )

    assert model.bound == active_tools
    system, question = model.received[0]
    assert isinstance(system, SystemMessage) and isinstance(question, HumanMessage)
    assert "cue -> tag" in str(system.content) and "at most 6 steps" in str(system.content)
    assert question.content == "What did the adoption agency ask Caroline for?"

    (found,) = tool_replies(model, 1)
    top = payload(found)["keywords"][0]
    assert top["keyword"] == keyword and top["similarity"] == pytest.approx(1.0, abs=1e-3)
    assert top["notes"] == len(graph.carriers(keyword))

    (tags,) = tool_replies(model, 2)
    body = payload(tags)
    assert body["keyword"] == keyword and body["notes"] == len(graph.carriers(keyword))
    expected_edges = {
        (a, b) for a, b, _rel, t, _s in graph.edges if t == tag and {a, b} & graph.carriers(keyword)
    }
    assert sum(t["edges"] for t in body["tags"] if t.get("tag") == tag) == len(expected_edges)

    (notes,) = tool_replies(model, 3)
    body = payload(notes)
    assert [n["id"] for n in body["notes"]] == tagged and body["total"] == len(tagged)

    (cues,) = tool_replies(model, 4)
    body = payload(cues)
    assert body["id"] == first and keyword in body["keywords"]
    assert {"note_id": neighbour, "relation": relation, "tag": link_tag} in [
        {k: v for k, v in link.items() if k != "strength"} for link in body["links"]
    ]
    assert "T" not in body["time"] and body["time"].startswith("2023-05-")


async def test_calls_written_as_json_in_the_text_are_made(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    graph = graphs[0]
    keyword = sorted({k for kws in graph.keywords.values() for k in kws})[0]
    written = (
        "I'll look the cue up first:\n```json\n"
        + json.dumps({"name": "notes_for", "arguments": {"keyword": keyword}})
        + '\n```\nand {"name": "no_such_tool", "arguments": {}}'
    )
    model = ScriptedModel(
        responses=[AIMessage(content=written), AIMessage(content="Done, [note 1].")]
    )
    with track_usage() as usage:
        result = await search(database, embeddings, graph, model)
    assert [(s.tool, s.args, s.error) for s in result.path] == [
        ("notes_for", {"keyword": keyword}, None)
    ]
    carriers = sorted(graph.carriers(keyword), key=lambda n: (graph.times[n], n))
    assert result.path[0].note_ids == tuple(carriers)
    made = model.received[1][2]
    assert isinstance(made, AIMessage) and [c["name"] for c in made.tool_calls] == ["notes_for"]
    assert model.choices == [None, "any"]  # the first step is bound to call a tool
    assert (usage.step("active").calls, usage.step("active").failed) == (2, 0)


async def test_step_budget_cuts_a_model_that_never_stops(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    graph = graphs[0]
    counts = {k: len(graph.carriers(k)) for kws in graph.keywords.values() for k in kws}
    keyword = min(counts, key=lambda k: (-counts[k], k))
    assert counts[keyword] >= 2
    carriers = sorted(graph.carriers(keyword), key=lambda n: (graph.times[n], n))
    model = ScriptedModel(responses=[step(call("notes_for", keyword=keyword))])
    result = await search(database, embeddings, graph, model, step_budget=3, max_notes=1)
    assert result.stopped_by == "budget"
    assert result.steps == 3 and len(model.received) == 3 and len(result.path) == 3
    assert all(s.note_ids == tuple(carriers) for s in result.path)
    assert result.note_ids == (carriers[0],)
    assert result.answer == ""


async def test_timeline_and_topic_tools_return_the_right_notes(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    graph = graphs[0]
    in_range = sorted(
        (t, n)
        for n, t in graph.times.items()
        if datetime(2023, 5, 15, tzinfo=UTC) <= t < datetime(2023, 5, 18, tzinfo=UTC)
    )
    pottery = graph.note_of("D11")
    topic_id, (label, members) = next(
        (i, v) for i, v in sorted(graph.topics.items()) if "mountain" in v[1]
    )

    def topic_expected(members: set[str]) -> list[int]:
        shared = {n: len(kws & members) for n, kws in graph.keywords.items() if kws & members}
        return sorted(shared, key=lambda n: (-shared[n], graph.times[n], n))[:10]

    model = ScriptedModel(
        responses=[
            step(
                call("timeline", start_date="2023-05-15", end_date="2023-05-17"),
                call("timeline", start_date="18 May, 2023"),
                call("topic_notes", topic=label),
                call("topic_notes", topic=topic_id),
                call("topic_notes", topic="camping in the mountains with children"),
            ),
            AIMessage(content="Done."),
        ]
    )
    result = await search(database, embeddings, graph, model)
    assert result.stopped_by == "model" and result.steps == 2
    week, day, by_label, by_id, by_meaning = (payload(m) for m in tool_replies(model, 1))

    assert [n["id"] for n in week["notes"]] == [n for _t, n in in_range]
    assert week["notes"][0]["id"] == graph.note_of("D8")
    assert pottery not in [n["id"] for n in week["notes"]]
    assert [n["id"] for n in day["notes"]] == [pottery]

    expected = topic_expected(members)
    for body in (by_label, by_id, by_meaning):
        assert body["topic"] == {"id": topic_id, "label": label}
        assert [n["id"] for n in body["notes"]] == expected
    assert graph.note_of("D5") in expected and graph.note_of("D9") in expected
    assert result.path[0].note_ids == tuple(n for _t, n in in_range)
    assert set(result.note_ids) == {n for _t, n in in_range} | {pottery} | set(expected)


async def test_malformed_calls_become_error_texts_and_the_loop_goes_on(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    graph = graphs[0]
    missing = max(graph.keys) + 1_000_000
    keyword, _tag, _tagged = narrowing_cue(graph)
    bad_json = {"name": "notes_for", "args": '{"keyword": "kid', "id": "bad", "error": "JSON"}
    model = ScriptedModel(
        responses=[
            step(
                call("note_cues", note_id="twelve"),
                call("timeline", start_date="someday"),
                call("forget_everything", really=True),
                call("note_cues", note_id=missing),
                call("keyword_tags", keyword="zebra crossing in antarctica"),
                call("notes_for"),
                invalid=[bad_json],
            ),
            step(call("notes_for", keyword=keyword)),
            AIMessage(content="Found it."),
        ]
    )
    result = await search(database, embeddings, graph, model)
    assert result.stopped_by == "model" and result.steps == 3
    errors = tool_replies(model, 1)
    assert len(errors) == 7
    assert all(m.status == "error" and str(m.content).startswith("error:") for m in errors)
    assert [m.tool_call_id for m in errors][-1] == "bad"
    assert "note_id" in str(errors[0].content)
    assert "start_date" in str(errors[1].content)
    assert "unknown tool 'forget_everything'" in str(errors[2].content)
    assert f"no note {missing}" in str(errors[3].content)
    assert "no keyword" in str(errors[4].content)
    assert "keyword" in str(errors[5].content)
    assert "not valid JSON" in str(errors[6].content)
    assert [s.error is not None for s in result.path] == [True] * 7 + [False]
    assert all(s.note_ids == () for s in result.path[:7])
    assert set(result.note_ids) == graph.carriers(keyword) and result.note_ids


async def test_another_namespace_never_shows_up(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    a, b = graphs
    max_b = b.note_of("B1")
    assert "max" in b.keywords[max_b] and not a.carriers("max")
    b_topic = next(iter(b.topics))
    script = [
        step(
            call("find_keywords", text="Max"),
            call("notes_for", keyword="kid"),
            call("note_cues", note_id=max_b),
            call("topic_notes", topic=str(b_topic)),
            call("timeline", start_date="2023-05-01", end_date="2023-06-30"),
            call("timeline", start_date="2023-05-28"),
        ),
        AIMessage(content=f"Caroline adopted Max [note {max_b}]."),
    ]
    model_a = ScriptedModel(responses=list(script))
    result = await search(database, embeddings, a, model_a)
    found, kid, cues, topic, everything, late = tool_replies(model_a, 1)
    assert "max" not in [k["keyword"] for k in payload(found)["keywords"]]
    assert {n["id"] for n in payload(kid)["notes"]} == a.carriers("kid")
    assert cues.status == "error" and topic.status == "error"
    assert {n["id"] for n in payload(everything)["notes"]} <= set(a.keys)
    assert payload(everything)["total"] == len(a.keys)
    assert payload(late)["notes"] == []
    assert result.note_ids and set(result.note_ids) <= set(a.keys)
    assert not set(result.note_ids) & set(b.keys)
    assert max_b not in result.note_ids

    model_b = ScriptedModel(responses=list(script))
    result_b = await search(database, embeddings, b, model_b)
    found, kid, cues, _topic, _everything, late = tool_replies(model_b, 1)
    assert payload(found)["keywords"][0]["keyword"] == "max"
    assert max_b in {n["id"] for n in payload(kid)["notes"]}
    assert payload(cues)["id"] == max_b
    assert [n["id"] for n in payload(late)["notes"]] == [max_b]
    assert result_b.note_ids[0] == max_b


async def test_a_dead_model_endpoint_returns_what_was_gathered(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    graph = graphs[0]
    keyword, _tag, _tagged = narrowing_cue(graph)
    model = ScriptedModel(responses=[step(call("notes_for", keyword=keyword))], fail_at=2)
    result = await search(database, embeddings, graph, model)
    assert result.stopped_by == "error" and result.steps == 1
    assert result.error is not None and "connection refused" in result.error
    assert [s.tool for s in result.path] == ["notes_for"]
    assert set(result.note_ids) == graph.carriers(keyword)


async def test_the_walk_stops_when_its_time_is_up(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    """A model taking 0.2 s a step, given 0.5 s in all and ten steps, stops on time with
    what it gathered."""
    graph = graphs[0]
    keyword, _tag, _tagged = narrowing_cue(graph)
    model = ScriptedModel(responses=[step(call("notes_for", keyword=keyword))], sleep=0.2)
    configure_model(model, LLMConfig(agent_timeout=0.5))
    result = await search(database, embeddings, graph, model, step_budget=10)
    assert result.stopped_by == "time" and 1 <= result.steps < 10
    assert set(result.note_ids) == graph.carriers(keyword)


async def test_a_walk_that_gathers_nothing_says_so(
    database: Database,
    embeddings: LocalEmbeddings,
    graphs: tuple[Graph, Graph],
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedModel(responses=[AIMessage(content="I cannot tell.")])
    with caplog.at_level("WARNING", logger="langmemcore.retrieval"):
        result = await search(database, embeddings, graphs[0], model)
    assert result.note_ids == () and result.stopped_by == "model"
    assert "active search gathered no notes (1 steps, stopped by model)" in caplog.text


async def test_a_model_without_tool_calling_is_a_configuration_error(
    database: Database, embeddings: LocalEmbeddings, graphs: tuple[Graph, Graph]
) -> None:
    plain = FakeMessagesListChatModel(responses=[AIMessage(content="hi")])
    with pytest.raises(ConfigurationError, match="tool calling"):
        await active_search(database, embeddings, plain, graphs[0].namespace, "anything")
