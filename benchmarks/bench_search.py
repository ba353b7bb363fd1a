"""Benchmark: offline search latency of ``Memory.asearch`` vs LangGraph's ``PostgresStore.search``
and langchain-postgres ``PGVectorStore`` hybrid search.

Run from the repository root: ``python benchmarks/bench_search.py ../shared/data/locomo-dev.json
[--sizes 10000 100000] [--queries 200] [--rounds 3] [--others 10000] [--url URL]`` (with
``PYTHONPATH`` naming a folder holding langchain-postgres for the hybrid peer, see
``benchmarks/hybrid_peer.py``).

Same notes (texts and vectors), same Postgres (a fresh embedded server in a temporary folder
unless ``--url`` / ``DATABASE_URL``), same query embedder (local all-MiniLM-L6-v2), same run:
the first ``--queries`` LoCoMo questions of categories 1-4 go to one namespace per size,
query by query through every system: ``Memory.asearch`` (defaults, no LLM),
``PostgresStore.search(prefix, query=..., limit=20)`` (server default HNSW settings),
``PGVectorStore`` hybrid search (dense + full text, reciprocal rank fusion, 20 results)
when langchain-postgres is importable, and ``Memory.asearch`` with every mechanism on
(``RetrievalConfig(llm_only=())``), after 5 warm-up questions (the last five). The pass
runs ``--rounds`` times, the order of the systems rotated each round, so that the
machine's drift weighs on all alike. Latency includes embedding the query: langmemcore's
cache of embedded texts starts empty each round, as every question is asked once a round
(``PostgresStore`` embeds every query). Prints load times per phase, p50 / p95 / mean
latency and results returned ("hits") per round, and the median and range over rounds of
each system's p50 and p95 ratio to PostgresStore's.

Data: synthetic notes derived from the 1451 real turns (see
``benchmarks/synthetic_notes.py``), loaded by binary ``COPY`` with the notes' HNSW
index dropped and rebuilt after, then ``VACUUM ANALYZE`` and ``evolve_topics``.
``PostgresStore`` gets the same namespaces and texts by ``batch([PutOp, ...])`` in chunks
of 1000 (its HNSW index live); its embedder returns the precomputed vector of a stored
text and the real embedding of anything else (the queries). Then ``VACUUM ANALYZE``.
The hybrid peer's table gets the same notes by ``INSERT ... SELECT``.

Two other namespaces (``--others`` notes each, 10k by default) are loaded first, then one
namespace per size in ascending order, each measured right after its load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import psycopg
from langchain_core.embeddings import Embeddings
from pgvector.psycopg import register_vector
from sqlalchemy import make_url

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.retrieval.query_vectors import QueryVectorCache
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

from hybrid_peer import HybridPeer, available
from synthetic_notes import (
    Material,
    SyntheticNote,
    build_material,
    load_notes,
    synthesize,
)

if TYPE_CHECKING:
    from langgraph.store.postgres import PostgresStore

__all__ = ["LookupEmbeddings", "conninfo", "main"]

Matrix = npt.NDArray[np.float32]
CHUNK = 1000
"""PutOps per ``PostgresStore.batch`` call."""
WARMUP = 5
"""Questions asked of each system before measuring (not counted)."""
EVERY_MECHANISM = RetrievalConfig(llm_only=())
"""langmemcore with every mechanism on offline (the topic and neighbour channels, the
loop): what the defaults ran before they were kept for the LLM path."""


class LookupEmbeddings(Embeddings):
    """Precomputed vectors for known texts, the real embedder for anything else.

    Args:
        fallback: Embedder of unknown texts (the queries).
    """

    def __init__(self, fallback: Embeddings) -> None:
        self.fallback = fallback
        self.known: dict[str, Matrix] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Known texts' stored vectors; the others embedded by the fallback in one batch."""
        missing = [t for t in texts if t not in self.known]
        fresh = dict(zip(missing, self.fallback.embed_documents(missing), strict=True))
        return [self.known[t].tolist() if t in self.known else fresh[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """One text's vector."""
        return self.embed_documents([text])[0]


def conninfo(url: str) -> str:
    """A psycopg connection string for a SQLAlchemy database URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _value(note: SyntheticNote) -> dict[str, Any]:
    when = note.event_time.isoformat() if note.event_time else None
    return {"text": note.context, "speaker": note.speaker, "time": when}


def load_store(
    store: PostgresStore,
    lookup: LookupEmbeddings,
    namespace: tuple[str, ...],
    notes: Sequence[SyntheticNote],
    vectors: Matrix,
) -> None:
    """Put the same notes into ``PostgresStore`` in chunks (the vectors come from ``lookup``)."""
    from langgraph.store.base import PutOp

    lookup.known = {note.context: vectors[i] for i, note in enumerate(notes)}
    for start in range(0, len(notes), CHUNK):
        chunk = range(start, min(start + CHUNK, len(notes)))
        store.batch([PutOp(namespace, f"syn-{i}", _value(notes[i])) for i in chunk])
    lookup.known = {}


@contextmanager
def _phase(name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    print(f"  {name}: {time.perf_counter() - start:.1f} s", flush=True)


Latencies = dict[str, tuple[list[float], list[int]]]
"""Per system: latency of each query (ms) and how many results it returned."""


@dataclass
class _Bench:
    conn: psycopg.Connection[Any]
    memory: Memory
    store: PostgresStore
    lookup: LookupEmbeddings
    material: Material
    peer: HybridPeer | None = None

    async def load(self, namespace: tuple[str, ...], size: int, seed: int) -> None:
        print(f"loading {'.'.join(namespace)} ({size} notes)", flush=True)
        with _phase("synthesize texts, vectors, edges"):
            notes, vectors, links = synthesize(self.material, size, seed)
        hnsw = self.conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE tablename = 'notes' AND indexdef ILIKE '%USING hnsw%'"
        ).fetchall()
        with _phase(f"langmemcore COPY ({len(links)} edges; notes HNSW dropped)"):
            for name, _definition in hnsw:
                self.conn.execute(f'DROP INDEX "{name}"')
            load_notes(self.conn, ".".join(namespace), notes, vectors, links, self.material)
        with _phase("langmemcore HNSW rebuild (whole notes table) + VACUUM ANALYZE"):
            self.conn.execute("SET maintenance_work_mem = '1GB'")
            for _name, definition in hnsw:
                self.conn.execute(definition)
            self.conn.execute("VACUUM ANALYZE")
        with _phase("langmemcore evolve_topics"):
            summary = await self.memory.aevolve_topics(namespace)
        print(f"    {len(summary.topics)} topics, {summary.unassigned} keywords unassigned")
        with _phase(f"PostgresStore.batch(PutOp) x {size}"):
            load_store(self.store, self.lookup, namespace, notes, vectors)
        with _phase("VACUUM ANALYZE"):
            self.conn.execute("VACUUM ANALYZE")
        if self.peer is not None:
            with _phase("PGVectorStore table: INSERT ... SELECT of the same notes"):
                await self.peer.load(".".join(namespace))

    async def measure(
        self,
        namespace: tuple[str, ...],
        questions: Sequence[str],
        warmup: Sequence[str],
        rounds: int,
    ) -> list[Latencies]:
        """``rounds`` passes over the questions, query by query through every system, the
        order of the systems rotated from one round to the next.
        """
        encoded = ".".join(namespace)

        async def ours(query: str) -> int:
            return len(await self.memory.asearch(namespace, query))

        async def everything(query: str) -> int:
            return len(await self.memory.asearch(namespace, query, config=EVERY_MECHANISM))

        async def theirs(query: str) -> int:
            return len(self.store.search(namespace, query=query, limit=20))

        systems = {"langmemcore": ours, "PostgresStore": theirs}
        if self.peer is not None:
            peer = self.peer

            async def hybrid(query: str) -> int:
                return await peer.search(encoded, query)

            systems["PGVectorStore hybrid"] = hybrid
        systems["langmemcore, all on"] = everything
        for query in warmup:
            for search in systems.values():
                await search(query)
        measured: list[Latencies] = []
        names = list(systems)
        for round in range(rounds):
            order = names[round % len(names) :] + names[: round % len(names)]
            self.memory.query_vectors = QueryVectorCache(self.memory.embeddings)
            result: Latencies = {name: ([], []) for name in names}
            for query in questions:
                for name in order:
                    start = time.perf_counter()
                    hits = await systems[name](query)
                    result[name][0].append((time.perf_counter() - start) * 1000)
                    result[name][1].append(hits)
            measured.append(result)
        return measured


def _print_table(measured: Sequence[tuple[int, list[Latencies]]]) -> None:
    print(f"{'size':>7}  {'system':<22} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'hits':>6}")
    for size, rounds in measured:
        for index, latencies in enumerate(rounds, start=1):
            for name, (ms, hits) in latencies.items():
                p50, p95 = np.percentile(ms, [50, 95])
                print(
                    f"{size:>7}  {name:<22} {p50:>8.1f} {p95:>8.1f} {np.mean(ms):>8.1f} "
                    f"{np.mean(hits):>6.1f}  (round {index})"
                )
        for name in rounds[0]:
            if name == "PostgresStore":
                continue
            for q in (50, 95):
                ratios = [
                    np.percentile(r[name][0], q) / np.percentile(r["PostgresStore"][0], q)
                    for r in rounds
                ]
                print(
                    f"{size:>7}  p{q} ratio {name} / PostgresStore: median "
                    f"{np.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x "
                    f"over {len(ratios)} rounds"
                )


async def _run(
    path: Path, sizes: Sequence[int], queries: int, url: str | None, rounds: int, others: int
) -> None:
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row

    started = time.perf_counter()
    if url is None:
        data_dir = Path(tempfile.mkdtemp(prefix="lmc-bench-"))
        print(f"embedded Postgres in {data_dir} (left there; delete it when done)", flush=True)
        url = embedded_database_url(data_dir)
    database = Database.connect(url)
    with _phase("schema upgrade"):
        upgrade(database)
    conversations = load_locomo(path)
    embeddings = LocalEmbeddings()
    with _phase("embed the real turns and keyword names"):
        material = build_material(conversations, embeddings)
    questions = [q.question for c in conversations for q in c.retrieval_questions]
    print(
        f"{len(material.turns)} turns, {len(material.keyword_vectors)} keyword names, "
        f"{len(questions)} questions (asking {min(queries, len(questions))})"
    )
    run = f"bench-{uuid.uuid4().hex[:8]}"
    layout = [((run, "other-1"), others, False), ((run, "other-2"), others, False)]
    layout += [((run, f"n{size}"), size, True) for size in sorted(sizes)]
    measured: list[tuple[int, Latencies]] = []
    info = conninfo(database.url)
    with (
        psycopg.Connection.connect(info, autocommit=True) as conn,
        psycopg.Connection.connect(
            info, autocommit=True, prepare_threshold=0, row_factory=dict_row
        ) as store_conn,
    ):
        register_vector(conn)
        lookup = LookupEmbeddings(embeddings)
        store = PostgresStore(store_conn, index={"dims": 384, "embed": lookup, "fields": ["text"]})
        store.setup()
        peer = HybridPeer(database.url, lookup) if available() else None
        if peer is None:
            print("langchain-postgres not importable: no PGVectorStore hybrid peer")
        else:
            await peer.open()
        bench = _Bench(conn, Memory(database, embeddings), store, lookup, material, peer)
        for seed, (namespace, size, measure) in enumerate(layout):
            await bench.load(namespace, size, seed)
            if measure:
                if peer is not None:
                    with _phase("PGVectorStore indexes (HNSW, GIN) + VACUUM ANALYZE"):
                        await peer.index()
                load = os.getloadavg()[0]
                with _phase(f"search {queries} queries x {rounds} rounds (load {load:.1f})"):
                    latencies = await bench.measure(
                        namespace, questions[:queries], questions[-WARMUP:], rounds
                    )
                measured.append((size, latencies))
                _print_table([(size, latencies)])
        if peer is not None:
            await peer.close()
    await database.dispose()
    print(f"total {time.perf_counter() - started:.0f} s")
    if len(measured) > 1:
        _print_table(measured)


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--rounds", type=int, default=3, help="alternated passes per size")
    parser.add_argument("--others", type=int, default=10_000, help="notes of each other namespace")
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.sizes, args.queries, args.url, args.rounds, args.others))


if __name__ == "__main__":
    main()
