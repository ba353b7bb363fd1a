"""Pure SQL builder of the query log of a search that ran in several namespaces at once
(a single search's log: :func:`~langmemcore.storage.formal.queries.insert_query`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import cast

from sqlalchemy import Insert, Table, func, insert, literal_column, select
from sqlalchemy.dialects.postgresql import aggregate_order_by

from langmemcore.storage.models import QueryLog
from langmemcore.storage.prepared import Prepared, id_array, text_array, text_param

__all__ = ["insert_queries"]


@cache
def _insert_queries() -> Insert:
    spaces = (
        func.unnest(text_array("namespaces")).table_valued("namespace").render_derived("spaces")
    )
    found = (
        func.unnest(text_array("note_namespaces"), id_array("note_ids"))
        .table_valued("namespace", "note_id", with_ordinality="ord")
        .render_derived("found")
    )
    returned = func.coalesce(
        func.array_agg(aggregate_order_by(found.c.note_id, found.c.ord)).filter(
            found.c.note_id.is_not(None)
        ),
        literal_column("'{}'::bigint[]"),
    )
    rows = (
        select(spaces.c.namespace, text_param("query"), returned)
        .select_from(spaces.outerjoin(found, found.c.namespace == spaces.c.namespace))
        .where(func.set_config("synchronous_commit", "off", True) == "off")
        .group_by(spaces.c.namespace)
    )
    log = cast(Table, QueryLog.__table__)
    return insert(log).from_select([log.c.namespace, log.c.query, log.c.returned], rows)


def insert_queries(
    namespaces: Sequence[str], query: str, returned: Sequence[tuple[str, int]]
) -> Prepared:
    """Log one search that ran in several ``namespaces`` at once: a row in each, holding
    the notes of ``returned`` (``(namespace, note_id)`` in rank order) that are its own.
    Commits asynchronously, as
    :func:`~langmemcore.storage.formal.queries.insert_query` does.
    """
    values = {
        "namespaces": list(namespaces),
        "query": query,
        "note_namespaces": [ns for ns, _ in returned],
        "note_ids": [note_id for _, note_id in returned],
    }
    return Prepared(_insert_queries(), values)
