"""The aspects a statement speaks of: the question's cue words, and the semantic layer's
word classes.

A question names its aspect by a few cue words ("Where does Tunde live?", "What pet ...":
:func:`~langmemcore.profiles.question.text_aspects`); a statement speaks of it by what
it names: "still in the same flat off Adeniran Ogunsanya" is about a home, "graveyard
shift at the call center" about work, "the old Labrador" about a pet. The word classes
are those the parse extractor reads values with (`profiles._parse_words`: dwellings,
occupations, places of work, animals, vehicles, activities ...), matched by stem.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from langmemcore.profiles import _parse_words as words
from langmemcore.profiles.aspects import ASPECTS
from langmemcore.profiles.question import text_aspects
from langmemcore.text import content_stem_set
from langmemcore.text.phrases import phrases

__all__ = ["statement_aspects"]

_HOME_WORDS = frozenset({"landlord", "landlady", "flatmate", "roommate", "housemate"})
_PET_WORDS = frozenset(
    {
        "pup", "kitty", "moggy", "tabby", "parakeet", "cockatiel", "canary", "finch",
        "conure", "lovebird", "macaw", "budgerigar", "iguana", "chameleon", "frog", "newt",
        "axolotl", "tarantula", "gerbil", "chinchilla", "hedgehog", "hen", "duck", "goat",
        "donkey", "alpaca", "russell", "lurcher", "dalmatian", "rottweiler", "doberman",
        "schnauzer", "labradoodle", "cockapoo", "staffie", "sheepdog", "siamese",
    }
)  # fmt: skip
"""Pet animals, breeds and pet words the parse extractor's animals leave out."""
_INTENTION = phrases("statement.intention")
"""An intention said ("I want to record an EP", "saving for Iceland"): a plan (the
question cues already read "plan", "intend", "going to")."""
_WORK_WORDS = frozenset({"colleague", "coworker", "boss", "shift", "salary"})

_CLASSES: dict[str, frozenset[str]] = {
    "home": (words.DWELLINGS - {"home", "place"}) | words.HOME_VERBS | _HOME_WORDS,
    "work": words.ROLES
    | words.WORKPLACES
    | words.JOB_NOUNS
    | words.WORK_LEAVE
    | words.WORK_STATES
    | _WORK_WORDS,
    "education": words.DEGREES | words.SCHOOL_VERBS,
    "pet": words.ANIMALS | _PET_WORDS,
    "vehicle": words.VEHICLES,
    "hobby": words.ACTIVITIES | words.PLAYABLE,
    "diet": words.DIETS,
    "health": words.HEALTH,
}
"""For each aspect, the word classes whose words say a statement speaks of it."""

_STEMS: dict[str, frozenset[str]] = {
    aspect: content_stem_set(" ".join(sorted(cls))) for aspect, cls in _CLASSES.items()
}


@lru_cache(maxsize=8192)
def statement_aspects(text: str) -> tuple[str, ...]:
    """The aspects a statement speaks of, in `ASPECTS` order: those its cue words name
    (:func:`~langmemcore.profiles.question.text_aspects`) and those a word of its names
    by class ("my flatmate" -> home, "a night shift" -> work, "the Labrador" -> pet; a
    "café" is a "cafe").
    Cached: packing reads the same note contexts search after search.
    """
    cued = set(text_aspects(text))
    stems = content_stem_set(_without_accents(text))
    classed = {aspect for aspect, known in _STEMS.items() if stems & known}
    if _INTENTION.search(text):
        classed.add("plan")
    return tuple(aspect for aspect in ASPECTS if aspect in cued | classed)


def _without_accents(text: str) -> str:
    """``text`` with its letters' accents dropped ("café" -> "cafe")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
