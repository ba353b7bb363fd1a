"""Supersession: for a question about the present, a newer statement first.

Memory keeps every statement: after "I work as a pastry chef in Porto" and, a year later,
"I quit the bakery, I now work at a roastery in Lisbon", both notes stay, and a search for
"Where does Tomas work now?" finds both, usually the older one first (it says "work", the
newer one "quit" as well). As Zep / Graphiti and Mem0 do with a fact a newer one
invalidates, when two returned notes say something about the same subject and the same
thing, a question about the present orders the newer first; the older stays in the list,
just below, as history. A question naming an earlier period, or asking about the past,
is left to the time channel and the fusion.

The decision is pure:

- :func:`asks_about_present` reads the question: it names no date or period and no past
  marker ("used to", "before", "did", "ago", a past participle), and it says "now",
  "currently", "still", "these days" ... or asks in the present tense ("Which band does
  Ines play in?"); a modal question ("What would ...") is not about the present state.
- :func:`focus_terms` are the question's content words (stemmed) other than the names it
  names and its present markers: what the question asks about ("work", "band").
- :func:`supersede` groups the returned notes whose statements come from one speaker
  (the person the question names, when it names a speaker of them) and are about the
  same thing: both hold a focus term, or the gate linked them (an edge), or they are as
  similar as the gate requires to link two notes. Within each group, the notes take the
  group's places newest first; every other note, and every place's score, stays.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from langmemcore.config import RetrievalConfig
from langmemcore.text import TimeMention, content_stem_set
from langmemcore.text.tokens import fold_apostrophes

if TYPE_CHECKING:
    from langmemcore.retrieval.channels import QueryPlan

__all__ = [
    "PresentQuestion",
    "Statement",
    "asks_about_present",
    "focus_terms",
    "present_question",
    "supersede",
]

_CURRENT = re.compile(
    r"\b(?:now|currently|current|these days|at the moment|nowadays|at present|right now|"
    r"still|anymore|any more|today|latest|lately|recently)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:did|was|were|had|used to|use to|before|previously|formerly|former|originally|"
    r"at first|earlier|ago|last|back then|back when|in the past|first|once)\b",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:would|could|might|should|will|may|shall|can)\b", re.IGNORECASE)
_PARTICIPLE = re.compile(r"\b\w{3,}ed\b", re.IGNORECASE)
_PRESENT = re.compile(
    r"\b(?:does|do|is|are|has|have|(?:what|who|where|which|how)'s|\w+'re)\b", re.IGNORECASE
)


def asks_about_present(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things stand now.

    Args:
        question: The question.
        times: The dates and periods it names (any: it asks about them, not the present).

    Returns:
        True for "Where does Tomas work now?" or "Which band does Ines play in?"; False
        for "Where did Tomas work in 2022?", "What pet did Ines have before the puppy?",
        "What would Caroline choose?" and questions in the past tense.
    """
    if times:
        return False
    text = fold_apostrophes(question)
    if _PAST.search(text):
        return False
    if _CURRENT.search(text):
        return True
    if _MODAL.search(text) or _PARTICIPLE.search(text):
        return False
    return bool(_PRESENT.search(text))


def focus_terms(question: str, entities: Collection[str] = ()) -> frozenset[str]:
    """The stems of what the question asks about: its content words without the names
    it names and its present markers ("Where does Tomas work these days?" -> ``work``).
    """
    text = _CURRENT.sub(" ", fold_apostrophes(question))
    names = content_stem_set(" ".join(entities)) if entities else frozenset()
    return content_stem_set(text) - names


@dataclass(frozen=True)
class PresentQuestion:
    """A question about the present, as supersession needs it.

    Attributes:
        focus: Its :func:`focus_terms`.
        named: The people it names.
        similarity: Cosine similarity at or above which two statements are about the same
            thing without sharing a focus term.
    """

    focus: frozenset[str]
    named: tuple[str, ...]
    similarity: float


