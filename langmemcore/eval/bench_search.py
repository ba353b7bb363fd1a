"""Benchmark: offline search latency of ``Memory.asearch`` vs LangGraph's ``PostgresStore.search``.

Run: ``python -m langmemcore.eval.bench_search ../shared/data/locomo-dev.json
[--sizes 10000 100000] [--queries 200] [--url URL]``

Same notes (texts and vectors), same Postgres (a fresh embedded server in a temporary folder
unless ``--url`` / ``DATABASE_URL``), same query embedder (local all-MiniLM-L6-v2), same run:
the first ``--queries`` LoCoMo questions of categories 1-4 go to one namespace per size,
alternating ``Memory.asearch`` (defaults, no LLM) and ``PostgresStore.search(prefix,
query=..., limit=20)`` (server default HNSW settings) query by query, after 5 warm-up
questions (the last five). Latency includes embedding the query. Prints load times per
phase, p50 / p95 / mean latency, results returned ("hits") and the ratio of the p50s.

Data is synthetic (the construction graph would take about an hour for 100k notes), made
from the 1451 real turns, whose ``"Speaker: text"`` contexts, keywords (by
``analyze_observation``) and speaker names are embedded once with the real embedder:

- Note ``i`` derives from turn ``i mod 1451`` in cycle ``c = i // 1451``. Cycle 0 is the
  real turn (text, speaker, time, vector, keywords). Later cycles rename the conversation's
  two speakers to those of conversation ``(k + c) mod 3`` (text, speaker, keywords), append
  the first 4-10 words of a random other turn (``"<text> Also: <fragment>"``), move the
  event time by ``30 c`` days, add the other turn's first keyword and take as vector the
  normalised ``v_base + 0.35 v_other + N(0, 0.02^2 I)`` (seed per namespace). Texts are
  unique within a namespace.
- Each note has one source observation (text, speaker, event time as UTC), its keywords
  (``notes.keywords``, ``note_keywords``), ``notes.speakers`` and 1-2 ``related_to`` edges
  (strength 0.5-0.9, tag = a shared keyword) to the same turn's note one cycle earlier and /
  or the previous note of the cycle.
- Rows go in by binary ``COPY`` (ids reserved from the identity sequences) with the notes'
  HNSW index dropped and rebuilt after; then ``ANALYZE`` and ``evolve_topics``.
- ``PostgresStore`` gets the same namespaces and texts by ``batch([PutOp, ...])`` in chunks
  of 1000 (its HNSW index live); its embedder returns the precomputed vector of a stored
  text and the real embedding of anything else (the queries). Then ``ANALYZE``.

Two other namespaces of 10k notes are loaded first, then one namespace per size in
ascending order, each measured right after its load.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import re
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import psycopg
from langchain_core.embeddings import Embeddings
from pgvector.psycopg import register_vector
from sqlalchemy import make_url

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.eval.locomo import Conversation, Turn, load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url
from langmemcore.text import analyze_observation, normalize_keyword

if TYPE_CHECKING:
    from langgraph.store.postgres import PostgresStore

__all__ = ["LookupEmbeddings", "Material", "SyntheticNote", "main", "synthesize"]

Matrix = npt.NDArray[np.float32]
OTHER_SHARE = 0.35
"""Weight of the other turn's vector in a varied note's vector."""
NOISE = 0.02
"""Standard deviation of the gaussian noise added per dimension."""
CHUNK = 1000
"""PutOps per ``PostgresStore.batch`` call."""
WARMUP = 5
"""Questions asked of each system before measuring (not counted)."""


@dataclass(frozen=True)
class Material:
    """The real LoCoMo material synthetic notes are built from.

    Attributes:
        turns: Every turn of every conversation, in order.
        conversation: Index of each turn's conversation.
        speakers: The two speakers of each conversation.
        vectors: Unit embedding of each turn's ``"Speaker: text"``.
        keywords: ``analyze_observation`` keywords of each turn.
        keyword_vectors: Embedding of every keyword name and speaker name.
    """

    turns: tuple[Turn, ...]
    conversation: tuple[int, ...]
    speakers: tuple[tuple[str, str], ...]
    vectors: Matrix
    keywords: tuple[tuple[str, ...], ...]
    keyword_vectors: dict[str, npt.NDArray[np.float32]]


@dataclass(frozen=True)
class SyntheticNote:
    """One synthetic note with its (single) source observation's fields.

    Attributes:
        text: The observation text.
        speaker: Who said it.
        event_time: When (timezone-aware), if known.
        keywords: Normalised keyword names.
    """

    text: str
    speaker: str
    event_time: datetime | None
    keywords: tuple[str, ...]

    @property
    def context(self) -> str:
        """The note context, ``"Speaker: text"``."""
        return f"{self.speaker}: {self.text}"


Link = tuple[int, int, float, str | None]
"""An edge between synthetic notes: (source index, target index, strength, tag)."""


def build_material(conversations: Sequence[Conversation], embeddings: Embeddings) -> Material:
    """Embed the real turns and their keywords once (the only embedding of stored data)."""
    turns = tuple(t for c in conversations for t in c.turns)
    keywords = tuple(
        analyze_observation(t.full_text, speaker=t.speaker, event_time=t.event_time).keywords
        for t in turns
    )
    speakers = tuple(c.speakers for c in conversations)
    names = sorted(
        {k for ks in keywords for k in ks} | {normalize_keyword(s) for p in speakers for s in p}
    )
    vectors, named = (
        np.asarray(embeddings.embed_documents(texts), dtype=np.float32)
        for texts in ([f"{t.speaker}: {t.full_text}" for t in turns], names)
    )
    conversation = tuple(i for i, c in enumerate(conversations) for _t in c.turns)
    named_vectors = dict(zip(names, named, strict=True))
    return Material(turns, conversation, speakers, vectors, keywords, named_vectors)


def _variant(material: Material, i: int, other: int) -> SyntheticNote:
    count = len(material.turns)
    base, cycle = i % count, i // count
    turn = material.turns[base]
    when = turn.event_time.replace(tzinfo=UTC) if turn.event_time else None
    if cycle == 0:
        return SyntheticNote(turn.full_text, turn.speaker, when, material.keywords[base])
    conv = material.conversation[base]
    old = material.speakers[conv]
    rename = dict(zip(old, material.speakers[(conv + cycle) % len(material.speakers)], strict=True))
    pattern = r"\b(" + "|".join(re.escape(n) for n in old) + r")\b"
    body = re.sub(pattern, lambda m: rename[m.group(0)], turn.full_text)
    fragment = " ".join(material.turns[other].text.split()[: 4 + i % 7])
    renamed = {normalize_keyword(a): normalize_keyword(b) for a, b in rename.items()}
    keywords = [renamed.get(k, k) for k in material.keywords[base]]
    keywords.extend(material.keywords[other][:1])
    return SyntheticNote(
        f"{body} Also: {fragment}",
        rename[turn.speaker],
        when + timedelta(days=30 * cycle) if when else None,
        tuple(dict.fromkeys(keywords))[:8],
    )


def synthesize(
    material: Material, n: int, seed: int
) -> tuple[list[SyntheticNote], Matrix, list[Link]]:
    """Build ``n`` notes, their unit vectors and their edges (see the module docstring)."""
    rng = np.random.default_rng(seed)
    count = len(material.turns)
    bases = np.arange(n) % count
    others = rng.integers(0, count, size=n)
    noise = rng.normal(0.0, NOISE, size=(n, material.vectors.shape[1])).astype(np.float32)
    vectors = material.vectors[bases] + OTHER_SHARE * material.vectors[others] + noise
    real = np.arange(n) < count
    vectors[real] = material.vectors[bases[real]]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    notes: list[SyntheticNote] = []
    seen: set[str] = set()
    for i in range(n):
        note = _variant(material, i, int(others[i]))
        if note.text in seen:
            note = SyntheticNote(f"{note.text} [{i}]", note.speaker, note.event_time, note.keywords)
        seen.add(note.text)
        notes.append(note)
    links: list[Link] = []
    for i in range(n):
        targets = [i - count] if i >= count else []
        if i % count and (i < count or rng.random() < 0.5):
            targets.append(i - 1)
        for j in targets:
            shared = [k for k in notes[i].keywords if k in notes[j].keywords]
            strength = round(float(rng.uniform(0.5, 0.9)), 3)
            links.append((i, j, strength, shared[0] if shared else None))
    return notes, vectors, links


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


def _conninfo(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _reserve(cur: psycopg.Cursor[Any], table: str, n: int) -> list[int]:
    cur.execute(
        f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, %s)",
        (n,),
    )
    return [int(row[0]) for row in cur.fetchall()]


_COLUMNS = {
    "observations": "id int8, namespace text, key text, content text, content_hash varchar, "
    "speaker text, event_time timestamptz",
    "notes": "id int8, namespace text, context text, embedding vector, keywords text[], "
    "speakers text[], event_time timestamptz",
    "note_sources": "namespace text, note_id int8, observation_id int8",
    "keywords": "id int8, namespace text, name text, embedding vector",
    "note_keywords": "namespace text, note_id int8, keyword_id int8",
    "edges": "namespace text, source_id int8, target_id int8, relation varchar, strength float8, "
    "tag text",
}
"""Columns (with their types) written by binary COPY, per table."""


def _copy(cur: psycopg.Cursor[Any], table: str, rows: Iterable[Sequence[Any]]) -> None:
    columns = [c.split() for c in _COLUMNS[table].split(", ")]
    names = ", ".join(name for name, _type in columns)
    with cur.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types([kind for _name, kind in columns])
        for row in rows:
            copy.write_row(row)


def load_notes(
    conn: psycopg.Connection[Any],
    ns: str,
    notes: Sequence[SyntheticNote],
    vectors: Matrix,
    links: Sequence[Link],
    material: Material,
) -> None:
    """COPY one namespace's observations, notes, sources, keywords and edges (one transaction)."""
    n = len(notes)
    names = sorted({k for note in notes for k in note.keywords})
    with conn.transaction(), conn.cursor() as cur:
        obs, ids = _reserve(cur, "observations", n), _reserve(cur, "notes", n)
        kw = dict(zip(names, _reserve(cur, "keywords", len(names)), strict=True))
        digest = [hashlib.sha256(note.text.encode()).hexdigest() for note in notes]
        tables: dict[str, Iterable[Sequence[Any]]] = {
            "observations": (
                (obs[i], ns, f"syn-{i}", t.text, digest[i], t.speaker, t.event_time)
                for i, t in enumerate(notes)
            ),
            "notes": (
                (
                    ids[i],
                    ns,
                    t.context,
                    vectors[i],
                    list(t.keywords),
                    [t.speaker.lower()],
                    t.event_time,
                )
                for i, t in enumerate(notes)
            ),
            "note_sources": ((ns, ids[i], obs[i]) for i in range(n)),
            "keywords": ((k, ns, name, material.keyword_vectors[name]) for name, k in kw.items()),
            "note_keywords": ((ns, ids[i], kw[k]) for i, t in enumerate(notes) for k in t.keywords),
            "edges": ((ns, ids[a], ids[b], "related_to", s, tag) for a, b, s, tag in links),
        }
        for table, rows in tables.items():
            _copy(cur, table, rows)


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
        with _phase("langmemcore HNSW rebuild (whole notes table) + ANALYZE"):
            self.conn.execute("SET maintenance_work_mem = '1GB'")
            for _name, definition in hnsw:
                self.conn.execute(definition)
            self.conn.execute("ANALYZE")
        with _phase("langmemcore evolve_topics"):
            summary = await self.memory.aevolve_topics(namespace)
        print(f"    {len(summary.topics)} topics, {summary.unassigned} keywords unassigned")
        with _phase(f"PostgresStore.batch(PutOp) x {size}"):
            load_store(self.store, self.lookup, namespace, notes, vectors)
        with _phase("ANALYZE"):
            self.conn.execute("ANALYZE")

    async def measure(
        self, namespace: tuple[str, ...], questions: Sequence[str], warmup: Sequence[str]
    ) -> Latencies:
        async def ours(query: str) -> int:
            return len(await self.memory.asearch(namespace, query))

        async def theirs(query: str) -> int:
            return len(self.store.search(namespace, query=query, limit=20))

        systems = {"langmemcore": ours, "PostgresStore": theirs}
        for query in warmup:
            for search in systems.values():
                await search(query)
        result: Latencies = {name: ([], []) for name in systems}
        for query in questions:
            for name, search in systems.items():
                start = time.perf_counter()
                hits = await search(query)
                result[name][0].append((time.perf_counter() - start) * 1000)
                result[name][1].append(hits)
        return result


