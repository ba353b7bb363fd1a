"""``demo``, ``ingest``, ``search``, ``stats``, ``topics`` and ``eval``: thin layers over
:class:`~langmemcore.memory.Memory`, :mod:`langmemcore.io`, :mod:`langmemcore.demo`,
:mod:`langmemcore.eval` and :mod:`langmemcore.storage.stats`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from langchain_core.language_models import BaseChatModel

from langmemcore._errors import ConfigurationError, InvalidInputError, LangMemCoreError
from langmemcore._namespace import decode_namespace, validate_namespace
from langmemcore._validate import check_as_of
from langmemcore.cli._format import evidence_lines, stats_lines, topic_lines, usage_lines
from langmemcore.cli._llm import ACTIVE_NEEDS_LLM, chat_model, llm_config
from langmemcore.formal.layer import SearchResults
from langmemcore.memory import Memory
from langmemcore.retrieval.active import SearchMode
from langmemcore.storage.database import Database
from langmemcore.storage.migrations import head_revision, upgrade
from langmemcore.storage.stats import list_topics, memory_stats

__all__ = [
    "cmd_demo",
    "cmd_eval_frontier",
    "cmd_eval_locomo",
    "cmd_eval_updates",
    "cmd_ingest",
    "cmd_search",
    "cmd_stats",
    "cmd_topics",
    "parse_namespace",
    "read_file",
]

T = TypeVar("T")


def parse_namespace(text: str) -> tuple[str, ...]:
    """``"a.b"`` -> ``("a", "b")``, validated as LangGraph namespaces are."""
    return validate_namespace(decode_namespace(text))


def read_file(loader: Callable[[str], T], path: str) -> T:
    """Read ``path`` with ``loader``, reporting a file of the wrong kind as bad input.

    A missing or unreadable file (``OSError``) is left to :func:`langmemcore.cli.main`,
    which names it in one line like every other error.

    Raises:
        InvalidInputError: If the file is not UTF-8 JSON of the expected shape.
    """
    try:
        return loader(path)
    except LangMemCoreError:
        raise
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from exc
    except KeyError as exc:  # a LoCoMo document without a field it needs
        raise InvalidInputError(f"{path}: not a LoCoMo file (no field {exc})") from exc
    except (TypeError, AttributeError) as exc:  # a LoCoMo document of another shape
        raise InvalidInputError(f"{path}: not a LoCoMo file ({exc})") from exc


def _with_memory(
    args: argparse.Namespace,
    job: Callable[[Memory], Awaitable[T]],
    llm: BaseChatModel | None = None,
) -> T:
    """Open memory (with ``llm``, else the command's ``--llm`` model, if any), run ``job``
    on it and close the connections, in one event loop.
    """
    if llm is None and getattr(args, "llm", None):
        llm = chat_model(args.llm, args.llm_url)

    calls = llm_config(getattr(args, "llm_url", None)) if llm is not None else None

    async def run() -> T:
        memory = await Memory.aopen(args.url, embeddings=args.embeddings, llm=llm, llm_config=calls)
        try:
            return await job(memory)
        finally:
            await memory.aflush()
            await memory.database.dispose()

    return asyncio.run(run())


def cmd_demo(args: argparse.Namespace) -> int:
    """Remember the demo conversation on the default database and answer its questions."""
    from langmemcore.demo import run_demo

    async def prepare() -> tuple[str | None, bool]:
        database = Database.connect(args.url)
        try:
            revision = await database.schema_revision()
        finally:
            await database.dispose()
        if revision == head_revision():
            return revision, database.embedded
        await asyncio.to_thread(upgrade, database)
        return None, database.embedded

    revision, embedded = asyncio.run(prepare())
    where = "the embedded Postgres" if embedded else "DATABASE_URL / --url"
    migrated = "schema up to date" if revision else f"schema migrated to {head_revision()}"
    print(f"langmemcore demo on {where} ({migrated})")
    result = _with_memory(args, lambda memory: run_demo(memory, k=args.k, progress=True))
    conversation, stats = result.conversation, result.stats
    print(f"\n{conversation.title}\n{conversation.description}")
    speakers = sorted({o.speaker for o in conversation.observations if o.speaker})
    print(
        f"\nRemembered {len(conversation.observations)} turns by {', '.join(speakers)} "
        f"into namespace {'.'.join(conversation.namespace)}"
    )
    report = result.report
    if report.count("unchanged") == len(report.results):
        print("  this run: already remembered, nothing new")
    else:
        print(
            f"  this run: {report.count('append')} new notes, {report.count('merge')} merges, "
            f"{report.links} links"
        )
    print("\nWhat memory built:")
    print(
        f"  {stats.observations} observations -> {stats.notes} notes "
        f"({stats.merged_notes} built from several turns)"
    )
    print(
        f"  {stats.merges} merges, {stats.links} links, {stats.keywords} keywords, "
        f"{stats.topics} topics"
    )
    print("\nTopics (largest first):")
    print("\n".join(topic_lines(result.topics, limit=8, namespace=conversation.namespace)))
    for question, notes in result.answers:
        print(f"\nQ: {question}")
        print("\n".join(evidence_lines(notes)))
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    """Remember the observations of a file (JSON list, JSON Lines or LoCoMo)."""
    from langmemcore.io import load_observations

    namespace = parse_namespace(args.namespace)
    batches = read_file(load_observations, args.file)

    async def job(memory: Memory) -> list[str]:
        lines = []
        for batch in batches:
            target = namespace
            if len(batches) > 1 and batch.name is not None:
                target = (*namespace, batch.name)
            report = await memory.aingest_many(target, batch.observations, progress=True)
            lines.append(
                f"{'.'.join(target)}: {len(batch.observations)} observations -> "
                f"{report.count('append')} new notes, {report.count('merge')} merges, "
                f"{report.links} links, {report.count('unchanged')} already remembered"
            )
            if memory.llm is not None:
                lines.extend(f"  {line}" for line in usage_lines(report.llm))
        return lines

    print("\n".join(_with_memory(args, job)))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """Print the evidence for a query (``--active``: found by the ``--llm`` model's traversal;
    ``--as-of``: memory as it stood at that time).

    Raises:
        ConfigurationError: ``--active`` without ``--llm``, or an unusable ``--llm``.
        InvalidInputError: ``--as-of`` is not an ISO 8601 time with a timezone.
    """
    namespace = parse_namespace(args.namespace)
    as_of = check_as_of(args.as_of)
    if args.active and not args.llm:
        raise ConfigurationError(ACTIVE_NEEDS_LLM)
    llm = chat_model(args.llm, args.llm_url) if args.llm else None
    mode: SearchMode = "active" if args.active else "passive"

    def search(memory: Memory) -> Awaitable[SearchResults]:
        return memory.asearch(namespace, args.query, k=args.k, mode=mode, as_of=as_of)

    notes = _with_memory(args, search, llm)
    print(f"Q: {args.query}")
    print("\n".join(evidence_lines(notes)))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the counts of every namespace (at or below ``--namespace``)."""
    prefix = parse_namespace(args.namespace) if args.namespace else None

    async def run() -> list[str]:
        database = Database.connect(args.url)
        try:
            await database.check_schema()
            return stats_lines(await memory_stats(database, prefix))
        finally:
            await database.dispose()

    print("\n".join(asyncio.run(run())))
    return 0


def cmd_topics(args: argparse.Namespace) -> int:
    """Print a namespace's topics (``--evolve`` recomputes them first; only then is memory,
    with its embedder, opened).
    """
    namespace = parse_namespace(args.namespace)

    async def evolve(memory: Memory) -> list[str]:
        await memory.aevolve_topics(namespace)
        return topic_lines(await list_topics(memory.database, namespace))

    async def read() -> list[str]:
        database = Database.connect(args.url)
        try:
            await database.check_schema()
            return topic_lines(await list_topics(database, namespace))
        finally:
            await database.dispose()

    lines = _with_memory(args, evolve) if args.evolve else asyncio.run(read())
    print(f"Topics of {'.'.join(namespace)}:")
    print("\n".join(lines))
    return 0


def cmd_rethread(args: argparse.Namespace) -> int:
    """Give the notes of every namespace (at or below ``--namespace``) whose thread vector
    is still their own embedding the one an ingest gives today.
    """
    prefix = parse_namespace(args.namespace) if args.namespace else None

    async def job(memory: Memory) -> list[str]:
        lines = []
        for counts in await memory_stats(memory.database, prefix):
            if not counts.notes:
                continue
            report = await memory.arethread(counts.namespace, progress=True)
            again = f", {report.changed} changed meanwhile (run again)" if report.changed else ""
            lines.append(
                f"{'.'.join(counts.namespace)}: {report.threaded} of {report.examined} notes "
                f"given a thread vector, {report.unthreaded} without a lead{again}"
            )
        return lines or ["no notes to re-thread"]

    print("\n".join(_with_memory(args, job)))
    return 0


def cmd_eval_locomo(args: argparse.Namespace) -> int:
    """Evaluate evidence recall@k on a LoCoMo file."""
    from langmemcore.eval.locomo_eval import EvalReport, evaluate_locomo
    from langmemcore.locomo import limit_conversations, load_locomo

    conversations = limit_conversations(
        read_file(load_locomo, args.path),
        conversations_limit=args.limit,
        sessions_limit=args.sessions,
        questions_limit=args.questions,
    )

    def text(report: EvalReport) -> str:
        latency = f"\n\nmean search latency: {report.query_seconds * 1000:.1f} ms\n"
        return report.format_markdown() + latency

    def save(report: EvalReport) -> None:
        Path(args.out).write_text(text(report), encoding="utf-8")

    async def job(memory: Memory) -> str:
        report = await evaluate_locomo(
            memory,
            conversations,
            ablations=args.ablations,
            progress=True,
            on_run=save if args.out else None,
        )
        if args.out:
            save(report)
        return text(report)

    print(_with_memory(args, job))
    return 0


def cmd_eval_frontier(args: argparse.Namespace) -> int:
    """Compare compaction with recency, random eviction and the oracle on a LoCoMo file."""
    import uuid
    from pathlib import Path

    from langmemcore.eval.frontier import frontier_locomo
    from langmemcore.locomo import load_locomo

    conversations = read_file(load_locomo, args.path)

    async def job(memory: Memory) -> str:
        report = await frontier_locomo(
            memory,
            conversations,
            prefix=f"frontier-{uuid.uuid4().hex[:8]}",
            seed=args.seed,
            progress=True,
        )
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        report.write_csv(out / "frontier.csv")
        report.plot(out / "frontier.png")
        return f"{report.format_markdown()}\n\nwrote {out / 'frontier.csv'}, {out / 'frontier.png'}"

    print(_with_memory(args, job))
    return 0


def cmd_eval_updates(args: argparse.Namespace) -> int:
    """Ask a knowledge-update set's questions (see :mod:`langmemcore.eval.knowledge_updates`),
    with the default settings, then again on the same memory with the ``--without``
    channels off and the ``--with`` mechanisms on offline.
    """
    import uuid
    from dataclasses import replace

    from langmemcore.config import CHANNELS
    from langmemcore.eval.knowledge_updates import (
        evaluate_updates,
        ingest_update_set,
        load_update_set,
    )

    known = [*CHANNELS, "loop", "supersession"]
    unknown = sorted((set(args.without) | set(args.with_)) - set(known))
    if unknown:
        raise InvalidInputError(f"unknown mechanisms {unknown}; known: {known}")
    updates = read_file(load_update_set, args.path)

    async def job(memory: Memory) -> str:
        prefix = f"updates-{uuid.uuid4().hex[:8]}"
        await ingest_update_set(memory, updates, prefix)
        blocks = [f"{len(updates.facts)} facts in {args.path}", "## default settings"]
        blocks.append((await evaluate_updates(memory, updates, prefix)).format())
        if args.without or args.with_:
            settings = memory.retrieval
            kept = tuple(c for c in settings.channels if c not in args.without)
            llm_only = tuple(m for m in settings.llm_only if m not in args.with_)
            supersession = "supersession" not in args.without and (
                settings.supersession or "supersession" in args.with_
            )
            config = replace(settings, channels=kept, llm_only=llm_only, supersession=supersession)
            changed = [f"with {m}" for m in args.with_] + [f"without {c}" for c in args.without]
            blocks.append(f"## {', '.join(changed)}")
            blocks.append((await evaluate_updates(memory, updates, prefix, config=config)).format())
        return "\n".join(blocks)

    print(_with_memory(args, job))
    return 0
