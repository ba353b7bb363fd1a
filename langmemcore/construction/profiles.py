"""Profiles in the write: an observation's statements join its subjects' profiles in the
transaction that stores its note.

The statements are stored and their chains replayed
(:func:`~langmemcore.profiles.replay.record_statements`). Each replacement the
observation takes part in (its value replaced an older one, or, arriving late, its older
value was already replaced) links the observation's note and the note of the other value
with a ``conflicts`` edge, unless the two notes are linked as conflicting already; the
edge is written with a ``link`` lineage row of the observation, so undo, unmerge and
forget remove it like the gate's links. Undoing a merge gives the merged observation a note
of its own, and :func:`relink_profile` writes its edges again from that note.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langmemcore.construction.links import LinkWrite, write_links
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.profiles.replay import Replacement, record_statements, replacements_of
from langmemcore.storage.repository import Repository

__all__ = ["ProfileWrite", "relink_profile", "write_profile"]

ProfileWrite = LinkWrite
"""Edge ids and lineage ids a profile write added."""

CONFLICTS = "conflicts"


def _other_observation(replacement: Replacement, observation_id: int) -> int | None:
    """The newest observation stating the value of ``replacement`` that
    ``observation_id`` does not state.
    """
    for value in (replacement.newer, replacement.older):
        stating = [s for s in value.sources if s.role == "states"]
        if all(s.observation_id != observation_id for s in stating) and stating:
            return max(stating, key=lambda s: (s.stated_at, s.observation_id)).observation_id
    return None


async def _conflict_targets(
    repo: Repository,
    namespace: Sequence[str],
    note_id: int,
    observation_id: int,
    replacements: Sequence[Replacement],
) -> dict[int, Replacement]:
    """Notes to link with a ``conflicts`` edge from ``note_id``, with their replacement."""
    linked = {
        e.target_id if e.source_id == note_id else e.source_id
        for e in await repo.edges_of(namespace, [note_id])
        if e.relation == CONFLICTS
    }
    targets: dict[int, Replacement] = {}
    for replacement in replacements:
        other = _other_observation(replacement, observation_id)
        if other is None:
            continue
        for target in await repo.notes_of_observation(namespace, other):
            if target != note_id and target not in linked:
                targets.setdefault(target, replacement)
    return targets


def _reason(replacement: Replacement) -> str:
    return (
        f"profile: {replacement.subject}'s {replacement.aspect} "
        f"{replacement.older.value!r} was replaced by {replacement.newer.value!r}"
    )


async def write_profile(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    note_id: int | None,
    statements: Sequence[AspectStatement],
    *,
    strength: float,
) -> ProfileWrite:
    """Record the observation's statements and link its note to the notes of the values
    it replaces or is replaced by.

    Args:
        repo: Repository bound to the observation's transaction.
        namespace: The namespace.
        observation_id: The stored observation.
        note_id: The note now holding it (no edges without one).
        statements: What it states.
        strength: Strength of the ``conflicts`` edges written.

    Returns:
        The edge ids and lineage ids written.
    """
    replacements = await record_statements(repo, namespace, observation_id, statements)
    if note_id is None:
        return (), ()
    return await _link_conflicts(repo, namespace, observation_id, note_id, replacements, strength)


async def relink_profile(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    note_id: int,
    *,
    strength: float,
) -> ProfileWrite:
    """Link the observation's note again to the notes of the values it replaces or is
    replaced by (an undone merge gave it a note of its own, and the merge's links, these
    edges among them, went with the merge); notes already linked as conflicting stay as
    they are.

    Returns:
        The edge ids and lineage ids written.
    """
    replacements = await replacements_of(repo, namespace, observation_id)
    return await _link_conflicts(repo, namespace, observation_id, note_id, replacements, strength)


async def _link_conflicts(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    note_id: int,
    replacements: Sequence[Replacement],
    strength: float,
) -> ProfileWrite:
    """Write the ``conflicts`` edges from ``note_id`` and their ``link`` lineage rows (none
    without replacements).
    """
    if not replacements:
        return (), ()
    targets = await _conflict_targets(repo, namespace, note_id, observation_id, replacements)
    links: list[dict[str, Any]] = [
        {
            "target_id": target,
            "relation": CONFLICTS,
            "strength": strength,
            "tag": replacement.aspect,
            "reason": _reason(replacement),
        }
        for target, replacement in targets.items()
    ]
    return await write_links(repo, namespace, observation_id, note_id, links)
