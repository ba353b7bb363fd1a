"""pack: the fused notes in rank order with their source observations, cut at ``k``
notes or at a token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from langmemcore.retrieval.fusion import Fused, diversify
from langmemcore.storage.models import NoteKeyword, Topic, TopicKeyword
from langmemcore.storage.repository import Repository
from langmemcore.text import content_terms

__all__ = ["RetrievedNote", "SourceRef", "estimate_tokens", "order_sources", "pack_notes"]


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


@dataclass(frozen=True)
class RetrievedNote:
    """One piece of evidence.

    Attributes:
        note_id: The note.
        context: Its denoised context.
        score: Fused score.
        channels: Channel -> rank the note had there.
        keywords: Its keywords.
        topic: Label of its topic, if any.
        sources: Its source observations, in event order.
    """

    note_id: int
    context: str
    score: float
    channels: dict[str, int]
    keywords: tuple[str, ...]
    topic: str | None
    sources: tuple[SourceRef, ...]


def order_sources(sources: Sequence[SourceRef], query_terms: set[str]) -> tuple[SourceRef, ...]:
    """Sources sharing more content terms with the query first; event order otherwise."""
    overlap = [len(query_terms & set(content_terms(s.text))) for s in sources]
    order = sorted(range(len(sources)), key=lambda i: (-overlap[i], i))
    return tuple(sources[i] for i in order)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (about four characters a token)."""
    return max(1, len(text) // 4)


async def _topic_labels(repo: Repository, ns: str, note_ids: Sequence[int]) -> dict[int, str]:
    shared = func.count().label("shared")
    rows = await repo.session.execute(
        select(NoteKeyword.note_id, Topic.label, shared)
        .join(TopicKeyword, TopicKeyword.keyword_id == NoteKeyword.keyword_id)
        .join(Topic, Topic.id == TopicKeyword.topic_id)
        .where(
            NoteKeyword.namespace == ns,
            TopicKeyword.namespace == ns,
            Topic.namespace == ns,
            NoteKeyword.note_id.in_(list(note_ids)),
        )
        .group_by(NoteKeyword.note_id, Topic.label)
        .order_by(NoteKeyword.note_id, shared.desc(), Topic.label)
    )
    labels: dict[int, str] = {}
    for note_id, label, _count in rows:
        labels.setdefault(note_id, label)
    return labels


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
) -> list[RetrievedNote]:
    """Load the best ``k`` active notes with their sources, within ``token_budget``.

    With ``diversity`` > 0 the best ``pool`` notes are re-ordered by maximal marginal
    relevance (:func:`~langmemcore.retrieval.fusion.diversify`). A merged note's sources
    come most query-relevant first (see :func:`order_sources`).
    """
    query_terms = set(content_terms(query))
    head = list(fused[: max(k * 2, pool if diversity > 0 else 0)])
    notes = {
        n.id: n
        for n in await repo.get_notes(namespace, [f.note_id for f in head])
        if n.status == "active"
    }
    head = [f for f in head if f.note_id in notes]
    if diversity > 0:
        vectors = {i: [float(x) for x in n.embedding] for i, n in notes.items()}
        head = diversify(head, vectors, 1.0 - diversity)
    chosen = head[:k]
    ids = [f.note_id for f in chosen]
    sources = await repo.sources_of(namespace, ids)
    labels = await _topic_labels(repo, ".".join(namespace), ids)
    packed: list[RetrievedNote] = []
    spent = 0
    for item in chosen:
        note = notes[item.note_id]
        cost = estimate_tokens(note.context)
        if token_budget is not None and packed and spent + cost > token_budget:
            break
        spent += cost
        packed.append(
            RetrievedNote(
                note_id=note.id,
                context=note.context,
                score=item.score,
                channels=dict(item.ranks),
                keywords=tuple(note.keywords),
                topic=labels.get(note.id),
                sources=order_sources(
                    [
                        SourceRef(o.key, o.speaker, o.event_time, o.content)
                        for o in sources[note.id]
                    ],
                    query_terms,
                ),
            )
        )
    return packed
