"""Statements of change (pure): whether a statement says that something changed, or how
things stand now, and what it says changed.

A person tells an update in a handful of ways, and the word lists below follow them by
kind, not by example. A statement *announces a change* when something ends or is left
("I quit", "no more Hablamos", "the Camino didn't happen"), is switched or decided
otherwise ("instead", "scratch that", "I've decided"), or someone moves ("I'm out of
Oerlikon", "we're back together"). It *states the present* when something starts or is
acquired ("I joined the sea swimmers", "we took in a cat", "a new flat"), a condition
mends ("my shoulder's fixed"), or it says how things stand now ("I'm translating now",
"these days I cycle"): weaker evidence, since starts accumulate ("I painted a lake",
later "I started a sunset"). Only declarative sentences count, and only words not
negated: a question ("Still teaching?") or "I'm not giving up" states no change.
"""

from __future__ import annotations

import re
from functools import lru_cache

from langmemcore.text.tokens import fold_apostrophes

__all__ = ["announces_change", "change_clauses", "states_present"]

_BE = r"(?:is|are|was|were|am|'s|'re|'m)"
_ENDING = (
    r"no longer",
    r"not \w+ any ?more",
    r"anymore",
    r"any more",
    r"no more",
    r"quit(?:ting)?",
    r"left",
    r"leaving",
    r"stopped",
    r"gave up",
    r"given up",
    r"giving up",
    r"dropped(?: out)?",
    r"packed in",
    r"pulled out",
    r"withdrew",
    r"turn(?:ed|ing) down",
    r"declined",
    r"cancell?ed",
    r"called off",
    r"scrapped",
    r"postponed",
    r"fell through",
    r"never happened",
    r"(?:did not|didn't|never) (?:happen|go ahead|work out)",
    r"retired",
    r"sold",
    r"got rid of",
    r"gave (?:\w+ ){1,3}?away",
    r"put (?:\w+ ){0,3}?away",
    r"broke up",
    r"split up",
    r"separated",
    r"divorced",
    r"passed away",
    r"died",
    r"lost",
    r"ended",
    r"stolen",
    r"finished",
    r"graduated",
    r"laid off",
    r"made redundant",
    rf"{_BE} (?:now )?(?:over|off|gone)(?! to\b)",
)
_SWITCHING = (
    r"replaced",
    r"swapped",
    r"traded in",
    r"switched",
    r"changed",
    r"instead",
    r"decided",
    r"scratch that",
    r"forget (?:the|about)",
    r"ended up",
)
_STARTING = (
    r"started",
    r"joined",
    r"signed up",
    r"took (?:in|on|up)",
    r"bought",
    r"adopted",
    r"got (?:a|an|my|our|his|her|their) (?:own |new )",
    r"new",
    r"hired",
    r"promoted",
    r"engaged",
    r"got married",
    r"got together",
    r"opened",
)
_MOVING = (
    r"moved",
    r"moving",
    r"relocated",
    r"emigrated",
    rf"{_BE} (?:now |finally )?out of",
    r"back (?:together|home|to|at|with)",
)
_NOW = (
    r"now",
    r"these days",
    r"nowadays",
    r"currently",
    r"at the moment",
    r"finally",
    r"fixed",
    r"healed",
    r"recovered",
    r"since (?:the )?(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|spring|summer|autumn|fall|winter|christmas|easter|"
    r"last \w+|(?:19|20)\d\d|then)",
)
_UNNEGATED = r"(?<!not )(?<!n't )(?<!never )"
_CHANGE = re.compile(
    rf"\b{_UNNEGATED}(?:" + "|".join(_ENDING + _SWITCHING + _MOVING) + r")\b", re.IGNORECASE
)
_PRESENT = re.compile(rf"\b{_UNNEGATED}(?:" + "|".join(_STARTING + _NOW) + r")\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_CLAUSE = re.compile(r"[^.;:!?,]+")


def _statements(text: str) -> list[str]:
    """The text's declarative sentences (questions dropped), apostrophes folded."""
    sentences = _SENTENCE.findall(fold_apostrophes(text))
    return [s for s in sentences if not s.rstrip().endswith("?")]


@lru_cache(maxsize=8192)
def change_clauses(text: str) -> tuple[str, ...]:
    """The clauses of the text's statements that say something changed (cached: packing
    reads the same note contexts search after search).
    """
    return tuple(
        clause
        for sentence in _statements(text)
        for clause in _CLAUSE.findall(sentence)
        if _CHANGE.search(clause)
    )


def announces_change(text: str) -> bool:
    """Whether a statement says that something changed ("I quit the bakery", "we moved to
    Hamburg", "no more student visa"); a question never does.
    """
    return bool(change_clauses(text))


@lru_cache(maxsize=8192)
def states_present(text: str) -> bool:
    """Whether a statement says that something started or how it stands now ("I joined the
    Bluetits", "I have a real flat now", "my shoulder's finally fixed"); a question never
    does. Cached like :func:`change_clauses`.
    """
    return any(_PRESENT.search(sentence) for sentence in _statements(text))
