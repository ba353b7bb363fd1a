"""What a statement's plan reads, from ``EXPLAIN (ANALYZE, FORMAT JSON)`` on a real server:
for tests that a statement reads the rows it names, not a whole namespace."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import create_engine, text

from langmemcore.storage.prepared import Prepared


def analysed_plan(database_url: str, prepared: Prepared) -> Any:
    """The plan of ``prepared`` as executed (``ANALYZE``), its writes rolled back; the
    tables are analysed first, so that the planner sees their sizes.
    """
    engine = create_engine(database_url)
    try:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE notes"))
            conn.execute(text("ANALYZE note_keywords"))
        with engine.connect() as conn:
            compiled = prepared.statement.compile(dialect=conn.dialect)
            params = compiled.construct_params(prepared.params)
            for name, bind in compiled.binds.items():
                process = bind.type.bind_processor(conn.dialect)
                if process is not None and name in params:
                    params[name] = process(params[name])
            (plan,) = conn.exec_driver_sql(
                "EXPLAIN (ANALYZE, FORMAT JSON) " + str(compiled), params
            ).one()
            conn.rollback()
    finally:
        engine.dispose()
    return plan


def plan_nodes(plan: Any) -> Iterator[dict[str, Any]]:
    """Every node of a JSON plan (and every other object in it), depth first."""
    if isinstance(plan, dict):
        yield plan
        for value in plan.values():
            yield from plan_nodes(value)
    elif isinstance(plan, list):
        for value in plan:
            yield from plan_nodes(value)


def rows_read(plan: Any, relation: str) -> int:
    """Rows of ``relation`` the plan's scans read, those its filters removed included."""
    return sum(
        int(
            node.get("Actual Rows", 0) * node.get("Actual Loops", 1)
            + node.get("Rows Removed by Filter", 0)
        )
        for node in plan_nodes(plan)
        if node.get("Relation Name") == relation and "Scan" in node.get("Node Type", "")
    )


def add_filler_notes(
    database_url: str, namespace: str, like: int, count: int, keywords: Sequence[str] = ()
) -> None:
    """``count`` new active notes in ``namespace``, copies of note ``like``'s text and
    vectors holding ``keywords`` (in ``notes.keywords`` only), with no sources or edges: a
    large namespace at little cost.
    """
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO notes (namespace, context, embedding, thread_embedding, keywords) "
                    "SELECT namespace, context || ' ' || g, embedding, thread_embedding, :keywords "
                    "FROM notes, generate_series(1, :count) g WHERE namespace = :ns AND id = :id"
                ),
                {"ns": namespace, "id": like, "count": count, "keywords": list(keywords)},
            )
    finally:
        engine.dispose()
