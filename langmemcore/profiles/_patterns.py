"""The pattern table of offline profile extraction: what a clause says about an aspect.

Each `Pattern` of `PREDICATES` is matched at the start of a clause's predicate, right
after its subject and any adverbs or auxiliaries (see `profiles.extract`), so "I moved to
Hamburg" and "Nadia finally moved to Hamburg" both meet the home pattern's ``moved to``.
The named group ``value`` is the raw value; `profiles._values` cuts and normalises it by
the pattern's kind. Possessive forms (`OWNED`) are matched after an owner anywhere in a
sentence ("I took my dog Max to the vet").
"""

from __future__ import annotations

import re

from langmemcore.profiles._patterns_base import PET_FORMS, VEHICLE_FORMS, Owned, Pattern, forms
from langmemcore.profiles._patterns_life import LIFE
from langmemcore.profiles._patterns_taste import TASTE
from langmemcore.text.phrases import PhraseSet

__all__ = ["ANY_PREDICATE", "OWNED", "PREDICATES", "Owned", "Pattern"]

PREDICATES: tuple[Pattern, ...] = LIFE + TASTE
"""Every predicate form, tried in order; the first that yields a value wins."""

ANY_PREDICATE = re.compile(
    "|".join(
        f"(?P<p{i}>" + re.sub(r"\(\?P<\w+>", "(?:", pattern.regex.pattern) + ")"
        for i, pattern in enumerate(PREDICATES)
    ),
    re.IGNORECASE,
)
"""Matches where any of `PREDICATES` matches; group ``p<i>`` names the first that does, so
the patterns before it need no trying."""

_PARTNERS = forms("wife, husband, partner, girlfriend, boyfriend, fiancée, fiancee, fiance, spouse")
_FAMILY = forms(
    """sister, brother, mom, mum, mother, dad, father, son, daughter, grandma, grandmother,
    grandpa, grandfather, aunt, uncle, cousin, niece, nephew, stepson, stepdaughter"""
)
_NEW = frozenset({"new"})

OWNED: tuple[Owned, ...] = (
    Owned("partner", PhraseSet.of_words(_PARTNERS), (_NEW,), True, False),
    Owned("pet", PhraseSet.of_words(PET_FORMS), (_NEW, frozenset({"little"})), False, True),
    Owned(
        "family",
        PhraseSet.of_words(_FAMILY),
        (frozenset({"little", "big", "older", "younger", "baby"}),),
        True,
        True,
    ),
    Owned(
        "vehicle",
        PhraseSet.of_words(VEHICLE_FORMS),
        (frozenset({"old", "new"}),),
        False,
        False,
        gone_only=True,
    ),
)
"""Possessive forms, matched after ``my`` / ``our`` / ``Name's``."""
