"""Offline extraction of profile statements from chat messages."""

from __future__ import annotations

import pytest

from langmemcore.profiles import ASPECTS, AspectStatement
from langmemcore.profiles.extract import extract_batch, extract_statements


def _one(text: str, speaker: str | None = "Nadia") -> AspectStatement:
    found = extract_statements(text, speaker)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("text", "aspect", "value"),
    [
        ("I live in Lyon.", "home", "Lyon"),
        ("We moved to Hamburg last month!", "home", "Hamburg"),
        ("I got a job at Airbus.", "work", "Airbus"),
        ("I work as a pastry chef at Le Petit Four.", "work", "pastry chef"),
        ("I'm vegan now!", "diet", "vegan"),
        ("I can't stand country music.", "dislike", "country music"),
        ("I love hiking in the mountains.", "preference", "hiking"),
        ("I support Arsenal.", "team", "Arsenal"),
        ("I joined a gym called FitLab.", "gym", "FitLab"),
        ("I study at McGill University.", "education", "McGill University"),
        ("I'm planning to run a marathon next spring.", "plan", "run a marathon"),
    ],
)
def test_first_person_statements_resolve_to_the_speaker(text: str, aspect: str, value: str) -> None:
    statement = _one(text)
    assert (statement.subject, statement.aspect, statement.value) == ("Nadia", aspect, value)
    assert statement.aspect in ASPECTS


def test_change_and_ending_flags() -> None:
    moved = _one("I moved to Hamburg.")
    assert moved.change and not moved.ended
    assert _one("I quit my job yesterday.") == AspectStatement("Nadia", "work", "", True, True)
    assert _one("Tom and I broke up.") == AspectStatement("Nadia", "partner", "Tom", True, True)
    assert _one("My cat Luna died last night.") == AspectStatement(
        "Nadia", "pet", "cat Luna", True, True
    )
    assert _one("I no longer work at the bank.").ended
    assert _one("I used to live in Lyon.").ended


def test_third_person_needs_an_explicit_name() -> None:
    assert _one("Nadia moved to Hamburg in January.", "Tom").subject == "Nadia"
    assert extract_statements("Nadia's husband Tom is a chef.", "Ana") == [
        AspectStatement("Tom", "work", "chef"),
        AspectStatement("Nadia", "partner", "Tom"),
    ]
    assert _one("My roommate Jess supports the Maple Leafs.", "Ana") == AspectStatement(
        "Jess", "team", "Maple Leafs"
    )
    assert extract_statements("My sister lives in Rome.", "Ana") == []
    assert extract_statements("She said she moved to Rome.", "Ana") == []


@pytest.mark.parametrize(
    "text",
    [
        "Do you live in Paris?",
        "If I moved to Paris, I would love it.",
        "I'd love to live in Tokyo.",
        "I don't live in Paris.",
        "I would move to Berlin for that job.",
    ],
)
def test_questions_hypotheticals_and_negations_state_nothing(text: str) -> None:
    assert extract_statements(text, "Nadia") == []


def test_no_speaker_is_the_user() -> None:
    assert _one("I live in Lyon.", None).subject == "user"
    assert _one("Nadia: I live in Lyon.", None).subject == "Nadia"


@pytest.mark.parametrize(
    ("text", "aspect", "value"),
    [
        ("User lives in Lisbon.", "home", "Lisbon"),
        ("User moved from Lisbon to Berlin", "home", "Berlin"),
        ("The user's dog is Biscuit", "pet", "dog"),
        ("The user works as a nurse at the city hospital.", "work", None),
    ],
)
def test_third_person_notes_about_the_user_are_the_users(
    text: str, aspect: str, value: str | None
) -> None:
    for speaker in (None, "user"):
        found = _one(text, speaker)
        assert (found.subject, found.aspect) == ("user", aspect)
        assert value is None or found.value == value


def test_a_named_speakers_note_about_the_user_is_not_theirs() -> None:
    found = extract_statements("The user lives in Lyon.", "Nadia")
    assert all(st.subject != "Nadia" for st in found)


def test_values_are_short_and_normalised() -> None:
    a = _one("I moved to the Bay Area, finally.")
    b = _one("I live in the Bay Area now")
    assert a.value.casefold() == b.value.casefold() == "bay area"


