"""Reading questions as questions about a person's profile."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from langmemcore.profiles import ASPECTS
from langmemcore.profiles.question import ProfileQuestion, parse_profile_question

SUBJECTS = ["Tomas", "Nadia Petrova", "Ana"]
ASKED = datetime(2024, 6, 1, 12, 0)


def _parse(question: str) -> ProfileQuestion | None:
    return parse_profile_question(question, SUBJECTS, reference=ASKED)


def test_the_briefs_examples() -> None:
    assert _parse("Where does Tomas work now?") == ProfileQuestion("Tomas", ("work",), "current")
    assert _parse("What pet did Nadia have before the dog?") == ProfileQuestion(
        "Nadia Petrova", ("pet",), "past"
    )


@pytest.mark.parametrize(
    ("question", "aspects"),
    [
        ("Where does Ana live?", ("home",)),
        ("What does Tomas do for a living?", ("work",)),
        ("Is Nadia married?", ("partner",)),
        ("Who is Ana dating these days?", ("partner",)),
        ("What team does Tomas support?", ("team",)),
        ("Does Ana work out at a gym?", ("gym",)),
        ("What did Tomas study at university?", ("education",)),
        ("What car does Ana drive?", ("vehicle",)),
        ("Is Nadia vegan?", ("diet",)),
        ("Which band does Ana play in?", ("band",)),
        ("What are Ana's plans for the summer?", ("plan",)),
        ("What is Tomas's favorite food?", ("preference",)),
        ("What does Ana hate?", ("dislike",)),
    ],
)
def test_question_words_map_to_aspects(question: str, aspects: tuple[str, ...]) -> None:
    parsed = _parse(question)
    assert parsed is not None and parsed.aspects == aspects


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("Where does Ana live these days?", "current"),
        ("Where is Ana currently working?", "current"),
        ("Where did Ana use to live?", "past"),
        ("Where did Ana used to live?", "past"),
        ("What was Tomas's old job?", "past"),
        ("Which band did Ana play in when she lived in Berlin?", "past"),
        ("What did Tomas study?", None),
    ],
)
def test_the_period(question: str, period: str | None) -> None:
    parsed = _parse(question)
    assert parsed is not None and parsed.period == period


def test_a_named_period_has_its_dates() -> None:
    in_2022 = _parse("Where did Nadia live in 2022?")
    assert in_2022 == ProfileQuestion(
        "Nadia Petrova", ("home",), "past", date(2022, 1, 1), date(2022, 12, 31)
    )
    last_year = _parse("Where did Ana work last year?")
    assert last_year is not None and (last_year.period, last_year.start) == (
        "past",
        date(2023, 1, 1),
    )
    this_year = _parse("Where does Ana work this year?")
    assert this_year is not None and this_year.period == "current"


def test_a_when_clause_dates_the_question_without_adding_its_aspect() -> None:
    parsed = _parse("Which band did Ana play in when she lived in Berlin?")
    assert parsed is not None and parsed.aspects == ("band",)


def test_the_whole_profile_and_what_is_not_a_profile_question() -> None:
    whole = _parse("What do you know about Ana?")
    assert whole is not None and whole.aspects == ASPECTS
    assert _parse("Where is Paris?") is None
    assert _parse("What did Ana say about the weather?") is None
    assert parse_profile_question("Where does Tomas work?", []) is None


def test_the_first_named_subject_is_asked_about() -> None:
    parsed = _parse("Does Ana live near Tomas?")
    assert parsed is not None and parsed.subject == "Ana"
    possessive = _parse("Where is Tomas's new job?")
    assert possessive is not None and (possessive.subject, possessive.period) == (
        "Tomas",
        "current",
    )
