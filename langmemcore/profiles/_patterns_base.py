"""The shapes of the offline profile patterns and the word lists they are built from."""

from __future__ import annotations

import re
from dataclasses import dataclass

from langmemcore.text.phrases import PhraseSet

__all__ = [
    "DIETS",
    "JOBBED",
    "PETS",
    "PET_FORMS",
    "VALUE",
    "VEHICLES",
    "VEHICLE_FORMS",
    "Owned",
    "Pattern",
    "alt",
    "forms",
    "pattern",
]


@dataclass(frozen=True)
class Pattern:
    """One predicate form of an aspect.

    Attributes:
        aspect: The aspect it states.
        regex: Compiled pattern matched at the predicate's start; group ``value`` holds
            the value when the pattern has one.
        kind: How the value is cut and normalised (see `profiles._values.cut_value`):
            ``"name"`` (a capitalised run), ``"phrase"`` (a short noun phrase), ``"verb"``
            (a short verb phrase), ``"role"`` (a job title), ``"vehicle"`` (a make and
            model or a vehicle noun), ``"gerund"`` (an activity verb as its -ing form),
            ``"fixed"`` (lowercased as captured).
        ended: The predicate ends a value ("quit my job", "broke up").
        change: The wording marks a change ("moved to", "got a job at").
        fixed: The value when the pattern's value group takes no part ("I quit my job").
        template: How the cut value is written ("move to {}" for a planned move).
    """

    aspect: str
    regex: re.Pattern[str]
    kind: str
    ended: bool = False
    change: bool = False
    fixed: str = ""
    template: str = "{}"


@dataclass(frozen=True)
class Owned:
    """A possessive form ("my dog Max", "Nadia's husband Tom") of an aspect.

    Attributes:
        aspect: The aspect it states.
        nouns: The relations or animals it names, matched right after an owner (``my``,
            ``our``, ``Name's``) and its modifiers; a name may follow ("my dog, Max").
        modifiers: The words that may come before the noun, one of each set in order
            ("new", "little": "my new little dog").
        named_only: Only a named form states something ("my wife Sarah", not "my wife").
        with_noun: The value keeps the noun ("dog Max", "sister Ana"); else the name alone.
        gone_only: Only an ending states something ("my Vespa got stolen").
    """

    aspect: str
    nouns: PhraseSet
    modifiers: tuple[frozenset[str], ...]
    named_only: bool
    with_noun: bool
    gone_only: bool = False


def forms(words: str) -> tuple[str, ...]:
    """The comma-separated forms in `words`."""
    return tuple(form.strip() for form in words.split(",") if form.strip())


def alt(words: str) -> str:
    """A non-capturing alternation of the ``|``-free, comma-separated forms in `words`."""
    return "(?:" + "|".join(forms(words)) + ")"


def pattern(
    aspect: str,
    regex: str,
    kind: str = "phrase",
    *,
    ended: bool = False,
    change: bool = False,
    fixed: str = "",
    template: str = "{}",
) -> Pattern:
    """A case-insensitive `Pattern` (names inside keep their own ``(?-i:...)`` groups)."""
    regex_ = re.compile(regex, re.IGNORECASE)
    return Pattern(aspect, regex_, kind, ended, change, fixed, template)


VALUE = r"(?P<value>.+)"
"""The value group of a pattern whose value runs to the clause's end (cut later)."""

PET_FORMS = forms(
    """dog, puppy, cat, kitten, hamster, parrot, rabbit, bunny, turtle, tortoise,
    guinea pig, horse, bird, snake, lizard, goldfish, fish, pup, kitty, ferret"""
)
VEHICLE_FORMS = forms(
    """car, truck, van, suv, motorbike, motorcycle, scooter, bike, bicycle, e-bike, minivan,
    jeep, tesla, toyota, honda, ford, bmw, audi, volkswagen, vw, subaru, mazda, prius,
    volvo, kia, hyundai, nissan, chevy, chevrolet, mercedes, porsche, fiat, camper, rv, vespa,
    civic, corolla, camry, fiesta, mustang, beetle, jetta, outback, rav4"""
)
PETS = alt(", ".join(PET_FORMS))
VEHICLES = alt(", ".join(VEHICLE_FORMS))
DIETS = alt(
    """vegan, vegetarian, pescatarian, pescetarian, plant-based, gluten-free, keto, paleo,
    dairy-free"""
)
JOBBED = alt("job, position, role, gig, internship")
