"""undo / unmerge: walk the lineage log backwards.

- undoing a **merge** restores the target note exactly as it was before (context, keywords,
  embedding, event time, sources) and gives the merged observation its own note, built from
  the draft kept in the lineage row;
- undoing a **link** removes the edge, unless another link still in force wrote the same
  edge (edges are unique on source, target and relation);
- an **append** or a **topics** run is the base state of memory: undoing it marks the row
  undone and changes nothing (delete the observation to forget it).

A merge can only be undone while no later merge into the same note is in force
(``unmerge`` walks them newest first for you). Every undo writes its own lineage row.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore.construction.apply import lock_namespace
from langmemcore.storage import lineage_queries as lq
from langmemcore.storage.models import Keyword, Lineage, Note, NoteKeyword, NoteSource
from langmemcore.storage.repository import Repository

__all__ = ["undo_lineage", "unmerge_note"]


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


async def _set_keywords(repo: Repository, ns: str, note_id: int, names: Sequence[str]) -> None:
    await repo.session.execute(
        delete(NoteKeyword).where(NoteKeyword.namespace == ns, NoteKeyword.note_id == note_id)
    )
    if names:
        ids = await repo.session.scalars(
            select(Keyword.id).where(Keyword.namespace == ns, Keyword.name.in_(list(names)))
        )
        repo.session.add_all(NoteKeyword(namespace=ns, note_id=note_id, keyword_id=k) for k in ids)
    await repo.session.flush()


async def _undo_merge(repo: Repository, namespace: Sequence[str], row: Lineage) -> dict[str, Any]:
    ns = ".".join(namespace)
    later = await repo.session.scalar(
        select(Lineage.id)
        .where(
            Lineage.namespace == ns,
            Lineage.note_id == row.note_id,
            Lineage.operation == "merge",
            Lineage.id > row.id,
            Lineage.undone_at.is_(None),
        )
        .limit(1)
    )
    if later is not None:
        raise InvalidInputError(
            f"lineage {row.id}: a later merge ({later}) into note {row.note_id} is still in "
            "force; undo it first or use unmerge(note_id)"
        )
    before, after = row.before or {}, row.after or {}
    draft = after["draft"]
    note = await repo.session.get(Note, row.note_id, with_for_update=True)
    if note is None:
        raise NotFoundError(f"note {row.note_id} of lineage {row.id} no longer exists")
    note.context = before["context"]
    note.keywords = list(before["keywords"])
    note.speakers = list(before["speakers"])
    note.embedding = before["embedding"]
    note.event_time = _time(before["event_time"])
    note.confidence = before["confidence"]
    note.updated_at = func.now()
    await repo.session.execute(
        delete(NoteSource).where(
            NoteSource.namespace == ns,
            NoteSource.note_id == note.id,
            NoteSource.observation_id == row.observation_id,
        )
    )
    await _set_keywords(repo, ns, note.id, before["keywords"])
    assert row.observation_id is not None
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
    await _set_keywords(repo, ns, restored, draft["keywords"])
    return {"note_id": note.id, "restored_note_id": restored}


async def _undo_one(repo: Repository, namespace: Sequence[str], row: Lineage) -> int:
    ns = ".".join(namespace)
    detail: dict[str, Any] = {"undone": row.id, "operation": row.operation}
    if row.operation == "merge":
        detail.update(await _undo_merge(repo, namespace, row))
    elif row.operation == "link":
        await repo.session.execute(lq.delete_link_edges(ns, lineage_id=row.id))
    elif row.operation not in ("append", "topics"):
        raise InvalidInputError(f"lineage {row.id}: a {row.operation!r} row cannot be undone")
    await repo.session.execute(
        update(Lineage).where(Lineage.id == row.id).values(undone_at=func.now())
    )
    return await repo.append_lineage(
        namespace,
        "undo",
        observation_id=row.observation_id,
        note_id=row.note_id,
        after=detail,
        reason=f"undo of lineage {row.id}",
    )


async def undo_lineage(repo: Repository, namespace: Sequence[str], lineage_id: int) -> int:
    """Undo one lineage row; returns the id of the ``undo`` row written.

    Raises:
        NotFoundError: The row does not exist in the namespace.
        InvalidInputError: It was already undone, is itself an undo, or a later merge into
            the same note is still in force.
    """
    await lock_namespace(repo, namespace)
    row = await repo.session.scalar(
        select(Lineage).where(Lineage.namespace == ".".join(namespace), Lineage.id == lineage_id)
    )
    if row is None:
        raise NotFoundError(f"lineage {lineage_id} does not exist in {tuple(namespace)}")
    if row.undone_at is not None:
        raise InvalidInputError(f"lineage {lineage_id} was already undone")
    return await _undo_one(repo, namespace, row)


async def unmerge_note(repo: Repository, namespace: Sequence[str], note_id: int) -> list[int]:
    """Undo every merge into ``note_id`` (and the links made with it), newest first.

    Returns:
        The ids of the notes restored for the merged observations.

    Raises:
        NotFoundError: The note does not exist in the namespace.
    """
    ns = ".".join(namespace)
    await lock_namespace(repo, namespace)
    if (
        await repo.session.scalar(select(Note.id).where(Note.namespace == ns, Note.id == note_id))
        is None
    ):
        raise NotFoundError(f"note {note_id} does not exist in {tuple(namespace)}")
    merges = list(
        await repo.session.scalars(
            select(Lineage)
            .where(
                Lineage.namespace == ns,
                Lineage.note_id == note_id,
                Lineage.operation == "merge",
                Lineage.undone_at.is_(None),
            )
            .order_by(Lineage.id.desc())
        )
    )
    restored = []
    for merge in merges:
        links = await repo.session.scalars(
            select(Lineage)
            .where(
                Lineage.namespace == ns,
                Lineage.note_id == note_id,
                Lineage.operation == "link",
                Lineage.observation_id == merge.observation_id,
                Lineage.undone_at.is_(None),
            )
            .order_by(Lineage.id.desc())
        )
        for link in list(links):
            await _undo_one(repo, namespace, link)
        undo_id = await _undo_one(repo, namespace, merge)
        detail = await repo.session.scalar(select(Lineage.after).where(Lineage.id == undo_id))
        restored.append(int((detail or {})["restored_note_id"]))
    return restored
