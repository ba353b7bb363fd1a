"""repair: forget one observation and leave memory as if it had never been merged in.

Used when a store item is deleted, overwritten with other text or expires. In one
transaction, under the namespace's construction lock and its topics lock (keywords and
topics are deleted here, which a concurrent topic evolution would otherwise still write
topic keywords for):

- notes whose only source was the observation are deleted, with every edge from or to
  them (their note_sources and note_keywords go with them through ``ON DELETE CASCADE``);
- notes that merged the observation with others are **re-derived** from their remaining
  sources: each remaining observation is drafted again (offline, deterministic), the
  contexts are folded with the gate's sentence union, re-embedded, and keywords, speakers
  and event time recomputed. Their earlier merge rows are marked undone (superseded: the
  note no longer holds the state they describe) and a ``repair`` lineage row keeps the
  before / after snapshots;
- edges the observation's links wrote are removed, unless a link of another observation
  still in force wrote the same edge; keywords no note carries any more are deleted, and
  so are topics left without keywords;
- the observation's profile statements are removed and the profile chains they were in
  replayed (:func:`~langmemcore.profiles.replay.forget_statements`): a value it alone
  stated goes, a value it replaced is current again;
- the validity of the re-derived notes and of every note a removed edge superseded is
  derived again (see :mod:`~langmemcore.storage.notes.validity_queries`);
- every lineage row in force of the observation, of a deleted note, or whose link names a
  removed edge is marked undone (see :mod:`~langmemcore.storage.notes.lineage_queries`), and a
  ``forget`` row records what happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.embeddings import Embeddings

from langmemcore.config import ConstructionConfig
from langmemcore.construction.apply import note_snapshot
from langmemcore.construction.gate import merge_contexts
from langmemcore.construction.graph import ConstructionContext
from langmemcore.construction.ingest import KeywordEmbedder, ObservationIn, make_drafts
from langmemcore.profiles.replay import forget_statements
from langmemcore.storage.models import Note, Observation
from langmemcore.storage.notes import NoteContent
from langmemcore.storage.repository import Repository

__all__ = ["RepairReport", "forget_key", "forget_observation"]


@dataclass(frozen=True)
class RepairReport:
    """What forgetting one observation changed.

    Attributes:
        observation_id: The observation forgotten.
        deleted_notes: Notes removed (the observation was their only source).
        rederived_notes: Notes rebuilt from their remaining sources.
        deleted_edges: Edges removed: those only the observation's links wrote, then
            those from or to the deleted notes.
        deleted_keywords: Keywords no note carried any more.
    """

    observation_id: int
    deleted_notes: tuple[int, ...]
    rederived_notes: tuple[int, ...]
    deleted_edges: tuple[int, ...]
    deleted_keywords: tuple[int, ...]


async def _rederive(
    repo: Repository,
    namespace: Sequence[str],
    note: Note,
    sources: Sequence[Observation],
    embeddings: Embeddings,
    keywords: KeywordEmbedder,
    config: ConstructionConfig,
) -> None:
    before = note_snapshot(NoteContent.of(note), [s.id for s in sources])
    drafts = await make_drafts(
        [ObservationIn(s.key, s.content, s.speaker, s.event_time, dict(s.meta)) for s in sources],
        embeddings,
        config,
    )
    context = drafts[0].context
    for draft in drafts[1:]:
        context = merge_contexts(context, draft.context)
    embedding = (
        list(drafts[0].embedding) if len(drafts) == 1 else await embeddings.aembed_query(context)
    )
    names = list(dict.fromkeys(k for d in drafts for k in d.keywords))
    times = [d.event_time for d in drafts if d.event_time is not None]
    rederived = NoteContent(
        context,
        embedding,
        names,
        sorted({d.speaker.lower() for d in drafts if d.speaker}),
        min(times) if times else None,
        note.confidence,
    )
    await repo.rewrite_note(namespace, note.id, rederived)
    vectors = await keywords.vectors(names)
    ids = await repo.upsert_keywords(namespace, [(n, vectors[n]) for n in names])
    await repo.detach_keywords(namespace, note.id)
    await repo.attach_keywords(namespace, note.id, list(ids.values()))
    await repo.retire_merges_of_note(namespace, note.id)
    await repo.append_lineage(
        namespace,
        "repair",
        note_id=note.id,
        before=before,
        after=note_snapshot(rederived, [s.id for s in sources]),
        reason="re-derived from its remaining sources after one was forgotten",
    )


async def _delete_orphans(
    repo: Repository, namespace: Sequence[str], keyword_ids: set[int]
) -> list[int]:
    """Delete the keywords no note carries any more, then the topics left without
    keywords; returns the keywords deleted.
    """
    if not keyword_ids:
        return []
    orphans = await repo.delete_orphan_keywords(namespace, keyword_ids)
    if orphans:
        await repo.delete_topics_without_keywords(namespace)
    return orphans


async def _record_forget(repo: Repository, namespace: Sequence[str], report: RepairReport) -> None:
    """Write the ``forget`` lineage row of ``report``."""
    await repo.append_lineage(
        namespace,
        "forget",
        observation_id=report.observation_id,
        after={
            "deleted_notes": list(report.deleted_notes),
            "rederived_notes": list(report.rederived_notes),
            "deleted_edges": list(report.deleted_edges),
            "deleted_keywords": list(report.deleted_keywords),
        },
        reason="observation forgotten (store item deleted, replaced or expired)",
    )


async def forget_observation(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    *,
    embeddings: Embeddings,
    keywords: KeywordEmbedder,
    config: ConstructionConfig,
) -> RepairReport:
    """Delete an observation and repair every note built from it (see module docstring).

    Args:
        repo: Repository bound to the transaction.
        namespace: The observation's namespace.
        observation_id: The observation to forget.
        embeddings: Embedder for re-derived contexts.
        keywords: Keyword embedder (cached) for re-derived keywords.
        config: Construction settings (offline drafting).

    Returns:
        What changed; all zeros when the observation no longer exists.
    """
    await repo.lock_construction(namespace)
    await repo.lock_topics(namespace)
    if not await repo.has_observation(namespace, observation_id):
        return RepairReport(observation_id, (), (), (), ())
    note_ids = await repo.notes_of_observation(namespace, observation_id)
    keyword_ids = await repo.keywords_of_notes(namespace, note_ids)
    deleted_edges = await repo.remove_link_edges_of_observation(namespace, observation_id)
    sources = await repo.sources_of(namespace, note_ids)
    deleted, rederived = [], []
    for note in await repo.get_notes(namespace, note_ids):
        remaining = [s for s in sources.get(note.id, []) if s.id != observation_id]
        if not remaining:
            deleted.append(note.id)
            continue
        await _rederive(repo, namespace, note, remaining, embeddings, keywords, config)
        rederived.append(note.id)
    if deleted:
        deleted_edges.extend(await repo.delete_notes(namespace, deleted))
    await forget_statements(repo, namespace, [observation_id])
    await repo.delete_observation(namespace, observation_id)
    orphans = await _delete_orphans(repo, namespace, keyword_ids)
    await repo.retire_forgotten_lineage(namespace, observation_id, deleted, deleted_edges)
    await repo.refresh_validity(namespace, rederived, ended=True)
    report = RepairReport(
        observation_id, tuple(deleted), tuple(rederived), tuple(deleted_edges), tuple(orphans)
    )
    await _record_forget(repo, namespace, report)
    return report


async def forget_key(
    repo: Repository, namespace: Sequence[str], key: str, context: ConstructionContext
) -> RepairReport | None:
    """Forget the observation stored under ``key`` (see :func:`forget_observation`) with
    the construction graph's embedders and settings; ``None`` when no observation has it.
    """
    observation = await repo.observation(namespace, key)
    if observation is None:
        return None
    return await forget_observation(
        repo,
        namespace,
        observation.id,
        embeddings=context.embeddings,
        keywords=context.keywords,
        config=context.config,
    )
