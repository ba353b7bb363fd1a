"""evolve_topics: Leiden communities over the keyword co-occurrence graph, with size bounds.

Two keywords co-occur when an active note carries both; the edge weight is the number of
such notes. Leiden (``leidenalg``, modularity) partitions the graph; communities larger
than ``max_size`` are split by re-running Leiden on their subgraph at a higher resolution
(falling back to degree-ordered chunks); communities smaller than ``min_size`` are joined
to the neighbouring community they connect to most when it has room, and otherwise left
unassigned. Each topic gets the normalised mean of its keywords' embeddings as centroid and
its three most connected label-worthy keywords as label (see ``topic_labels``). A run
replaces the namespace's topics with a new generation in one transaction, under the
namespace's topics lock (one run at a time per namespace, see :func:`evolve_topics`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from langmemcore.construction.topic_labels import topic_label
from langmemcore.storage.repository import Repository

__all__ = ["TopicSummary", "evolve_topics", "partition_keywords"]

WeightedEdge = tuple[int, int, float]
_LABEL_CANDIDATES = 12


@dataclass(frozen=True)
class TopicSummary:
    """Outcome of one topic evolution.

    Attributes:
        generation: The new generation number.
        topics: Keyword-id members of each topic.
        labels: Label of each topic.
        unassigned: Keywords left out (isolated or in communities too small to keep).
    """

    generation: int
    topics: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    unassigned: int


def _leiden(
    nodes: Sequence[int], edges: Sequence[WeightedEdge], resolution: float, seed: int
) -> list[list[int]]:
    # Imported here: igraph pulls in matplotlib when it is installed, which a plain
    # ``import langmemcore`` (the CLI's doctor, stats, topics) has no use for.
    import igraph as ig
    import leidenalg

    index = {n: i for i, n in enumerate(nodes)}
    local = [(index[a], index[b], w) for a, b, w in edges if a in index and b in index]
    graph = ig.Graph(n=len(nodes), edges=[(a, b) for a, b, _ in local])
    graph.es["weight"] = [w for _, _, w in local]
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        weights="weight",
        resolution_parameter=resolution,
        seed=seed,
    )
    return [[nodes[i] for i in community] for community in partition]


def _split(
    community: list[int], edges: Sequence[WeightedEdge], max_size: int, seed: int
) -> list[list[int]]:
    members = set(community)
    inner = [(a, b, w) for a, b, w in edges if a in members and b in members]
    resolution = 2.0
    for _ in range(6):
        parts = _leiden(sorted(members), inner, resolution, seed)
        if len(parts) > 1:
            result: list[list[int]] = []
            for part in parts:
                result.extend(
                    _split(part, inner, max_size, seed) if len(part) > max_size else [part]
                )
            return result
        resolution *= 2.0
    degree: dict[int, float] = defaultdict(float)
    for a, b, w in inner:
        degree[a] += w
        degree[b] += w
    ordered = sorted(members, key=lambda n: (-degree[n], n))
    return [ordered[i : i + max_size] for i in range(0, len(ordered), max_size)]


def partition_keywords(
    nodes: Sequence[int],
    edges: Sequence[WeightedEdge],
    *,
    min_size: int,
    max_size: int,
    seed: int = 42,
) -> tuple[list[list[int]], list[int]]:
    """Partition keywords into communities whose sizes respect the bounds.

    Args:
        nodes: Keyword ids.
        edges: Co-occurrence edges ``(a, b, weight)``.
        min_size: Smallest community kept.
        max_size: Largest community allowed.
        seed: Leiden's random seed.

    Returns:
        The communities (each within ``[min_size, max_size]``) and the unassigned ids.
    """
    if not nodes:
        return [], []
    communities: list[list[int]] = []
    for community in _leiden(list(nodes), edges, 1.0, seed):
        if len(community) > max_size:
            communities.extend(_split(community, edges, max_size, seed))
        else:
            communities.append(community)
    owner = {n: i for i, c in enumerate(communities) for n in c}
    small = sorted(
        (i for i, c in enumerate(communities) if len(c) < min_size),
        key=lambda i: len(communities[i]),
    )
    for i in small:
        if len(communities[i]) >= min_size or not communities[i]:
            continue
        links: dict[int, float] = defaultdict(float)
        members = set(communities[i])
        for a, b, w in edges:
            if (a in members) != (b in members):
                other = owner[b] if a in members else owner[a]
                links[other] += w
        for target, _w in sorted(links.items(), key=lambda t: (-t[1], t[0])):
            if target != i and len(communities[target]) + len(communities[i]) <= max_size:
                communities[target].extend(communities[i])
                for n in communities[i]:
                    owner[n] = target
                communities[i] = []
                break
    kept = [sorted(c) for c in communities if len(c) >= min_size]
    assigned = {n for c in kept for n in c}
    return kept, sorted(n for n in nodes if n not in assigned)


async def _cooccurrence(
    repo: Repository, namespace: Sequence[str]
) -> tuple[list[int], list[WeightedEdge]]:
    edges = await repo.keyword_cooccurrence(namespace)
    return await repo.active_keywords(namespace), edges


async def _store_topics(
    repo: Repository,
    namespace: Sequence[str],
    generation: int,
    communities: Sequence[Sequence[int]],
    edges: Sequence[WeightedEdge],
) -> list[str]:
    """Replace the namespace's topics with ``communities`` as ``generation``; returns
    their labels.
    """
    await repo.delete_topics(namespace)
    members = {n for c in communities for n in c}
    info = {
        i: (name, vector.astype(np.float64))
        for i, (name, vector) in (await repo.keyword_embeddings(namespace, members)).items()
    }
    degree: dict[int, float] = defaultdict(float)
    for a, b, w in edges:
        degree[a] += w
        degree[b] += w
    ranked = [sorted(c, key=lambda n: (-degree[n], info[n][0])) for c in communities]
    candidates = [n for r in ranked for n in r[:_LABEL_CANDIDATES]]
    texts = await repo.oldest_note_contexts(namespace, candidates)
    labels: list[str] = []
    new_topics: list[tuple[str, list[float], Sequence[int]]] = []
    for community, order in zip(communities, ranked, strict=True):
        centroid = np.mean([info[n][1] for n in community], axis=0)
        centroid /= np.linalg.norm(centroid) or 1.0
        names = [info[n][0] for n in order]
        labels.append(topic_label(names, {info[n][0]: texts[n] for n in order if n in texts}))
        new_topics.append((labels[-1], centroid.tolist(), community))
    await repo.insert_topics(namespace, generation, new_topics)
    return labels


async def evolve_topics(
    repo: Repository, namespace: Sequence[str], *, min_size: int, max_size: int, seed: int
) -> TopicSummary:
    """Recompute the namespace's topics and store them as a new generation (the
    namespace's full-text statistics are refreshed with them).

    Runs are serialised per namespace by the topics lock (``repo.lock_topics``, held until
    ``repo``'s transaction ends), taken before anything is read: a run that starts while
    another holds it waits, then reads what that one committed and writes the next
    generation from it. Every run thus writes exactly one whole generation, numbered one
    above the newest it found; concurrent runs never share a number, never leave two
    generations' topics at once and never collide on the statistics. Ingestion takes
    the construction lock, not this one, and goes on meanwhile.

    Args:
        repo: Repository bound to the transaction (nothing read in it yet, so that the
            run reads the memory as of the lock).
        namespace: The namespace.
        min_size: Smallest topic kept.
        max_size: Largest topic allowed.
        seed: Leiden's random seed.

    Returns:
        The generation written: its number, topics, labels and unassigned count.
    """
    await repo.lock_topics(namespace)
    nodes, edges = await _cooccurrence(repo, namespace)
    communities, unassigned = partition_keywords(
        nodes, edges, min_size=min_size, max_size=max_size, seed=seed
    )
    generation = await repo.newest_topic_generation(namespace) + 1
    labels = await _store_topics(repo, namespace, generation, communities, edges)
    await repo.refresh_fulltext_statistics(namespace)
    await repo.append_lineage(
        namespace,
        "topics",
        after={"generation": generation, "topics": len(communities), "unassigned": len(unassigned)},
        reason="topic evolution",
    )
    return TopicSummary(
        generation, tuple(tuple(c) for c in communities), tuple(labels), len(unassigned)
    )
