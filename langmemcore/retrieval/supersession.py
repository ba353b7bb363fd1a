"""Supersession: for a question about the present, a newer statement first; for one about
the state before a change, the older.

Memory keeps every statement: after "I work as a pastry chef in Porto" and, a year later,
"I quit the bakery, I now work at a roastery in Lisbon", both notes stay, and a search for
"Where does Tomas work now?" finds both, often the older one first. As Zep / Graphiti and
Mem0 do with a fact a newer one invalidates, when a returned note supersedes another (one
speaker, a later day, the same thing), a question about the present puts the newer just
above the older, which stays in the list as history; a question about the state before a
change ("before the puppy", "used to") puts the older just above the newer, and a question
about how things turned out ("Did the Lisbon trip go ahead?", "Which walk did Rowan end up
doing?") puts the newer first, as one about the present does. A question naming a date or
period is left to the time channel, and any other question (past tense, modal, present
perfect) to the fusion.

The decision is pure:

- :func:`asks_about_present` reads the question: it names no date or period and no past
  marker ("used to", "before", "did", "ago", a past participle), is neither modal nor in
  the present perfect, and says "now", "currently", "still", "these days" ... or asks in
  the present tense ("Which band does Ines play in?"); :func:`asks_about_before` reads a
  question about the state before a change, :func:`asks_about_outcome` one about how
  things turned out.
- :func:`focus_terms` are the question's content words (stemmed) other than the names it
  names and its present markers, and the profile aspects it asks about by their cue words
  ("pet" for "What pet ..."; a statement about "my cat" or "a puppy" speaks of it, and so
  does one the semantic layer read as stating a pet): what the question asks about.
- :func:`supersede`: a newer statement supersedes an older one of the same speaker (the
  person the question names, when it names a speaker of them) when the gate linked the
  two as conflicting (a ``conflicts`` edge: opposite polarity over shared content, or a
  replaced profile value), or when the newer one announces a change or says how things
  stand now (:func:`~langmemcore.text.change.announces_change`: "quit", "moved", "no
  more", "passed away", "I'm translating now" ...) and the two are about the same thing
  (a gate edge, a shared focus term, embeddings as similar as the gate requires to link
  two notes, or the thing the change names,
  :func:`~langmemcore.text.change.changed_things`: "I sold the Panda" and the older "my
  old Fiat Panda"). Same-topic statements that accumulate ("I painted a lake", later "I
  painted a sunset") supersede nothing: a change must be said or judged.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from langmemcore.config import RetrievalConfig
from langmemcore.profiles.question import text_aspects
from langmemcore.text import TimeMention, content_stem_set
from langmemcore.text.tokens import fold_apostrophes

__all__ = [
    "CONFLICTS",
    "StateQuestion",
    "Statement",
    "asks_about_aspect",
    "asks_about_before",
    "asks_about_outcome",
    "aspect_term",
    "aspect_terms",
    "asks_about_present",
    "focus_terms",
    "state_question",
    "supersede",
    "untied_change",
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
_BEFORE = re.compile(
    r"\b(?:before|used to|use to|previously|formerly|former|originally|at first|"
    r"in the past|back then|earlier)\b",
    re.IGNORECASE,
)
_OUTCOME = re.compile(
    r"\b(?:end(?:ed)? up|in the end|go(?:ne)? ahead|went ahead|after all|"
    r"eventually|happen(?:ed)?|work(?:ed)? out|turn(?:ed)? out)\b",
    re.IGNORECASE,
)
_MODAL = re.compile(
    r"\b(?:(?:would|could|might|should|will|may|shall|can)(?:n't)?|won't|shan't|can't)(?!\w)",
    re.IGNORECASE,
)
_PERFECT = re.compile(
    r"\b(?:has|have)\s+(?:\w+\s+){0,2}?(?:been|\w+ed|\w+en|read|seen|done|made|bought|"
    r"met|gone|had|got|won|lost|found|built|begun|taught|heard|tried|visited)\b",
    re.IGNORECASE,
)
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
        questions in the past tense, modal ones ("What would Caroline choose?") and
        those in the present perfect ("What books has Melanie read?": what happened up
        to now, not a state a newer one replaces).
    """
    if times:
        return False
    text = fold_apostrophes(question)
    if _PAST.search(text) or _MODAL.search(text) or _PERFECT.search(text):
        return False
    if _CURRENT.search(text):
        return True
    return not _PARTICIPLE.search(text) and bool(_PRESENT.search(text))


