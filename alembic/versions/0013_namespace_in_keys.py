"""The namespace in every key: each primary key, unique constraint and foreign key of the
memory tables includes ``namespace``, so the tables can be distributed (or partitioned) by
it: Citus requires the distribution column in every primary key and unique constraint of
a distributed table and in every foreign key between two of them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06

The namespace goes last in each key: the keys' leading columns stay what they were, so
every lookup by id uses its index as before. A foreign key is ``(x_id, namespace)`` to
``(id, namespace)``: a row refers only to rows of its own namespace. A value's
``replaced_by`` is cleared alone when the value it names goes (``ON DELETE SET NULL
(replaced_by)``, Postgres 15 and later). The settings table (``langmemcore_settings``) is
global: on Citus it is a reference table.
"""

from __future__ import annotations

from typing import NamedTuple

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


class _Key(NamedTuple):
    table: str
    name: str
    columns: tuple[str, ...]


class _Reference(NamedTuple):
    table: str
    column: str
    target: str

    @property
    def name(self) -> str:
        return f"{self.table}_{self.column}_fkey"

    @property
    def on_delete(self) -> str:
        """A value's ``replaced_by`` is cleared when the value it names goes; every other
        reference goes with what it refers to.
        """
        return "SET NULL" if self.column == "replaced_by" else "CASCADE"


_PRIMARY = [
    _Key(table, f"{table}_pkey", ("id",))
    for table in (
        "observations",
        "notes",
        "keywords",
        "edges",
        "topics",
        "lineage",
        "query_log",
        "profile_statements",
        "profile_values",
    )
] + [
    _Key("note_sources", "note_sources_pkey", ("note_id", "observation_id")),
    _Key("note_keywords", "note_keywords_pkey", ("note_id", "keyword_id")),
    _Key("topic_keywords", "topic_keywords_pkey", ("topic_id", "keyword_id")),
    _Key(
        "profile_value_sources",
        "profile_value_sources_pkey",
        ("value_id", "observation_id", "role"),
    ),
]

_UNIQUE = [
    _Key("edges", "uq_edges_source_target_relation", ("source_id", "target_id", "relation")),
]

_REFERENCES = [
    _Reference("note_sources", "note_id", "notes"),
    _Reference("note_sources", "observation_id", "observations"),
    _Reference("note_keywords", "note_id", "notes"),
    _Reference("note_keywords", "keyword_id", "keywords"),
    _Reference("edges", "source_id", "notes"),
    _Reference("edges", "target_id", "notes"),
    _Reference("topic_keywords", "topic_id", "topics"),
    _Reference("topic_keywords", "keyword_id", "keywords"),
    _Reference("profile_statements", "observation_id", "observations"),
    _Reference("profile_values", "replaced_by", "profile_values"),
    _Reference("profile_value_sources", "value_id", "profile_values"),
    _Reference("profile_value_sources", "observation_id", "observations"),
]


def _keys(with_namespace: bool) -> None:
    for key in _PRIMARY:
        columns = (*key.columns, "namespace") if with_namespace else key.columns
        op.drop_constraint(key.name, key.table, type_="primary")
        op.create_primary_key(key.name, key.table, list(columns))
    for key in _UNIQUE:
        columns = (*key.columns, "namespace") if with_namespace else key.columns
        op.drop_constraint(key.name, key.table, type_="unique")
        op.create_unique_constraint(key.name, key.table, list(columns))


def _references(with_namespace: bool) -> None:
    for ref in _REFERENCES:
        if with_namespace:
            on_delete = f"SET NULL ({ref.column})" if ref.on_delete == "SET NULL" else ref.on_delete
            op.create_foreign_key(
                ref.name,
                ref.table,
                ref.target,
                [ref.column, "namespace"],
                ["id", "namespace"],
                ondelete=on_delete,
            )
        else:
            op.create_foreign_key(
                ref.name, ref.table, ref.target, [ref.column], ["id"], ondelete=ref.on_delete
            )


def _drop_references() -> None:
    for ref in _REFERENCES:
        op.drop_constraint(ref.name, ref.table, type_="foreignkey")


def upgrade() -> None:
    _drop_references()
    _keys(with_namespace=True)
    _references(with_namespace=True)


def downgrade() -> None:
    _drop_references()
    _keys(with_namespace=False)
    _references(with_namespace=False)
