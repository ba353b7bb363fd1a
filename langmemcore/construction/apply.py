"""apply: write one gated observation in one transaction, with a lineage row per operation
(and its profile statements, see :mod:`~langmemcore.construction.profiles`, and what its
note supersedes, see :mod:`~langmemcore.construction.validity`).

Construction in a namespace is serialised by a transaction-scoped advisory lock, and a
merge target is re-checked under it (still active, still taking sources, context
unchanged); otherwise the observation is appended instead, so nothing is ever lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from langmemcore.construction.gate import Decision, NoteDraft
from langmemcore.construction.ingest import ObservationIn
from langmemcore.construction.links import LinkWrite, write_links
from langmemcore.construction.profiles import write_profile
from langmemcore.construction.validity import write_validity
from langmemcore.storage.models import Note
from langmemcore.storage.notes import NoteContent
from langmemcore.storage.records import checked_observation
from langmemcore.storage.repository import Repository

__all__ = ["ApplyResult", "apply_observation", "note_snapshot"]


@dataclass(frozen=True)
class ApplyResult:
    """What happened to one observation.

    Attributes:
        operation: ``"append"``, ``"merge"`` or ``"unchanged"`` (already ingested).
        observation_id: The observation's id.
        note_id: The note that now holds it (``None`` if unchanged).
        edge_ids: Edges written (created, or reinforced when the note already had them).
        lineage_ids: Lineage rows written.
        reason: The gate's reason.
    """

    operation: str
    observation_id: int
    note_id: int | None
    edge_ids: tuple[int, ...]
    lineage_ids: tuple[int, ...]
    reason: str

    def with_links(self, written: LinkWrite) -> ApplyResult:
        """The result with more edges and lineage rows written (``(edge ids, lineage ids)``)."""
        edges, lineage = written
        return replace(self, edge_ids=self.edge_ids + edges, lineage_ids=self.lineage_ids + lineage)


@dataclass(frozen=True)
class MergePlan:
    """A merge prepared outside the transaction (its embedding computed ahead).

    Attributes:
        target: The note to merge into.
        expected_context: The target's context the plan was built on.
        context: The merged context.
        embedding: Embedding of the merged context.
        thread_embedding: Embedding of the merged context after the merged draft's lead
            (empty without a lead: the merged note's own embedding serves).
    """

    target: int
    expected_context: str
    context: str
    embedding: Sequence[float]
    thread_embedding: Sequence[float] = ()


def note_snapshot(note: NoteContent, source_ids: Sequence[int]) -> dict[str, Any]:
    """A note's restorable state, as JSON for the lineage log."""
    return {
        "context": note.context,
        "keywords": list(note.keywords),
        "speakers": list(note.speakers),
        "embedding": [float(x) for x in note.embedding],
        "event_time": note.event_time.isoformat() if note.event_time else None,
        "confidence": note.confidence,
        "sources": sorted(source_ids),
    }


def draft_snapshot(draft: NoteDraft) -> dict[str, Any]:
    """A draft's state, kept with a merge so that the merge can be undone."""
    return {
        "context": draft.context,
        "keywords": list(draft.keywords),
        "embedding": list(draft.embedding),
        "event_time": draft.event_time.isoformat() if draft.event_time else None,
        "origin": draft.origin,
        "speaker": draft.speaker,
    }


async def _merge_target(
    repo: Repository, namespace: Sequence[str], plan: MergePlan, max_sources: int
) -> tuple[Note, list[int]] | None:
    """The merge target, locked, with its source ids, if the plan still holds: the note is
    an active note of the namespace, its context is the one the plan was built on, and it
    takes another source.
    """
    note = await repo.lock_note(namespace, plan.target)
    if note is None or note.status != "active":
        return None
    if note.context != plan.expected_context:
        return None
    sources = await repo.source_ids_of(namespace, note.id)
    return None if len(sources) >= max_sources else (note, sources)


async def _merge_into(
    repo: Repository,
    namespace: Sequence[str],
    target: tuple[Note, list[int]],
    plan: MergePlan,
    draft: NoteDraft,
    observation_id: int,
    reason: str,
) -> int:
    """Merge the draft into the target note; returns the merge's lineage id."""
    note, sources = target
    current = NoteContent.of(note)
    event_time = current.event_time
    if draft.event_time and (event_time is None or draft.event_time < event_time):
        event_time = draft.event_time
    speakers = current.speakers
    if draft.speaker:
        speakers = sorted({*speakers, draft.speaker.lower()})
    merged = NoteContent(
        plan.context,
        list(plan.embedding),
        list(dict.fromkeys([*current.keywords, *draft.keywords])),
        speakers,
        event_time,
        current.confidence,
        list(plan.thread_embedding) or None,
    )
    await repo.rewrite_note(namespace, note.id, merged)
    await repo.add_note_source(namespace, note.id, observation_id)
    before = note_snapshot(current, sources)
    after = note_snapshot(merged, [*sources, observation_id])
    return await repo.append_lineage(
        namespace,
        "merge",
        observation_id=observation_id,
        note_id=note.id,
        before=before,
        after={**after, "draft": draft_snapshot(draft)},
        reason=reason,
    )


async def _append(
    repo: Repository,
    namespace: Sequence[str],
    observation: ObservationIn,
    draft: NoteDraft,
    links: Sequence[Decision],
    keyword_vectors: dict[str, list[float]],
    max_chars: int,
    reason: str,
) -> ApplyResult:
    """Store the observation and append its note with its links and lineage, in one
    statement (see :mod:`~langmemcore.storage.notes.append_queries`).
    """
    digest = checked_observation(observation.key, observation.text, max_chars=max_chars)
    appended = await repo.append_observation(
        namespace,
        observation={
            "key": observation.key,
            "content": observation.text,
            "content_hash": digest,
            "speaker": observation.speaker,
            "event_time": observation.event_time,
            "meta": observation.metadata,
            "analysis": draft.analysis.to_json(),
        },
        note={
            "context": draft.context,
            "embedding": draft.embedding,
            "thread_embedding": draft.thread_embedding,
            "keywords": draft.keywords,
            "speakers": [draft.speaker.lower()] if draft.speaker else [],
            "event_time": draft.event_time,
            "confidence": 0.5,
            "origin": draft.origin,
        },
        keywords=[(k, keyword_vectors[k]) for k in draft.keywords],
        links=[_link_row(link) for link in links],
        reason=reason,
    )
    if appended is None:
        record = await repo.insert_observation(
            namespace,
            observation.key,
            observation.text,
            analysis=draft.analysis.to_json(),
            max_chars=max_chars,
        )
        return ApplyResult("unchanged", record.id, None, (), (), "already ingested")
    return ApplyResult(
        "append",
        appended.observation_id,
        appended.note_id,
        appended.edge_ids,
        appended.lineage_ids,
        reason,
    )


def _link_row(link: Decision) -> dict[str, Any]:
    return {
        "target_id": link.note_id,
        "relation": link.relation,
        "strength": link.strength,
        "tag": link.tag,
        "reason": link.reason,
    }


async def _merge(
    repo: Repository,
    namespace: Sequence[str],
    observation: ObservationIn,
    draft: NoteDraft,
    planned: tuple[tuple[Note, list[int]], MergePlan],
    links: Sequence[Decision],
    keyword_vectors: dict[str, list[float]],
    max_chars: int,
    reason: str,
) -> ApplyResult:
    """Store the observation, merge its draft into the (checked) target and write the
    links from it, each with its lineage row.
    """
    record = await repo.insert_observation(
        namespace,
        observation.key,
        observation.text,
        speaker=observation.speaker,
        event_time=observation.event_time,
        metadata=observation.metadata,
        analysis=draft.analysis.to_json(),
        max_chars=max_chars,
    )
    if not record.created:
        return ApplyResult("unchanged", record.id, None, (), (), "already ingested")
    keyword_ids = await repo.upsert_keywords(
        namespace, [(k, keyword_vectors[k]) for k in draft.keywords]
    )
    target, plan = planned
    note_id = target[0].id
    lineage_ids = [await _merge_into(repo, namespace, target, plan, draft, record.id, reason)]
    await repo.attach_keywords(namespace, note_id, list(keyword_ids.values()))
    edges, linked = await write_links(
        repo, namespace, record.id, note_id, [_link_row(link) for link in links]
    )
    return ApplyResult("merge", record.id, note_id, edges, (*lineage_ids, *linked), reason)


async def apply_observation(
    repo: Repository,
    namespace: Sequence[str],
    observation: ObservationIn,
    draft: NoteDraft,
    *,
    merge: MergePlan | None,
    links: Sequence[Decision],
    keyword_vectors: dict[str, list[float]],
    max_sources: int,
    max_chars: int,
    reason: str,
    conflict_strength: float = 0.5,
) -> ApplyResult:
    """Store the observation and apply the gate's decision, all in ``repo``'s transaction,
    and add its statements to the profiles.

    Args:
        repo: Repository bound to the transaction.
        namespace: Target namespace.
        observation: The raw input.
        draft: Its note draft.
        merge: The merge to apply, or ``None`` to append.
        links: Edges to create from the resulting note.
        keyword_vectors: Embeddings of the draft's keywords.
        max_sources: A merge target with this many sources is appended to instead.
        max_chars: Longest accepted observation text.
        reason: The gate's reason, recorded in lineage.
        conflict_strength: Strength of the ``conflicts`` edges a profile replacement
            writes.

    Returns:
        What happened; ``"unchanged"`` when the key was already ingested.
    """
    await repo.lock_construction(namespace)
    target = None if merge is None else await _merge_target(repo, namespace, merge, max_sources)
    if merge is None or target is None:
        result = await _append(
            repo, namespace, observation, draft, links, keyword_vectors, max_chars, reason
        )
    else:
        result = await _merge(
            repo,
            namespace,
            observation,
            draft,
            (target, merge),
            links,
            keyword_vectors,
            max_chars,
            reason,
        )
    return await _with_profile_and_validity(repo, namespace, result, draft, conflict_strength)


async def _with_profile_and_validity(
    repo: Repository,
    namespace: Sequence[str],
    result: ApplyResult,
    draft: NoteDraft,
    strength: float,
) -> ApplyResult:
    """Add the draft's statements to the profiles (see
    :mod:`~langmemcore.construction.profiles`), then decide what the observation's note
    supersedes and what supersedes it (see :mod:`~langmemcore.construction.validity`),
    with the edges and lineage rows written.
    """
    if result.operation == "unchanged":
        return result
    if draft.statements:
        result = result.with_links(
            await write_profile(
                repo,
                namespace,
                result.observation_id,
                result.note_id,
                draft.statements,
                strength=strength,
            )
        )
    if result.note_id is None:
        return result
    return result.with_links(
        await write_validity(
            repo, namespace, result.observation_id, result.note_id, strength=strength
        )
    )
