"""Benchmark: search at scale, one big namespace and many small ones, against LangGraph's
``PostgresStore`` holding the same notes in the same Postgres.

Run from the repository root: ``python benchmarks/bench_scale.py
../shared/data/locomo-dev.json [--big 100000 1000000] [--mid 50000 --mids 2] [--small 100
--smalls 10000] [--queries 200] [--rounds 3] [--url URL]``.

Layout (one run, one database): one namespace per ``--big`` size, ``--mids`` namespaces of
``--mid`` notes and ``--smalls`` namespaces of ``--small`` notes, synthetic notes from the
real LoCoMo turns (:mod:`synthetic_notes`, every vector with its namespace's noise, so that
none repeats across namespaces; the small namespaces are consecutive slices of one
synthesized pool, so their texts and vectors differ). Everything is loaded by binary
``COPY`` with every HNSW index of ``notes``, ``keywords`` and ``store_vectors`` dropped,
then the indexes are rebuilt once and ``VACUUM ANALYZE`` runs. ``PostgresStore`` gets the
same namespaces, keys, texts and vectors by ``COPY`` into its own tables (``store``,
``store_vectors``; its schema from its own ``setup()``, its HNSW index rebuilt after, as
ours). Topics are evolved in every big and mid namespace and in the small namespaces that
are searched (``--searched``), each timed; the evolution also builds the indexes of their
own that the large namespaces get (``--build-memory`` sets the server's
``maintenance_work_mem`` meanwhile).

Measured, per namespace class (each big size, the mids, the smalls):

- search latency, query by query through both systems (``Memory.asearch`` with the
  defaults and no LLM; ``PostgresStore.search(namespace, query=..., limit=20)``), the order
  of the two alternating between rounds; questions to the small namespaces go round-robin
  over the searched ones. p50 / p95 per round and the ratio to ``PostgresStore``;
- the vector channel's recall against exact search: the channel's own statement (its
  candidate depth, thread vectors as configured, the session's HNSW settings) against the
  same ordering computed by a scan with index scans off, for ``--recall`` questions;
- the load time of each phase, each index build, topic evolution per namespace size, the
  database size per note of both systems and the process's peak resident memory per phase
  (``VmHWM``, reset before each phase).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.retrieval.query_vectors import QueryVectorCache
from langmemcore.storage import Database, Repository, upgrade
from langmemcore.storage.embedded import embedded_database_url

from bench_search import LookupEmbeddings, conninfo
from synthetic_notes import (
    Group,
    Link,
    Material,
    SyntheticNote,
    build_material,
    load_groups,
    synthesize,
)

if TYPE_CHECKING:
    from langgraph.store.postgres import PostgresStore

__all__ = ["main"]

CHUNK = 500
"""Small namespaces loaded per transaction."""
WARMUP = 5
"""Questions asked of each system before measuring (not counted)."""
HNSW_TABLES = ("notes", "keywords", "store_vectors")
"""Tables whose HNSW indexes are dropped for the load and rebuilt once after it."""
OUR_TABLES = (
    "observations",
    "notes",
    "note_sources",
    "keywords",
    "note_keywords",
    "edges",
    "topics",
    "topic_keywords",
)
"""langmemcore's tables counted in the size per note."""

Search = Callable[[tuple[str, ...], str], Awaitable[int]]
"""One system's search: (namespace, question) -> results returned."""


@contextmanager
def _phase(name: str) -> Iterator[None]:
    """Print a phase's wall time and the process's peak resident memory during it."""
    _reset_peak()
    start = time.perf_counter()
    yield
    print(
        f"  {name}: {time.perf_counter() - start:.1f} s, peak RSS {_peak_mb():.0f} MB", flush=True
    )


def _reset_peak() -> None:
    with suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _store_rows(ns: str, notes: Sequence[SyntheticNote]) -> Iterator[tuple[str, str, Jsonb]]:
    for i, note in enumerate(notes):
        when = note.event_time.isoformat() if note.event_time else None
        value = {"text": note.context, "speaker": note.speaker, "time": when}
        yield ns, f"syn-{i}", Jsonb(value)


