"""A question about an aspect now: the person's latest announced change of it is the
current state, tied to the older statement or not (pure, no database).
"""

from __future__ import annotations

from datetime import UTC, datetime

from langmemcore.profiles.statement_cues import statement_aspects
from langmemcore.retrieval.state_question import aspect_term, focus_terms
from langmemcore.retrieval.supersession import Statement, latest_change_first
from langmemcore.text import content_stem_set
from langmemcore.text.change import announces_change


def statement(note_id: int, speaker: str, year: int, text: str) -> Statement:
    aspects = frozenset(aspect_term(aspect) for aspect in statement_aspects(text))
    terms = content_stem_set(text) | aspects
    when = datetime(year, 5, 1, tzinfo=UTC)
    return Statement(note_id, frozenset({speaker}), when, terms, None, announces_change(text))


SUBLET = statement(1, "camille", 2017, "Still in Ruth's sublet in Montpelier, till she is back")
TOUR = statement(2, "camille", 2017, "I'm on tour, eight shows a week in Truro")
FRIEND = statement(3, "yusuf", 2020, "I moved the shop to Stokes Croft")
MOVED = statement(4, "camille", 2020, "Small news, I left Bristol. Since I moved to Walthamstow")
QUESTION = focus_terms("Where does Camille live now?", ("Camille",))


def test_the_latest_change_of_the_aspect_goes_above_the_persons_earlier_statements() -> None:
    order = latest_change_first([SUBLET, TOUR, FRIEND, MOVED], QUESTION, ("Camille",))
    assert order == [4, 1, 2, 3]


def test_nothing_moves_without_a_change_of_the_aspect_or_an_earlier_statement_above() -> None:
    assert latest_change_first([SUBLET, TOUR, FRIEND], QUESTION, ("Camille",)) == [1, 2, 3]
    assert latest_change_first([MOVED, SUBLET], QUESTION, ("Camille",)) == [4, 1]
    work = focus_terms("What does Camille do for work now?", ("Camille",))
    assert latest_change_first([SUBLET, MOVED], work, ("Camille",)) == [1, 4]
    assert latest_change_first([SUBLET, FRIEND], QUESTION, ("Yusuf",)) == [1, 3]