@pytest.mark.parametrize(
    "text",
    [
        "Sounds like a great plan, Jon!",
        "Dancing is like second nature to me.",
        "Unconditional love is so important.",
        "Contemporary dance is so expressive.",
        "Got your back - dance is awesome for expressing yourself.",
        "Here's a photo of my horse painting I did recently.",
    ],
)
def test_capitalised_words_and_compounds_are_not_subjects_or_pets(text: str) -> None:
    assert extract_statements(text, "Gina") == []


def test_a_clause_without_subject_continues_the_previous_one() -> None:
    assert extract_statements("I'm still in Lyon, working as a nurse at the hospital.", "Ana") == [
        AspectStatement("Ana", "home", "Lyon"),
        AspectStatement("Ana", "work", "nurse"),
    ]
    assert extract_statements("Finally sold the Civic and bought a Tesla Model 3!", "Hiro") == [
        AspectStatement("Hiro", "vehicle", "Civic", ended=True, change=True),
        AspectStatement("Hiro", "vehicle", "Tesla Model 3", change=True),
    ]


def test_names_given_after_the_value() -> None:
    assert extract_statements("I got a puppy last week! Her name's Coco.", "Maria") == [
        AspectStatement("Maria", "pet", "puppy Coco")
    ]
    assert extract_statements("We have two hamsters, Pip and Squeak.", "Jon") == [
        AspectStatement("Jon", "pet", "hamster Pip"),
        AspectStatement("Jon", "pet", "hamster Squeak"),
    ]
    assert _one("I joined a new band, Static Bloom, last week.").value == "Static Bloom"
    assert _one("I got a new car! It's a Mazda CX-5.").value == "Mazda CX-5"


def test_a_progressive_move_is_a_plan_not_a_home() -> None:
    assert _one("I'm moving to Manchester next month.") == AspectStatement(
        "Nadia", "plan", "move to Manchester"
    )


def test_two_aspects_of_one_predicate() -> None:
    assert set(extract_statements("I play bass in a band called The Night Owls.", "Dana")) == {
        AspectStatement("Dana", "band", "Night Owls"),
        AspectStatement("Dana", "hobby", "bass"),
    }


def test_she_and_he_refer_to_the_one_person_the_message_named() -> None:
    assert extract_statements("Taro moved to Madrid, he got a job at a law firm.", "Ken") == [
        AspectStatement("Taro", "home", "Madrid", change=True),
        AspectStatement("Taro", "work", "law firm", change=True),
    ]
    two = "Nadia moved to Rome and Tom moved to Oslo. She works at a bank."
    assert [s.subject for s in extract_statements(two, "Ken")] == ["Nadia", "Tom"]
    assert extract_statements("She works at a bank.", "Ken") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm still renting in Leeds.", [("home", "Leeds", False)]),
        ("I still live with my parents in Pune.", [("home", "Pune", False)]),
        ("I'm in a shared flat in Dublin.", [("home", "Dublin", False)]),
        ("I got hired by the BBC as a sound engineer.", [("work", "sound engineer", False)]),
        ("I teach piano part-time.", [("work", "piano teacher", False)]),
        (
            "I left teaching and became a software developer.",
            [("work", "teaching", True), ("work", "software developer", False)],
        ),
        ("We've got a golden retriever named Bruno.", [("pet", "golden retriever Bruno", False)]),
        ("Paul and I called it off in March.", [("partner", "Paul", True)]),
        ("I drive a beat-up Subaru.", [("vehicle", "Subaru", False)]),
        (
            "We traded the Subaru in for a minivan.",
            [("vehicle", "Subaru", True), ("vehicle", "minivan", False)],
        ),
        ("I zip around town on my blue Vespa scooter.", [("vehicle", "Vespa scooter", False)]),
        ("I'm allergic to peanuts.", [("health", "allergic to peanuts", False)]),
        ("I gave up eating meat last year.", [("diet", "no meat", False)]),
        ("I'm on a strict keto diet.", [("diet", "keto", False)]),
        ("I'm rooting for the White Sox now.", [("team", "White Sox", False)]),
        ("I'm a huge fan of Arsenal.", [("team", "Arsenal", False)]),
        ("I've joined a jazz trio, Blue Hour.", [("band", "Blue Hour", False)]),
        ("I climb at Boulder Barn, the bouldering gym.", [("gym", "Boulder Barn", False)]),
        ("I cancelled my IronWorks membership.", [("gym", "IronWorks", True)]),
        ("I've put the knitting away.", [("hobby", "knitting", True)]),
        ("I'm now doing a data science master's at Leeds.", [("education", "Leeds", False)]),
        ("We've dropped the Canada plan.", [("plan", "Canada", True)]),
    ],
)
def test_the_parse_reads_subject_verb_and_object(
    text: str, expected: list[tuple[str, str, bool]]
) -> None:
    found = extract_statements(text, "Ana")
    assert {(s.aspect, s.value, s.ended) for s in found} >= set(expected), found
    assert all(s.subject == "Ana" for s in found)


