"""Supersession's pure decision: which questions ask about the present, what they are
about, and the order of the returned statements of one speaker about the same thing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
import pytest

from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.retrieval.supersession import (
    Statement,
    asks_about_present,
    focus_terms,
    present_question,
    supersede,
)
from langmemcore.text import TimeMention, content_stem_set


def at(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def said(
    note_id: int,
    speaker: str,
    when: datetime | None,
    text: str,
    vector: tuple[float, ...] | None = None,
) -> Statement:
    unit = None if vector is None else np.asarray(vector) / np.linalg.norm(vector)
    return Statement(note_id, frozenset({speaker.lower()}), when, content_stem_set(text), unit)


@pytest.mark.parametrize(
    "question",
    [
        "Where does Tomas work now?",
        "Which band does Ines play in?",
        "What is Lucas's hobby these days?",
        "Is Priya still dating Sam?",
        "Who's Hannah's partner?",
        "What car does Ben drive currently?",
    ],
)
def test_questions_about_the_present(question: str) -> None:
    assert asks_about_present(question)


@pytest.mark.parametrize(
    "question",
    [
        "Where did Tomas work in 2022?",
        "What pet did Ines have before the puppy?",
        "What was Ben's diet?",
        "Where did Nadia live?",
        "What car did Ben use to drive?",
        "What would Caroline likely choose?",
        "What is the book Caroline recommended?",
        "How long ago was Melanie's trip?",
        "Caroline's birthday party",
        "Would Caroline still want to pursue counseling?",
        "What books has Melanie read?",
        "What musical artists has Melanie seen so far?",
    ],
)
def test_questions_not_about_the_present(question: str) -> None:
    assert not asks_about_present(question)


def test_a_named_period_is_not_the_present() -> None:
    year = TimeMention(date(2022, 1, 1), date(2022, 12, 31), "year", "2022")
    assert asks_about_present("Where does Tomas work?")
    assert not asks_about_present("Where does Tomas work?", (year,))


def test_focus_terms_drop_names_and_present_markers() -> None:
    assert focus_terms("Where does Tomas work these days?", ("Tomas",)) == {"work"}
    assert focus_terms("Which band does Ines play in now?", ("Ines",)) == {"band", "play"}


def plan(text: str, entities: tuple[str, ...] = ()) -> QueryPlan:
    return QueryPlan(text, text, (), entities, (), (), (), ())


def test_present_question_follows_the_settings() -> None:
    on = present_question(plan("Where does Tomas work now?", ("Tomas",)), RetrievalConfig())
    assert on is not None and on.focus == {"work"} and on.named == ("Tomas",)
    assert on.similarity == RetrievalConfig().supersession_similarity
    off = RetrievalConfig(supersession=False)
    assert present_question(plan("Where does Tomas work now?"), off) is None
    assert present_question(plan("Where did Tomas work?"), RetrievalConfig()) is None


OLD_JOB = said(1, "Tomas", at(2022, 3), "I work as a pastry chef at a bakery in Porto.")
NEW_JOB = said(2, "Tomas", at(2023, 5), "I quit the bakery. I now work at a roastery in Lisbon.")
OTHER = said(3, "Tomas", at(2023, 6), "I read a great book about sourdough.")
INES = said(4, "Ines", at(2024, 1), "I work from home on Fridays.")


def test_the_newer_statement_takes_the_older_ones_place() -> None:
    order = supersede([OLD_JOB, OTHER, NEW_JOB, INES], frozenset({"work"}), named=("Tomas",))
    assert order == [2, 3, 1, 4]


def test_notes_about_something_else_keep_their_places() -> None:
    assert supersede([OLD_JOB, OTHER, NEW_JOB], frozenset({"book"})) == [1, 3, 2]


def test_statements_of_another_speaker_are_not_compared() -> None:
    # Ines's newer statement shares "work" but is not Tomas's: it stays below.
    assert supersede([OLD_JOB, INES], frozenset({"work"}), named=("Tomas",)) == [1, 4]
    # A question naming no speaker compares each speaker's own statements only.
    assert supersede([OLD_JOB, INES], frozenset({"work"})) == [1, 4]


def test_the_named_speaker_by_first_name() -> None:
    old = said(1, "Tomas Silva", at(2022, 3), "I work at a bakery.")
    new = said(2, "Tomas Silva", at(2023, 5), "I now work at a roastery.")
    assert supersede([old, new], frozenset({"work"}), named=("Tomas",)) == [2, 1]


def test_a_gate_link_or_a_close_embedding_relates_statements_without_focus_terms() -> None:
    cat = said(1, "Ines", at(2022, 3), "Luna is my old tabby.", (1.0, 0.2, 0.0))
    puppy = said(2, "Ines", at(2022, 9), "We adopted a puppy called Bolt.", (1.0, 0.0, 0.3))
    focus = frozenset({"pet"})
    assert supersede([cat, puppy], focus) == [1, 2]
    assert supersede([cat, puppy], focus, links={frozenset((1, 2))}) == [2, 1]
    similarity = float(np.dot(cat.vector, puppy.vector))  # type: ignore[arg-type]
    assert supersede([cat, puppy], focus, similarity=similarity) == [2, 1]
    assert supersede([cat, puppy], focus, similarity=similarity + 0.01) == [1, 2]


def test_a_newer_statement_already_first_and_unknown_times_stay() -> None:
    assert supersede([NEW_JOB, OLD_JOB], frozenset({"work"})) == [2, 1]
    undated = said(5, "Tomas", None, "I work nights now.")
    assert supersede([OLD_JOB, undated, NEW_JOB], frozenset({"work"})) == [2, 5, 1]


def test_a_group_of_three_goes_newest_first_in_its_places() -> None:
    first = said(7, "Tomas", at(2020, 1), "I work at a hotel.")
    order = supersede([OLD_JOB, OTHER, first, NEW_JOB], frozenset({"work"}))
    assert order == [2, 3, 1, 7]
