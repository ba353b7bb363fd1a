"""LoCoMo evaluation of the whole system: evidence recall@k by turn budget.

Each conversation goes into its own namespace; every category 1-4 question is asked
through :meth:`Memory.asearch`; the ranked notes are expanded to their source turns
(dia_ids) until k distinct turns are collected. Raw-turn BM25 / dense / RRF baselines are
computed in the same run, and an ablation table can follow (each mechanism kept for the
LLM path switched on, each one that runs switched off, append-only memory).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.config import CHANNELS, RetrievalConfig
from langmemcore.eval.baselines import run_turn_baselines
from langmemcore.eval.metrics import DEFAULT_KS, RecallTable
from langmemcore.eval.report import FULL, EvalReport, RunResult
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation
from langmemcore.memory import Memory
from langmemcore.retrieval.cost import track_search_cost

__all__ = ["EvalReport", "ablation_configs", "evaluate_locomo", "ingest_conversations"]


async def ingest_conversations(
    memory: Memory,
    conversations: Sequence[Conversation],
    prefix: str,
    progress: ProgressLike = None,
) -> None:
    """Ingest each conversation into ``(prefix, sample_id)`` and evolve its topics."""
    for conversation in conversations:
        await memory.aingest_many(
            (prefix, conversation.sample_id),
            conversation_observations(conversation),
            progress=progress,
        )


async def _ask_all(
    memory: Memory,
    conversations: Sequence[Conversation],
    prefix: str,
    config: RetrievalConfig,
    ks: Sequence[int],
    progress: ProgressLike,
) -> RunResult:
    table = RecallTable(tuple(ks))
    per_conversation = {c.sample_id: RecallTable(tuple(ks)) for c in conversations}
    total = sum(len(c.retrieval_questions) for c in conversations)
    report = progress_callback(progress, "questions")
    elapsed, done = 0.0, 0
    with track_search_cost() as cost:
        for conversation in conversations:
            for question in conversation.retrieval_questions:
                start = time.perf_counter()
                notes = await memory.asearch(
                    (prefix, conversation.sample_id), question.question, k=max(ks), config=config
                )
                elapsed += time.perf_counter() - start
                ranked = [[s.key for s in n.sources] for n in notes]
                table.add(question.category, ranked, question.evidence)
                per_conversation[conversation.sample_id].add(
                    question.category, ranked, question.evidence
                )
                done += 1
                if report:
                    report(done, total)
    return RunResult(table, per_conversation, cost, elapsed / max(1, done))


def ablation_configs(
    config: RetrievalConfig, *, offline: bool = True
) -> dict[str, RetrievalConfig]:
    """Offline, each mechanism the settings keep for the LLM path switched on
    (``"with ..."``), then each one that runs switched off (``"no ..."``: each channel,
    the refinement loop, the speaker query's neutral names, the vector channel's thread
    vectors, supersession, the diversity re-ordering).

    Args:
        config: The full system's settings.
        offline: Whether the searches run without a chat model (then ``llm_only``
            mechanisms are off in the full system).
    """
    skipped = set(config.llm_only) if offline else set()
    running = config.offline() if offline else config
    result: dict[str, RetrievalConfig] = {}
    for mechanism in sorted(skipped, key=[*CHANNELS, "loop"].index):
        name = "with refinement loop" if mechanism == "loop" else f"with {mechanism} channel"
        result[name] = replace(config, llm_only=tuple(m for m in config.llm_only if m != mechanism))
    for channel in CHANNELS:
        if channel in running.channels:
            result[f"no {channel} channel"] = replace(
                config, channels=tuple(c for c in config.channels if c != channel)
            )
    if running.max_rounds > 1:
        result["no refinement loop"] = replace(config, max_rounds=1)
    if "speaker" in running.channels and running.speaker_query_neutral_names:
        result["speaker query with the names"] = replace(config, speaker_query_neutral_names=False)
    if "vector" in running.channels and running.thread_vectors:
        result["no thread vectors"] = replace(config, thread_vectors=False)
    if running.supersession:
        result["no supersession"] = replace(config, supersession=False)
    if running.diversity > 0:
        result["no diversity"] = replace(config, diversity=0.0)
    return result


async def evaluate_locomo(
    memory: Memory,
    conversations: Sequence[Conversation],
    *,
    ks: Sequence[int] = DEFAULT_KS,
    ablations: bool = False,
    progress: ProgressLike = None,
    on_run: Callable[[EvalReport], None] | None = None,
) -> EvalReport:
    """Run the evaluation (ingest, ask, baselines, optionally ablations).

    Args:
        memory: The memory to evaluate (its settings are the "full system").
        conversations: LoCoMo conversations.
        ks: Turn budgets.
        ablations: Also run the ablation table (each mechanism on or off, append-only
            memory).
        progress: Progress bar / callback.
        on_run: Called with the report so far after each run (e.g. to save it while
            the ablations go on).
    """
    prefix = f"locomo-{uuid.uuid4().hex[:8]}"
    await ingest_conversations(memory, conversations, prefix, progress)
    runs = {FULL: await _ask_all(memory, conversations, prefix, memory.retrieval, ks, progress)}

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(memory.embeddings.embed_documents(list(texts)))

    baselines = run_turn_baselines(conversations, embed, ks=tuple(ks))
    if ablations:
        settings = ablation_configs(memory.retrieval, offline=memory.llm is None)
        for name, config in settings.items():
            if on_run:
                on_run(_report(runs, baselines))
            runs[name] = await _ask_all(memory, conversations, prefix, config, ks, None)
        if on_run:
            on_run(_report(runs, baselines))
        flat = Memory(
            memory.database,
            memory.embeddings,
            config=replace(memory.config, mode="append_only"),
            retrieval=memory.retrieval,
        )
        await ingest_conversations(flat, conversations, prefix + "-flat")
        runs["append-only memory"] = await _ask_all(
            flat, conversations, prefix + "-flat", memory.retrieval, ks, None
        )
    return _report(runs, baselines)


def _report(runs: dict[str, RunResult], baselines: dict[str, RecallTable]) -> EvalReport:
    system = runs[FULL]
    tables = {name: run.table for name, run in runs.items() if name != FULL}
    return EvalReport(system.table, baselines, tables, system.seconds, dict(runs))