@pytest.mark.parametrize(
    "text",
    [
        "I don't live in Paris anyway.",
        "If I got a dog I'd call him Rex.",
        "She said she moved to Rome.",
        "I wish I lived in Lisbon.",
        "I want to adopt a cat.",
        "I could never move to Oslo.",
        "I'd love to work at Google.",
        "Did you move to Hamburg?",
        "Rust Belt broke up last year.",
    ],
)
def test_the_parse_states_nothing_for_denials_conditions_wishes_and_reports(text: str) -> None:
    assert [s for s in extract_statements(text, "Ana") if s.subject == "Ana"] == []


def test_a_quit_habit_is_not_a_job_and_a_conjoined_name_is_its_own_subject() -> None:
    assert extract_statements("I quit chess over the winter.", "Ana") == [
        AspectStatement("Ana", "hobby", "chess", True, True)
    ]
    found = extract_statements("Nadia moved to Rome and Tom moved to Oslo.", "Ken")
    assert [(s.subject, s.value) for s in found] == [("Nadia", "Rome"), ("Tom", "Oslo")]


def test_extract_batch_answers_each_message_in_order() -> None:
    batch = [("I live in Lyon.", "Ana"), ("Hi!", "Tom"), ("Tom: I drive a Honda Civic.", None)]
    assert extract_batch(batch) == [
        [AspectStatement("Ana", "home", "Lyon")],
        [],
        [AspectStatement("Tom", "vehicle", "Honda Civic")],
    ]
    assert extract_batch([]) == []


def test_clauses_cut_at_marks_dashes_and_lowercase_conjunctions() -> None:
    from langmemcore.profiles._clauses import clauses

    assert clauses("I moved to Lyon, and my sister and I cook - it's fun (really) so we stay") == [
        "I moved to Lyon",
        "and my sister and I cook",
        "it's fun",
        "really",
        "so we stay",
    ]
    assert clauses("i miss the free food SO much") == ["i miss the free food SO much"]
    assert clauses("well-known and-so-on") == ["well-known and-so-on"]


def test_names_given_to_pets_and_relatives_may_hold_any_letter() -> None:
    from langmemcore.profiles._pattern_extract import pattern_statements

    pet = pattern_statements("I got a dog, a border terrier. Her name is Tärna.", "Priya")
    assert [(s.aspect, s.value) for s in pet] == [("pet", "dog Tärna")]
    family = pattern_statements("Now I run a bakery with my brother Paweł, in Oliwa.", "Priya")
    assert ("family", "brother Paweł") in [(s.aspect, s.value) for s in family]
    unnamed = pattern_statements("I took my old car to the garage.", "Priya")
    assert [s.aspect for s in unnamed] == []


@pytest.mark.parametrize(
    ("clause", "subject", "with_name", "person"),
    [
        ("I moved to Lyon", "Priya", "", "first"),
        ("we're in Oslo now", "Priya", "", "first"),
        ("my best friend and I opened a cafe", "Priya", "", "first"),
        ("Tom and I got married", "Priya", "Tom", "first"),
        ("so my older sister, Ana moved to Porto", "Ana", "", "third"),
        ("Tom's fiancée Lea works at a bank", "Lea", "", "third"),
        ("Uncle Ray left the band", "Uncle Ray", "", "third"),
        ("Tom Smith, hi", "Tom", "", "third"),
        ("Inés moved to Madrid", "Inés", "", "third"),
        ("Tomás and I broke up", "Priya", "Tomás", "first"),
    ],
)
def test_a_clause_opens_with_its_subject(
    clause: str, subject: str, with_name: str, person: str
) -> None:
    from langmemcore.profiles._clauses import opening

    found = opening(clause, "Priya", None, True)
    assert found is not None
    assert (found.subject, found.with_name, found.person) == (subject, with_name, person)


@pytest.mark.parametrize(
    "clause", ["my sister's friend Jo left", "McDonald moved", "my friends and I"]
)
def test_a_clause_without_a_known_subject_opens_with_none(clause: str) -> None:
    from langmemcore.profiles._clauses import opening

    assert opening(clause, "Priya", None, False) is None
