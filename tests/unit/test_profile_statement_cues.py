"""The aspects a statement speaks of by the words it names, and supersession reading them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from langmemcore.analysis import analyze
from langmemcore.profiles.question import text_aspects
from langmemcore.profiles.statement_cues import statement_aspects
from langmemcore.retrieval.state_question import aspect_term, focus_terms
from langmemcore.retrieval.supersession import Statement, supersede
from langmemcore.text import content_stem_set
from langmemcore.text.change import announces_change, states_present


@pytest.mark.parametrize(
    ("text", "aspect"),
    [
        ("Same as ever, I'm still in the same flat off Allen Avenue", "home"),
        ("Still living with my mom in Soweto, saving saving saving", "home"),
        ("the landlord finally fixed the boiler", "home"),
        ("Graveyard shift again at the call center, I sleep at 9am", "work"),
        ("Ten years a pharmacist and they still ask me about colds", "work"),
        ("Me, still in the café in Phibsborough", "work"),
        ("Barney sends his regards, the old Labrador is asleep on my feet", "pet"),
        ("The old Toyota failed its inspection again", "vehicle"),
        ("I've been doing pottery on Tuesdays", "hobby"),
        ("Sunny is right here singing. Best parakeet in Ohio.", "pet"),
        ("He's a good boy, he's just a Jack Russell", "pet"),
        ("the three hens need letting out in the morning", "pet"),
        ("I want to record an EP this summer, five songs", "plan"),
        ("saving for Iceland in the autumn, that's the dream", "plan"),
        ("still thinking of selling the bottom field", "plan"),
    ],
)
def test_a_statement_speaks_of_an_aspect_by_the_words_it_names(text: str, aspect: str) -> None:
    assert aspect in statement_aspects(text)
    assert aspect in analyze(text, text).aspects


@pytest.mark.parametrize(
    "text",
    ["thinking of you all today", "I wanted chips, not salad", "the weather was lovely"],
)
def test_no_intention_said_names_no_plan(text: str) -> None:
    assert "plan" not in statement_aspects(text)


def test_a_statement_keeps_the_aspects_its_cue_words_name() -> None:
    text = "We moved to Leeds and I work at the library now"
    assert set(text_aspects(text)) <= set(statement_aspects(text))


@pytest.mark.parametrize(
    "text",
    [
        "go HOME, you need sleep",
        "see you at my place later",
        "the weather was lovely all weekend",
    ],
)
def test_words_too_common_to_name_an_aspect_name_none(text: str) -> None:
    assert "home" not in statement_aspects(text)
    assert not {"work", "pet"} & set(statement_aspects(text))


def test_the_question_side_cues_do_not_read_a_dwelling_as_a_home() -> None:
    flat = "I'm still in the same flat off Allen Avenue"
    assert "home" not in text_aspects(flat)
    assert "home" in statement_aspects(flat)


def said(note_id: int, year: int, text: str) -> Statement:
    speakers = frozenset({"tunde"})
    return Statement(
        note_id,
        speakers,
        datetime(year, 6, 1, tzinfo=UTC),
        content_stem_set(text) | {aspect_term(a) for a in statement_aspects(text)},
        None,
        announces_change(text),
        analyze(text, text).changed((), speakers),
        states_present(text),
    )


def test_a_change_supersedes_a_statement_naming_a_dwelling_for_a_question_about_home() -> None:
    older = said(1, 2018, "I'm still in the same flat off Allen Avenue, second floor")
    newer = said(2, 2021, "I moved to Abuja in June, the company transferred me")
    focus = focus_terms("Which city does Tunde live in these days?", ("Tunde",))
    assert supersede([older, newer], focus, named=("Tunde",)) == [2, 1]
    # read by the question's cue words alone, the flat states no home: nothing ties the two
    bare = replace(older, terms=content_stem_set("I'm still in the same flat off Allen Avenue"))
    assert supersede([bare, newer], focus, named=("Tunde",)) == [1, 2]


def test_a_question_saying_now_puts_the_later_of_two_statements_on_its_aspect_first() -> None:
    older = said(1, 2016, "Barney sends his regards, the old Labrador is asleep on my feet")
    newer = said(2, 2020, "Jean persuaded me to take a rescue greyhound, Daisy")
    assert not (newer.changes or newer.present)
    now = focus_terms("What pet does Tunde have now?", ("Tunde",))
    assert supersede([older, newer], now, named=("Tunde",), marked=True) == [2, 1]
    # unmarked, nothing says a change: both stay; a shared word that is no aspect ties nothing
    assert supersede([older, newer], now, named=("Tunde",)) == [1, 2]
    feet = frozenset({"feet"})
    assert supersede([older, replace(newer, terms=newer.terms | feet)], feet, marked=True) == [
        1,
        2,
    ]
