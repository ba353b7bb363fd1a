"""When a namespace's own vector indexes are built, dropped and built again."""

from __future__ import annotations

from langmemcore.construction.namespace_indexes import index_work
from langmemcore.storage.namespace_indexes import INDEXED_COLUMNS, NamespaceIndex, index_name


def test_index_work_builds_what_is_missing_or_broken_and_leaves_a_build_in_progress() -> None:
    notes, thread, keywords = INDEXED_COLUMNS
    assert index_work(10, [], 20) == ((), ())
    assert index_work(10, [], 0) == ((), ())
    assert index_work(20, [], 20) == ((), INDEXED_COLUMNS)
    existing = [
        NamespaceIndex(*notes, valid=True, building=False),
        NamespaceIndex(*thread, valid=False, building=False),
        NamespaceIndex(*keywords, valid=False, building=True),
    ]
    assert index_work(25, existing, 20) == ((thread,), (thread,))


def test_index_names_fit_postgres_and_differ_per_namespace_and_column() -> None:
    long = "a" * 500 + ".b"
    names = {index_name(ns, t, c) for ns in (long, "a.b") for t, c in INDEXED_COLUMNS}
    assert len(names) == 2 * len(INDEXED_COLUMNS)
    assert max(len(n) for n in names) <= 63
