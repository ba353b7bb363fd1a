"""The propagation channel: personalised PageRank over the note-keyword-edge graph, seeded
by the best fused notes (as HippoRAG ranks passages by a PageRank personalised on the
query's nodes).

Multi-hop evidence often shares no words with the question but shares an entity with the
evidence that does: "What does Melanie do with her family on hikes?" finds the note about
roasting marshmallows, and the campfire note is reached through the keyword both carry.
A random walk that restarts at the seeds (with probability ``1 - damping`` at each step)
and otherwise moves to a neighbour in proportion to the link's weight reaches such notes
in two steps (note -> keyword -> note), spreading a keyword's mass over its carriers, so
that specific keywords bridge and common ones barely do.

The graph is the seeds' neighbourhood, read in one statement
(:meth:`~langmemcore.storage.search.access.SearchAccess.propagation_subgraph`): each seed's
keywords with their carriers, and the association edges touching the seeds. Keywords
carried by more than ``propagation_max_carriers`` notes are hubs (a speaker's name, a
word said every day) and are left out, as are keywords only one note carries (they
bridge nothing), and so are the question's own keywords (at least
``keyword_min_similarity`` similar to one of its keywords, as the keyword channel matches
them): the walk crosses only bridge entities, those the best notes carry and the
question does not name. Links between a note and its keywords weigh 1; an association
edge weighs its strength. Only notes already in the fused pool are ranked, so the walk
re-orders the candidates the channels found by how strongly they bridge to the best.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence

import numpy as np

from langmemcore.config import RetrievalConfig
from langmemcore.storage.records import Scored
from langmemcore.storage.repository import Repository
from langmemcore.storage.search.access import Subgraph

__all__ = ["personalised_pagerank", "propagation_channel", "rank_by_propagation"]

Link = tuple[Hashable, Hashable, float]


def personalised_pagerank(
    restart: Mapping[Hashable, float],
    links: Sequence[Link],
    damping: float,
    iterations: int,
) -> dict[Hashable, float]:
    """Personalised PageRank by power iteration on an undirected weighted graph.

    ``p <- (1 - damping) * r + damping * W^T p``, from ``p = r``, where ``r`` is the
    restart distribution (``restart`` normalised) and ``W`` the row-normalised link
    weights. A node without links keeps the mass that reaches it (it walks back to
    itself), so the total stays 1.

    Args:
        restart: Node -> restart weight (positive weights count; at least one).
        links: ``(a, b, weight)`` undirected links; non-positive weights are ignored.
        damping: Probability of following a link rather than restarting, in ``[0, 1)``.
        iterations: Power iterations.

    Returns:
        Node -> probability, for every node of ``restart`` and ``links``.
    """
    nodes = list(dict.fromkeys([*restart, *(n for a, b, _w in links for n in (a, b))]))
    index = {node: i for i, node in enumerate(nodes)}
    r = np.array([max(restart.get(node, 0.0), 0.0) for node in nodes])
    if r.sum() <= 0:
        return {node: 0.0 for node in nodes}
    r /= r.sum()
    kept = [(index[a], index[b], w) for a, b, w in links if w > 0]
    source = np.array([a for a, b, _w in kept] + [b for a, b, _w in kept], dtype=np.int64)
    target = np.array([b for a, b, _w in kept] + [a for a, b, _w in kept], dtype=np.int64)
    weight = np.array([w for *_ab, w in kept] * 2, dtype=np.float64)
    degree = np.bincount(source, weights=weight, minlength=len(nodes))
    share = weight / degree[source] if len(weight) else weight
    isolated = degree <= 0
    p = r.copy()
    for _ in range(iterations):
        spread = np.bincount(target, weights=p[source] * share, minlength=len(nodes))
        p = (1.0 - damping) * r + damping * (spread + np.where(isolated, p, 0.0))
    return {node: float(p[i]) for node, i in index.items()}


def rank_by_propagation(
    seeds: Sequence[Scored],
    subgraph: Subgraph,
    config: RetrievalConfig,
    pool: Collection[int] | None = None,
) -> list[int]:
    """Notes of the subgraph by personalised PageRank from the seeds, best first (ties by
    note id), at most ``config.depth``; seeds are ranked with the others.

    Args:
        seeds: Seed notes with positive scores (their restart weights).
        subgraph: The seeds' keywords with their carriers, and their edges.
        config: Damping, iterations, the hub cap and the depth.
        pool: If given, only these notes are ranked (the walk still crosses the others).
    """
    links: list[Link] = [
        (("note", note), ("keyword", keyword), 1.0)
        for keyword, carriers in subgraph.carriers.items()
        if 1 < len(carriers) <= config.propagation_max_carriers
        and subgraph.query_similarity.get(keyword, 0.0) < config.keyword_min_similarity
        for note in carriers
    ]
    links += [(("note", s), ("note", t), w) for s, t, w in subgraph.edges]
    restart: dict[Hashable, float] = {("note", s.id): s.score for s in seeds}
    scores = personalised_pagerank(
        restart, links, config.propagation_damping, config.propagation_iterations
    )
    notes = [
        (node[1], score)
        for node, score in scores.items()
        if isinstance(node, tuple) and node[0] == "note" and score > 0
        if pool is None or node[1] in pool
    ]
    notes.sort(key=lambda pair: (-pair[1], pair[0]))
    return [int(note) for note, _score in notes[: config.depth]]


async def propagation_channel(
    repo: Repository,
    ns: tuple[str, ...],
    seeds: Sequence[Scored],
    query_vectors: Sequence[Sequence[float]],
    config: RetrievalConfig,
    pool: Collection[int] | None = None,
) -> list[int]:
    """The propagation channel's ranking: the seeds' subgraph in one statement, then
    :func:`rank_by_propagation` (of the ``pool`` notes only, if given).

    Args:
        repo: Where memory lives.
        ns: The namespace.
        seeds: The best fused notes with their fused scores.
        query_vectors: The query's keyword vectors: keywords this similar to them are
            the question's own, not bridges.
        config: The settings.
        pool: The fused notes, the only ones ranked (``None``: every note reached).
    """
    seeds = [s for s in seeds if s.score > 0]
    if not seeds:
        return []
    subgraph = await repo.propagation_subgraph(
        ns, [s.id for s in seeds], query_vectors, config.propagation_max_carriers
    )
    return rank_by_propagation(seeds, subgraph, config, pool)
