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

from functools import lru_cache

from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import fold_apostrophes, sentences

__all__ = ["announces_change", "change_clauses", "states_present"]

_CHANGE = phrases("change.announced")
_PRESENT = phrases("change.present")
_CLAUSE_MARKS = str.maketrans(dict.fromkeys(".;:!?", ","))
"""Marks that end a clause, each written as a comma to split at."""


def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence: the runs between its punctuation marks."""
    return [clause for clause in sentence.translate(_CLAUSE_MARKS).split(",") if clause]


def _statements(text: str) -> list[str]:
    """The text's declarative sentences (questions dropped), apostrophes folded."""
    return [s for s in sentences(fold_apostrophes(text)) if not s.endswith("?")]


@lru_cache(maxsize=8192)
def change_clauses(text: str) -> tuple[str, ...]:
    """The clauses of the text's statements that say something changed (cached: packing
    reads the same note contexts search after search).
    """
    return tuple(
        clause
        for sentence in _statements(text)
        for clause in _clauses(sentence)
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
