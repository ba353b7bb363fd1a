"""Notes written about the user in the third person ("User lives in Lisbon.", "The user's dog
is Biscuit"), as agents and LangMem's tools write them, get the semantic layer and the
knowledge-update ordering of first-person turns: their subject is the user the namespace
belongs to, the subject ``user`` (the speaker a LangChain human message stands for), and a
question about "the user" or asked as "I" speaks of that subject.
"""

from __future__ import annotations

from datetime import UTC, datetime

from langmemcore import MemoryStore
from langmemcore.config import ConstructionConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.profiles import Profile
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage import Database

JAN_2024 = datetime(2024, 1, 15, 10, 0, tzinfo=UTC)
MAR_2024 = datetime(2024, 3, 2, 10, 0, tzinfo=UTC)
JUN_2024 = datetime(2024, 6, 20, 10, 0, tzinfo=UTC)

NOTES = [
    ObservationIn("lisbon", "User lives in Lisbon.", None, JAN_2024),
    ObservationIn("coffee", "User drinks oat milk flat whites every morning.", None, MAR_2024),
    ObservationIn("berlin", "User moved to Berlin.", None, JUN_2024),
]


def _memory(database: Database, embeddings: LocalEmbeddings) -> Memory:
    return Memory(database, embeddings, config=ConstructionConfig(topic_every=0))


def _rank(notes: list[RetrievedNote], key: str) -> int | None:
    for position, note in enumerate(notes, start=1):
        if any(source.key.endswith(key) for source in note.sources):
            return position
    return None


def _current(profile: Profile, aspect: str) -> list[str]:
    return [v.value for a in profile.aspects if a.aspect == aspect for v in a.values if v.current]


def _values(profile: Profile, aspect: str) -> list[str]:
    return [v.value for a in profile.aspects if a.aspect == aspect for v in a.values]


async def test_a_now_question_about_the_user_ranks_the_newer_third_person_note_first(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = _memory(database, embeddings)
    await memory.aingest_many(ns, NOTES)
    for question in ("Where does the user live now?", "Where do I live now?"):
        notes = await memory.asearch(ns, question, k=10)
        newer, older = _rank(notes, "berlin"), _rank(notes, "lisbon")
        assert newer is not None and older is not None, (question, notes)
        assert newer < older, (question, [n.context for n in notes])
    profile = await memory.aprofile(ns, "user")
    assert _current(profile, "home") == ["Berlin"]
    assert sorted(_values(profile, "home")) == ["Berlin", "Lisbon"]


async def test_a_move_from_one_city_to_another_gives_the_user_a_home(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = _memory(database, embeddings)
    await memory.aingest(ns, "User moved from Lisbon to Berlin", key="move", event_time=JUN_2024)
    await memory.aingest(ns, "The user's dog is Biscuit", key="dog", event_time=JUN_2024)
    profile = await memory.aprofile(ns, "user")
    assert _current(profile, "home") == ["Berlin"]
    assert _current(profile, "pet"), profile
    assert any("Biscuit" in v or v == "dog" for v in _current(profile, "pet")), profile


async def test_a_note_naming_someone_else_stays_theirs(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """Only words that refer to the user are read as the user: a note about a named person
    keeps that person as its subject, and a user-facing word inside a phrase ("the user
    manual") is not a reference to the user.
    """
    memory = _memory(database, embeddings)
    await memory.aingest(ns, "Nadia moved to Hamburg.", key="nadia", event_time=JUN_2024)
    await memory.aingest(ns, "The user manual is in Lisbon.", key="manual", event_time=JUN_2024)
    assert _current(await memory.aprofile(ns, "nadia"), "home") == ["Hamburg"]
    assert _current(await memory.aprofile(ns, "user"), "home") == []


async def test_store_items_in_the_third_person_speak_of_the_user(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    memory = _memory(database, embeddings)
    store = MemoryStore(memory)
    await store.aput(ns, "home-1", {"text": "User lives in Lisbon.", "time": JAN_2024.isoformat()})
    await store.aput(ns, "dog", {"text": "The user's dog is Biscuit", "time": MAR_2024.isoformat()})
    await store.aput(ns, "home-2", {"text": "User moved to Berlin.", "time": JUN_2024.isoformat()})
    items = await store.asearch(ns, query="Where does the user live now?", limit=3)
    keys = [item.key for item in items]
    assert "home-2" in keys and "home-1" in keys, keys
    assert keys.index("home-2") < keys.index("home-1"), keys
    profile = await memory.aprofile(ns, "user")
    assert _current(profile, "home") == ["Berlin"]
    assert _current(profile, "pet"), profile


async def test_the_users_own_turns_and_notes_about_them_are_one_subject(
    database: Database, embeddings: LocalEmbeddings, ns: tuple[str, ...]
) -> None:
    """A turn the user said ("user", as a LangChain human message's speaker) and a later
    agent note about them without a speaker are statements of one subject.
    """
    memory = _memory(database, embeddings)
    await memory.aingest(ns, "I live in Lisbon.", key="lisbon", speaker="user", event_time=JAN_2024)
    await memory.aingest(ns, "User moved to Berlin.", key="berlin", event_time=JUN_2024)
    notes = await memory.asearch(ns, "Where do I live now?", k=10)
    newer, older = _rank(notes, "berlin"), _rank(notes, "lisbon")
    assert newer is not None and older is not None and newer < older, notes
    home = [a for a in (await memory.aprofile(ns, "user")).aspects if a.aspect == "home"]
    assert [(v.value, v.current) for v in home[0].values] == [
        ("Lisbon", False),
        ("Berlin", True),
    ]
