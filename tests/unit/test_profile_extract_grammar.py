"""The grammar-keyed parse rules of the offline profile extraction, on wordings of their
own (none is a turn of the profile sets), and the lexical gate before the parse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langmemcore.profiles import AspectStatement
from langmemcore.profiles._parse_extract import parse_statements
from langmemcore.profiles._parse_gate import may_state, parsed_part
from langmemcore.profiles.extract import extract_statements
from langmemcore.text.parse import parse_texts

DATA = Path(__file__).resolve().parents[1] / "data"


def _found(text: str, speaker: str | None = "Nadia") -> set[tuple[str, str, str, bool]]:
    return {(s.subject, s.aspect, s.value, s.ended) for s in extract_statements(text, speaker)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a role noun the tagger reads as an adjective, with the noun before it
        ("These days I'm a trainee pharmacist.", ("work", "trainee pharmacist", False)),
        # diets as a noun complement, hyphenated, ended by "not ... anymore"
        ("I'm not vegetarian anymore.", ("diet", "vegetarian", True)),
        ("I'm dairy-free these days.", ("diet", "dairy-free", False)),
        # leaving a workplace, finishing at one
        ("I left the agency last spring.", ("work", "agency", True)),
        ("I finished at the clinic on Friday.", ("work", "clinic", True)),
        # moving out of a place
        ("We moved out of the cottage in May.", ("home", "cottage", True)),
        # "be at" a workplace with a mark of continuing; "be on" a vehicle
        ("I'm still at the library, same desk.", ("work", "library", False)),
        ("I'm on a scooter now.", ("vehicle", "scooter", False)),
        # particles: get into, go off, pack in; went freelance; started learning
        ("I've been getting into archery lately.", ("hobby", "archery", False)),
        ("I've gone off sushi, weirdly.", ("preference", "sushi", True)),
        ("I've packed in the violin.", ("hobby", "violin", True)),
        ("I went self-employed in March.", ("work", "self-employed", False)),
        ("I've started learning the banjo.", ("hobby", "banjo", False)),
        # a fan of a common noun is a taste, not a team
        ("I've become a big fan of jazz.", ("preference", "jazz", False)),
    ],
)
def test_grammar_rules_read_the_speakers_statement(
    text: str, expected: tuple[str, str, bool]
) -> None:
    assert ("Nadia", *expected) in _found(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pickles died on Tuesday.", ("pet", "Pickles", True)),
        ("Sad news: Pickles passed away.", ("pet", "Pickles", True)),
        ("My spaniel Rolo loves the beach.", ("pet", "spaniel Rolo", False)),
        ("My niece is called Ines.", ("family", "niece Ines", False)),
        ("We got a kitten - he's called Tofu.", ("pet", "kitten Tofu", False)),
        ("I'm typing this from my new flat in Porto!", ("home", "Porto", False)),
        ("Still a nurse, still tired.", ("work", "nurse", False)),
        ("So no longer vegan.", ("diet", "vegan", True)),
        ("Settled in Bergen now.", ("home", "Bergen", False)),
    ],
)
def test_message_rules_read_the_speakers_statement(
    text: str, expected: tuple[str, str, bool]
) -> None:
    assert ("Nadia", *expected) in _found(text)


@pytest.mark.parametrize(
    "text",
    [
        "Dad died when I was ten.",  # a relative, not a pet
        "Pickles didn't die, the vet saved him.",  # negated
        "Great teacher, that one.",  # a fragment without a mark of continuing
        "The Ravens split up last year.",  # one named subject breaking up: not a couple
        "Yep, we played at the Forum on Friday.",  # an interjection is not a name
        "I'm going to miss the sea.",  # "going to" a feeling is no plan
        "She keeps asking when I'm going to settle down.",  # a plan in a wh-clause
        "I cycle to work.",  # commuting is not a hobby
        "I think I might quit the bakery.",  # a modal
        "We got into a bad spot on the trail.",  # "get into" a situation is no taste
        "We were able to save a family.",  # "save" without "up" plans nothing
    ],
)
def test_not_a_statement(text: str) -> None:
    assert _found(text) == set(), text


def test_comma_splice_is_not_governed_by_the_clause_after_it() -> None:
    found = _found("I've given up judo, my physio says no more falls.")
    assert ("Nadia", "hobby", "judo", True) in found
    assert _found("My physio says I've given up judo.") == set()


def test_a_progressive_move_is_a_plan_not_a_home() -> None:
    assert _found("I'm moving to Oslo in the autumn.") == {("Nadia", "plan", "move to Oslo", False)}


def test_an_unnamed_pet_takes_a_later_name_only_once() -> None:
    assert _found("We adopted a dog, a collie called Skye.") == {
        ("Nadia", "pet", "collie Skye", False)
    }


def test_the_gate_keeps_cue_words_and_drops_small_talk() -> None:
    assert may_state("I married Tom last year.")
    assert may_state("Salt passed away.") and may_state("I took up pottery.")
    assert may_state("Nadia moved to Hamburg.")
    assert not may_state("See you soon!") and not may_state("haha that is great")
    assert not may_state("Salt went away for the weekend.")


def test_the_parse_reads_the_sentences_with_a_cue_and_the_one_before_each() -> None:
    text = "Good morning! How are you? Me again. I moved to Hamburg. Lovely weather. Bye!"
    assert parsed_part(text) == "Me again. I moved to Hamburg. Lovely weather."
    assert parsed_part("See you soon! Take care.") == ""
    assert parsed_part("Wow. You love dancing! That sounds like a great job.") == ""
    assert parsed_part("Wow. That is my new job!") == "Wow. That is my new job!"
    assert parsed_part("Wow. That is Tom's new job!") == "Wow. That is Tom's new job!"
    whole = "Guess what.\nI quit my job  and moved to Oslo."
    assert parsed_part(whole) == whole


def _turns(name: str) -> list[tuple[str, str]]:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    if "facts" in data:
        sessions = (s for c in data["conversations"] for s in c["sessions"])
        return [(t["text"], t["speaker"]) for s in sessions for t in s["turns"]]
    return [(t["text"], t["speaker"]) for c in data["conversations"] for t in c["turns"]]


@pytest.mark.parametrize(
    "name",
    [
        "profile_facts.json",
        "profile_heldout.json",
        "profile_heldout2.json",
        "knowledge_updates.json",
    ],
)
def test_the_gate_loses_no_parse_statement_on_the_sets(name: str) -> None:
    turns = _turns(name)
    docs = parse_texts([text for text, _ in turns])
    lost = [
        text
        for (text, speaker), doc in zip(turns, docs, strict=True)
        if parse_statements(doc, speaker) and not may_state(text)
    ]
    assert lost == []
    assert sum(map(may_state, (t for t, _ in turns))) < len(turns)


@pytest.mark.parametrize(
    "name",
    [
        "profile_facts.json",
        "profile_heldout2.json",
        "profile_heldout3.json",
        "profile_heldout4.json",
        "profile_heldout5.json",
        "knowledge_updates_heldout.json",
        "knowledge_updates_heldout2.json",
        "knowledge_updates_heldout3.json",
        "knowledge_updates_heldout4.json",
        "knowledge_updates_heldout5.json",
        "knowledge_updates_heldout6.json",
        "knowledge_updates_heldout7.json",
        "knowledge_updates_heldout8.json",
        "knowledge_updates_heldout9.json",
        "knowledge_updates_heldout10.json",
        "knowledge_updates_heldout11.json",
        "knowledge_updates_heldout12.json",
        "knowledge_updates_heldout13.json",
    ],
)
def test_parsing_only_the_cued_sentences_loses_no_statement_on_the_sets(name: str) -> None:
    turns = [(t, s) for t, s in _turns(name) if may_state(t) and parsed_part(t) != t]
    whole = parse_texts([text for text, _ in turns])
    parts = parse_texts([parsed_part(text) for text, _ in turns])
    changed = [
        text
        for (text, speaker), a, b in zip(turns, whole, parts, strict=True)
        if parse_statements(a, speaker) != parse_statements(b, speaker)
    ]
    assert turns and changed == []


def test_statements_are_aspect_statements() -> None:
    found = extract_statements("I'm not vegetarian anymore.", "Nadia")
    assert found == [AspectStatement("Nadia", "diet", "vegetarian", True, True)]


def test_saving_up_states_a_plan() -> None:
    assert ("Nadia", "plan", "buy a car", False) in _found("I'm saving up to buy a car.")
    assert ("Nadia", "vehicle", "car", False) not in _found("I'm saving up to buy a car.")


def test_two_rules_reading_one_hobby_make_one_statement() -> None:
    found = extract_statements("I started playing the ukulele last year.", "Nadia")
    assert found == [AspectStatement("Nadia", "hobby", "ukulele", False, True)]
