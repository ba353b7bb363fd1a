"""A question naming a past situation by what happened then: its period is the days the
person spoke of it (pure, no database).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.state_question import (
    focus_terms,
    situation_terms,
    state_question,
    statement_aspect_terms,
)
from langmemcore.retrieval.supersession import Statement, period_first, situation_period
from langmemcore.text import content_stem_set


def said(note_id: int, speaker: str, when: datetime | None, text: str) -> Statement:
    terms = content_stem_set(text) | statement_aspect_terms(text)
    return Statement(note_id, frozenset({speaker.lower()}), when, terms)


MAY_2016 = datetime(2016, 5, 2, tzinfo=UTC)
JUNE_2016 = datetime(2016, 6, 20, tzinfo=UTC)
CHAT = [
    said(1, "Orla", datetime(2021, 2, 1, tzinfo=UTC), "We adopted a kitten, Pixel, in Galway"),
    said(2, "Orla", MAY_2016, "Cork is grand, I'm living near the English Market"),
    said(3, "Orla", MAY_2016, "Biscuit the cat sleeps on my radiator all day"),
    said(4, "Niamh", JUNE_2016, "Come visit us in Cork when you like"),
    said(5, "Orla", JUNE_2016, "Still living in Cork, the rent went up again"),
    said(6, "Orla", datetime(2019, 9, 9, tzinfo=UTC), "I moved to Galway in the summer"),
]
QUESTION = "What was Orla's cat called when she lived in Cork?"


def test_the_situation_is_what_follows_the_last_when_while_or_during() -> None:
    assert situation_terms(QUESTION) == content_stem_set("lived Cork")
    assert situation_terms("Where was Rohan living while he prepared for UPSC?") == (
        content_stem_set("prepared UPSC")
    )
    assert situation_terms("Where does Orla live now?") == frozenset()


def test_a_past_question_naming_a_situation_carries_it_and_one_naming_a_date_does_not() -> None:
    state = state_question(QUESTION, [], ("Orla",), RetrievalConfig())
    assert state is not None and not state.now
    assert state.situation == content_stem_set("lived Cork")
    dated = state_question("What cat did Orla have in 2016?", [], ("Orla",), RetrievalConfig())
    assert dated is None or dated.situation == frozenset()


def test_the_period_runs_over_the_days_the_person_named_the_situation_best() -> None:
    situation = situation_terms(QUESTION)
    # notes 2 and 5 name both "live" and "Cork"; Niamh's note 4 is another speaker's
    assert situation_period(CHAT, situation, ("Orla",)) == (MAY_2016.date(), JUNE_2016.date())
    assert situation_period(CHAT, content_stem_set("Lisbon"), ("Orla",)) is None


def test_the_persons_statement_of_the_situation_about_the_aspect_goes_first() -> None:
    since, until = situation_period(CHAT, situation_terms(QUESTION), ("Orla",)) or (
        date.max,
        date.min,
    )
    order = period_first(
        CHAT, focus_terms(QUESTION, ("Orla",)), named=("Orla",), since=since, until=until
    )
    # Biscuit, said in Cork, before the kitten of 2021 that ranked above it
    assert order == [3, 1, 2, 4, 5, 6]