def copy_store(conn: psycopg.Connection[Any], groups: Sequence[Group]) -> None:
    """COPY the same namespaces, keys, texts and vectors into ``PostgresStore``'s tables."""
    with conn.transaction(), conn.cursor() as cur:
        with cur.copy("COPY store (prefix, key, value) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "text", "jsonb"])
            for ns, notes, _vectors, _links in groups:
                for row in _store_rows(ns, notes):
                    copy.write_row(row)
        statement = (
            "COPY store_vectors (prefix, key, field_name, embedding) FROM STDIN (FORMAT BINARY)"
        )
        with cur.copy(statement) as copy:
            copy.set_types(["text", "text", "text", "vector"])
            for ns, _notes, vectors, _links in groups:
                for i, vector in enumerate(vectors):
                    copy.write_row((ns, f"syn-{i}", "text", vector))


def _slices(
    notes: Sequence[SyntheticNote],
    vectors: Any,
    links: Sequence[Link],
    size: int,
    names: Sequence[str],
) -> list[Group]:
    """Cut one synthesized pool into namespaces of ``size`` consecutive notes; edges are
    kept where both ends fall in the same namespace.
    """
    kept: dict[int, list[Link]] = {}
    for a, b, strength, tag in links:
        if a // size == b // size:
            kept.setdefault(a // size, []).append((a % size, b % size, strength, tag))
    return [
        (
            name,
            notes[j * size : (j + 1) * size],
            vectors[j * size : (j + 1) * size],
            kept.get(j, []),
        )
        for j, name in enumerate(names)
    ]


@dataclass
class _Bench:
    conn: psycopg.Connection[Any]
    database: Database
    memory: Memory
    store: PostgresStore
    material: Material
    info: str

    def load(self, groups: Sequence[Group]) -> None:
        load_groups(self.conn, groups, self.material)
        copy_store(self.conn, groups)

    def drop_hnsw(self) -> list[tuple[str, str]]:
        rows = self.conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE tablename = ANY(%s) AND indexdef ILIKE '%%USING hnsw%%'",
            (list(HNSW_TABLES),),
        ).fetchall()
        for name, _definition in rows:
            self.conn.execute(f'DROP INDEX "{name}"')
        return [(str(name), str(definition)) for name, definition in rows]

    def rebuild(self, indexes: Sequence[tuple[str, str]]) -> None:
        self.conn.execute("SET maintenance_work_mem = '8GB'")
        self.conn.execute("SET max_parallel_maintenance_workers = 2")
        for name, definition in indexes:
            with _phase(f"HNSW build {name}"):
                self.conn.execute(definition)
        with _phase("VACUUM ANALYZE"):
            self.conn.execute("VACUUM ANALYZE")

    async def evolve(self, namespaces: Sequence[tuple[str, ...]]) -> float:
        """Evolve topics in each namespace; the mean seconds per namespace."""
        start = time.perf_counter()
        for namespace in namespaces:
            await self.memory.aevolve_topics(namespace)
        return (time.perf_counter() - start) / len(namespaces)

    async def latencies(
        self,
        jobs: Sequence[tuple[tuple[str, ...], str]],
        warmup: Sequence[tuple[tuple[str, ...], str]],
        rounds: int,
    ) -> list[dict[str, list[float]]]:
        """``rounds`` passes over ``jobs``, each job through both systems, the order of the
        two alternating from round to round. langmemcore's cache of embedded texts starts
        empty each round (``PostgresStore`` embeds every query).
        """

        async def ours(namespace: tuple[str, ...], query: str) -> int:
            return len(await self.memory.asearch(namespace, query))

        async def theirs(namespace: tuple[str, ...], query: str) -> int:
            return len(self.store.search(namespace, query=query, limit=20))

        systems: dict[str, Search] = {"langmemcore": ours, "PostgresStore": theirs}
        for namespace, query in warmup:
            for search in systems.values():
                await search(namespace, query)
        names = list(systems)
        measured = []
        for round in range(rounds):
            order = names if round % 2 == 0 else names[::-1]
            self.memory.query_vectors = QueryVectorCache(self.memory.embeddings)
            result: dict[str, list[float]] = {name: [] for name in names}
            for namespace, query in jobs:
                for name in order:
                    start = time.perf_counter()
                    await systems[name](namespace, query)
                    result[name].append((time.perf_counter() - start) * 1000)
            measured.append(result)
        return measured

    async def recall(
        self, namespaces: Sequence[tuple[str, ...]], vectors: Sequence[Sequence[float]]
    ) -> tuple[float, float]:
        """The vector channel's mean and lowest recall against exact search (query ``i``
        in namespace ``i mod len(namespaces)``).
        """
        config = RetrievalConfig()
        column = "thread_embedding" if config.thread_vectors else "embedding"
        exact_sql = (
            f"SELECT id FROM notes WHERE namespace = %s AND status = 'active' "
            f"ORDER BY {column} <=> %s, id LIMIT %s"
        )
        recalls = []
        for i, vector in enumerate(vectors):
            namespace = namespaces[i % len(namespaces)]
            async with Repository.open(self.database, autocommit=True) as repo:
                found = await repo.nearest_notes(
                    namespace, vector, config.depth, threaded=config.thread_vectors
                )
            with self.conn.transaction():
                self.conn.execute("SET LOCAL enable_indexscan = off")
                exact = self.conn.execute(
                    exact_sql,
                    (".".join(namespace), np.asarray(vector, dtype=np.float32), config.depth),
                ).fetchall()
            truth = {row[0] for row in exact}
            recalls.append(len(truth & {s.id for s in found}) / max(len(truth), 1))
        return float(np.mean(recalls)), float(np.min(recalls))

    def sweep(
        self, namespaces: Sequence[tuple[str, ...]], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Print the same channel statement's recall and time per HNSW setting (direct SQL,
        never prepared), for choosing the session's settings.
        """
        config = RetrievalConfig()
        column = "thread_embedding" if config.thread_vectors else "embedding"
        chosen = f"ORDER BY {column} <=> %s, id LIMIT %s"
        truths = []
        with self.conn.transaction():
            self.conn.execute("SET LOCAL enable_indexscan = off")
            for i, vector in enumerate(vectors):
                ns = ".".join(namespaces[i % len(namespaces)])
                rows = self.conn.execute(
                    f"SELECT id FROM notes WHERE namespace = %s AND status = 'active' {chosen}",
                    (ns, np.asarray(vector, dtype=np.float32), config.depth),
                ).fetchall()
                truths.append({row[0] for row in rows})
        ranked = (
            f"SELECT id, {column} <=> %s AS distance FROM notes "
            "WHERE namespace = %s AND status = 'active' ORDER BY distance, id LIMIT %s"
        )
        with psycopg.Connection.connect(self.info, autocommit=True, prepare_threshold=None) as conn:
            register_vector(conn)
            for mode in ("strict_order", "relaxed_order"):
                for ef in (100, 200, 400, 800):
                    conn.execute(f"SET hnsw.iterative_scan = {mode}")
                    conn.execute(f"SET hnsw.ef_search = {ef}")
                    recalls, start = [], time.perf_counter()
                    for i, (vector, truth) in enumerate(zip(vectors, truths, strict=True)):
                        ns = ".".join(namespaces[i % len(namespaces)])
                        query = (np.asarray(vector, dtype=np.float32), ns, config.depth)
                        found = {row[0] for row in conn.execute(ranked, query)}
                        recalls.append(len(found & truth) / max(len(truth), 1))
                    ms = (time.perf_counter() - start) * 1000 / len(vectors)
                    print(
                        f"    {mode} ef_search {ef}: recall mean {np.mean(recalls):.3f}, "
                        f"lowest {np.min(recalls):.3f}, {ms:.1f} ms a query"
                    )

    def sizes(self, notes: int) -> tuple[float, float]:
        """Bytes per note of langmemcore's tables and of ``PostgresStore``'s."""
        total = "SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(%s::text[]) t"
        ours = self.conn.execute(total, (list(OUR_TABLES),)).fetchone()
        theirs = self.conn.execute(total, (["store", "store_vectors"],)).fetchone()
        assert ours is not None and theirs is not None
        return float(ours[0]) / notes, float(theirs[0]) / notes


def _report(label: str, measured: Sequence[dict[str, list[float]]]) -> None:
    for index, result in enumerate(measured, start=1):
        cells = ", ".join(
            f"{name} p50 {np.percentile(ms, 50):.1f} / p95 {np.percentile(ms, 95):.1f} ms"
            for name, ms in result.items()
        )
        print(f"{label} round {index}: {cells}")
    for q in (50, 95):
        ratios = [
            np.percentile(r["langmemcore"], q) / np.percentile(r["PostgresStore"], q)
            for r in measured
        ]
        print(
            f"{label} p{q} ratio langmemcore / PostgresStore: median {np.median(ratios):.2f}x, "
            f"range {min(ratios):.2f}-{max(ratios):.2f}x over {len(ratios)} rounds"
        )


@contextmanager
def _server_setting(conn: psycopg.Connection[Any], name: str, value: str | None) -> Iterator[None]:
    """The server's ``name`` set to ``value`` for every new session (``ALTER SYSTEM``,
    reset on exit); nothing when ``value`` is None.
    """
    if value is None:
        yield
        return
    conn.execute(f"ALTER SYSTEM SET {name} = {sql.quote(value)}")
    conn.execute("SELECT pg_reload_conf()")
    try:
        yield
    finally:
        conn.execute(f"ALTER SYSTEM RESET {name}")
        conn.execute("SELECT pg_reload_conf()")


Classes = dict[str, list[tuple[str, ...]]]
"""Namespace classes ("big 1000000", "mid 50000", "small 100") and their namespaces."""


def _layout(args: argparse.Namespace, run: str) -> tuple[Classes, dict[str, int]]:
    """The run's namespaces per class (every small one) and each class's size."""
    classes: Classes = {f"big {size}": [(run, f"big{size}")] for size in sorted(args.big)}
    classes[f"mid {args.mid}"] = [(run, f"mid{j}") for j in range(args.mids)]
    classes[f"small {args.small}"] = [(run, f"s{j}") for j in range(args.smalls)]
    sizes = {f"big {size}": size for size in args.big}
    sizes |= {f"mid {args.mid}": args.mid, f"small {args.small}": args.small}
    return {label: namespaces for label, namespaces in classes.items() if namespaces}, sizes


async def _load(bench: _Bench, classes: Classes, sizes: dict[str, int]) -> None:
    """Load every namespace of both systems, rebuild the HNSW indexes, analyse."""
    indexes = bench.drop_hnsw()
    seed = 0
    *whole, small = classes
    for label in whole:
        for namespace in classes[label]:
            seed += 1
            name = ".".join(namespace)
            with _phase(f"synthesize + COPY {name} ({sizes[label]} notes, both systems)"):
                notes, vectors, links = synthesize(
                    bench.material, sizes[label], seed, real_vectors=False
                )
                bench.load([(name, notes, vectors, links)])
                del notes, vectors, links
    count, size = len(classes[small]), sizes[small]
    with _phase(f"synthesize {count} x {size} small notes"):
        pool = synthesize(bench.material, count * size, seed + 1, real_vectors=False)
        groups = _slices(*pool, size, [".".join(n) for n in classes[small]])
        del pool
    with _phase(f"COPY {count} small namespaces, {CHUNK} a transaction (both systems)"):
        for start in range(0, len(groups), CHUNK):
            bench.load(groups[start : start + CHUNK])
    del groups
    bench.rebuild(indexes)


async def _measure(
    bench: _Bench, classes: Classes, questions: Sequence[str], args: argparse.Namespace
) -> None:
    """Recall of the vector channel and search latency per class."""
    vectors = bench.memory.embeddings.embed_documents(list(questions[: args.recall]))
    for label, namespaces in classes.items() if vectors else ():
        with _phase(f"vector-channel recall, {label}"):
            mean, low = await bench.recall(namespaces, vectors)
        print(f"{label} vector-channel recall against exact: mean {mean:.3f}, lowest {low:.3f}")
        bench.sweep(namespaces, vectors)
    for label, namespaces in classes.items():
        asked = questions[: args.queries]
        jobs = [(namespaces[i % len(namespaces)], q) for i, q in enumerate(asked)]
        warmup = [(namespaces[0], q) for q in questions[-WARMUP:]]
        load = os.getloadavg()[0]
        with _phase(
            f"search {label}: {len(jobs)} questions x {args.rounds} rounds (load {load:.1f})"
        ):
            measured = await bench.latencies(jobs, warmup, args.rounds)
        _report(label, measured)


async def _run(args: argparse.Namespace) -> None:
    from langgraph.store.postgres import PostgresStore
    from psycopg.rows import dict_row

    started = time.perf_counter()
    url = args.url
    if url is None:
        data_dir = args.home or Path(tempfile.mkdtemp(prefix="lmc-scale-"))
        print(f"embedded Postgres in {data_dir} (left there; delete it when done)", flush=True)
        url = embedded_database_url(data_dir)
    database = Database.connect(url)
    upgrade(database)
    conversations = load_locomo(args.path)
    embeddings = LocalEmbeddings()
    with _phase("embed the real turns and keyword names"):
        material = build_material(conversations, embeddings)
    questions = [q.question for c in conversations for q in c.retrieval_questions]
    run = args.reuse or f"scale-{uuid.uuid4().hex[:8]}"
    print(f"run {run}")
    info = conninfo(database.url)
    with (
        psycopg.Connection.connect(info, autocommit=True) as conn,
        psycopg.Connection.connect(
            info, autocommit=True, prepare_threshold=0, row_factory=dict_row
        ) as store_conn,
    ):
        register_vector(conn)
        store = PostgresStore(
            store_conn,
            index={"dims": 384, "embed": LookupEmbeddings(embeddings), "fields": ["text"]},
        )
        store.setup()
        bench = _Bench(conn, database, Memory(database, embeddings), store, material, info)
        classes, sizes = _layout(args, run)
        total = sum(sizes[label] * len(namespaces) for label, namespaces in classes.items())
        if args.reuse is None:
            await _load(bench, classes, sizes)
        small = f"small {args.small}"
        step = max(1, args.smalls // args.searched)
        classes[small] = classes[small][::step][: args.searched]
        with _server_setting(conn, "maintenance_work_mem", args.build_memory):
            for label, namespaces in classes.items():
                with _phase(f"evolve_topics {label} ({len(namespaces)} namespaces)"):
                    mean = await bench.evolve(namespaces)
                print(f"    {mean:.2f} s per namespace")
        ours, theirs = bench.sizes(total)
        print(f"database size per note: langmemcore {ours:.0f} B, PostgresStore {theirs:.0f} B")
        await _measure(bench, classes, questions, args)
    await database.dispose()
    print(f"total {time.perf_counter() - started:.0f} s")


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--big", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--mid", type=int, default=50_000, help="notes of each mid namespace")
    parser.add_argument("--mids", type=int, default=2, help="mid namespaces")
    parser.add_argument("--small", type=int, default=100, help="notes of each small namespace")
    parser.add_argument("--smalls", type=int, default=10_000, help="small namespaces")
    parser.add_argument("--searched", type=int, default=200, help="small namespaces searched")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--recall", type=int, default=100, help="questions for the recall check (0: none)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternated passes per class")
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--home", type=Path, help="embedded server's folder (default: a new one)")
    parser.add_argument("--reuse", help="measure an earlier run's namespaces (its run id)")
    parser.add_argument(
        "--build-memory",
        help="the server's maintenance_work_mem while topics evolve and the large namespaces' "
        "own indexes are built (ALTER SYSTEM, reset after; default: the server's setting)",
    )
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
