"""The retrieval graph: ``decompose -> channels (Send fan-out) -> fuse -> propagate ->
expand -> [sufficiency -> refine -> channels -> fuse -> propagate -> expand]* -> pack``.

``propagate`` (the propagation channel: a random walk from the best fused notes) and
``expand`` (the neighbour channel: edges from the best fused notes) start from the fusion,
so they run after the other channels; without the propagation channel ``fuse`` runs the
neighbour channel itself, one superstep fewer. Steps a search does not run are skipped,
not visited: with the propagation or neighbour channel off there is no ``propagate`` or
``expand``, and without a possible sub-query round (``max_rounds`` 1, as offline by
default) no ``sufficiency``. The first round's text channels (full text, time) rank in
``decompose``, while the query is embedded. A search whose remaining channels share one
statement, with no channel seeded by the fusion and no sub-query round (the offline
default), runs straight through:
``decompose -> channel_fuse_pack``, the channel, fusion and packing steps as one node (two
supersteps instead of four; each superstep is 2-3 ms of LangGraph's own work, see
docs/experiments/retrieval-cost.md, "Search cost, round three").

Dependencies (database, embedder, LLM, settings) reach the nodes through LangGraph's
runtime context (:class:`RetrievalContext`). Channel rankings accumulate across rounds, so
the evidence pool never shrinks: a sub-query's notes join the fusion with a lower weight.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from langmemcore._errors import LLMOutputError, LLMUnavailableError
from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.channels import (
    TEXT_CHANNELS,
    channel_groups,
    channel_weight,
    neighbour_ranking,
    run_channels,
)
from langmemcore.retrieval.cost import count
from langmemcore.retrieval.decompose import draft_query, embed_plan, plan_query, stored_cues
from langmemcore.retrieval.fusion import ChannelRanking, Fused, fuse
from langmemcore.retrieval.pack import RetrievedNote, pack_notes
from langmemcore.retrieval.profile_channel import order_by_profile, search_subjects
from langmemcore.retrieval.propagation import propagation_channel
from langmemcore.retrieval.state import Ctx, RetrievalContext, RetrievalInput, RetrievalState
from langmemcore.retrieval.state_question import for_settings
from langmemcore.retrieval.sufficiency import EvidenceNote, judge_offline, judge_with_llm
from langmemcore.storage.database import Database
from langmemcore.storage.records import Scored
from langmemcore.storage.repository import Repository

__all__ = ["RetrievalContext", "RetrievalInput", "RetrievalState", "build_retrieval_graph"]

_log = logging.getLogger("langmemcore.retrieval")

_T = TypeVar("_T")
_U = TypeVar("_U")


SEEDED_CHANNELS = frozenset({"neighbour", "propagation"})
"""Channels that start from the fused notes, so they run after the fusion."""


async def decompose(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Decompose and embed the query; the round's text channels (see
    :data:`~langmemcore.retrieval.channels.TEXT_CHANNELS`) rank meanwhile, on a
    connection of their own.
    """
    ctx, config, ns = runtime.context, runtime.context.config, state["namespace"]
    channels = _round_channels(config, 0)
    subjects = await search_subjects(ctx.database, ns, config)
    draft = await draft_query(
        state["query"], llm=ctx.llm, reference=reference_time(state), subjects=subjects
    )
    early = tuple(c for c in channels if c in TEXT_CHANNELS)
    embedding = embed_plan(
        draft,
        ctx.embeddings,
        lookup=stored_cues(ctx.database, ns),
        vectors=_first_vectors(config),
        speakers=config.speaker_query_neutral_names and "speaker" in config.channels,
    )
    rankings: list[ChannelRanking] = []
    if early:
        plan, rankings = await _beside(
            embedding, run_channels(ctx.database, early, ns, draft, config)
        )
        count(channel_calls=len(rankings))
    else:
        plan = await embedding
    count(searches=1)
    return {
        "plan": plan,
        "current": plan,
        "asked": [state["query"]],
        "channels": channels,
        "rankings": rankings,
        "refinable": config.max_rounds > 1 and bool(_round_channels(config, 1)),
    }


async def _beside(main: Awaitable[_T], side: Awaitable[_U]) -> tuple[_T, _U]:
    """``main``'s and ``side``'s results, the two run at once; when ``main`` fails,
    ``side`` is cancelled and finished before the error goes on, so nothing is left
    running (or failing unseen) after the step.
    """
    task = asyncio.ensure_future(side)
    try:
        first = await main
    except BaseException:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        raise
    return first, await task


