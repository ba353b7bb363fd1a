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

from langmemcore.profiles._patterns_base import PETS, VEHICLES, Owned, Pattern, alt
from langmemcore.profiles._patterns_life import LIFE
from langmemcore.profiles._patterns_taste import TASTE

__all__ = ["OWNED", "PREDICATES", "Owned", "Pattern"]

PREDICATES: tuple[Pattern, ...] = LIFE + TASTE
"""Every predicate form, tried in order; the first that yields a value wins."""

_NAME = r"(?:\s*,?\s+(?:named\s+|called\s+)?(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))?"
_PARTNERS = alt("wife, husband, partner, girlfriend, boyfriend, fiancée, fiancee, fiance, spouse")
_FAMILY = alt(
    """sister, brother, mom, mum, mother, dad, father, son, daughter, grandma, grandmother,
    grandpa, grandfather, aunt, uncle, cousin, niece, nephew, stepson, stepdaughter"""
)

OWNED: tuple[Owned, ...] = (
    Owned("partner", re.compile(r"(?:new\s+)?(?P<noun>" + _PARTNERS + r")\b" + _NAME), True, False),
    Owned(
        "pet",
        re.compile(r"(?:new\s+)?(?:little\s+)?(?P<noun>(?i:" + PETS + r"))\b" + _NAME),
        False,
        True,
    ),
    Owned(
        "family",
        re.compile(
            r"(?:little\s+|big\s+|older\s+|younger\s+|baby\s+)?(?P<noun>" + _FAMILY + r")\b" + _NAME
        ),
        True,
        True,
    ),
    Owned(
        "vehicle",
        re.compile(r"(?:old\s+|new\s+)?(?P<noun>(?i:" + VEHICLES + r"))\b"),
        False,
        False,
        gone_only=True,
    ),
)
"""Possessive forms, matched after ``my`` / ``our`` / ``Name's``."""
