"""The profile channel does no database work where it cannot matter (the statements a search
sends are counted by a SQLAlchemy event listener on the test database's engines), and speaks
only where the asked aspect has history."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from langmemcore.config import ConstructionConfig, RetrievalConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.profiles.question import parse_profile_question
from langmemcore.retrieval.channels import CHANNEL_FUNCTIONS
from langmemcore.retrieval.cost import track_search_cost
from langmemcore.retrieval.decompose import plan_query
from langmemcore.retrieval.profile_channel import profile_ranking
from langmemcore.storage import Database, Repository
from tests.integration.conftest import Ingested, sql_statements

JAN = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)
MARCH = datetime(2024, 3, 2, 9, 0, tzinfo=UTC)
TURNS = [
    ObservationIn("lyon", "I live in Lyon with my partner.", "Nadia", JAN),
    ObservationIn("nurse", "I work as a nurse at the city hospital.", "Omar", JAN),
    ObservationIn("hamburg", "I moved to Hamburg last month!", "Nadia", MARCH),
    ObservationIn("dog", "My dog Biscuit loves the beach.", "Omar", JAN),
    ObservationIn("cat", "My cat Mochi sleeps all day.", "Omar", MARCH),
    ObservationIn("fish", "We have two goldfish in a tank, Sol and Lua.", "Rafael", JAN),
    ObservationIn("greyhound", "We got a rescue greyhound called Pepper instead.", "Rafael", MARCH),
]
QUESTION = "Where does Nadia live now?"

WITH_PROFILE = replace(
    RetrievalConfig(), llm_only=tuple(m for m in RetrievalConfig().llm_only if m != "profile")
)
"""The defaults with the profile channel on offline (it is one of `llm_only`'s mechanisms)."""


def profile_reads(sent: list[str]) -> list[str]:
    """The statements that read the semantic layer's tables."""
    return [s for s in sent if "profile_value" in s]


def value_reads(sent: list[str]) -> list[str]:
    """The statements that read a subject's values or their sources."""
    return [s for s in profile_reads(sent) if "subject_key = " in s or "_sources" in s]


@pytest.fixture(scope="module")
async def with_profiles(ingested: Ingested) -> tuple[str, ...]:
    """Nadia moved from Lyon to Hamburg; Omar is a nurse with a dog and a cat; Rafael had
    goldfish and got a greyhound instead."""
    return await ingested("profile-reads", TURNS)


@pytest.fixture(scope="module")
async def without_profiles(database: Database, embeddings: LocalEmbeddings) -> tuple[str, ...]:
    """The same turns, remembered with the semantic layer switched off."""
    namespace = ("profile-reads", uuid.uuid4().hex[:12])
    off = Memory(database, embeddings, config=ConstructionConfig(profiles=False))
    await off.aingest_many(namespace, TURNS)
    async with Repository.open(database, autocommit=True) as repo:
        assert await repo.profile_subjects(namespace) == []
    return namespace


async def test_a_namespace_without_profiles_is_checked_once_and_never_read(
    database: Database, embeddings: LocalEmbeddings, without_profiles: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, retrieval=WITH_PROFILE)
    with sql_statements(database) as sent:
        results = await memory.asearch(without_profiles, QUESTION, k=3)
    assert results, "the search found no notes"
    assert len(profile_reads(sent)) == 1, profile_reads(sent)
    assert value_reads(sent) == []
    off = Memory(database, embeddings, retrieval=RetrievalConfig(channels=("vector",)))
    with sql_statements(database) as sent:
        await off.asearch(without_profiles, QUESTION, k=3)
    assert profile_reads(sent) == []
    offline_default = Memory(database, embeddings)
    with sql_statements(database) as sent:
        await offline_default.asearch(without_profiles, QUESTION, k=3)
    assert profile_reads(sent) == []


async def test_sub_query_rounds_never_check_again(
    database: Database, embeddings: LocalEmbeddings, without_profiles: tuple[str, ...]
) -> None:
    """A date no note has makes the offline judge ask a sub-query; the profile channel runs
    in its rounds (weighted, so its ranking counts) on the subjects read once."""
    base = RetrievalConfig()
    config = replace(
        base,
        llm_only=(),
        refine_channels=("keyword", "time", "profile"),
        weights=(*base.weights, ("profile", 1.0)),
    )
    memory = Memory(database, embeddings, retrieval=config)
    with track_search_cost() as cost, sql_statements(database) as sent:
        await memory.asearch(without_profiles, "Where did Nadia live in June 2023?", k=3)
    assert cost.subquery_rounds >= 1
    assert len(profile_reads(sent)) == 1, profile_reads(sent)


async def test_an_unknown_subject_reads_no_values_and_a_known_one_does(
    database: Database, embeddings: LocalEmbeddings, with_profiles: tuple[str, ...]
) -> None:
    memory = Memory(database, embeddings, retrieval=WITH_PROFILE)
    with sql_statements(database) as sent:
        await memory.asearch(with_profiles, "Where does Zelda live now?", k=3)
    assert len(profile_reads(sent)) == 1 and value_reads(sent) == []

    with sql_statements(database) as sent:
        results = await memory.asearch(with_profiles, QUESTION, k=3)
    assert value_reads(sent), "the listener saw no read of Nadia's values"
    keys = [{s.key for s in note.sources} for note in results]
    hamburg = next(n for n, found in enumerate(keys) if "hamburg" in found)
    assert all("lyon" not in found for found in keys[:hamburg])


async def test_the_channel_alone_reads_nothing_when_it_cannot_matter(
    database: Database, embeddings: LocalEmbeddings, with_profiles: tuple[str, ...]
) -> None:
    channel, config = CHANNEL_FUNCTIONS["profile"], RetrievalConfig()
    plan = await plan_query(QUESTION, embeddings, subjects=("Nadia", "Omar"))
    unknown = await plan_query(QUESTION, embeddings)
    assert plan.profile is not None and unknown.profile is None
    async with Repository.open(database, autocommit=True) as repo:
        with sql_statements(database) as sent:
            assert await channel(repo, with_profiles, unknown, config) == []
            assert await channel(repo, with_profiles, replace(plan, round=1), config) == []
        assert sent == []
        with sql_statements(database) as sent:
            ranked = await channel(repo, with_profiles, plan, config)
        assert ranked and value_reads(sent)
        weighted = replace(config, weights=(*config.weights, ("profile", 1.0)))
        assert await channel(repo, with_profiles, replace(plan, round=1), weighted) == ranked


async def test_values_held_side_by_side_keep_the_fusion_order(
    database: Database, embeddings: LocalEmbeddings, with_profiles: tuple[str, ...]
) -> None:
    """Omar's two pets are both current and neither replaced nor ended anything: the profile
    says nothing about which note answers better, so the channel ranks none and the search
    returns what it returns without the channel; Nadia's home, which changed, is ranked."""
    async with Repository.open(database, autocommit=True) as repo:
        pets = await repo.profile_of(with_profiles, "Omar", ("pet",))
        assert len(pets) == 2 and all(value.current for value in pets), pets
        subjects = ("Nadia", "Omar")
        asked = "What pets does Omar have?"
        assert (
            await profile_ranking(repo, with_profiles, parse_profile_question(asked, subjects), ())
            == []
        )
        moved = await profile_ranking(
            repo, with_profiles, parse_profile_question(QUESTION, subjects), ()
        )
    assert len(moved) == 2, moved
    on = await Memory(database, embeddings, retrieval=WITH_PROFILE).asearch(with_profiles, asked)
    off = await Memory(database, embeddings).asearch(with_profiles, asked)
    assert [n.note_id for n in on] == [n.note_id for n in off]


async def test_a_value_stated_as_a_change_is_ranked_above_the_one_before_it(
    database: Database, with_profiles: tuple[str, ...]
) -> None:
    """Rafael's goldfish and greyhound are both current in the profile (no ending was
    extracted), but the greyhound was stated as a change ("instead"): a question about his
    pet now ranks the greyhound's note first, one about his pets before it the goldfish's."""
    async with Repository.open(database, autocommit=True) as repo:
        pets = await repo.profile_of(with_profiles, "Rafael", ("pet",))
        assert len(pets) == 2 and all(value.current for value in pets), pets
        greyhound = await repo.active_notes_of_observation_keys(with_profiles, ["greyhound"])
        fish = await repo.active_notes_of_observation_keys(with_profiles, ["fish"])
        subjects = ("Nadia", "Omar", "Rafael")
        now = await profile_ranking(
            repo, with_profiles, parse_profile_question("What pet does Rafael have?", subjects), ()
        )
        before = "What pets did Rafael have before the greyhound?"
        then = await profile_ranking(
            repo, with_profiles, parse_profile_question(before, subjects), ()
        )
    assert len(greyhound) == 1 and len(fish) == 1, (greyhound, fish)
    assert now == [*greyhound, *fish]
    assert then == [*fish, *greyhound]
