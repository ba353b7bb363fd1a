"""pack: the fused notes in rank order with their source observations, cut at ``k``
notes or at a token budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

from langmemcore.analysis import Analysis
from langmemcore.retrieval.cost import count
from langmemcore.retrieval.fusion import Fused, diversify
from langmemcore.retrieval.state_question import (
    StateQuestion,
    asked_aspects,
    aspect_term,
    named_things,
    names_speaker,
)
from langmemcore.retrieval.supersession import (
    CONFLICTS,
    Statement,
    latest_change_first,
    period_first,
    situation_period,
    supersede,
    untied_change,
)
from langmemcore.storage.notes.thread_access import Exchange, Said
from langmemcore.storage.repository import Repository
from langmemcore.storage.search.access import Evidence, SourceRow
from langmemcore.text import content_term_set, content_terms
from langmemcore.text.user import subject_of

__all__ = [
    "RetrievedNote",
    "SourceRef",
    "estimate_tokens",
    "linked_pairs",
    "observed_part",
    "order_sources",
    "pack_notes",
]


@dataclass(frozen=True)
class SourceRef:
    """A source observation of a retrieved note.

    Attributes:
        key: The observation's key (e.g. a LoCoMo dia_id).
        speaker: Who said it.
        event_time: When it happened.
        text: The raw text.
    """

    key: str
    speaker: str | None
    event_time: datetime | None
    text: str

    @classmethod
    def of(cls, source: SourceRow) -> SourceRef:
        """The reference to a loaded source (its stored analysis is not returned)."""
        return cls(source.key, source.speaker, source.event_time, source.text)


@dataclass(frozen=True)
class RetrievedNote:
    """One piece of evidence.

    Attributes:
        note_id: The note.
        context: Its denoised context.
        score: Its score in the final ordering: the fused score, or with diversity the
            maximal-marginal-relevance value it was picked at; never higher than the
            score of the note before it.
        channels: Channel -> rank the note had there.
        keywords: Its keywords.
        topic: Label of its topic, if any.
        sources: Its source observations, most query-relevant first: those sharing more
            content terms with the query come first, event order among equals (see
            :func:`order_sources`).
        valid_from: When what it says became valid: the latest time one of its sources
            (observed by the search's reference time) was said, if known.
        valid_to: When it stopped being valid: when a note superseding it was said (see
            :mod:`~langmemcore.construction.validity`), if that was by the search's
            reference time; ``None`` while it holds.
    """

    note_id: int
    context: str
    score: float
    channels: dict[str, int]
    keywords: tuple[str, ...]
    topic: str | None
    sources: tuple[SourceRef, ...]
    valid_from: datetime | None = None
    valid_to: datetime | None = None

    @classmethod
    def of(
        cls, fused: Fused, note: Evidence, query_terms: set[str], as_of: datetime | None = None
    ) -> RetrievedNote:
        """A loaded note as returned at its fused place: its sources most query-relevant
        first (:func:`order_sources`), its ``valid_to`` only when it was by ``as_of``.
        """
        sources = [SourceRef.of(source) for source in note.sources]
        ended = note.valid_to
        return cls(
            note_id=note.id,
            context=note.context,
            score=fused.score,
            channels=dict(fused.ranks),
            keywords=tuple(note.keywords),
            topic=note.topic,
            sources=order_sources(sources, query_terms),
            valid_from=note.valid_from,
            valid_to=None if as_of is not None and ended is not None and ended > as_of else ended,
        )


def order_sources(sources: Sequence[SourceRef], query_terms: set[str]) -> tuple[SourceRef, ...]:
    """Sources sharing more content terms with the query first; event order otherwise."""
    overlap = [len(query_terms & content_term_set(s.text)) for s in sources]
    order = sorted(range(len(sources)), key=lambda i: (-overlap[i], i))
    return tuple(sources[i] for i in order)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (about four characters a token)."""
    return max(1, len(text) // 4)


async def pack_notes(
    repo: Repository,
    namespace: tuple[str, ...],
    fused: Sequence[Fused],
    *,
    k: int,
    query: str = "",
    token_budget: int | None = None,
    diversity: float = 0.0,
    pool: int = 60,
    observed: Mapping[int, frozenset[str]] | None = None,
    state: StateQuestion | None = None,
    as_of: datetime | None = None,
) -> list[RetrievedNote]:
    """Load the best ``k`` active notes with their sources, within ``token_budget``.

    With ``diversity`` > 0 the best ``pool`` notes are re-ordered by maximal marginal
    relevance (:func:`~langmemcore.retrieval.fusion.diversify`) on their embeddings alone,
    and the evidence is read for the best ``k`` of that order. For a question about the
    present or the state before a change (``state``), the best ``k`` are then ordered by
    supersession (:mod:`~langmemcore.retrieval.supersession`); a merged note's sources
    come most query-relevant first (:func:`order_sources`). With ``observed`` (note ->
    keys of the sources observed by ``as_of``, the search's reference time) a note keeps
    only those (:func:`observed_part`), which supersession reads, and its ``valid_to``
    only when it was by ``as_of``.
    """
    query_terms = set(content_terms(query))
    head = list(fused[: max(k * 2, pool if diversity > 0 else 0)])
    if diversity > 0:
        vectors = await repo.note_vectors(namespace, [f.note_id for f in head])
        head = [f for f in head if f.note_id in vectors]
        head = diversify(head, vectors, 1.0 - diversity, k)
    notes = await repo.note_evidence(namespace, [f.note_id for f in head])
    if observed is not None:
        notes = {i: observed_part(note, observed[i]) for i, note in notes.items() if i in observed}
    head = [f for f in head if f.note_id in notes]
    if state is not None:
        head = await _supersede(repo, namespace, head[:k], notes, state)
    packed: list[RetrievedNote] = []
    spent = 0
    for item in head[:k]:
        note = notes[item.note_id]
        cost = estimate_tokens(note.context)
        if token_budget is not None and packed and spent + cost > token_budget:
            break
        spent += cost
        packed.append(RetrievedNote.of(item, note, query_terms, as_of))
    return packed


def observed_part(note: Evidence, keys: frozenset[str]) -> Evidence:
    """``note`` with only the sources whose keys are in ``keys``; when some were left out,
    its context becomes the kept sources' texts (``speaker: text``, in event order), so
    that nothing of the others is returned, and its ``valid_from`` the latest time one of
    them was said.
    """
    kept = tuple(source for source in note.sources if source.key in keys)
    if len(kept) == len(note.sources):
        return note
    context = " ".join(f"{s.speaker}: {s.text}" if s.speaker else s.text for s in kept)
    times = [s.event_time for s in kept if s.event_time is not None]
    said = max(times) if times else None
    return note._replace(sources=kept, context=context, valid_from=said)


def statement_of(note: Evidence, asked: frozenset[str] = frozenset()) -> Statement:
    """A loaded note as supersession reads it, from its sources' stored analyses (see
    :mod:`~langmemcore.analysis`): its speakers, latest time, terms, vector, whether and
    what it says changed; ``asked``: the aspect terms of the question it answers and of
    the reply naming what it said (see :func:`answered_aspects`, :func:`replied_aspects`),
    joined to its terms. What changed is what a clause announcing a change names of the
    note's keywords, its speakers' names left out.
    """
    times = [s.event_time for s in note.sources if s.event_time is not None]
    speakers = frozenset(subject_of(s.speaker).lower() for s in note.sources)
    analyses = [Analysis.from_json(s.analysis) for s in note.sources]
    said = frozenset().union(*(a.stems | _aspect_terms(a.aspects) for a in analyses))
    changed = frozenset().union(*(a.changed(note.keywords, speakers) for a in analyses))
    return Statement(
        note.id,
        speakers,
        max(times) if times else None,
        said | asked,
        note.vector,
        any(a.changes for a in analyses),
        changed,
        any(a.present for a in analyses),
    )


def _with_stated(
    statement: Statement, note: Evidence, stated: Mapping[str, frozenset[str]]
) -> Statement:
    """``statement`` with the aspect terms the semantic layer read in its note's sources
    (``stated``, by observation key, see :func:`stated_aspects`) joined to its terms.
    """
    profile = frozenset().union(*(stated.get(s.key, frozenset()) for s in note.sources))
    return replace(statement, terms=statement.terms | profile)


def _aspect_terms(aspects: frozenset[str]) -> frozenset[str]:
    return frozenset(aspect_term(aspect) for aspect in aspects)


async def stated_aspects(
    repo: Repository, namespace: tuple[str, ...], notes: Sequence[Evidence], named: Sequence[str]
) -> dict[str, frozenset[str]]:
    """The aspects the semantic layer read in the observations of the people the question
    names who said one of ``notes`` (as :func:`aspect_term` terms, by observation key):
    "I'm in a shared flat in Dublin" states a home although no cue word of home is in it.
    """
    said = {subject_of(s.speaker).lower() for note in notes for s in note.sources}
    subjects = [n for n in dict.fromkeys(named) if any(names_speaker(n, s) for s in said)]
    stated: dict[str, set[str]] = {}
    for subject in subjects:
        for value in await repo.profile_of(namespace, subject):
            for source in value.sources:
                stated.setdefault(source.key, set()).add(aspect_term(value.aspect))
    return {key: frozenset(terms) for key, terms in stated.items()}


def answered_aspects(note: Evidence, lead: Said | None) -> frozenset[str]:
    """The aspects of the question a note answers, as terms: a reply speaks of what it
    was asked ("And how is your cat?" -> "Lulu is fat and happy" is about a pet). The
    question is the note's lead (the turn before it in its thread) when someone other
    than the note's speakers asked it.
    """
    if lead is None or lead.analysis is None or not lead.speaker:
        return frozenset()
    analysis = Analysis.from_json(lead.analysis)
    if not analysis.asks or _said_by(note, lead.speaker):
        return frozenset()
    return _aspect_terms(analysis.aspects)


def replied_aspects(note: Evidence, reply: Said | None) -> frozenset[str]:
    """The aspects of what a note said that its reply names, as terms: another speaker,
    neither asking nor speaking of themselves, refers back to it by a definite, demonstrative
    or second-person phrase ("Also the Micra failed the NCT" -> "That car is held together
    with prayers" is about a vehicle; "ur goldfish is always depressed"; see
    :attr:`~langmemcore.analysis.Analysis.refers_to`).
    """
    if reply is None or reply.analysis is None or not reply.speaker:
        return frozenset()
    if _said_by(note, reply.speaker):
        return frozenset()
    return _aspect_terms(Analysis.from_json(reply.analysis).refers_to)


def _said_by(note: Evidence, speaker: str) -> bool:
    """Whether ``speaker`` said one of the note's sources."""
    return any(s.speaker and s.speaker.lower() == speaker.lower() for s in note.sources)


async def linked_pairs(
    repo: Repository, namespace: tuple[str, ...] | Sequence[str], ids: Sequence[int]
) -> dict[frozenset[int], str]:
    """The relation of each pair of notes linked by an edge touching one of ``ids``
    (``conflicts`` over any other).
    """
    links: dict[frozenset[int], str] = {}
    for edge in await repo.edges_of(namespace, ids):
        pair = frozenset((edge.source_id, edge.target_id))
        if links.get(pair) != CONFLICTS:
            links[pair] = edge.relation
    return links


def _around(note: Evidence, exchange: Exchange | None) -> frozenset[str]:
    """The aspects the turns around a note name of it (:func:`answered_aspects`,
    :func:`replied_aspects`).
    """
    if exchange is None:
        return frozenset()
    return answered_aspects(note, exchange.lead) | replied_aspects(note, exchange.reply)


def _period(state: StateQuestion, statements: list[Statement]) -> tuple[date, date] | None:
    """The period a question asks about: the one it names, else that of the situation it
    names by what happened then (:func:`~langmemcore.retrieval.supersession.situation_period`).
    """
    if state.since is not None and state.until is not None:
        return state.since, state.until
    if state.situation:
        return situation_period(statements, state.situation, state.named)
    return None


def _order(
    state: StateQuestion, statements: list[Statement], links: dict[frozenset[int], str]
) -> list[int]:
    """The returned notes' ids in supersession's order:
    :func:`~langmemcore.retrieval.supersession.supersede`; for a question about the present
    naming no period, :func:`~langmemcore.retrieval.supersession.latest_change_first`; for
    one about a period (:func:`_period`),
    :func:`~langmemcore.retrieval.supersession.period_first`. What the question names
    beside the people speaking joins its focus
    (:func:`~langmemcore.retrieval.state_question.named_things`).
    """
    speakers = {s for st in statements for s in st.speakers}
    state = replace(state, focus=state.focus | named_things(state.named, speakers))
    order = supersede(
        statements,
        state.focus,
        named=state.named,
        links=links,
        similarity=state.similarity,
        newer_first=state.now,
        marked=state.marked,
        until=state.until,
    )
    by_note = {st.note_id: st for st in statements}
    if state.now and state.until is None:
        order = latest_change_first([by_note[n] for n in order], state.focus, state.named)
    period = _period(state, statements)
    if period is not None:
        order = period_first(
            [by_note[n] for n in order],
            state.focus,
            named=state.named,
            since=period[0],
            until=period[1],
            links=links,
        )
    return order


async def _supersede(
    repo: Repository,
    namespace: tuple[str, ...],
    head: list[Fused],
    notes: dict[int, Evidence],
    state: StateQuestion,
) -> list[Fused]:
    """``head`` in supersession's order (:func:`_order`), each place keeping its score;
    counts the searches whose order it changed.
    """
    ids = [f.note_id for f in head]
    links = await linked_pairs(repo, namespace, ids) if len(ids) > 1 else {}
    exchanges = await repo.exchanges_of(namespace, ids) if asked_aspects(state.focus) else {}
    asked = {i: _around(notes[i], exchanges.get(i)) for i in ids}
    statements = [statement_of(notes[i], asked=asked[i]) for i in ids]
    if untied_change(
        statements,
        state.focus,
        named=state.named,
        links=links,
        similarity=state.similarity,
        marked=state.marked,
    ):
        stated = await stated_aspects(repo, namespace, [notes[i] for i in ids], state.named)
        statements = [_with_stated(s, notes[s.note_id], stated) for s in statements]
    order = _order(state, statements, links)
    if order == ids:
        return head
    count(superseded=1)
    by_id = {f.note_id: f for f in head}
    return [replace(by_id[n], score=f.score) for n, f in zip(order, head, strict=True)]
