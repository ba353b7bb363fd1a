"""The semantic layer's vocabulary: aspects of a subject and the statements made about them.

A *profile* is what memory knows about one *subject* (a person, usually a speaker) in a
namespace: for each *aspect* (home, work, pets, ...) the values stated about it, each with
the observations it comes from, its time, whether it is current and what replaced it.
MRAgent calls these the semantic layer's facts, anchored to cues by aspect tags.

This module holds only the shared shapes; extraction (`profiles.extract`) produces
`AspectStatement` values and construction resolves them against the stored profile.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ASPECTS", "MEANINGS", "SINGLE_VALUED", "AspectStatement", "is_single_valued"]

ASPECTS: tuple[str, ...] = (
    "home",
    "work",
    "education",
    "partner",
    "family",
    "pet",
    "possession",
    "vehicle",
    "preference",
    "dislike",
    "diet",
    "health",
    "hobby",
    "team",
    "band",
    "gym",
    "plan",
)
"""Every aspect the semantic layer knows, in display order."""

MEANINGS: dict[str, str] = {
    "home": "the town, city or country they live in",
    "work": "their job or role, else their employer",
    "education": "the school, degree or course of study they are enrolled in",
    "partner": "the person they are together with or married to",
    "family": "a named relative, as relation and name",
    "pet": "an animal they keep, as animal and name",
    "possession": "a thing they own",
    "vehicle": "the car, motorbike, bike or boat they use",
    "preference": "something they like",
    "dislike": "something they dislike",
    "diet": "how they eat (vegetarian, vegan, gluten-free ...)",
    "health": "an illness, injury or condition they have",
    "hobby": "an activity they do for pleasure",
    "team": "the sports team they support or play for",
    "band": "the band or music group they play in",
    "gym": "the gym or club they train at",
    "plan": "something they have decided to do",
}
"""What each aspect holds, in a few words (what a model is told; keyed in the order of
`ASPECTS`)."""

SINGLE_VALUED: frozenset[str] = frozenset(
    {"home", "work", "education", "partner", "vehicle", "diet", "team", "band", "gym"}
)
"""Aspects with one current value at a time: a new value replaces the current one.

The others (pets, family, possessions, preferences, hobbies, plans, ...) accumulate: a
new value is added beside the current ones and only an explicit ending ("my cat died",
"I no longer like jazz") makes a value history.
"""


def is_single_valued(aspect: str) -> bool:
    """Tell whether a new value of `aspect` replaces the current one.

    Args:
        aspect: One of `ASPECTS`.

    Returns:
        True for aspects with one current value at a time.
    """
    return aspect in SINGLE_VALUED


@dataclass(frozen=True)
class AspectStatement:
    """One thing an observation states about a subject's aspect.

    Attributes:
        subject: Who it is about, as memory names them (the speaker for first-person
            statements, otherwise the named person).
        aspect: One of `ASPECTS`.
        value: The value in a short normalised form ("Hamburg", "pastry chef", "dog Max").
        ended: True when the statement ends a value instead of stating one ("I quit my
            job", "we broke up", "I no longer eat meat"); `value` then names what ended,
            or is empty when only the aspect is known.
        change: True when the wording marks a change ("moved to", "now", "new job"), so a
            replaced value is expected rather than a contradiction.
    """

    subject: str
    aspect: str
    value: str
    ended: bool = False
    change: bool = False
