"""The expected queries of a namespace, as a coverage instance over its active notes
(pure, no I/O). Compaction keeps the notes of greatest marginal coverage of this instance.

The query distribution ``p_D`` is unknown (the paper's Level 1b); it is estimated from the
**query log**, every search being a sample of it, and from a documented **prior** before
(and besides) that:

- each logged query ``j`` (the latest ``log_window``) has mass 1 before normalisation.
  A ``used_share`` of it is one expected query that requires every note its answer used
  (conjunctive: all the evidence must survive). The rest stands for the *family of
  similar queries* and spreads over single notes: the ``returned_top`` notes its search
  returned, rank-weighted ``1 / (rank + 1)``; a ``neighbour_share`` of it along the edges
  of those notes (by strength); a ``keyword_share`` of it to notes sharing keywords with
  its used (else top returned) notes, by inverse document frequency (a part that reaches
  no note, e.g. for want of edges, passes its share to the others);
- the **prior** gives each note a single-note expected query of mass proportional to
  ``prior_recency * recency + prior_degree * degree + prior_centrality * centrality +
  prior_keywords * informativeness`` (each normalised to ``[0, 1]``).

The log gets ``log_share`` of the total mass once it has entries, the prior the rest.
Every single-note mass is multiplied by the note's confidence ``tau`` (a likely false
note covers little true query mass, Appendix 13), a conjunctive one by the smallest
``tau`` of its notes. Single-note masses of a note are summed into one query, so the
instance has one query per note plus one per settled logged query.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from langmemcore.formal.config import FormalConfig
from langmemcore.formal.coverage import CoverageInstance, CoverageQuery

__all__ = ["EdgeFacts", "LoggedQuery", "NoteFacts", "expected_queries", "prior_masses"]


@dataclass(frozen=True)
class NoteFacts:
    """What the expected-query model needs of an active note.

    Attributes:
        id: Note id.
        order: Creation order in the namespace (larger is newer).
        keywords: Its keywords.
        tokens: Estimated tokens of its context (its cost under a token budget).
        confidence: Its confidence ``tau``.
    """

    id: int
    order: int
    keywords: tuple[str, ...]
    tokens: int
    confidence: float


@dataclass(frozen=True)
class EdgeFacts:
    """An edge between two notes.

    Attributes:
        source: One note.
        target: The other note.
        strength: Edge strength in ``[0, 1]``.
    """

    source: int
    target: int
    strength: float


@dataclass(frozen=True)
class LoggedQuery:
    """A logged search.

    Attributes:
        id: Query log id.
        returned: Notes the search returned, in rank order.
        used: Notes the answer used (settled by feedback; empty when not given).
    """

    id: int
    returned: tuple[int, ...]
    used: tuple[int, ...]


def _normalised(values: Mapping[int, float]) -> dict[int, float]:
    top = max(values.values(), default=0.0)
    return {k: (v / top if top > 0 else 0.0) for k, v in values.items()}


def prior_masses(
    notes: Sequence[NoteFacts],
    edges: Iterable[EdgeFacts],
    topic_keywords: Iterable[str],
    config: FormalConfig,
) -> dict[int, float]:
    """Prior mass of each note (summing to 1 unless every weight is 0)."""
    if not notes:
        return {}
    in_topic = set(topic_keywords)
    df = Counter(k for n in notes for k in set(n.keywords))
    degree: Counter[int] = Counter()
    ids = {n.id for n in notes}
    for edge in edges:
        if edge.source in ids and edge.target in ids:
            degree[edge.source] += 1
            degree[edge.target] += 1
    orders = sorted(n.order for n in notes)
    rank = {o: i for i, o in enumerate(orders)}
    span = max(1, len(notes) - 1)
    recency = {n.id: rank[n.order] / span for n in notes}
    degrees = _normalised({n.id: float(degree[n.id]) for n in notes})
    centrality = _normalised(
        {
            n.id: sum(math.log1p(df[k]) * (2.0 if k in in_topic else 1.0) for k in set(n.keywords))
            for n in notes
        }
    )
    informative = _normalised({n.id: float(len(set(n.keywords))) for n in notes})
    raw = {
        n.id: config.prior_recency * recency[n.id]
        + config.prior_degree * degrees[n.id]
        + config.prior_centrality * centrality[n.id]
        + config.prior_keywords * informative[n.id]
        for n in notes
    }
    total = sum(raw.values())
    return {k: (v / total if total > 0 else 0.0) for k, v in raw.items()}


def _spread(
    query: LoggedQuery,
    mass: float,
    active: Mapping[int, NoteFacts],
    adjacency: Mapping[int, list[tuple[int, float]]],
    idf: Mapping[str, float],
    config: FormalConfig,
) -> dict[int, float]:
    """Single-note masses of one logged query's similar-query family (a part with no
    notes, e.g. no edges, passes its share to the others).
    """
    returned = [n for n in query.returned if n in active][: config.returned_top]
    seeds = [n for n in query.used if n in active] or returned[:3]
    weights = {n: 1.0 / (rank + 1) for rank, n in enumerate(returned)}
    for n in seeds:
        weights[n] = max(weights.get(n, 0.0), 1.0)
    near: dict[int, float] = defaultdict(float)
    for n in weights:
        for other, strength in adjacency.get(n, ()):
            near[other] += strength * weights[n]
    terms = {k for n in seeds for k in active[n].keywords}
    shared = {
        n: sum(idf[k] for k in set(facts.keywords) & terms)
        for n, facts in active.items()
        if n not in seeds
    }
    parts = [
        (1.0 - config.neighbour_share - config.keyword_share, weights),
        (config.neighbour_share, near),
        (config.keyword_share, {n: w for n, w in shared.items() if w > 0}),
    ]
    parts = [(share, part) for share, part in parts if share > 0 and sum(part.values()) > 0]
    shares = sum(share for share, _part in parts)
    result: dict[int, float] = defaultdict(float)
    for share, part in parts:
        total = sum(part.values())
        for n, w in part.items():
            result[n] += mass * (share / shares) * w / total
    return result


def expected_queries(
    notes: Sequence[NoteFacts],
    edges: Sequence[EdgeFacts],
    topic_keywords: Iterable[str],
    log: Sequence[LoggedQuery],
    config: FormalConfig,
    *,
    token_costs: bool = False,
) -> CoverageInstance[int]:
    """The namespace's expected queries over its active ``notes`` (see the module doc).

    Args:
        notes: Active notes.
        edges: Edges among them.
        topic_keywords: Keywords in a current topic.
        log: Logged queries, newest first (only the first ``log_window`` are read).
        config: Weights and shares.
        token_costs: Cost of a note = its tokens (token budget); else 1 (note budget).
    """
    active = {n.id: n for n in notes}
    order = sorted(notes, key=lambda n: (-n.order, n.id))
    adjacency: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for edge in edges:
        if edge.source in active and edge.target in active:
            adjacency[edge.source].append((edge.target, edge.strength))
            adjacency[edge.target].append((edge.source, edge.strength))
    df = Counter(k for n in notes for k in set(n.keywords))
    idf = {k: math.log((1 + len(notes)) / (1 + c)) + 1.0 for k, c in df.items()}
    window = [q for q in log[: config.log_window] if any(n in active for n in q.returned + q.used)]
    log_mass = config.log_share if window else 0.0
    single: dict[int, float] = defaultdict(float)
    for n, mass in prior_masses(notes, edges, topic_keywords, config).items():
        single[n] += (1.0 - log_mass) * mass
    conjunctive: list[CoverageQuery[int]] = []
    for query in window:
        mass = log_mass / len(window)
        used = frozenset(n for n in query.used if n in active)
        spread = mass
        if used:
            tau = min(active[n].confidence for n in used)
            conjunctive.append(
                CoverageQuery(("log", query.id), mass * config.used_share * tau, (used,))
            )
            spread = mass * (1.0 - config.used_share)
        for n, m in _spread(query, spread, active, adjacency, idf, config).items():
            single[n] += m
    queries = [
        CoverageQuery(("note", n.id), single[n.id] * n.confidence, (frozenset((n.id,)),))
        for n in order
    ]
    costs = {n.id: float(max(1, n.tokens)) for n in notes} if token_costs else {}
    return CoverageInstance(tuple(n.id for n in order), (*queries, *conjunctive), costs)
