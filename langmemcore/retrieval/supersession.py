"""Supersession: for a question about the present, a newer statement first; for one about
the state before a change or in a named period, the older.

Memory keeps every statement: after "I work as a pastry chef in Porto" and, a year later,
"I quit the bakery, I now work at a roastery in Lisbon", both notes stay, and a search for
"Where does Tomas work now?" finds both, often the older one first. As Zep / Graphiti and
Mem0 do with a fact a newer one invalidates, when a returned note supersedes another (one
speaker, a later day, the same thing), a question about the present puts the newer just
above the older, which stays in the list as history; a question about the state before a
change ("before the puppy", "used to", "when she lived in Cork") puts the older just above
the newer, and so does one naming a period the older was said in and the newer after
("Where did Tomas work in 2022?"); a question about how things turned out ("Did the
Lisbon trip go ahead?", "Which walk did Rowan end up doing?") puts the newer first, as one
about the present does. Any other question (past tense, modal, present perfect, a day) is
left to the fusion and the time channel. How a question is read:
:mod:`~langmemcore.retrieval.state_question`.

The decision is pure: :func:`supersede`. A newer statement supersedes an older one of the
same speaker (the person the question names, when it names a speaker of them) when the
gate linked the two as conflicting (a ``conflicts`` edge: opposite polarity over shared
content, or a replaced profile value), or when the newer one announces a change or says
how things stand now (:func:`~langmemcore.text.change.announces_change`: "quit", "moved",
"no more", "passed away", "I'm translating now" ...) and the two are about the same thing
(a gate edge or the ``supersedes`` edge decided when one of them was written, see
:func:`supersedes_when_written`, a shared focus term, embeddings as similar as the gate
requires to link two notes, or the thing the change names,
:meth:`~langmemcore.analysis.Analysis.changed`: "I sold the Panda" and the older "my old
Fiat Panda"). Same-topic statements that accumulate
("I painted a lake", later "I painted a sunset") supersede nothing: a change must be said
or judged, or asked for: a question saying "now", "still", "these days" puts the later of two
statements about the same thing first (its focus holds what it names beside the people
speaking: "Koos" in "Does Pieter still have Koos?"). Asked about an aspect now, the
person's latest statement announcing a change of it goes above their earlier ones, tied or
not (:func:`latest_change_first`).

For a question about an aspect in a period, :func:`period_first` puts first what the
person said then about it; the period is the one the question names ("in 2019") or, for a
situation it names by what happened then ("when she lived in Cork"), the days the person
spoke of that situation (:func:`situation_period`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

import numpy as np
import numpy.typing as npt

from langmemcore.retrieval.state_question import (
    asked_aspects,
    asks_about_aspect,
    names_speaker,
)

__all__ = [
    "CONFLICTS",
    "Statement",
    "latest_change_first",
    "period_first",
    "situation_period",
    "supersede",
    "supersedes_when_written",
    "untied_change",
]


@dataclass(frozen=True)
class Statement:
    """A returned note as supersession reads it.

    Attributes:
        note_id: The note.
        speakers: Who said its source observations (lowercase).
        time: The latest event time of its sources, if known.
        terms: The stems of its context's content words, the profile aspects it speaks
            of and those the semantic layer read in its sources (as
            :func:`~langmemcore.retrieval.state_question.aspect_term`).
        vector: Its normalised embedding.
        changes: Whether its text announces a change
            (:func:`~langmemcore.text.change.announces_change`).
        changed: What it says changed (:meth:`~langmemcore.analysis.Analysis.changed`):
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
    chosen = {s for s in said if any(names_speaker(n, s) for n in named)}
    return chosen or said


def _subject_statements(statements: Sequence[Statement], named: Collection[str]) -> list[Statement]:
    """The statements of the speakers compared (:func:`_subject_speakers`), in order."""
    speakers = _subject_speakers(statements, named)
    return [st for st in statements if st.speakers and st.speakers <= speakers]


def _related(a: Statement, b: Statement, focus: frozenset[str], similarity: float) -> bool:
    """Whether two statements of one speaker are about the same thing (a shared focus
    term, or embeddings at least ``similarity`` alike).
    """
    if focus & a.terms & b.terms:
        return True
    if a.vector is None or b.vector is None:
        return False
    return float(np.dot(a.vector, b.vector)) >= similarity


