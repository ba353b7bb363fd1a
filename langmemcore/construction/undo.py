"""undo / unmerge: walk the lineage log backwards.

- undoing a **merge** restores the target note exactly as it was before (context, keywords,
  embedding, event time, sources) and gives the merged observation its own note, built from
  the draft kept in the lineage row;
- undoing a **link** removes the edge, unless another link still in force wrote the same
  edge (edges are unique on source, target and relation);
- an **append** or a **topics** run is the base state of memory: undoing it marks the row
  undone and changes nothing (delete the observation to forget it);
- the merged observation's profile replacements link its restored note again to the notes
  they conflict with (:func:`~langmemcore.construction.profiles.relink_profile`): the
  ``conflicts`` edges its merge wrote went with the merge's links; and what the restored
  note supersedes is decided again (:mod:`~langmemcore.construction.validity`);
- every undo derives the notes' validity again (``valid_from`` of the row's note,
  ``valid_to`` of every note that has one), as removed sources and edges leave it.

A merge can only be undone while no later merge into the same note is in force
(``unmerge`` walks them newest first for you). Every undo writes its own lineage row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore.construction.profiles import relink_profile
from langmemcore.construction.validity import write_validity
from langmemcore.storage.models import Lineage
from langmemcore.storage.notes import NoteContent
from langmemcore.storage.repository import Repository

__all__ = ["undo_lineage", "unmerge_note"]


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


async def _undo_merge(
    repo: Repository, namespace: Sequence[str], row: Lineage, strength: float
) -> dict[str, Any]:
    later = await repo.later_merge_in_force(namespace, row.note_id, row.id)
    if later is not None:
        raise InvalidInputError(
            f"lineage {row.id}: a later merge ({later}) into note {row.note_id} is still in "
            "force; undo it first or use unmerge(note_id)"
        )
    before, after = row.before or {}, row.after or {}
    draft = after["draft"]
    note = None if row.note_id is None else await repo.lock_note(namespace, row.note_id)
    if note is None:
        raise NotFoundError(f"note {row.note_id} of lineage {row.id} no longer exists")
    assert row.observation_id is not None
    restored_content = NoteContent(
        before["context"],
        before["embedding"],
        list(before["keywords"]),
        list(before["speakers"]),
        _time(before["event_time"]),
        before["confidence"],
    )
    await repo.rewrite_note(namespace, note.id, restored_content, with_confidence=True)
    await repo.remove_note_source(namespace, note.id, row.observation_id)
    await repo.set_note_keywords(namespace, note.id, before["keywords"])
    restored = await repo.insert_note(
        namespace,
        context=draft["context"],
        embedding=draft["embedding"],
        keywords=draft["keywords"],
        source_ids=[row.observation_id],
        event_time=_time(draft["event_time"]),
        origin=draft["origin"],
        speakers=[draft["speaker"]] if draft["speaker"] else [],
    )
    await repo.set_note_keywords(namespace, restored, draft["keywords"])
    edges, _rows = await relink_profile(
        repo, namespace, row.observation_id, restored, strength=strength
    )
    valid, _rows = await write_validity(
        repo, namespace, row.observation_id, restored, strength=strength
    )
    return {
        "note_id": note.id,
        "restored_note_id": restored,
        "relinked_edge_ids": [*edges, *valid],
    }


async def _undo_one(
    repo: Repository, namespace: Sequence[str], row: Lineage, strength: float
) -> int:
    detail: dict[str, Any] = {"undone": row.id, "operation": row.operation}
    if row.operation == "merge":
        detail.update(await _undo_merge(repo, namespace, row, strength))
    elif row.operation == "link":
        await repo.remove_link_edge(namespace, row.id)
    elif row.operation not in ("append", "topics"):
        raise InvalidInputError(f"lineage {row.id}: a {row.operation!r} row cannot be undone")
    await repo.mark_undone(namespace, row.id)
    restored = [row.note_id] if row.note_id is not None else []
    await repo.refresh_validity(namespace, restored, ended=True)
    return await repo.append_lineage(
        namespace,
        "undo",
        observation_id=row.observation_id,
        note_id=row.note_id,
        after=detail,
        reason=f"undo of lineage {row.id}",
    )


async def undo_lineage(
    repo: Repository,
    namespace: Sequence[str],
    lineage_id: int,
    *,
    conflict_strength: float,
) -> int:
    """Undo one lineage row; returns the id of the ``undo`` row written.

    ``conflict_strength`` is the strength of the profile's ``conflicts`` edges an undone
    merge writes again from the restored note (construction's link threshold, as
    construction writes them).

    Raises:
        NotFoundError: The row does not exist in the namespace.
        InvalidInputError: It was already undone, is itself an undo, or a later merge into
            the same note is still in force.
    """
    await repo.lock_construction(namespace)
    row = await repo.lineage(namespace, lineage_id)
    if row is None:
        raise NotFoundError(f"lineage {lineage_id} does not exist in {tuple(namespace)}")
    if row.undone_at is not None:
        raise InvalidInputError(f"lineage {lineage_id} was already undone")
    return await _undo_one(repo, namespace, row, conflict_strength)


async def unmerge_note(
    repo: Repository,
    namespace: Sequence[str],
    note_id: int,
    *,
    conflict_strength: float,
) -> list[int]:
    """Undo every merge into ``note_id`` (and the links made with it), newest first; each
    restored note is linked again to the notes its profile replacements conflict with
    (edges of ``conflict_strength``).

    Returns:
        The ids of the notes restored for the merged observations.

    Raises:
        NotFoundError: The note does not exist in the namespace.
    """
    await repo.lock_construction(namespace)
    if not await repo.has_note(namespace, note_id):
        raise NotFoundError(f"note {note_id} does not exist in {tuple(namespace)}")
    restored = []
    for merge in await repo.merges_in_force(namespace, note_id):
        for link in await repo.links_in_force(namespace, note_id, merge.observation_id):
            await _undo_one(repo, namespace, link, conflict_strength)
        undo_id = await _undo_one(repo, namespace, merge, conflict_strength)
        detail = await repo.lineage_after(namespace, undo_id)
        restored.append(int((detail or {})["restored_note_id"]))
    return restored
