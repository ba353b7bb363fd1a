"""The construction graph: ``ingest -> gate -> (merge | append)``.

Its nodes are the steps one observation goes through: ``ingest`` (duplicate check and
drafting), ``gate`` (candidates and the merge / link / append decision), then one write:
``merge`` into a redundant note, or ``append`` as a new note, linked to the complementary
or conflicting notes the gate found. Bulk ingest (:mod:`langmemcore.construction.bulk`),
which drafts observations ahead and checks their keys itself, enters at the gate. Topic
evolution is a namespace-wide job that the writes schedule
(:mod:`langmemcore.construction.topic_schedule`), not a step of one observation.

A LangGraph ``StateGraph`` whose dependencies (database, embedder, LLM, settings) arrive
through LangGraph's runtime context (:class:`ConstructionContext`). One invocation
processes one observation; its writes happen in one transaction in the apply node.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Required

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import ConfigDict
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from langmemcore._errors import LLMOutputError, LLMUnavailableError
from langmemcore.config import ConstructionConfig
from langmemcore.construction.apply import ApplyResult, MergePlan, apply_observation
from langmemcore.construction.gate import (
    Candidate,
    Decision,
    GateResult,
    NoteDraft,
    decide,
    judge,
    merge_contexts,
)
from langmemcore.construction.ingest import KeywordEmbedder, ObservationIn, make_drafts
from langmemcore.construction.thread import thread_text
from langmemcore.prompts import call_structured
from langmemcore.prompts.gating import STEP, GateJudgement, render_gate_prompt
from langmemcore.storage.database import Database
from langmemcore.storage.records import ensure_same_content
from langmemcore.storage.repository import Repository

__all__ = [
    "ConstructionContext",
    "ConstructionInput",
    "ConstructionOutput",
    "ConstructionState",
    "build_construction_graph",
]

_log = logging.getLogger("langmemcore.construction")


@dataclass
class ConstructionContext:
    """Dependencies of the construction graph's nodes (LangGraph runtime context).

    Its JSON schema (``get_context_jsonschema()``, the Agent Server's context form)
    describes the settings; the in-process dependencies are left out of it.

    Attributes:
        database: Where memory lives.
        embeddings: Embedder of contexts and keywords.
        keywords: Cached keyword embedder.
        config: Construction settings.
        llm: Optional chat model for ingestion and the ambiguous gate band.
    """

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(arbitrary_types_allowed=True)

    database: SkipJsonSchema[Database]
    embeddings: SkipJsonSchema[Embeddings]
    keywords: SkipJsonSchema[KeywordEmbedder]
    config: ConstructionConfig
    llm: SkipJsonSchema[BaseChatModel | None] = None


class ConstructionState(TypedDict, total=False):
    """State flowing through the construction graph."""

    namespace: tuple[str, ...]
    observation: ObservationIn
    draft: NoteDraft
    candidates: list[Candidate]
    gate: GateResult
    result: ApplyResult
    known_new: bool


class ConstructionInput(TypedDict, total=False):
    """What one invocation takes: the observation and its namespace (bulk ingest also
    passes its ``draft`` and ``known_new``).
    """

    namespace: Required[tuple[str, ...]]
    observation: Required[ObservationIn]
    draft: NoteDraft
    known_new: bool


class ConstructionOutput(TypedDict):
    """What one invocation returns: what happened to the observation."""

    result: ApplyResult


Ctx = Runtime[ConstructionContext]


async def ingest(state: ConstructionState, runtime: Ctx) -> dict[str, Any]:
    """Skip an already-ingested key; otherwise draft the note (unless given).

    A caller that already checked the key (bulk ingest) sets ``known_new``; the apply
    step's insert stays idempotent either way.
    """
    ctx, obs = runtime.context, state["observation"]
    existing = None
    if not state.get("known_new"):
        async with Repository.open(ctx.database, autocommit=True) as repo:
            existing = await repo.observation(state["namespace"], obs.key)
    if existing is not None:
        ensure_same_content(state["namespace"], obs.key, existing.content_hash, obs.text)
        return {"result": ApplyResult("unchanged", existing.id, None, (), (), "already ingested")}
    if "draft" in state:
        return {}
    lead = None
    if obs.event_time is not None and obs.speaker:
        async with Repository.open(ctx.database, autocommit=True) as repo:
            gap = ctx.config.thread_gap
            lead = await repo.observation_before(state["namespace"], obs.event_time, gap)
    drafts = await make_drafts([obs], ctx.embeddings, ctx.config, ctx.llm, leads=[lead])
    return {"draft": drafts[0]}


async def _llm_verdicts(
    ctx: ConstructionContext,
    obs: ObservationIn,
    draft: NoteDraft,
    ambiguous: list[Candidate],
) -> tuple[list[Decision], dict[int, str]]:
    assert ctx.llm is not None
    prompt = render_gate_prompt(
        obs.text,
        draft.context,
        draft.keywords,
        [(c.note_id, c.context, c.keywords) for c in ambiguous],
        merge_threshold=ctx.config.merge_threshold,
        link_threshold=ctx.config.link_threshold,
    )
    answer = await call_structured(
        ctx.llm, prompt, GateJudgement, step=STEP, retries=ctx.config.llm_retries
    )
    known = {c.note_id for c in ambiguous}
    verdicts, merged = [], {}
    for j in answer.judgements:
        if j.candidate_id not in known:
            continue
        operation = "link" if j.relation_type == "CONFLICTS" else j.operation.lower()
        verdicts.append(
            Decision(
                j.candidate_id,
                operation,
                j.relation_type.lower(),
                j.connection_strength,
                f"LLM: {j.reason or j.operation.lower()}",
                draft.keywords[0] if draft.keywords else None,
            )
        )
        if j.merged_context:
            merged[j.candidate_id] = j.merged_context
    return verdicts, merged


async def gate(state: ConstructionState, runtime: Ctx) -> dict[str, Any]:
    """Fetch candidates (vector top-k + keyword overlap) and decide merge / link / append."""
    ctx, draft, config = runtime.context, state["draft"], runtime.context.config
    candidates: list[Candidate] = []
    if config.mode != "append_only":
        async with Repository.open(ctx.database, autocommit=True) as repo:
            rows = await repo.gate_candidates(
                state["namespace"],
                draft.embedding,
                draft.keywords,
                k=config.candidate_k,
                keyword_k=config.keyword_candidates,
            )
        candidates = [
            Candidate(i, c, tuple(kw), s, n, said, changes)
            for i, c, kw, s, n, said, changes in rows
        ]
    offline = {c.note_id: judge(draft, c, config) for c in candidates}
    low, high = config.ambiguous_band
    ambiguous = [c for c in candidates if low <= offline[c.note_id].strength < high]
    merged: dict[int, str] = {}
    if ctx.llm is not None and ambiguous:
        try:
            answers, merged = await _llm_verdicts(ctx, state["observation"], draft, ambiguous)
            offline.update((v.note_id, v) for v in answers)
        except (LLMOutputError, LLMUnavailableError) as exc:
            _log.warning("gate prompt failed, deciding offline: %s", exc)
    verdicts = list(offline.values())
    result = decide(draft, candidates, config, verdicts)
    if result.target is not None and result.target in merged:
        result = GateResult(
            result.operation,
            result.target,
            result.links,
            result.decisions,
            result.reason,
            merged[result.target],
        )
    return {"candidates": candidates, "gate": result}


def route_at_start(state: ConstructionState) -> Literal["ingest", "gate"]:
    """Go straight to the gate when the caller drafted a key it knows to be new (bulk
    ingest); otherwise ingest (duplicate check and drafting) first.
    """
    return "gate" if state.get("known_new") and "draft" in state else "ingest"


def route_after_ingest(state: ConstructionState) -> Literal["gate", "__end__"]:
    """Stop when the observation was already ingested."""
    return "__end__" if "result" in state else "gate"


def route_after_gate(state: ConstructionState) -> Literal["merge", "append"]:
    """Pick the write for the gate's decision (a link is an append with edges)."""
    return "merge" if state["gate"].operation == "merge" else "append"


async def _apply(state: ConstructionState, runtime: Ctx, plan: MergePlan | None) -> ApplyResult:
    ctx, draft, result = runtime.context, state["draft"], state["gate"]
    vectors = await ctx.keywords.vectors(draft.keywords)
    async with Repository.open(ctx.database) as repo:
        return await apply_observation(
            repo,
            state["namespace"],
            state["observation"],
            draft,
            merge=plan,
            links=result.links,
            keyword_vectors=vectors,
            max_sources=ctx.config.max_sources_per_note,
            max_chars=ctx.config.max_observation_chars,
            reason=result.reason,
            conflict_strength=ctx.config.link_threshold,
        )


async def merge(state: ConstructionState, runtime: Ctx) -> dict[str, Any]:
    """Merge the draft into its redundant candidate (sentence union, re-embedded)."""
    result, draft = state["gate"], state["draft"]
    target = next(c for c in state["candidates"] if c.note_id == result.target)
    context = result.merged_context or merge_contexts(target.context, draft.context)
    embeddings = runtime.context.embeddings
    vector = await embeddings.aembed_query(context)
    thread: Sequence[float] = ()
    if draft.lead is not None:
        thread = await embeddings.aembed_query(thread_text(draft.lead, context))
    plan = MergePlan(target.note_id, target.context, context, vector, thread)
    return {"result": await _apply(state, runtime, plan)}


async def append(state: ConstructionState, runtime: Ctx) -> dict[str, Any]:
    """Append the draft as a new note, linked to the complementary / conflicting notes
    the gate found (none: an autonomous note).
    """
    return {"result": await _apply(state, runtime, None)}


def build_construction_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the construction graph."""
    graph = StateGraph(
        ConstructionState,
        context_schema=ConstructionContext,
        input_schema=ConstructionInput,
        output_schema=ConstructionOutput,
    )
    graph.add_node("ingest", ingest)
    graph.add_node("gate", gate)
    graph.add_node("merge", merge)
    graph.add_node("append", append)
    graph.add_conditional_edges(START, route_at_start)
    graph.add_conditional_edges("ingest", route_after_ingest)
    graph.add_conditional_edges("gate", route_after_gate)
    graph.add_edge("merge", END)
    graph.add_edge("append", END)
    return graph.compile(name="langmemcore-construction")