def _later_by_the_same(newer: Statement, older: Statement) -> bool:
    """Whether ``newer`` was said on a later day than ``older`` by the same one speaker."""
    if newer.time is None or older.time is None or newer.time.date() <= older.time.date():
        return False
    return len(newer.speakers) == 1 and newer.speakers == older.speakers


def _supersedes(
    newer: Statement, older: Statement, links: Links, focus: Terms, cos: float, marked: bool
) -> bool:
    """Whether ``newer`` supersedes ``older``: one speaker, a later day, and either the gate
    linked them as conflicting, or ``newer`` announces a change and they are about the
    same thing (a gate edge, what ``newer`` says changed named in ``older``, a shared
    focus term, or similar embeddings), or the question says "now" (``marked``) and the
    two are about the same thing (a shared focus term or similar embeddings): the asker
    expects a change, so the later word on the thing asked is the current one ("Is
    Otieno still on the tablets?": "took me off the tablets" after "I'm on tablets now";
    "Which team does Ciarán play for now?": "With the Antrim club now" after "I'm corner
    back for Ballyhale").
    """
    if not _later_by_the_same(newer, older):
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
    return marked and _related(newer, older, focus, cos)


def supersedes_when_written(newer: Statement, older: Statement, links: Links) -> bool:
    """Whether ``newer`` supersedes ``older``, decided when one of them is written: as
    :func:`_supersedes` decides for a question naming nothing of either, without "now"
    and without comparing embeddings (the gate's links stand for them): one speaker, a
    later day, and a ``conflicts`` edge, or ``newer`` announces a change and the two are
    linked or ``older`` speaks of what ``newer`` says changed. A shared aspect alone is
    no tie here: a new hobby does not end every other one.
    """
    bare = (replace(newer, vector=None), replace(older, vector=None))
    return _supersedes(*bare, links, frozenset(), 1.0, False)


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
    chosen = _subject_statements(statements, named)
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
    until: date | None = None,
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
        marked: Whether the question says "now"
            (:attr:`~langmemcore.retrieval.state_question.StateQuestion.marked`): then a
            newer statement about the same thing as an older one (a shared focus term or
            ``similarity``) also supersedes it.
        until: The last day of the period the question names: a pair whose older
            statement was said by then and newer one after it puts the older first; a
            pair both said by then puts the newer first when ``newer_first``; a pair
            said after it stays (see :func:`_ahead`).

    Returns:
        The note ids, best first: each statement a newer one supersedes (see
        :func:`_supersedes`) has the newer one just above it (``newer_first``), or sits
        just above the newer one (not ``newer_first``), within a named period as
        ``until`` says; every other note keeps its order.
    """
    chosen = _subject_statements(statements, named)
    ahead = [
        pair
        for newer in chosen
        for older in chosen
        if _supersedes(newer, older, links or {}, focus, similarity, marked)
        and (pair := _ahead(newer, older, newer_first, until)) is not None
    ]
    order = [st.note_id for st in statements]
    for _ in range(len(ahead) * len(order)):
        place = {note_id: n for n, note_id in enumerate(order)}
        wrong = [(place[b], place[a], a) for a, b in ahead if place[b] < place[a]]
        if not wrong:
            break
        slot, at, note_id = min(wrong)
        del order[at]
        order.insert(slot, note_id)
    return order


def _ahead(
    newer: Statement, older: Statement, newer_first: bool, until: date | None
) -> tuple[int, int] | None:
    """Which of a superseding pair goes first (``(first, second)``), or ``None`` to leave
    both where they are: with no named period the newer when ``newer_first``, else the
    older; with one ending on ``until``, the older when only it was said by then, the
    newer when both were and ``newer_first``, neither when the older was said after it.
    """
    first = (newer.note_id, older.note_id) if newer_first else (older.note_id, newer.note_id)
    if until is None:
        return first
    if newer.time is None or older.time is None or older.time.date() > until:
        return None
    if newer.time.date() > until:
        return older.note_id, newer.note_id
    return first if newer_first else None


def period_first(
    statements: Sequence[Statement],
    focus: frozenset[str],
    *,
    named: Collection[str] = (),
    since: date,
    until: date,
    links: Mapping[frozenset[int], str] | None = None,
) -> list[int]:
    """The order of the returned notes for a question about an aspect in a named period
    ("Where did Lucia work in 2019?"): the state then is what the person said in the
    period about that aspect, so those statements go first, in their order, and every
    other note follows in its order (turns of the period about something else, which the
    time channel ranks as high, and statements of other periods). A statement of the
    period that a later one about the aspect supersedes speaks of it too, though it names
    it by no word of its own: one the gate linked as conflicting with the later one, or
    one naming what the later one says changed ("Camden's ten minutes on the bus from
    here", then "I left Camden, I'm in Margate now"); a looser tie, a gate edge of any
    kind or close embeddings, would bring the period's small talk along.

    Args:
        statements: The returned notes, best first.
        focus: The question's :func:`focus_terms`; without an aspect (see
            :func:`~langmemcore.retrieval.state_question.asks_about_aspect`) nothing moves.
        named: The people the question names.
        since: The first day of the period the question names.
        until: Its last day.
        links: The relation of each note pair the gate linked.

    Returns:
        The note ids, best first.
    """
    aspects = asked_aspects(focus)
    chosen = _subject_statements(statements, named)
    superseded = {
        older.note_id
        for newer in chosen
        if aspects & newer.terms
        for older in chosen
        if _names_the_changed(newer, older, links or {})
    }
    first = [
        st.note_id
        for st in chosen
        if (aspects & st.terms or st.note_id in superseded)
        and st.time is not None
        and since <= st.time.date() <= until
    ]
    moved = set(first)
    return first + [st.note_id for st in statements if st.note_id not in moved]


def latest_change_first(
    statements: Sequence[Statement], focus: frozenset[str], named: Collection[str] = ()
) -> list[int]:
    """The order of the returned notes for a question about an aspect now: the person's
    latest statement announcing a change of that aspect ("Since I moved to Walthamstow")
    is the current state, so it goes just above the first of their statements said on an
    earlier day, whether or not anything ties the two ("Still in Ruth's sublet in
    Montpelier" names no home word); every other note keeps its order.

    Args:
        statements: The returned notes, best first.
        focus: The question's :func:`focus_terms`; without an aspect nothing moves.
        named: The people the question names.

    Returns:
        The note ids, best first.
    """
    order = [st.note_id for st in statements]
    aspects = asked_aspects(focus)
    chosen = _subject_statements(statements, named)
    changes = [st for st in chosen if st.changes and aspects & st.terms and st.time]
    if not changes:
        return order
    latest = max(changes, key=lambda st: st.time or datetime.min)
    earlier = [n for n, st in enumerate(statements) if _later_by_the_same(latest, st)]
    at = order.index(latest.note_id)
    if not earlier or earlier[0] > at:
        return order
    order.remove(latest.note_id)
    order.insert(earlier[0], latest.note_id)
    return order


def situation_period(
    statements: Sequence[Statement], situation: frozenset[str], named: Collection[str] = ()
) -> tuple[date, date] | None:
    """The period of a situation a question names by what happened then ("when she lived
    in Cork", "while he prepared for UPSC"): from the first to the last day on which the
    person said what names it best, the statements sharing the most of ``situation``
    (its :func:`~langmemcore.retrieval.state_question.situation_terms`); ``None`` when
    none of theirs shares any.

    Args:
        statements: The returned notes, best first.
        situation: The stems of the situation.
        named: The people the question names.

    Returns:
        The first and last day, or ``None``.
    """
    shared = [
        (len(situation & st.terms), st.time.date())
        for st in _subject_statements(statements, named)
        if st.time is not None
    ]
    best = max((count for count, _ in shared), default=0)
    if best == 0:
        return None
    days = [day for count, day in shared if count == best]
    return min(days), max(days)


def _names_the_changed(newer: Statement, older: Statement, links: Links) -> bool:
    """Whether ``newer``, said later by the same one speaker, supersedes ``older`` by a
    tie that names what changed: a ``conflicts`` edge, or a thing ``newer`` says changed
    that ``older`` speaks of.
    """
    if not _later_by_the_same(newer, older):
        return False
    conflicting = links.get(frozenset((newer.note_id, older.note_id))) == CONFLICTS
    return conflicting or bool(newer.changed & older.terms)
