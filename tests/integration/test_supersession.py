"""Supersession against real Postgres: after a fact changed, a question about the present
ranks the newer statement above the older one, and a question about the earlier period
still finds the older one.

The chats are written for these tests (not taken from the knowledge-update sets): Marta
works at a hospital in Leeds, then, a year later, at a clinic in York; Lena rides a Vespa,
then sells it; Ana lives in an apartment in Leeds, then moves to a house in York; the other
speaker talks about other things in between.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import psycopg
import pytest
from psycopg.types.json import Jsonb

from langmemcore.config import RetrievalConfig
from langmemcore.construction import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.memory import Memory
from langmemcore.retrieval.cost import track_search_cost
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage import Database, Repository
from tests.conftest import libpq_url

from .conftest import UNANALYSED, Ingested

SPRING_2022 = datetime(2022, 4, 9, 10, 0, tzinfo=UTC)
AUTUMN_2022 = datetime(2022, 10, 1, 10, 0, tzinfo=UTC)
SUMMER_2023 = datetime(2023, 6, 17, 10, 0, tzinfo=UTC)

TURNS = [
    ObservationIn("s1-1", "How are you, Marta? Still doing nights?", "Joe", SPRING_2022),
    ObservationIn(
        "s1-2",
        "Yes, I work as a nurse on the night shift at St James hospital in Leeds, "
        "I love the work with the patients.",
        "Marta",
        SPRING_2022,
    ),
    ObservationIn("s1-3", "I took up climbing at a wall near the station.", "Joe", SPRING_2022),
    ObservationIn("s2-1", "We went to the coast for a week, lovely weather.", "Marta", AUTUMN_2022),
    ObservationIn("s2-2", "My climbing gym raised its prices again.", "Joe", AUTUMN_2022),
    ObservationIn(
        "s3-1",
        "Big news: I left the hospital in May. I now work at a small clinic in York, "
        "daytime hours only.",
        "Marta",
        SUMMER_2023,
    ),
    ObservationIn("s3-2", "Congratulations! Do you commute from Leeds?", "Joe", SUMMER_2023),
]
OLDER, NEWER = "s1-2", "s3-1"


def rank(notes: list[RetrievedNote], key: str) -> int | None:
    for position, note in enumerate(notes, start=1):
        if any(source.key == key for source in note.sources):
            return position
    return None


@pytest.fixture(scope="module")
async def marta(database: Database, embeddings: LocalEmbeddings, ingested: Ingested) -> Memory:
    return Memory(database, embeddings), await ingested("supersession", TURNS)


async def test_a_question_about_the_present_ranks_the_newer_statement_first(
    marta: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = marta
    assert memory.retrieval.supersession
    with track_search_cost() as cost:
        notes = await memory.asearch(namespace, "Where does Marta work now?", k=10)
    newer, older = rank(notes, NEWER), rank(notes, OLDER)
    assert newer is not None and older is not None, notes
    assert newer < older
    unmarked = await memory.asearch(namespace, "Where does Marta work?", k=10)
    assert (rank(unmarked, NEWER) or 99) < (rank(unmarked, OLDER) or 0)
    assert cost.searches == 1 and cost.superseded <= 1


async def test_without_supersession_the_older_statement_ranks_first(
    marta: tuple[Memory, tuple[str, ...]],
) -> None:
    """The memory is built so that the older statement matches the question better: the
    order above is supersession's doing, and it is counted.
    """
    memory, namespace = marta
    off = replace(RetrievalConfig(), supersession=False)
    notes = await memory.asearch(namespace, "Where does Marta work now?", k=10, config=off)
    assert (rank(notes, OLDER) or 99) < (rank(notes, NEWER) or 99)
    with track_search_cost() as cost:
        await memory.asearch(namespace, "Where does Marta work now?", k=10)
    assert cost.superseded == 1


async def test_a_question_about_the_earlier_period_still_finds_the_older_statement(
    marta: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = marta
    notes = await memory.asearch(namespace, "Where did Marta work in 2022?", k=10)
    older, newer = rank(notes, OLDER), rank(notes, NEWER)
    assert older is not None and older <= 3, notes
    assert newer is None or older < newer, notes


async def test_a_question_about_the_state_before_the_change_ranks_the_older_first(
    marta: tuple[Memory, tuple[str, ...]],
) -> None:
    memory, namespace = marta
    notes = await memory.asearch(namespace, "Where did Marta work before the clinic?", k=10)
    older, newer = rank(notes, OLDER), rank(notes, NEWER)
    assert older is not None and older <= 3, notes
    assert newer is None or older < newer


SCOOTER = [
    ObservationIn("v1-1", "How do you get to the office these days?", "Kai", SPRING_2022),
    ObservationIn(
        "v1-2",
        "I ride my little red Vespa through the old town every day, it beats the traffic.",
        "Lena",
        SPRING_2022,
    ),
    ObservationIn("v1-3", "I started a pottery course on Mondays.", "Kai", SPRING_2022),
    ObservationIn("v2-1", "My pottery bowls are getting rounder.", "Kai", AUTUMN_2022),
    ObservationIn("v2-2", "My sister visited from Porto for a week.", "Lena", AUTUMN_2022),
    ObservationIn(
        "v3-1",
        "I finally sold the Vespa in March. A tram pass and good shoes are all I need.",
        "Lena",
        SUMMER_2023,
    ),
    ObservationIn("v3-2", "Brave! My pottery course ends next month.", "Kai", SUMMER_2023),
]
SCOOTER_OLDER, SCOOTER_NEWER = "v1-2", "v3-1"


async def test_a_change_naming_what_the_older_statement_spoke_of_ranks_first(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """The newer statement shares no word of the question with the older one: what ties
    them is the thing it says changed ("sold the Vespa"), which the older one speaks of.
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-scooter", SCOOTER)
    question = "What does Lena ride now?"
    off = replace(RetrievalConfig(), supersession=False)
    before = await memory.asearch(namespace, question, k=10, config=off)
    assert (rank(before, SCOOTER_OLDER) or 99) < (rank(before, SCOOTER_NEWER) or 99), before
    notes = await memory.asearch(namespace, question, k=10)
    newer, older = rank(notes, SCOOTER_NEWER), rank(notes, SCOOTER_OLDER)
    assert newer is not None and older is not None, notes
    assert newer < older
    earlier = await memory.asearch(namespace, "What did Lena ride before?", k=10)
    assert (rank(earlier, SCOOTER_OLDER) or 99) < (rank(earlier, SCOOTER_NEWER) or 0)


