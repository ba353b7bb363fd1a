"""The retrieval channels: each fetches what it needs, then ranks notes with a pure function.

- **topic**: top ``k_topic`` topics by centroid similarity to the query's topic
  description -> their notes (coarsest level of the hierarchy);
- **keyword**: top ``k_key`` keywords per query entity by embedding similarity -> the notes
  carrying them (entity level);
- **neighbour**: 1-hop along edges from the anchors (the best notes the other channels
  found, after fusion), weighted by anchor score x edge strength (associative level);
- **vector**: dense similarity of note contexts to the query (by default of their thread
  vectors: each context with the observation before it in its thread);
- **speaker**: dense similarity of the notes' own embeddings, among notes said by a
  person the query names, to the query with their names made neutral;
- **fulltext**: Postgres full text over note contexts (any query term);
- **time**: notes whose event time falls in a date or period the query names;
- **profile**: the notes stating the values of the subject's aspect a question asks about
  (:mod:`langmemcore.retrieval.profile_channel`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from langmemcore.config import RetrievalConfig
from langmemcore.profiles.question import ProfileQuestion
from langmemcore.retrieval.fusion import ChannelRanking, Fused
from langmemcore.retrieval.profile_channel import profile_ranking
from langmemcore.retrieval.state_question import StateQuestion
from langmemcore.storage.database import Database
from langmemcore.storage.records import Scored
from langmemcore.storage.repository import Repository
from langmemcore.storage.search.shared import SHARED_CHANNELS, SharedQuery
from langmemcore.text import TimeMention

__all__ = [
    "CHANNEL_FUNCTIONS",
    "TEXT_CHANNELS",
    "channel_weight",
    "neighbour_channel",
    "neighbour_ranking",
    "QueryPlan",
    "channel_groups",
    "rank_neighbours",
    "run_channels",
    "shared_channels",
]


@dataclass(frozen=True)
class QueryPlan:
    """A (sub-)query decomposed and embedded, ready for the channels.

    Attributes:
        text: The query text.
        topic: Topic description.
        keywords: Normalised keywords / entities.
        entities: Proper names in the query (surface form).
        times: Dates and periods it names.
        vector: Embedding of ``text``.
        topic_vector: Embedding of ``topic``.
        keyword_vectors: Embedding of each keyword, in order.
        round: Refinement round (0 = the original query).
        stored: Its keywords that memory stores (their vectors were read, not embedded).
        subjects: The namespace's profile subjects, read once per search when the profile
            channel runs (none: the channel does no database work).
        speaker_vector: Embedding of ``text`` with the names of the speakers it names made
            neutral, for the speaker channel (empty: it uses ``vector``).
        speakers: The ``entities`` memory has as speakers, when that was looked up
            (``None``: not looked up, and the speaker channel asks for every name).
        state: The question as supersession reads it, when it asks about a state: now,
            before a change, in a named period or how things turned out
            (:func:`~langmemcore.retrieval.state_question.state_question`).
        profile: What it asks of the profile of one of ``subjects``
            (:func:`~langmemcore.profiles.question.parse_profile_question`).
        described: Whether ``topic`` is an LLM's description (embedded on its own) rather
            than the query's content words (for which the query's vector stands).
    """

    text: str
    topic: str
    keywords: tuple[str, ...]
    entities: tuple[str, ...]
    times: tuple[TimeMention, ...]
    vector: tuple[float, ...]
    topic_vector: tuple[float, ...]
    keyword_vectors: tuple[tuple[float, ...], ...]
    round: int = 0
    stored: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    speaker_vector: tuple[float, ...] = ()
    speakers: tuple[str, ...] | None = None
    state: StateQuestion | None = None
    profile: ProfileQuestion | None = None
    described: bool = False

    @property
    def speaker_query(self) -> tuple[float, ...]:
        """The vector the speaker channel ranks by: ``speaker_vector`` or ``vector``."""
        return self.speaker_vector or self.vector

    @property
    def speaker_names(self) -> tuple[str, ...]:
        """The people the speaker channel keeps to: ``speakers`` when looked up (a name
        no note was said by would send a filtered vector scan through the whole index
        for nothing), else every name in ``entities``.
        """
        return self.entities if self.speakers is None else self.speakers


def rank_neighbours(
    anchors: Sequence[Scored],
    edges: Sequence[tuple[int, int, float]],
    relevance: Mapping[int, float],
    limit: int,
) -> list[int]:
    """Rank the 1-hop neighbours of the anchors.

    A neighbour scores the sum, over the edges joining it to anchors, of anchor score x
    edge strength, gated by its own relevance to the query (so an association only counts
    when it leads somewhere the question is about). Anchors themselves and neighbours
    without a relevance (inactive notes) are left out.

    Args:
        anchors: Anchor notes with their (positive) scores.
        edges: ``(source, target, strength)`` edges touching the anchors.
        relevance: Neighbour -> similarity to the query.
        limit: Notes returned at most.
    """
    weight = {a.id: a.score for a in anchors}
    score: dict[int, float] = defaultdict(float)
    for source, target, strength in edges:
        for anchor, other in ((source, target), (target, source)):
            if anchor in weight and other not in weight and other in relevance:
                score[other] += weight[anchor] * strength * max(relevance[other], 0.0)
    ranked = sorted((n for n in score if score[n] > 0), key=lambda n: (-score[n], n))
    return ranked[:limit]


async def keyword_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Entity-level access through the keyword layer: each query keyword's ``k_key``
    nearest keywords (at least ``keyword_min_similarity`` similar) -> the notes carrying
    them, by the sum over query keywords of their best match.
    """
    return await repo.keyword_ranking(
        ns, plan.keyword_vectors, config.k_key, config.keyword_min_similarity, config.depth
    )


