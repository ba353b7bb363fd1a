"""validity: what a written observation's note supersedes, decided when it is written.

After "I work as a pastry chef in Porto" and, a year later, "I quit the bakery, I now
work at a roastery in Lisbon", the second note supersedes the first: when the second is
written, a ``supersedes`` edge goes from its note to the first's, with a ``link`` lineage
row of the observation (undo, unmerge and forget remove it like any link), and the first
note's ``valid_to`` becomes the time the second was said (see
:mod:`~langmemcore.storage.notes.validity_queries`). The decision is supersession's
(:func:`~langmemcore.retrieval.supersession.supersedes_when_written`), made on the notes'
stored analyses: one speaker, a later day, and a ``conflicts`` edge (the gate's, or a
profile replacement's), or a statement announcing a change about the same thing (a gate
link, or what it says changed named in the older).

The notes compared with the written one are those linked to it, the latest statements of
its speaker said before it that speak of what it says changed (when it announces a
change), and the earliest changes its speaker announced after it that name something it
speaks of: an observation arriving late (said before notes already written) is decided as
if it had arrived in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langmemcore.construction.links import LinkWrite, write_links
from langmemcore.retrieval.pack import linked_pairs, statement_of
from langmemcore.retrieval.state_question import asked_aspects
from langmemcore.retrieval.supersession import Statement, supersedes_when_written
from langmemcore.storage.models import SUPERSEDES
from langmemcore.storage.repository import Repository

__all__ = ["CANDIDATES", "write_validity"]

CANDIDATES = 32
"""Statements of the speaker a written one is compared with, in each direction: the latest
said before a change that speak of what it names, the earliest changes said after a
statement that name what it speaks of."""


async def _about_the_same(
    repo: Repository, namespace: Sequence[str], written: Statement
) -> list[int]:
    """The latest notes of the written statement's speaker, said before it, that speak of
    what it says changed (none unless it announces a change).
    """
    if not written.changed or written.time is None or len(written.speakers) != 1:
        return []
    (speaker,) = written.speakers
    return await repo.statements_about(
        namespace,
        speaker,
        stems=sorted(written.changed),
        before=written.time,
        limit=CANDIDATES,
    )


async def _changed_later(
    repo: Repository, namespace: Sequence[str], written: Statement
) -> list[int]:
    """The earliest notes of the written statement's speaker, said after it, that announce
    a change naming something it speaks of.
    """
    if written.time is None or len(written.speakers) != 1:
        return []
    (speaker,) = written.speakers
    return await repo.changes_after(
        namespace,
        speaker,
        stems=sorted(written.terms - asked_aspects(written.terms)),
        after=written.time,
        limit=CANDIDATES,
    )


def _link(target: int, older: Statement, newer: Statement, strength: float) -> dict[str, Any]:
    shared = sorted(newer.changed & older.terms)
    return {
        "target_id": target,
        "relation": SUPERSEDES,
        "strength": strength,
        "tag": shared[0] if shared else None,
        "reason": f"validity: note {newer.note_id} supersedes note {older.note_id}",
    }


async def write_validity(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    note_id: int,
    *,
    strength: float,
) -> LinkWrite:
    """Decide which notes the note written for ``observation_id`` supersedes and which
    supersede it, write the ``supersedes`` edges (with their lineage rows) and derive the
    notes' validity again.

    Args:
        repo: Repository bound to the observation's transaction.
        namespace: The namespace.
        observation_id: The observation written.
        note_id: The note now holding it.
        strength: Strength of the edges written.

    Returns:
        The edge ids and lineage ids written.
    """
    links = await linked_pairs(repo, namespace, [note_id])
    notes = await repo.note_evidence(namespace, [note_id])
    if note_id not in notes:
        return (), ()
    written = statement_of(notes[note_id])
    others = {n for pair in links for n in pair}
    others |= set(await _about_the_same(repo, namespace, written))
    others |= set(await _changed_later(repo, namespace, written))
    others.discard(note_id)
    loaded = await repo.note_evidence(namespace, sorted(others))
    statements = [statement_of(note) for note in loaded.values()]
    older = [st for st in statements if supersedes_when_written(written, st, links)]
    newer = [st for st in statements if supersedes_when_written(st, written, links)]
    edges, lineage = await write_links(
        repo,
        namespace,
        observation_id,
        note_id,
        [_link(st.note_id, st, written, strength) for st in older],
    )
    for st in newer:
        more = await write_links(
            repo, namespace, observation_id, st.note_id, [_link(note_id, written, st, strength)]
        )
        edges, lineage = edges + more[0], lineage + more[1]
    await repo.refresh_validity(namespace, [note_id, *(st.note_id for st in newer)])
    return edges, lineage