def present_question(plan: QueryPlan, config: RetrievalConfig) -> PresentQuestion | None:
    """The (sub-)query as supersession reads it, when it asks about the present and the
    settings switch supersession on (else ``None``).
    """
    if not config.supersession or not asks_about_present(plan.text, plan.times):
        return None
    focus = focus_terms(plan.text, plan.entities)
    return PresentQuestion(focus, plan.entities, config.supersession_similarity)


@dataclass(frozen=True)
class Statement:
    """A returned note as supersession reads it.

    Attributes:
        note_id: The note.
        speakers: Who said its source observations (lowercase).
        time: The latest event time of its sources, if known.
        terms: The stems of its context's content words.
        vector: Its normalised embedding.
    """

    note_id: int
    speakers: frozenset[str]
    time: datetime | None
    terms: frozenset[str]
    vector: npt.NDArray[np.floating] | None = None


def _time(statement: Statement) -> datetime:
    return statement.time or datetime.min.replace(tzinfo=UTC)


def _subject_speakers(statements: Sequence[Statement], named: Collection[str]) -> set[str]:
    """The speakers whose statements are compared: those the question names (by full or
    first name), else every single speaker.
    """
    said = {s for st in statements if len(st.speakers) == 1 for s in st.speakers}
    wanted = {n.lower() for n in named}
    chosen = {s for s in said if s in wanted or (s.split() or [""])[0] in wanted}
    return chosen or said


def _related(a: Statement, b: Statement, focus: frozenset[str], similarity: float) -> bool:
    """Whether two statements of one speaker are about the same thing (a shared focus
    term, or embeddings at least ``similarity`` alike).
    """
    if focus & a.terms & b.terms:
        return True
    if a.vector is None or b.vector is None:
        return False
    return float(np.dot(a.vector, b.vector)) >= similarity


def _groups(
    statements: Sequence[Statement],
    focus: frozenset[str],
    links: Collection[frozenset[int]],
    similarity: float,
    speakers: set[str],
) -> list[list[int]]:
    """Positions of the statements of one chosen speaker joined by relatedness (connected
    components, each in rank order).
    """
    parent = list(range(len(statements)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    eligible = [
        i
        for i, st in enumerate(statements)
        if st.time is not None and len(st.speakers) == 1 and st.speakers <= speakers
    ]
    for n, i in enumerate(eligible):
        for j in eligible[n + 1 :]:
            a, b = statements[i], statements[j]
            if a.speakers != b.speakers:
                continue
            pair = frozenset((a.note_id, b.note_id))
            if pair in links or _related(a, b, focus, similarity):
                parent[root(j)] = root(i)
    members: dict[int, list[int]] = {}
    for i in eligible:
        members.setdefault(root(i), []).append(i)
    return [group for group in members.values() if len(group) > 1]


def supersede(
    statements: Sequence[Statement],
    focus: frozenset[str],
    *,
    named: Collection[str] = (),
    links: Collection[frozenset[int]] = (),
    similarity: float = 1.0,
) -> list[int]:
    """The order of the returned notes for a question about the present.

    Args:
        statements: The returned notes, best first.
        focus: The question's :func:`focus_terms`.
        named: The people the question names (their statements are the ones compared,
            when any of them said a returned note).
        links: Note pairs the gate linked (an edge between them, any relation).
        similarity: Cosine similarity at or above which two statements of a speaker are
            about the same thing without sharing a focus term.

    Returns:
        The note ids, best first: within each group of related statements of one speaker
        the newer first (in the places the group holds), every other note where it was.
    """
    order = [st.note_id for st in statements]
    speakers = _subject_speakers(statements, named)
    for group in _groups(statements, focus, links, similarity, speakers):
        newest = sorted(group, key=lambda i: (_time(statements[i]), -i), reverse=True)
        for slot, i in zip(group, newest, strict=True):
            order[slot] = statements[i].note_id
    return order
