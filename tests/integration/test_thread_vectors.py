"""Thread vectors: each note's context embedded after the observation before it in its
thread, built by bulk ingest and one observation at a time (the lead then read from
memory), kept through a merge; the vector channel ranks by them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import select

from langmemcore.config import RetrievalConfig
from langmemcore.construction import ObservationIn
from langmemcore.construction.thread import thread_text
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository
from langmemcore.storage.models import Note, NoteSource, Observation

T0 = datetime(2024, 5, 4, 18, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
TURNS = [
    ObservationIn("a1", "Did you and the kids go kayaking on the lake?", "Ana", T0),
    ObservationIn("b1", "Yup, we did it on Saturday! Everyone got soaked.", "Ben", T0 + MINUTE),
    ObservationIn("a2", "Ha! Sounds like a great day.", "Ana", T0 + 2 * MINUTE),
    ObservationIn("b2", "We watched a film at home on Sunday.", "Ben", T0 + 3 * MINUTE),
    ObservationIn("a3", "My sister loves swimming in the sea.", "Ana", T0 + 4 * MINUTE),
    ObservationIn("b3", "The picnic by the river was fun for everyone.", "Ben", T0 + 5 * MINUTE),
    ObservationIn("a4", "Months later: I started a pottery class.", "Ana", T0 + timedelta(days=90)),
    ObservationIn("b4", "Any news about the garden?", "Ben", None),
    ObservationIn("n1", "Note: the lake house is let until June.", None, T0 + 6 * MINUTE),
    ObservationIn("b5", "Good to know, thanks!", "Ben", T0 + 7 * MINUTE),
]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    u, v = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


async def vectors_by_key(
    database: Database, namespace: tuple[str, ...]
) -> dict[str, tuple[str, list[float], list[float]]]:
    """Observation key -> (context, embedding, thread embedding) of the note holding it."""
    query = (
        select(Observation.key, Note.context, Note.embedding, Note.thread_embedding)
        .join(NoteSource, NoteSource.observation_id == Observation.id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(Note.namespace == ".".join(namespace), Note.status == "active")
    )
    async with database.reader() as session:
        rows = (await session.execute(query)).all()
    return {key: (context, list(own), list(thread)) for key, context, own, thread in rows}


def assert_threads(
    stored: dict[str, tuple[str, list[float], list[float]]], embeddings: LocalEmbeddings
) -> None:
    """Each note of TURNS has the thread vector its lead gives (its own vector without)."""
    leads = {"b1": "a1", "a2": "b1", "b2": "a2", "a3": "b2", "b3": "a3"}
    texts = {o.key: o.text for o in TURNS}
    for key, (context, own, thread) in stored.items():
        if key in leads:
            (expected,) = embeddings.embed_documents([thread_text(texts[leads[key]], context)])
            assert cosine(thread, expected) > 0.999, key
            assert cosine(thread, own) < 0.99, key
        else:
            assert thread == pytest.approx(own), key


async def test_bulk_ingest_gives_each_note_its_thread_vector(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    await Memory(database, embeddings).aingest_many(ns, TURNS)
    stored = await vectors_by_key(database, ns)
    assert set(stored) == {o.key for o in TURNS}
    assert_threads(stored, embeddings)


async def test_one_at_a_time_the_lead_is_read_from_memory(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings)
    for turn in TURNS:
        await memory.aingest(
            ns, turn.text, key=turn.key, speaker=turn.speaker, event_time=turn.event_time
        )
    assert_threads(await vectors_by_key(database, ns), embeddings)


async def test_a_merge_embeds_the_merged_context_after_the_merged_draft_lead(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    said = "I adopted a grey kitten called Pebble from the shelter."
    turns = [
        ObservationIn("q", "Any news since we last talked?", "Ana", T0),
        ObservationIn("k1", said, "Ben", T0 + MINUTE),
        ObservationIn("w", "Which shelter was it?", "Ana", T0 + 2 * MINUTE),
        ObservationIn("k2", said.replace("called", "named"), "Ben", T0 + 3 * MINUTE),
    ]
    report = await Memory(database, embeddings).aingest_many(ns, turns)
    assert [r.operation for r in report.results][-1] == "merge"
    context, own, thread = (await vectors_by_key(database, ns))["k2"]
    (expected,) = embeddings.embed_documents([thread_text("Which shelter was it?", context)])
    assert cosine(thread, expected) > 0.999
    assert cosine(thread, own) < 0.99


async def test_the_vector_channel_finds_a_reply_through_what_it_answers(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings)
    await memory.aingest_many(ns, TURNS[:6])
    question = "What did Ben's family do on the lake?"
    order = {}
    for threaded in (True, False):
        config = RetrievalConfig(
            channels=("vector",), diversity=0.0, supersession=False, thread_vectors=threaded
        )
        notes = await memory.asearch(ns, question, k=6, config=config)
        order[threaded] = [n.sources[0].key for n in notes]
    assert order[True][0] == "b1"
    assert order[False].index("b1") > 0


async def _note_of(database: Database, ns: tuple[str, ...]) -> dict[str, int]:
    """Each observation's key -> its note."""
    query = (
        select(Observation.key, Note.id)
        .join(NoteSource, NoteSource.observation_id == Observation.id)
        .join(Note, Note.id == NoteSource.note_id)
        .where(Note.namespace == ".".join(ns))
    )
    async with database.reader() as session:
        return dict((await session.execute(query)).all())


async def test_each_threaded_note_reads_back_its_lead(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """The lead a thread vector embedded is what supersession reads as the turn a note
    answers; a note without a thread has none.
    """
    await Memory(database, embeddings).aingest_many(ns, TURNS)
    note_of = await _note_of(database, ns)
    async with Repository.open(database, autocommit=True) as repo:
        exchanges = await repo.exchanges_of(ns, list(note_of.values()))
    by_key = {key: exchanges[n].lead if n in exchanges else None for key, n in note_of.items()}
    texts = {o.key: (o.text, o.speaker) for o in TURNS}
    expected = {"b1": "a1", "a2": "b1", "b2": "a2", "a3": "b2", "b3": "a3"}
    for key, lead in by_key.items():
        if key in expected:
            assert lead is not None and (lead.text, lead.speaker) == texts[expected[key]], key
        else:
            assert lead is None, key


async def test_each_note_reads_back_the_reply_its_thread_leads_to(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """A note's reply is the next turn whose thread vector embeds it as the lead: the
    inverse of the leads. The last turn of a thread has none (the next is said by no one,
    months later, or at no known time).
    """
    await Memory(database, embeddings).aingest_many(ns, TURNS)
    note_of = await _note_of(database, ns)
    async with Repository.open(database, autocommit=True) as repo:
        exchanges = await repo.exchanges_of(ns, list(note_of.values()))
    texts = {o.key: (o.text, o.speaker) for o in TURNS}
    expected = {"a1": "b1", "b1": "a2", "a2": "b2", "b2": "a3", "a3": "b3"}
    for key, note_id in note_of.items():
        reply = exchanges[note_id].reply if note_id in exchanges else None
        if key in expected:
            assert reply is not None and (reply.text, reply.speaker) == texts[expected[key]], key
        else:
            assert reply is None, key
