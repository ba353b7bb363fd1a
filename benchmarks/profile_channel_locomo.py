"""LoCoMo evidence recall with and without the profile channel, on one memory.

The dev split is ingested once into ``(PREFIX, sample_id)`` (``--ingest``), then every
category 1-4 question is asked with the offline default settings (no profile channel) and
with the profile channel on (the configuration of the ``with profile channel`` row of
``langmemcore eval locomo --ablations``: ``llm_only`` without ``"profile"``), without the
other ablation runs. Prints the per-conversation tables and the gain table.

With ``--changes`` it also lists every search whose returned notes the channel changed:
the question's reading (subject, aspects, period), what the asked aspects hold (current,
replaced and ended values), how many returned notes the channel ranked, and the question's
evidence recall at 5 and 20 turns both ways; then the changed searches and their recall
difference summed by whether the asked aspects hold history (a replaced or ended value).

Run from the repository root (same ``LANGMEMCORE_HOME`` for both steps):
``python benchmarks/profile_channel_locomo.py ../shared/data/locomo-dev.json --prefix P --ingest``
then the same without ``--ingest`` to ask again on the same memory.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from dataclasses import replace

from langmemcore import Memory
from langmemcore.config import RetrievalConfig
from langmemcore.eval.locomo_eval import _ask_all, ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS, recall_at_k, turns_within_budget
from langmemcore.eval.report import FULL, EvalReport
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.profiles.question import parse_profile_question
from langmemcore.retrieval.profile_channel import aspect_values, profile_focus
from langmemcore.storage.repository import Repository
from langmemcore.text import analyze_query

WITH = "with profile channel"


def _with_profile(config: RetrievalConfig) -> RetrievalConfig:
    """The settings with the profile channel running offline."""
    return replace(config, llm_only=tuple(m for m in config.llm_only if m != "profile"))


async def _reading(memory: Memory, namespace: tuple[str, ...], question: str) -> tuple[str, str]:
    """The question's profile reading and what the asked aspects hold, in words."""
    async with Repository.open(memory.database, autocommit=True) as repo:
        subjects = [s for s, _n, _c in await repo.profile_subjects(namespace)]
        times = analyze_query(question).times
        focus = profile_focus(parse_profile_question(question, subjects, times=times), times)
        if focus is None:
            return "not read", "none"
        values = [v for _s, v in await aspect_values(repo, namespace, focus.subject, focus.aspects)]
    current = sum(v.current for v in values)
    history = len(values) - current
    dated = "dated" if focus.start is not None else "undated"
    reading = f"{focus.subject} {','.join(focus.aspects)} {focus.period} {dated}"
    return f"{reading}; values current {current} history {history}", (
        "history" if history else "no history"
    )


def _recall(notes: list[list[str]], evidence: list[str], k: int) -> float:
    return recall_at_k(evidence, turns_within_budget(notes, k))


async def _changes(
    memory: Memory, conversations: list[Conversation], prefix: str, configs: list[RetrievalConfig]
) -> None:
    """Print the searches the profile channel changed, and their recall by group."""
    groups: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for conversation in conversations:
        namespace = (prefix, conversation.sample_id)
        for question in conversation.retrieval_questions:
            ranked = []
            for config in configs:
                notes = await memory.asearch(namespace, question.question, k=20, config=config)
                ranked.append([[s.key for s in n.sources] for n in notes])
            if ranked[0] == ranked[1]:
                continue
            reading, group = await _reading(memory, namespace, question.question)
            off5, on5, off20, on20 = (
                _recall(ranked[i], question.evidence, k) for k in (5, 20) for i in (0, 1)
            )
            groups[group][0] += 1
            groups[group][1] += on5 - off5
            groups[group][2] += on20 - off20
            print(
                f"{conversation.sample_id} cat{question.category} R@5 {off5:.2f}->{on5:.2f} "
                f"R@20 {off20:.2f}->{on20:.2f} | {question.question} | {reading}"
            )
    for group, (n, d5, d20) in groups.items():
        print(f"{group}: {n} searches changed, sum of recall change R@5 {d5:+.2f} R@20 {d20:+.2f}")


async def _run(path: str, prefix: str, ingest: bool, changes: bool) -> None:
    """Ingest if asked, then ask both ways and print the report (and the changes)."""
    conversations = load_locomo(path)
    memory = await Memory.aopen(None, embeddings=None)
    try:
        if ingest:
            await ingest_conversations(memory, conversations, prefix)
            await memory.aflush()
            print(f"ingested into {prefix}", flush=True)
        full = memory.retrieval
        on = _with_profile(full)
        if changes:
            await _changes(memory, conversations, prefix, [full, on])
        runs = {FULL: await _ask_all(memory, conversations, prefix, full, DEFAULT_KS, None)}
        runs[WITH] = await _ask_all(memory, conversations, prefix, on, DEFAULT_KS, None)
        report = EvalReport(runs[FULL].table, {}, {WITH: runs[WITH].table}, 0.0, runs)
        print(report.format_markdown())
    finally:
        await memory.database.dispose()


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("path", help="LoCoMo JSON file")
    parser.add_argument("--prefix", required=True, help="namespace prefix of the memory")
    parser.add_argument("--ingest", action="store_true", help="ingest the conversations first")
    parser.add_argument("--changes", action="store_true", help="list the searches it changed")
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.prefix, args.ingest, args.changes))


if __name__ == "__main__":
    main()