@lru_cache(maxsize=8192)
def aspect_terms(text: str) -> frozenset[str]:
    """The profile aspects a text speaks of by their cue words, as terms (``"aspect:pet"``
    for "my cat", "a puppy", "What pet ..."), so that a question's aspect ties statements
    that share none of its words (:func:`~langmemcore.profiles.question.text_aspects`).
    Cached like :func:`~langmemcore.text.content_stem_set`: packing reads the same note
    contexts search after search.
    """
    return frozenset(aspect_term(aspect) for aspect in text_aspects(text))


def aspect_term(aspect: str) -> str:
    """The term a profile aspect adds to a statement's terms and a question's focus."""
    return f"aspect:{aspect}"


def focus_terms(question: str, entities: Collection[str] = ()) -> frozenset[str]:
    """The stems of what the question asks about: its content words without the names
    it names and its present markers ("Where does Tomas work these days?" -> ``work``),
    and the aspects it asks about (:func:`aspect_terms`).
    """
    text = _CURRENT.sub(" ", fold_apostrophes(question))
    names = content_stem_set(" ".join(entities)) if entities else frozenset()
    return (content_stem_set(text) - names) | aspect_terms(question)


def asks_about_before(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things stood before a change, naming no date or
    period ("What pet did Ines have before the puppy?", "Where did Nadia use to live?"; a
    named period is the time channel's).
    """
    return not times and bool(_BEFORE.search(fold_apostrophes(question)))


def asks_about_outcome(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things turned out, naming no date or period and not
    the state before a change ("Did Siobhan's Lisbon trip go ahead?", "Which walk did Rowan
    end up doing?", "How did the move work out?"): the latest word on it answers.
    """
    if times or asks_about_before(question, times):
        return False
    return bool(_OUTCOME.search(fold_apostrophes(question)))


@dataclass(frozen=True)
class StateQuestion:
    """A question about the present state, or about the state before a change, as
    supersession needs it.

    Attributes:
        focus: Its :func:`focus_terms`.
        named: The people it names.
        similarity: Cosine similarity at or above which two statements are about the same
            thing without sharing a focus term.
        now: True: it asks about the present (the newer statement first); False: about
            the state before a change (the older first).
        marked: Whether it says "now", "still", "these days" ...: the asker expects a
            change, so a newer statement of how things stand now
            (:func:`~langmemcore.text.change.states_present`) supersedes too.
    """

    focus: frozenset[str]
    named: tuple[str, ...]
    similarity: float
    now: bool = True
    marked: bool = False


def state_question(
    question: str,
    times: Sequence[TimeMention],
    entities: tuple[str, ...],
    config: RetrievalConfig,
) -> StateQuestion | None:
    """The question as supersession reads it (with the dates and the names a query plan
    found in it), when it asks about the present or the state before a change and the
    settings switch supersession on (else ``None``).
    """
    if not config.supersession:
        return None
    if asks_about_present(question, times) or asks_about_outcome(question, times):
        now = True
    elif asks_about_before(question, times):
        now = False
    else:
        return None
    focus = focus_terms(question, entities)
    marked = bool(_CURRENT.search(fold_apostrophes(question)))
    return StateQuestion(focus, entities, config.supersession_similarity, now, marked)


@dataclass(frozen=True)
class Statement:
    """A returned note as supersession reads it.

    Attributes:
        note_id: The note.
        speakers: Who said its source observations (lowercase).
        time: The latest event time of its sources, if known.
        terms: The stems of its context's content words, its :func:`aspect_terms`, and
            the aspects the semantic layer read in its sources (as :func:`aspect_term`).
        vector: Its normalised embedding.
        changes: Whether its text announces a change
            (:func:`~langmemcore.text.change.announces_change`).
        changed: What it says changed (:func:`~langmemcore.text.change.changed_things`):
            a newer statement that names a thing the older one speaks of is about the
            same thing.
        present: Whether its text says that something started or how it stands now
            (:func:`~langmemcore.text.change.states_present`).
    """

    note_id: int
    speakers: frozenset[str]
    time: datetime | None
    terms: frozenset[str]
    vector: npt.NDArray[np.floating] | None = None
    changes: bool = False
    changed: frozenset[str] = frozenset()
    present: bool = False


Links = Mapping[frozenset[int], str]
Terms = frozenset[str]
CONFLICTS = "conflicts"


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


def asks_about_aspect(focus: Terms) -> bool:
    """Whether a question's focus names a profile aspect (a person's home, work, pet ...:
    one value at a time, which a statement of the present replaces).
    """
    return any(term.startswith(aspect_term("")) for term in focus)


def _supersedes(
    newer: Statement, older: Statement, links: Links, focus: Terms, cos: float, marked: bool
) -> bool:
    """Whether ``newer`` supersedes ``older``: one speaker, a later day, and either the gate
    linked them as conflicting, or ``newer`` announces a change and they are about the
    same thing (a gate edge, what ``newer`` says changed named in ``older``, a shared
    focus term, or similar embeddings), or the question says "now" (``marked``), ``newer``
    says how things stand now and shares a focus term with ``older``.
    """
    if newer.time is None or older.time is None or newer.time.date() <= older.time.date():
        return False
    if len(newer.speakers) != 1 or newer.speakers != older.speakers:
        return False
    relation = links.get(frozenset((newer.note_id, older.note_id)))
    if relation == CONFLICTS:
        return True
    if newer.changes:
        return (
            relation is not None
            or bool(newer.changed & older.terms)
            or _related(newer, older, focus, cos)
        )
    return marked and newer.present and bool(focus & newer.terms & older.terms)


def untied_change(
    statements: Sequence[Statement],
    focus: frozenset[str],
    *,
    named: Collection[str] = (),
    links: Mapping[frozenset[int], str] | None = None,
    similarity: float = 1.0,
    marked: bool = False,
) -> bool:
    """Whether an aspect could still tie two statements: the question asks about an aspect
    and a newer statement of the subject announcing a change supersedes an older one of a
    different day by none of the other ties (then the semantic layer's aspects are worth
    reading; adding terms never unties a pair).
    """
    if not asks_about_aspect(focus):
        return False
    speakers = _subject_speakers(statements, named)
    chosen = [st for st in statements if st.speakers and st.speakers <= speakers]
    return any(
        (newer.changes or newer.present)
        and newer.speakers == older.speakers
        and newer.time is not None
        and older.time is not None
        and newer.time.date() > older.time.date()
        and not _supersedes(newer, older, links or {}, focus, similarity, marked)
        for newer in chosen
        for older in chosen
    )


def supersede(
    statements: Sequence[Statement],
    focus: frozenset[str],
    *,
    named: Collection[str] = (),
    links: Mapping[frozenset[int], str] | None = None,
    similarity: float = 1.0,
    newer_first: bool = True,
    marked: bool = False,
) -> list[int]:
    """The order of the returned notes for a question about the present.

    Args:
        statements: The returned notes, best first.
        focus: The question's :func:`focus_terms`.
        named: The people the question names (their statements are the ones compared,
            when any of them said a returned note).
        links: The relation of each note pair the gate linked (``"conflicts"`` wins when
            a pair has several edges).
        similarity: Cosine similarity at or above which two statements of a speaker are
            about the same thing without sharing a focus term.
        newer_first: True for a question about the present; False for one about the
            state before a change.
        marked: Whether the question says "now" (:attr:`StateQuestion.marked`): then a
            newer statement of the present sharing a focus term with an older one also
            supersedes it.

    Returns:
        The note ids, best first: each statement a newer one supersedes (see
        :func:`_supersedes`) has the newer one just above it (``newer_first``), or sits
        just above the newer one (not ``newer_first``); every other note keeps its order.
    """
    speakers = _subject_speakers(statements, named)
    chosen = [st for st in statements if st.speakers and st.speakers <= speakers]
    pairs = [
        (newer.note_id, older.note_id)
        for newer in chosen
        for older in chosen
        if _supersedes(newer, older, links or {}, focus, similarity, marked)
    ]
    order = [st.note_id for st in statements]
    for _ in range(len(pairs) * len(order)):
        place = {note_id: n for n, note_id in enumerate(order)}
        ahead = pairs if newer_first else [(o, n) for n, o in pairs]
        wrong = [(place[b], place[a], a) for a, b in ahead if place[b] < place[a]]
        if not wrong:
            break
        slot, at, note_id = min(wrong)
        del order[at]
        order.insert(slot, note_id)
    return order
