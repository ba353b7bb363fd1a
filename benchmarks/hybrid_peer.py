"""A hybrid-search peer for the search benchmark: langchain-postgres ``PGVectorStore`` with
dense + Postgres full-text search fused by reciprocal rank fusion.

Optional: ``langchain-postgres`` is not a dependency of langmemcore (its pins, e.g.
``pgvector<0.4``, differ from the project's). Install it aside and put it on the path, e.g.
``pip install --target /tmp/lp-pkgs --no-deps langchain-postgres asyncpg`` and
``PYTHONPATH=/tmp/lp-pkgs``; :func:`available` says whether it can be imported.

Same data as the other systems: one table holds every benchmark namespace (a ``namespace``
metadata column the searches filter on), filled in one ``INSERT ... SELECT`` from
langmemcore's notes (the same texts and vectors), then its HNSW and GIN indexes
(PGVectorStore's own ``apply_vector_index`` / ``apply_hybrid_search_index``).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from langchain_core.embeddings import Embeddings
from sqlalchemy import text

__all__ = ["HybridPeer", "available"]

TABLE = "bench_pgvector_hybrid"
"""The peer's table."""


def available() -> bool:
    """Whether langchain-postgres can be imported."""
    return importlib.util.find_spec("langchain_postgres") is not None


class HybridPeer:
    """``PGVectorStore`` with a hybrid search config over the benchmark's notes.

    Args:
        url: The database (an SQLAlchemy URL with an async driver, e.g. psycopg).
        embeddings: Embedder of the queries.
        limit: Results per search.
    """

    def __init__(self, url: str, embeddings: Embeddings, limit: int = 20) -> None:
        self.url, self.embeddings, self.limit = url, embeddings, limit
        self.store: Any = None
        self.engine: Any = None

    async def open(self) -> None:
        """Create the peer's table (dropping an older one) and its store."""
        from langchain_postgres import Column, PGEngine, PGVectorStore
        from langchain_postgres.v2.hybrid_search_config import (
            HybridSearchConfig,
            reciprocal_rank_fusion,
        )
        from sqlalchemy.ext.asyncio import create_async_engine

        self.engine = PGEngine.from_engine(create_async_engine(self.url))
        config = HybridSearchConfig(
            tsv_column="content_tsv",
            fusion_function=reciprocal_rank_fusion,
            primary_top_k=self.limit,
            secondary_top_k=self.limit,
        )
        await self.engine.ainit_vectorstore_table(
            TABLE,
            384,
            metadata_columns=[Column("namespace", "TEXT")],
            overwrite_existing=True,
            hybrid_search_config=config,
        )
        self.store = await PGVectorStore.create(
            self.engine,
            self.embeddings,
            TABLE,
            metadata_columns=["namespace"],
            hybrid_search_config=config,
        )

    async def load(self, namespace: str) -> None:
        """Copy the namespace's active notes (text, vector) into the peer's table."""
        async with self.engine._pool.begin() as conn:
            await conn.execute(
                text(
                    f'INSERT INTO "{TABLE}" (langchain_id, content, embedding, content_tsv, '
                    "namespace) SELECT gen_random_uuid(), context, embedding, "
                    "to_tsvector('pg_catalog.english', context), namespace FROM notes "
                    "WHERE namespace = :ns AND status = 'active'"
                ),
                {"ns": namespace},
            )

    async def index(self) -> None:
        """Build the HNSW (dense) and GIN (full-text) indexes, then analyse the table."""
        from langchain_postgres.v2.indexes import HNSWIndex

        await self.store.aapply_vector_index(HNSWIndex())
        await self.store.aapply_hybrid_search_index()
        async with self.engine._pool.connect() as conn:
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await autocommit.execute(text(f'VACUUM ANALYZE "{TABLE}"'))

    async def search(self, namespace: str, query: str) -> int:
        """One hybrid search; the number of results."""
        found = await self.store.asimilarity_search(
            query, k=self.limit, filter={"namespace": namespace}, fts_query=query
        )
        return len(found)

    async def close(self) -> None:
        """Dispose of the peer's connections."""
        if self.engine is not None:
            await self.engine.close()