def reference_time(state: RetrievalState) -> datetime:
    """The time the search is asked at: its ``as_of``, else now."""
    return state.get("as_of") or datetime.now(UTC)


def fan_out(state: RetrievalState) -> list[Send] | Literal["channel_fuse_pack", "fuse"]:
    """One ``channel`` task per group of the channels the current (sub-)query has still
    to rank (see :func:`unranked`): the channels that share one statement together, each
    other one alone (see :func:`~langmemcore.retrieval.channels.channel_groups`); or
    ``channel_fuse_pack`` when the search runs straight through (see
    :func:`runs_straight`), or ``fuse`` when every channel has ranked.
    """
    if runs_straight(state):
        return "channel_fuse_pack"
    sends = [
        Send("channel", {"namespace": state["namespace"], "current": state["current"], "group": g})
        for g in channel_groups(unranked(state))
    ]
    return sends or "fuse"


def unranked(state: RetrievalState) -> list[str]:
    """The current round's channels still to rank: not seeded by the fusion, and not
    already ranked (the first round's text channels rank while the query is embedded).
    """
    round = state["current"].round
    ranked = {r.channel for r in state.get("rankings", []) if r.round == round}
    return [c for c in state["channels"] if c not in SEEDED_CHANNELS and c not in ranked]


def runs_straight(state: RetrievalState) -> bool:
    """Whether nothing branches between the channels and packing: one group of channels
    left to rank at most (one task), no channel seeded by the fusion, no sub-query round
    to follow.
    """
    return (
        not state.get("refinable")
        and not SEEDED_CHANNELS & set(state["channels"])
        and len(channel_groups(unranked(state))) <= 1
    )


def _round_channels(config: RetrievalConfig, round: int) -> tuple[str, ...]:
    """The channels a round runs: all enabled ones first, ``refine_channels`` after."""
    if not round:
        return config.channels
    return tuple(c for c in config.channels if c in config.refine_channels)


