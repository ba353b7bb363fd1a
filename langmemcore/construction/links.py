"""links: edges from one note, each written with the ``link`` lineage row of the
observation that made it, so that undo, unmerge and forget remove it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langmemcore.storage.repository import Repository

__all__ = ["LinkWrite", "write_links"]

LinkWrite = tuple[tuple[int, ...], tuple[int, ...]]
"""Edge ids and lineage ids written."""


async def write_links(
    repo: Repository,
    namespace: Sequence[str],
    observation_id: int,
    note_id: int,
    links: Sequence[dict[str, Any]],
) -> LinkWrite:
    """Write the edges from ``note_id`` (to those targets still active) and a ``link``
    lineage row of ``observation_id`` for each.

    Args:
        repo: Repository bound to the observation's transaction.
        namespace: The namespace.
        observation_id: The observation whose write made the links.
        note_id: The note the edges start from.
        links: Dicts with ``target_id``, ``relation``, ``strength``, ``tag``, ``reason``;
            at most one per target.

    Returns:
        The edge ids and lineage ids written.
    """
    if not links:
        return (), ()
    edges = await repo.add_edges(namespace, note_id, links)
    by_target = {link["target_id"]: link for link in links}
    rows = []
    for edge_id, target in edges:
        link = by_target[target]
        after = {
            "edge_id": edge_id,
            "target_id": target,
            "relation": link["relation"],
            "strength": link["strength"],
            "tag": link["tag"],
        }
        rows.append(
            {
                "operation": "link",
                "observation_id": observation_id,
                "note_id": note_id,
                "after": after,
                "reason": link["reason"],
            }
        )
    lineage = await repo.append_lineages(namespace, rows)
    return tuple(e for e, _t in edges), tuple(lineage)