async def test_supersession_reads_the_analysis_stored_when_the_change_was_written(
    database: Database, database_url: str, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """What a statement says changed is decided when it is written and stored with it;
    a search reads that decision, not the text: with the stored analysis of "I finally
    sold the Vespa" emptied, nothing ties it to the older statement any more.
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-stored", SCOOTER)
    async with Repository.open(database, autocommit=True) as repo:
        said = await repo.observation(namespace, SCOOTER_NEWER)
    assert said is not None and said.analysis["changes"]
    assert "vespa" in said.analysis["change_stems"]
    question = "What does Lena ride now?"
    notes = await memory.asearch(namespace, question, k=10)
    assert (rank(notes, SCOOTER_NEWER) or 99) < (rank(notes, SCOOTER_OLDER) or 0), notes
    with psycopg.connect(libpq_url(database_url)) as conn:
        conn.execute(
            "UPDATE observations SET analysis = %s WHERE id = %s", (Jsonb(UNANALYSED), said.id)
        )
    notes = await memory.asearch(namespace, question, k=10)
    assert (rank(notes, SCOOTER_OLDER) or 99) < (rank(notes, SCOOTER_NEWER) or 99), notes


HOME = [
    ObservationIn("h1-1", "How is the new job treating you, Ana?", "Joe", SPRING_2022),
    ObservationIn(
        "h1-2",
        "Busy! I am in a small apartment in Leeds above a bakery, the smell of bread every "
        "morning.",
        "Ana",
        SPRING_2022,
    ),
    ObservationIn("h1-3", "I took up climbing at a wall near the station.", "Joe", SPRING_2022),
    ObservationIn("h2-1", "We went to the coast for a week, lovely weather.", "Ana", AUTUMN_2022),
    ObservationIn("h2-2", "My climbing gym raised its prices again.", "Joe", AUTUMN_2022),
    ObservationIn(
        "h3-1",
        "Big news: we bought a terraced house in York and moved in last month, it has a garden.",
        "Ana",
        SUMMER_2023,
    ),
    ObservationIn("h3-2", "Congratulations! Is the commute long?", "Joe", SUMMER_2023),
]


async def test_the_aspect_the_semantic_layer_read_ties_a_statement_without_its_cue_words(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """ "I am in a small apartment in Leeds" says where Ana lives with no cue word of home
    (an apartment is a possession by the cue words); the semantic layer reads it as her
    home, which ties it to the move.
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-home", HOME)
    async with Repository.open(database, autocommit=True) as repo:
        values = await repo.profile_of(namespace, "Ana", ("home",))
    assert [s.key for v in values for s in v.sources] == ["h1-2"]
    question = "Where does Ana live now?"
    off = replace(RetrievalConfig(), supersession=False)
    before = await memory.asearch(namespace, question, k=10, config=off)
    assert (rank(before, "h1-2") or 99) < (rank(before, "h3-1") or 99), before
    notes = await memory.asearch(namespace, question, k=10)
    newer, older = rank(notes, "h3-1"), rank(notes, "h1-2")
    assert newer is not None and older is not None and newer < older, notes


MARCH_2019 = datetime(2019, 3, 10, 19, 0, tzinfo=UTC)
AUGUST_2022 = datetime(2022, 8, 20, 11, 0, tzinfo=UTC)
PEPPER = [
    ObservationIn("p1-1", "Dana! How was the conference in Vienna?", "Omar", MARCH_2019),
    ObservationIn(
        "p1-2", "Exhausting, three days of talks and terrible coffee.", "Dana", MARCH_2019
    ),
    ObservationIn("p1-3", "Did you get to see anything of the city?", "Omar", MARCH_2019),
    ObservationIn("p1-4", "Only the cathedral, at night, in the rain.", "Dana", MARCH_2019),
    ObservationIn("p1-5", "How is your dog doing?", "Omar", MARCH_2019),
    ObservationIn(
        "p1-6",
        "Pepper is great, she chewed my new trainers yesterday and looked very proud.",
        "Dana",
        MARCH_2019,
    ),
    ObservationIn("p1-7", "Ha, typical. Coming to the quiz on Friday?", "Omar", MARCH_2019),
    ObservationIn("p1-8", "Yes, save me a seat, I will bring snacks.", "Dana", MARCH_2019),
    ObservationIn("p1-9", "I also started learning Italian on an app.", "Dana", MARCH_2019),
    ObservationIn(
        "p2-1",
        "Sad news, our old girl died in the spring, she was fourteen. "
        "We adopted two kittens last month, Miso and Tofu.",
        "Dana",
        AUGUST_2022,
    ),
    ObservationIn("p2-2", "Oh no, I am so sorry. Kittens though!", "Omar", AUGUST_2022),
]


@pytest.mark.parametrize("threaded", [True, False])
async def test_a_reply_speaks_of_what_it_was_asked_in_a_named_period(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested, threaded: bool
) -> None:
    """ "Pepper is great, she chewed my trainers" names no pet and the later change does
    not name Pepper; the question it answers ("How is your dog doing?") says what it is
    about, so for a question about the pet in 2019 it goes before the period's small talk,
    whether or not the vector channel ranks notes through their leads (without, Dana's
    conference talk ranks above it in the fusion).
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-answered", PEPPER)
    config = RetrievalConfig(thread_vectors=threaded)
    question = "What pet did Dana have in 2019?"
    notes = await memory.asearch(namespace, question, k=10, config=config)
    assert rank(notes, "p1-6") == 1, notes


MADRID, LISBON, PORTO = (
    datetime(y, m, 5, 18, 0, tzinfo=UTC) for y, m in ((2016, 4), (2018, 9), (2021, 6))
)
HAMSTER_CAT_PUPPY = [
    ObservationIn("m1-1", "Madrid is loud but I love living here.", "Dana", MADRID),
    ObservationIn("m1-2", "My hamster Churro runs on his wheel all night.", "Dana", MADRID),
    ObservationIn("m1-3", "Are you still doing the evening classes?", "Omar", MADRID),
    ObservationIn(
        "l1-1", "Lisbon suits me, I'm living in a tiny flat in Alfama now.", "Dana", LISBON
    ),
    ObservationIn("l1-2", "The trams here are older than my grandmother.", "Dana", LISBON),
    ObservationIn("l1-3", "My cat Sardinha sleeps on the balcony in the sun.", "Dana", LISBON),
    ObservationIn("l1-4", "Send me a photo of the view!", "Omar", LISBON),
    ObservationIn("p1-1", "We moved to Porto in the spring, a house with a garden.", "Dana", PORTO),
    ObservationIn("p1-2", "Our puppy Bolacha dug up every tulip in it.", "Dana", PORTO),
    ObservationIn("p1-3", "Ha, a garden was always your dream.", "Omar", PORTO),
]


async def test_a_past_situation_named_by_what_happened_then_is_its_period(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """ "When she lived in Lisbon" names the period by what happened then: the days Dana
    said so. Her pet statement of those days goes first, not the older hamster (the state
    before every change) nor the later puppy.
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-situation", HAMSTER_CAT_PUPPY)
    notes = await memory.asearch(
        namespace, "What pet did Dana have when she lived in Lisbon?", k=10
    )
    assert rank(notes, "l1-3") == 1, notes


PARROT = [
    ObservationIn(
        "q1-1",
        "I still have Mango, my grandmother's old parrot, and he still screams at the "
        "postman every morning.",
        "Ines",
        MADRID,
    ),
    ObservationIn("q1-2", "Ha, send me a video of him doing it!", "Omar", MADRID),
    ObservationIn("q1-3", "Work is busy, we have a big audit in May.", "Ines", MADRID),
    ObservationIn(
        "q2-1", "Well, sad news. Mango flew off in March. Never came back.", "Ines", PORTO
    ),
    ObservationIn("q2-2", "Oh no, I'm so sorry. Did you put up posters?", "Omar", PORTO),
    ObservationIn("q2-3", "The audit went fine in the end, no findings.", "Ines", PORTO),
]


async def test_a_thing_the_question_names_ties_the_later_statement_naming_it(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """ "Does Ines still have Mango?" names no aspect, and Mango is no speaker: it is what
    is asked about, so Ines's later word on Mango supersedes her earlier one (without
    that tie the earlier one, which repeats "still have", ranks first).
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-named-thing", PARROT)
    notes = await memory.asearch(namespace, "Does Ines still have Mango?", k=10)
    assert (rank(notes, "q2-1") or 99) < (rank(notes, "q1-1") or 0), notes


SUMMER_2016 = datetime(2016, 8, 14, 18, 0, tzinfo=UTC)
PANDA = [
    ObservationIn("c1-1", "How was the trip down to your mam's?", "Omar", SUMMER_2016),
    ObservationIn(
        "c1-2",
        "Long. Four hours of roadworks, I listened to the whole audiobook.",
        "Dana",
        SUMMER_2016,
    ),
    ObservationIn("c1-3", "Which one?", "Omar", SUMMER_2016),
    ObservationIn(
        "c1-4",
        "The one about the lighthouse keeper. Anyway, the flat is fine, the lads are never home.",
        "Dana",
        SUMMER_2016,
    ),
    ObservationIn("c1-5", "Enjoy the quiet while it lasts.", "Omar", SUMMER_2016),
    ObservationIn("c1-6", "Also the Panda failed its MOT. Again.", "Dana", SUMMER_2016),
    ObservationIn("c1-7", "That car is held together with tape.", "Omar", SUMMER_2016),
    ObservationIn("c1-8", "I'm off to the coast next weekend with my sister.", "Dana", SUMMER_2016),
    ObservationIn(
        "c2-1",
        "Finally scrapped the old thing in March. I drive a second-hand Golf now.",
        "Dana",
        PORTO,
    ),
    ObservationIn("c2-2", "About time!", "Omar", PORTO),
]


async def test_a_reply_naming_what_a_statement_spoke_of_ties_it_to_the_aspect(
    database: Database, embeddings: LocalEmbeddings, ingested: Ingested
) -> None:
    """ "Also the Panda failed its MOT" names no vehicle; Omar's reply ("That car is held
    together with tape") refers back to it, so for a question about Dana's car in 2016 it
    is the period's statement about her car and goes first (without the reply, fifth).
    """
    memory = Memory(database, embeddings)
    namespace = await ingested("supersession-replied", PANDA)
    notes = await memory.asearch(namespace, "What car did Dana drive in 2016?", k=10)
    assert rank(notes, "c1-6") == 1, notes
