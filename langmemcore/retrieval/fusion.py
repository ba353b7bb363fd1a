"""Weighted reciprocal rank fusion with per-channel attribution (pure)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

__all__ = ["ChannelRanking", "Fused", "diversify", "fuse"]


@dataclass(frozen=True)
class ChannelRanking:
    """One channel's ranking of notes for one (sub-)query.

    Attributes:
        channel: The channel's name.
        note_ids: Notes, best first.
        weight: The channel's fusion weight (already scaled for sub-query rounds).
        round: The refinement round that produced it (0 for the original query).
    """

    channel: str
    note_ids: tuple[int, ...]
    weight: float
    round: int = 0


@dataclass(frozen=True)
class Fused:
    """A note after fusion.

    Attributes:
        note_id: The note.
        score: Its fused score (higher is better).
        ranks: Channel -> best (1-based) rank it had there.
    """

    note_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)


def fuse(
    rankings: Sequence[ChannelRanking], rrf_k: int = 60, priors: Collection[str] = ()
) -> list[Fused]:
    """Fuse rankings: ``score(n) = sum_c weight_c / (rrf_k + rank_c(n))``.

    A channel named in ``priors`` is a prior on the candidate pool, not a source of
    candidates: its ranking adds to the score of notes another channel ranked and
    brings no note of its own (MemCoRe's topics as a coarse route to the region of
    memory, which must not crowd the top ranks with whole groups).

    Args:
        rankings: Channel rankings (several rounds may contribute).
        rrf_k: Rank offset.
        priors: Channels whose rankings only re-weight the others' notes.

    Returns:
        Every ranked note, best first (ties broken by note id); each keeps the best rank
        it got in each channel.
    """
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    pool = {n for r in rankings if r.channel not in priors and r.weight > 0 for n in r.note_ids}
    for ranking in rankings:
        if ranking.weight <= 0:
            continue
        prior = ranking.channel in priors
        for position, note_id in enumerate(dict.fromkeys(ranking.note_ids), start=1):
            if prior and note_id not in pool:
                continue
            scores[note_id] = scores.get(note_id, 0.0) + ranking.weight / (rrf_k + position)
            seen = ranks.setdefault(note_id, {})
            seen[ranking.channel] = min(seen.get(ranking.channel, position), position)
    order = sorted(scores, key=lambda n: (-scores[n], n))
    return [Fused(n, scores[n], ranks[n]) for n in order]


def diversify(
    fused: Sequence[Fused],
    vectors: Mapping[int, npt.ArrayLike],
    relevance: float,
    limit: int | None = None,
) -> list[Fused]:
    """Re-order by maximal marginal relevance; each note's score becomes the value at
    which it was picked.

    Greedily picks the note maximising ``relevance * score + (1 - relevance) * best *
    novelty``, where ``novelty`` is one less the note's highest cosine similarity to the
    notes already picked (dissimilar notes count as 0; 1 for the first pick) and ``best``
    the highest fused score, so that near-duplicates give way to evidence about other
    aspects of the question. The value a note is picked at is its reported score: the
    first note keeps its fused score, and scores never increase down the list (a later
    pick was available earlier at a value at least as high).

    Args:
        fused: Fused notes, best first; all must have a vector.
        vectors: Note id -> normalised embedding.
        relevance: Weight of the fused score (1 keeps the order and the scores).
        limit: Pick only this many (the first ``limit`` of the whole order: each pick
            depends on the earlier ones only); all by default.
    """
    if relevance >= 1.0 or len(fused) < 3:
        return list(fused[:limit])
    best = max(f.score for f in fused)
    scores = np.asarray([f.score for f in fused])
    matrix = np.asarray([vectors[f.note_id] for f in fused], dtype=np.float64)
    closest = np.zeros(len(fused))
    remaining = np.ones(len(fused), dtype=bool)
    picked: list[Fused] = []
    for _ in range(len(fused) if limit is None else min(limit, len(fused))):
        value = relevance * scores + (1 - relevance) * best * (1.0 - closest)
        pick = int(np.argmax(np.where(remaining, value, -np.inf)))
        picked.append(replace(fused[pick], score=float(value[pick])))
        remaining[pick] = False
        closest = np.maximum(closest, matrix @ matrix[pick])
    return picked
