"""Active mode's semantic-layer tools (a person's information, a person's aspect) on a real
memory whose profiles the construction graph built; a scripted tool-calling model drives
them. Expected values are read back from the stored profile and the note sources.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.retrieval.active import active_search
from langmemcore.storage import Database, Repository
from tests.integration.conftest import Ingested
from tests.integration.scripted_model import ScriptedChatModel

JAN_2023 = datetime(2023, 1, 8, 18, 0, tzinfo=UTC)
FEB_2024 = datetime(2024, 2, 3, 20, 0, tzinfo=UTC)
TURNS = [
    ObservationIn("n1", "I live in Lyon with my partner.", "Nadia", JAN_2023),
    ObservationIn("b1", "I'm vegetarian and I cook a lot.", "Ben", JAN_2023),
    ObservationIn("n2", "I work as a nurse at the city hospital.", "Nadia", JAN_2023),
    ObservationIn("n3", "We moved to Hamburg last month.", "Nadia", FEB_2024),
    ObservationIn("b2", "The weather in Bristol is grey again.", "Ben", FEB_2024),
]


@pytest.fixture(scope="module")
async def filled(ingested: Ingested) -> tuple[str, ...]:
    """A namespace where Nadia moved from Lyon to Hamburg and Ben is vegetarian."""
    return await ingested("active-profile", TURNS)


async def notes_of(database: Database, ns: tuple[str, ...], keys: list[str]) -> list[int]:
    async with Repository.open(database, autocommit=True) as repo:
        return await repo.active_notes_of_observation_keys(ns, keys)


def replies(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


class Recorder:
    """A script step that records the conversation the model was sent."""

    def __init__(self, then: AIMessage) -> None:
        self.seen: list[BaseMessage] = []
        self.then = then

    def __call__(self, messages: list[BaseMessage]) -> AIMessage:
        self.seen = list(messages)
        return self.then


def calls(*pairs: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[
            {"name": name, "args": args, "id": f"c{n}", "type": "tool_call"}
            for n, (name, args) in enumerate(pairs)
        ],
    )


async def test_person_profile_and_aspect_show_the_stored_profile(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    ns = filled
    async with Repository.open(database, autocommit=True) as repo:
        stored = await repo.profile_of(ns, "Nadia")
    homes = [v for v in stored if v.aspect == "home"]
    assert [(v.value, v.current) for v in homes] == [("Lyon", False), ("Hamburg", True)]
    current = [v for v in stored if v.current]
    recorder = Recorder(AIMessage(content="Nadia lives in Hamburg now."))
    model = ScriptedChatModel(
        messages=iter(
            [
                calls(("person_profile", {"person": "nadia"})),
                calls(("person_aspect", {"person": "Nadia", "aspect": "Home"})),
                recorder,
            ]
        )
    )
    result = await active_search(database, embeddings, model, ns, "Where does Nadia live now?")

    profile, aspect = replies(recorder.seen)
    body = json.loads(str(profile.content))
    assert body["person"] == "Nadia"
    shown = {(a["aspect"], c["value"]) for a in body["aspects"] for c in a["current"]}
    assert shown == {(v.aspect, v.value) for v in current}
    home = next(a for a in body["aspects"] if a["aspect"] == "home")
    assert home["earlier"] == 1
    hamburg_notes = await notes_of(database, ns, ["n3"])
    assert home["current"][0]["note_ids"] == hamburg_notes

    history = json.loads(str(aspect.content))
    assert [(v["value"], v["current"], v["end"]) for v in history["values"]] == [
        ("Hamburg", True, None),
        ("Lyon", False, "replaced"),
    ]
    lyon_notes = await notes_of(database, ns, ["n1"])
    assert [n["id"] for n in history["values"][1]["notes"]] == lyon_notes
    assert "Lyon" in history["values"][1]["notes"][0]["text"]
    assert history["values"][1]["until"].startswith("2024-02-03")

    assert [s.tool for s in result.path] == ["person_profile", "person_aspect"]
    assert set(result.path[1].note_ids) == set(hamburg_notes + lyon_notes)
    assert set(hamburg_notes) <= set(result.note_ids)


async def test_unknown_person_or_aspect_is_an_error_text_and_the_walk_goes_on(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...]
) -> None:
    ns = filled
    recorder = Recorder(AIMessage(content="I could not find it."))
    model = ScriptedChatModel(
        messages=iter(
            [
                calls(
                    ("person_profile", {"person": "Zelda"}),
                    ("person_aspect", {"person": "Nadia", "aspect": "star sign"}),
                    ("person_aspect", {"person": "Nadia"}),
                ),
                recorder,
            ]
        )
    )
    result = await active_search(database, embeddings, model, ns, "What is Zelda's job?")
    unknown, bad_aspect, missing = replies(recorder.seen)
    assert unknown.status == "error" and "no profile of 'Zelda'" in str(unknown.content)
    assert "Nadia" in str(unknown.content)
    assert bad_aspect.status == "error" and "unknown aspect" in str(bad_aspect.content)
    assert missing.status == "error" and "aspect" in str(missing.content)
    assert result.stopped_by == "model" and result.note_ids == ()


async def test_the_profile_tools_never_show_another_namespace(
    database: Database, embeddings: LocalEmbeddings, filled: tuple[str, ...], ingested: Ingested
) -> None:
    """Nadia's profile lives in ``filled``; another namespace's tools never show it."""
    other = await ingested(
        "active-profile", [ObservationIn("x", "I'm vegan now.", "Ben", FEB_2024)]
    )
    recorder = Recorder(AIMessage(content="done"))
    model = ScriptedChatModel(
        messages=iter([calls(("person_profile", {"person": "Nadia"})), recorder])
    )
    result = await active_search(database, embeddings, model, other, "Where does Nadia live?")
    (reply,) = replies(recorder.seen)
    assert reply.status == "error" and "Ben" in str(reply.content)
    assert result.note_ids == ()
