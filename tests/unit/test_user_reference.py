"""The user a namespace belongs to: third-person notes about them restated in the first
person, questions about them recognised, and words that only look like them left alone."""

from __future__ import annotations

import pytest

from langmemcore.profiles.question import parse_profile_question
from langmemcore.retrieval.state_question import state_question
from langmemcore.text.user import (
    USER,
    asks_about_user,
    is_user,
    names_user,
    subject_of,
    user_as_first_person,
)


@pytest.mark.parametrize(
    ("note", "said"),
    [
        ("User lives in Lisbon.", "I live in Lisbon."),
        ("User moved from Lisbon to Berlin", "I moved from Lisbon to Berlin"),
        ("The user's dog is Biscuit", "My dog is Biscuit"),
        ("User's favourite food is ramen", "My favourite food is ramen"),
        ("User also likes ramen.", "I also like ramen."),
        ("Biscuit belongs to the user.", "Biscuit belongs to me."),
        ("the user is vegan; User has a cat", "I am vegan; I have a cat"),
        ("In 2024 the user studies law", "In 2024 I study law"),
        ("User doesn't eat meat", "I don't eat meat"),
        ("User married Ana", "I married Ana"),
    ],
)
def test_a_third_person_note_about_the_user_is_restated_as_theirs(note: str, said: str) -> None:
    assert user_as_first_person(note) == said


@pytest.mark.parametrize(
    "note",
    [
        "The user manual is in Lisbon.",
        "The user accounts were deleted",
        "User experience matters",
        "user-friendly design",
        "Nadia moved to Berlin.",
    ],
)
def test_words_that_are_not_the_user_are_left_alone(note: str) -> None:
    assert user_as_first_person(note) is None


def test_questions_about_the_user() -> None:
    assert asks_about_user("Where does the user live now?")
    assert asks_about_user("What is the user's job?")
    assert asks_about_user("Where do I live now?")
    assert not asks_about_user("Where did Sipho live while he worked at the mine?")
    assert not asks_about_user("What is in the user manual?")


def test_third_person_names_of_the_user() -> None:
    assert names_user("User") and names_user("the user") and names_user("The user's")
    assert not names_user("user manual") and not names_user("Nadia") and not names_user("")


def test_the_user_is_the_subject_of_speakerless_and_user_observations() -> None:
    assert subject_of(None) == subject_of("  ") == USER == "user"
    assert subject_of("Nadia") == "Nadia"
    assert is_user(None) and is_user("User") and not is_user("Nadia")


def test_a_question_about_the_user_names_them() -> None:
    state = state_question("Where does the user live now?", (), ())
    assert state is not None and state.named == (USER,)
    assert "user" not in state.focus
    asked = parse_profile_question("Where do I live now?", ["Nadia", "user"])
    assert asked is not None and (asked.subject, asked.aspects) == ("user", ("home",))
    assert parse_profile_question("Where do I live now?", ["Nadia"]) is None