async def topic_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Thematic entry through the topic groups: the ``k_topic`` topics nearest to the
    topic description -> their notes, by topic similarity x share of topic keywords.
    """
    return await repo.topic_ranking(ns, plan.topic_vector, config.k_topic, config.depth)


async def neighbour_channel(
    repo: Repository,
    ns: tuple[str, ...],
    anchors: Sequence[Scored],
    plan: QueryPlan,
    config: RetrievalConfig,
) -> list[int]:
    """Associative expansion: 1 hop along edges from the anchors (the best fused notes),
    gated by the neighbours' relevance to the query.
    """
    triples, relevance = await repo.neighbourhood(ns, [a.id for a in anchors], plan.vector)
    return rank_neighbours(anchors, triples, relevance, config.depth)


async def neighbour_ranking(
    database: Database,
    ns: tuple[str, ...],
    fused: Sequence[Fused],
    plan: QueryPlan,
    config: RetrievalConfig,
) -> ChannelRanking:
    """The neighbour channel's weighted ranking from the ``anchors`` best of ``fused``
    (each anchor weighing its fused score relative to the best).
    """
    top = fused[: config.anchors]
    anchors = [Scored(f.note_id, f.score / top[0].score) for f in top]
    async with Repository.open(database, autocommit=True) as repo:
        ids = await neighbour_channel(repo, ns, anchors, plan, config)
    weight = channel_weight(config, "neighbour", plan.round)
    return ChannelRanking("neighbour", tuple(ids), weight, plan.round)


async def vector_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Dense similarity of note contexts (with their thread's previous observation, see
    :attr:`~langmemcore.config.RetrievalConfig.thread_vectors`) to the query.
    """
    found = await repo.nearest_notes(ns, plan.vector, config.depth, threaded=config.thread_vectors)
    return [s.id for s in found]


async def speaker_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Dense similarity among the notes said by the people the query names, to the query
    with their names made neutral.
    """
    if not plan.speaker_names:
        return []
    found = await repo.nearest_notes_by_speakers(
        ns, plan.speaker_query, plan.speaker_names, config.depth
    )
    return [s.id for s in found]


async def fulltext_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Postgres full text over note contexts."""
    return [s.id for s in await repo.fulltext_notes(ns, plan.text, config.depth)]


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _periods(plan: QueryPlan) -> list[tuple[datetime, datetime]]:
    """``[start, end)`` of each date or period the query names, whole days."""
    return [(_day_start(m.start), _day_start(m.end) + timedelta(days=1)) for m in plan.times]


