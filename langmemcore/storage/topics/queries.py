"""Pure SQL builders of keywords and their notes: the writes of construction, undo and
repair, and the reads of keyword vectors. Each filters by namespace first.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache

from sqlalchemy import (
    BigInteger,
    Select,
    TextClause,
    any_,
    delete,
    exists,
    func,
    insert,
    literal,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert

from langmemcore.storage.models import Keyword, NoteKeyword
from langmemcore.storage.prepared import (
    Prepared,
    text_array,
    text_param,
    vector_array,
    vector_texts,
)

__all__ = [
    "attach_keywords",
    "attach_keywords_by_name",
    "delete_orphan_keywords",
    "detach_keywords",
    "keyword_embeddings",
    "keywords_of_notes",
    "lock_topics",
    "upsert_keywords",
]

_LOCK_TOPICS: TextClause = text("SELECT pg_advisory_xact_lock(hashtextextended(:ns, 1))")


def lock_topics(namespace: str) -> Prepared:
    """Serialise topic evolution and the full-text statistics refresh in the namespace
    until the transaction ends (a key of its own, apart from the construction lock's
    ``hashtextextended(:ns, 0)``, so that ingestion goes on while topics evolve).
    """
    return Prepared(_LOCK_TOPICS, {"ns": namespace})


@cache
def _upsert_keywords() -> Select:
    namespace, names = text_param("namespace"), text_array("names")
    rows = (
        func.unnest(names, vector_array("vectors"))
        .table_valued("name", "embedding", with_ordinality="position")
        .render_derived(name="wanted")
    )
    inserted = (
        pg_insert(Keyword)
        .from_select(
            ["namespace", "name", "embedding"],
            select(namespace, rows.c.name, rows.c.embedding).order_by(rows.c.position),
        )
        .on_conflict_do_nothing(constraint="uq_keywords_namespace_name")
        .returning(Keyword.id, Keyword.name)
        .cte("inserted")
    )
    existing = select(Keyword.id, Keyword.name).where(
        Keyword.namespace == namespace, Keyword.name == any_(names)
    )
    return select(inserted.c.id, inserted.c.name).union_all(existing)  # type: ignore[return-value]


def upsert_keywords(namespace: str, rows: Sequence[tuple[str, Sequence[float]]]) -> Prepared:
    """Insert the keywords that do not exist yet and return (``id``, ``name``) of all of
    them, new and existing, in one statement.
    """
    return Prepared(
        _upsert_keywords(),
        {
            "namespace": namespace,
            "names": [name for name, _v in rows],
            "vectors": vector_texts([v for _n, v in rows]),
        },
    )


def attach_keywords(namespace: str, note_id: int, keyword_ids: Sequence[int]) -> Prepared:
    """Associate keywords with a note, keeping the associations it has (give at least one)."""
    return Prepared(
        pg_insert(NoteKeyword)
        .values(
            [
                {"namespace": namespace, "note_id": note_id, "keyword_id": k}
                for k in dict.fromkeys(keyword_ids)
            ]
        )
        .on_conflict_do_nothing(),
        {},
    )


def attach_keywords_by_name(namespace: str, note_id: int, names: Sequence[str]) -> Prepared:
    """Associate the namespace's keywords named ``names`` with a note that has none."""
    return Prepared(
        insert(NoteKeyword).from_select(
            ["namespace", "note_id", "keyword_id"],
            select(literal(namespace), literal(note_id, BigInteger), Keyword.id).where(
                Keyword.namespace == namespace, Keyword.name.in_(list(names))
            ),
        ),
        {},
    )


def detach_keywords(namespace: str, note_id: int) -> Prepared:
    """Remove every keyword association of a note."""
    return Prepared(
        delete(NoteKeyword).where(
            NoteKeyword.namespace == namespace, NoteKeyword.note_id == note_id
        ),
        {},
    )


def keywords_of_notes(namespace: str, note_ids: Sequence[int]) -> Prepared:
    """The keyword ids associated with the notes."""
    return Prepared(
        select(NoteKeyword.keyword_id).where(
            NoteKeyword.namespace == namespace, NoteKeyword.note_id.in_(list(note_ids))
        ),
        {},
    )


def delete_orphan_keywords(namespace: str, keyword_ids: Collection[int]) -> Prepared:
    """Delete those of the keywords that no note carries; returns their ids."""
    return Prepared(
        delete(Keyword)
        .where(
            Keyword.namespace == namespace,
            Keyword.id.in_(keyword_ids),
            ~exists().where(NoteKeyword.keyword_id == Keyword.id),
        )
        .returning(Keyword.id),
        {},
    )


def keyword_embeddings(namespace: str, keyword_ids: Collection[int]) -> Prepared:
    """(``id``, ``name``, embedding in pgvector's binary form) of the keywords: decoding a
    thousand vectors from text costs about 75 ms.
    """
    return Prepared(
        select(Keyword.id, Keyword.name, func.vector_send(Keyword.embedding)).where(
            Keyword.namespace == namespace, Keyword.id.in_(keyword_ids)
        ),
        {},
    )