async def channel(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Run one group of channels' rankings (the state is the task a ``Send`` carried)."""
    ctx = runtime.context
    rankings = await run_channels(
        ctx.database, state["group"], state["namespace"], state["current"], ctx.config
    )
    count(channel_calls=len(rankings))
    return {"rankings": rankings}


async def channel_fuse_pack(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """``channel``, ``fuse`` and ``pack`` one after another in one superstep, for a search
    that runs straight through (:func:`runs_straight`): the same work, the same state.
    """
    groups = channel_groups(unranked(state))
    ranked = (await channel({**state, "group": groups[0]}, runtime))["rankings"] if groups else []
    rankings = [*state.get("rankings", []), *ranked]
    fused = (await fuse_node({**state, "rankings": rankings}, runtime))["fused"]
    results = await pack({**state, "rankings": rankings, "fused": fused}, runtime)
    return {"rankings": ranked, "fused": fused, **results}


async def fuse_node(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Weighted reciprocal rank fusion over every round's rankings, then the neighbour
    channel in the same step when it runs without the propagation channel (which comes
    first, then ``expand``): one superstep fewer on the offline default path.
    """
    config = runtime.context.config
    fused = fuse(state["rankings"], config.rrf_k, config.priors)
    if not _expands_in_fusion(state["channels"], fused):
        return {"fused": fused}
    return await _neighbours(state, runtime, fused)


def _expands_in_fusion(channels: Sequence[str], fused: Sequence[Fused]) -> bool:
    """Whether ``fuse`` runs the neighbour channel itself (it runs, propagation not)."""
    return "neighbour" in channels and "propagation" not in channels and bool(fused)


async def expand(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Neighbour channel after the propagation channel (see :func:`_neighbours`)."""
    if "neighbour" not in state["channels"] or not state["fused"]:
        return {}
    return await _neighbours(state, runtime, state["fused"])


async def _neighbours(state: RetrievalState, runtime: Ctx, fused: list[Fused]) -> dict[str, Any]:
    """Neighbour channel: 1 hop along edges from the best ``fused`` notes, then re-fuse."""
    ctx = runtime.context
    plan, config = state["current"], ctx.config
    ranking = await neighbour_ranking(ctx.database, state["namespace"], fused, plan, config)
    count(channel_calls=1)
    fused = fuse([*state["rankings"], ranking], config.rrf_k, config.priors)
    return {"rankings": [ranking], "fused": fused}


async def propagate(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Propagation channel: personalised PageRank from the best fused notes, then re-fuse
    (see :mod:`~langmemcore.retrieval.propagation`).
    """
    config = runtime.context.config
    seeds = [Scored(f.note_id, f.score) for f in state["fused"][: config.propagation_seeds]]
    async with Repository.open(runtime.context.database, autocommit=True) as repo:
        pool = {f.note_id for f in state["fused"]}
        vectors = state["current"].keyword_vectors
        ids = await propagation_channel(repo, state["namespace"], seeds, vectors, config, pool)
    count(channel_calls=1)
    round = state["current"].round
    weight = channel_weight(config, "propagation", round)
    ranking = ChannelRanking("propagation", tuple(ids), weight, round)
    fused = fuse([*state["rankings"], ranking], config.rrf_k, config.priors)
    return {"rankings": [ranking], "fused": fused}


async def _evidence(
    database: Database, ns: tuple[str, ...], fused: list[Fused], top: int
) -> list[EvidenceNote]:
    async with Repository.open(database, autocommit=True) as repo:
        notes = await repo.note_summaries(ns, [f.note_id for f in fused[:top]])
    return [
        EvidenceNote(i, context, tuple(keywords), when.date().isoformat() if when else None)
        for i, context, keywords, when in notes
    ]


async def sufficiency(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Decide whether the pool suffices; if not, propose a sub-query."""
    ctx = runtime.context
    rounds = len(state["asked"])
    runnable = set(_round_channels(ctx.config, rounds)) - SEEDED_CHANNELS
    if rounds >= ctx.config.max_rounds or not runnable:
        return {"sufficient": True, "subquery": None}
    evidence = await _evidence(
        ctx.database, state["namespace"], state["fused"], ctx.config.sufficiency_top
    )
    verdict = None
    if ctx.llm is not None:
        try:
            verdict = await judge_with_llm(ctx.llm, state["query"], evidence, state["asked"])
        except (LLMOutputError, LLMUnavailableError) as exc:
            _log.warning("sufficiency prompts failed, judging offline: %s", exc)
    if verdict is None:
        plan = state["plan"]
        verdict = judge_offline(
            plan, evidence, state["asked"], stored=plan.stored, times="time" in runnable
        )
    return {
        "sufficient": verdict.sufficient,
        "missing": verdict.missing,
        "subquery": verdict.subquery,
        "subquery_keywords": verdict.keywords,
    }


def route_after_fusion(
    state: RetrievalState,
) -> Literal["propagate", "expand", "sufficiency", "pack"]:
    """To the propagation channel when it runs, past ``expand`` when ``fuse`` ran the
    neighbour channel, else on as :func:`route_after_fuse`.
    """
    if "propagation" in state["channels"] and state["fused"]:
        return "propagate"
    if _expands_in_fusion(state["channels"], state["fused"]):
        return route_after_expand(state)
    return route_after_fuse(state)


def route_after_fuse(state: RetrievalState) -> Literal["expand", "sufficiency", "pack"]:
    """Skip the steps a search does not run: the neighbour channel when it is off, the
    sufficiency test when no sub-query round can follow.
    """
    if "neighbour" in state["channels"] and state["fused"]:
        return "expand"
    return route_after_expand(state)


def route_after_expand(state: RetrievalState) -> Literal["sufficiency", "pack"]:
    """To the sufficiency test when a sub-query round could follow, else to packing."""
    return "sufficiency" if state.get("refinable") else "pack"


def route_after_sufficiency(state: RetrievalState) -> Literal["refine", "pack"]:
    """Refine with the sub-query, or pack the pool."""
    return "pack" if state["sufficient"] or not state.get("subquery") else "refine"


def _plan_vectors(channels: tuple[str, ...]) -> set[str]:
    """The plan vectors the channels read (see :data:`PLAN_VECTORS`)."""
    needs = {"text"} if {"vector", "speaker", "neighbour"} & set(channels) else set()
    needs |= {"topic"} if "topic" in channels else set()
    return needs | ({"keywords"} if "keyword" in channels else set())


def _first_vectors(config: RetrievalConfig) -> set[str]:
    """The plan vectors a search's first round needs: its channels' (see
    :func:`_plan_vectors`), the query's own always (the speaker channel's neutral query is
    embedded beside it), and the keyword vectors too when the propagation channel or a
    sub-query round may follow (they start from them).
    """
    needs = _plan_vectors(config.channels) | {"text"}
    if "propagation" in config.channels or config.max_rounds > 1:
        needs.add("keywords")
    return needs


async def refine(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Plan the sub-query as the next round (with the keywords the judge built it from,
    if any), embedding only what its channels read: keyword vectors come from earlier
    rounds or the namespace's stored keywords first.
    """
    ctx, subquery = runtime.context, state["subquery"] or ""
    round = len(state["asked"])
    channels = _round_channels(ctx.config, round)
    known = {
        keyword: vector
        for plan in (state["plan"], state["current"])
        for keyword, vector in zip(plan.keywords, plan.keyword_vectors, strict=False)
    }

    plan = await plan_query(
        subquery,
        ctx.embeddings,
        llm=ctx.llm,
        round=round,
        keywords=state.get("subquery_keywords") or None,
        vectors=_plan_vectors(channels),
        known=known,
        lookup=stored_cues(ctx.database, state["namespace"]),
        subjects=state["plan"].subjects,
        reference=reference_time(state),
    )
    count(refined=int(round == 1), subquery_rounds=1)
    return {
        "current": plan,
        "asked": [*state["asked"], subquery],
        "channels": _round_channels(ctx.config, round),
    }


async def pack(state: RetrievalState, runtime: Ctx) -> dict[str, Any]:
    """Load the best notes with their sources (only confident enough ones when the
    search asks for ``min_confidence``, before the cut at ``k``). A search ``as_of`` a time
    keeps the notes with a source observed by then, and of their sources those alone,
    before the cut at ``k``.
    """
    ctx, fused, floor = runtime.context, state["fused"], state.get("min_confidence")
    plan, as_of = state.get("plan"), state.get("as_of")
    async with Repository.open(ctx.database, autocommit=True) as repo:
        observed = None
        if as_of is not None:
            ids = [f.note_id for f in fused]
            observed = await repo.observed_sources(state["namespace"], ids, as_of)
            fused = [f for f in fused if f.note_id in observed]
        if floor is not None:
            confident = await repo.confident_note_ids(
                state["namespace"], [f.note_id for f in fused], floor
            )
            fused = [f for f in fused if f.note_id in confident]
        results = await pack_notes(
            repo,
            state["namespace"],
            fused,
            k=state.get("k") or ctx.config.k_final,
            query=state["query"],
            token_budget=state.get("token_budget"),
            diversity=ctx.config.diversity,
            pool=ctx.config.diversity_pool,
            observed=observed,
            state=None if plan is None else for_settings(plan.state, ctx.config),
            as_of=as_of,
        )
    return {"results": _profile_order(results, state.get("rankings", []))}


def _profile_order(
    results: list[RetrievedNote], rankings: Sequence[ChannelRanking]
) -> list[RetrievedNote]:
    """The packed notes with those the profile channel ranked in its order."""
    for ranking in rankings:
        if ranking.channel == "profile" and ranking.round == 0:
            return order_by_profile(results, ranking.note_ids)
    return results


def build_retrieval_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the retrieval graph."""
    graph = StateGraph(RetrievalState, context_schema=RetrievalContext, input_schema=RetrievalInput)
    graph.add_node("decompose", decompose)
    graph.add_node("channel", channel)
    graph.add_node("fuse", fuse_node)
    graph.add_node("propagate", propagate)
    graph.add_node("expand", expand)
    graph.add_node("sufficiency", sufficiency)
    graph.add_node("refine", refine)
    graph.add_node("pack", pack)
    graph.add_node("channel_fuse_pack", channel_fuse_pack)
    graph.add_edge(START, "decompose")
    graph.add_conditional_edges("decompose", fan_out, ["channel", "channel_fuse_pack", "fuse"])
    graph.add_edge("channel", "fuse")
    graph.add_conditional_edges("fuse", route_after_fusion)
    graph.add_conditional_edges("propagate", route_after_fuse)
    graph.add_conditional_edges("expand", route_after_expand)
    graph.add_conditional_edges("sufficiency", route_after_sufficiency)
    graph.add_conditional_edges("refine", fan_out, ["channel", "channel_fuse_pack", "fuse"])
    graph.add_edge("pack", END)
    graph.add_edge("channel_fuse_pack", END)
    return graph.compile(name="langmemcore-retrieval")