async def time_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """Notes whose event time falls within a date or period the query names."""
    found: list[int] = []
    for start, end in _periods(plan):
        found.extend(await repo.notes_in_time_range(ns, start, end, config.depth))
    return list(dict.fromkeys(found))[: config.depth]


async def shared_channels(
    repo: Repository,
    ns: tuple[str, ...],
    channels: Sequence[str],
    plan: QueryPlan,
    config: RetrievalConfig,
) -> dict[str, list[int]]:
    """The rankings of the ``channels`` among :data:`SHARED_CHANNELS` in one statement,
    each exactly what its own channel function ranks.
    """
    query = SharedQuery(
        text=plan.text,
        vector=plan.vector,
        keyword_vectors=plan.keyword_vectors,
        speakers=plan.speaker_names,
        periods=_periods(plan),
        speaker_vector=plan.speaker_query,
        k_key=config.k_key,
        min_similarity=config.keyword_min_similarity,
        depth=config.depth,
        threaded=config.thread_vectors,
    )
    rankings = await repo.shared_rankings(ns, channels, query)
    if "time" in rankings:
        rankings["time"] = list(dict.fromkeys(rankings["time"]))[: config.depth]
    return rankings


async def profile_channel(
    repo: Repository, ns: tuple[str, ...], plan: QueryPlan, config: RetrievalConfig
) -> list[int]:
    """The semantic layer: notes of the current (or the asked period's) values of the
    subject's aspect the query asks about. A sub-query round's ranking at fusion weight 0
    is never used, so it is not computed.
    """
    if plan.round and not channel_weight(config, "profile", plan.round):
        return []
    ranking = await profile_ranking(repo, ns, plan.profile, plan.times)
    return ranking[: config.depth]


TEXT_CHANNELS = frozenset({"fulltext", "time"})
"""Channels that read only the query's text and the periods it names, no vector: a
search's first round ranks them while the query is embedded."""


ChannelFunction = Callable[
    [Repository, tuple[str, ...], QueryPlan, RetrievalConfig], Awaitable[list[int]]
]

CHANNEL_FUNCTIONS: dict[str, ChannelFunction] = {
    "topic": topic_channel,
    "keyword": keyword_channel,
    "vector": vector_channel,
    "speaker": speaker_channel,
    "fulltext": fulltext_channel,
    "time": time_channel,
    "profile": profile_channel,
}


def channel_groups(channels: Sequence[str]) -> list[tuple[str, ...]]:
    """The channels as they run: those of :data:`SHARED_CHANNELS` together (one
    statement), each other one alone, in ``channels`` order.
    """
    together = tuple(c for c in channels if c in SHARED_CHANNELS)
    alone: list[tuple[str, ...]] = [(c,) for c in channels if c not in SHARED_CHANNELS]
    return [together, *alone] if together else alone


async def run_channels(
    database: Database,
    channels: Sequence[str],
    namespace: tuple[str, ...],
    plan: QueryPlan,
    config: RetrievalConfig,
) -> list[ChannelRanking]:
    """Run a group of :func:`channel_groups` in one read connection (the shared channels
    in one statement) and weight each channel's ranking.
    """
    async with Repository.open(database, autocommit=True) as repo:
        if len(channels) == 1 and channels[0] not in SHARED_CHANNELS:
            found = {
                channels[0]: await CHANNEL_FUNCTIONS[channels[0]](repo, namespace, plan, config)
            }
        else:
            found = await shared_channels(repo, namespace, channels, plan, config)
    return [
        ChannelRanking(c, tuple(found[c]), channel_weight(config, c, plan.round), plan.round)
        for c in channels
    ]


def channel_weight(config: RetrievalConfig, channel: str, round: int) -> float:
    """A channel's fusion weight, scaled down for sub-query rounds."""
    return config.weight(channel) * (config.subquery_weight if round else 1.0)