def _print_table(measured: Sequence[tuple[int, Latencies]]) -> None:
    print(f"{'size':>7}  {'system':<14} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'hits':>6}")
    for size, latencies in measured:
        p50s = {}
        for name, (ms, hits) in latencies.items():
            p50, p95 = np.percentile(ms, [50, 95])
            p50s[name] = float(p50)
            print(
                f"{size:>7}  {name:<14} {p50:>8.1f} {p95:>8.1f} {np.mean(ms):>8.1f} "
                f"{np.mean(hits):>6.1f}"
            )
        ratio = p50s["langmemcore"] / p50s["PostgresStore"]
        print(f"{size:>7}  p50 ratio langmemcore / PostgresStore: {ratio:.2f}x")


async def _run(path: Path, sizes: Sequence[int], queries: int, url: str | None) -> None:
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
    layout = [((run, "other-1"), 10_000, False), ((run, "other-2"), 10_000, False)]
    layout += [((run, f"n{size}"), size, True) for size in sorted(sizes)]
    measured: list[tuple[int, Latencies]] = []
    conninfo = _conninfo(database.url)
    with (
        psycopg.Connection.connect(conninfo, autocommit=True) as conn,
        psycopg.Connection.connect(
            conninfo, autocommit=True, prepare_threshold=0, row_factory=dict_row
        ) as store_conn,
    ):
        register_vector(conn)
        lookup = LookupEmbeddings(embeddings)
        store = PostgresStore(store_conn, index={"dims": 384, "embed": lookup, "fields": ["text"]})
        store.setup()
        bench = _Bench(conn, Memory(database, embeddings), store, lookup, material)
        for seed, (namespace, size, measure) in enumerate(layout):
            await bench.load(namespace, size, seed)
            if measure:
                load = os.getloadavg()[0]
                with _phase(f"search {queries} queries x 2 systems (load average {load:.1f})"):
                    latencies = await bench.measure(
                        namespace, questions[:queries], questions[-WARMUP:]
                    )
                measured.append((size, latencies))
    await database.dispose()
    print(f"total {time.perf_counter() - started:.0f} s")
    _print_table(measured)


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    asyncio.run(_run(args.path, args.sizes, args.queries, args.url))


if __name__ == "__main__":
    main()
