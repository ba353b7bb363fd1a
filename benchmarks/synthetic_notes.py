"""Synthetic notes for the search benchmark, derived from the real LoCoMo turns, and their
bulk load by binary ``COPY``.

Data is synthetic (the construction graph would take about an hour for 100k notes), made
from the 1451 real turns, whose ``"Speaker: text"`` contexts, keywords (by
``analyze_observation``) and speaker names are embedded once with the real embedder:

- Note ``i`` derives from turn ``i mod 1451`` in cycle ``c = i // 1451``. Cycle 0 is the
  real turn (text, speaker, time, vector, keywords). Later cycles rename the conversation's
  two speakers to those of conversation ``(k + c) mod 3`` (text, speaker, keywords), append
  the first 4-10 words of a random other turn (``"<text> Also: <fragment>"``), move the
  event time by ``30 c`` days, add the other turn's first keyword and take as vector the
  normalised ``v_base + 0.35 v_other + N(0, 0.02^2 I)`` (seed per namespace). Texts are
  unique within a namespace. With ``real_vectors=False`` cycle 0's vectors get the
  namespace's noise too, so that no vector repeats across namespaces (exact duplicates
  cut an HNSW graph into cliques its search cannot reach).
- Each note has one source observation (text, speaker, event time as UTC, its analysis as
  ingest writes it, :func:`~langmemcore.analysis.analyze`), its keywords
  (``notes.keywords``, ``note_keywords``), ``notes.speakers`` and 1-2 ``related_to`` edges
  (strength 0.5-0.9, tag = a shared keyword) to the same turn's note one cycle earlier and /
  or the previous note of the cycle.
- Rows go in by binary ``COPY`` (ids reserved from the identity sequences), see
  :func:`load_notes`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
from langchain_core.embeddings import Embeddings
from psycopg.types.json import Jsonb

from langmemcore.analysis import analyze
from langmemcore.locomo import Conversation, Turn
from langmemcore.text import analyze_observation, normalize_keyword

__all__ = [
    "Group",
    "Link",
    "Material",
    "SyntheticNote",
    "build_material",
    "load_groups",
    "load_notes",
    "synthesize",
]

Matrix = npt.NDArray[np.float32]
OTHER_SHARE = 0.35
"""Weight of the other turn's vector in a varied note's vector."""
NOISE = 0.02
"""Standard deviation of the gaussian noise added per dimension."""


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

Rows = dict[str, Iterable[Sequence[Any]]]
"""Rows to COPY, per table."""


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
    material: Material, n: int, seed: int, *, real_vectors: bool = True
) -> tuple[list[SyntheticNote], Matrix, list[Link]]:
    """Build ``n`` notes, their unit vectors and their edges (see the module docstring).

    Args:
        material: The real turns.
        n: Notes to build.
        seed: Seed of the namespace's randomness.
        real_vectors: Cycle 0 takes the real turns' vectors unchanged; otherwise they get
            the namespace's noise too (no vector repeats in another namespace).
    """
    rng = np.random.default_rng(seed)
    count = len(material.turns)
    bases = np.arange(n) % count
    others = rng.integers(0, count, size=n)
    noise = rng.normal(0.0, NOISE, size=(n, material.vectors.shape[1])).astype(np.float32)
    vectors = material.vectors[bases] + OTHER_SHARE * material.vectors[others] + noise
    real = np.arange(n) < count
    vectors[real] = material.vectors[bases[real]] + (0 if real_vectors else noise[real])
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


def _reserve(cur: psycopg.Cursor[Any], table: str, n: int) -> list[int]:
    cur.execute(
        f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, %s)",
        (n,),
    )
    return [int(row[0]) for row in cur.fetchall()]


_COLUMNS = {
    "observations": "id int8, namespace text, key text, content text, content_hash varchar, "
    "speaker text, event_time timestamptz, analysis jsonb",
    "notes": "id int8, namespace text, context text, embedding vector, thread_embedding vector, "
    "keywords text[], speakers text[], event_time timestamptz",
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


Group = tuple[str, Sequence[SyntheticNote], Matrix, Sequence[Link]]
"""One namespace's notes: (encoded namespace, notes, their vectors, their edges)."""


def load_notes(
    conn: psycopg.Connection[Any],
    ns: str,
    notes: Sequence[SyntheticNote],
    vectors: Matrix,
    links: Sequence[Link],
    material: Material,
) -> None:
    """COPY one namespace's observations, notes, sources, keywords and edges (one
    transaction), see :func:`load_groups`.
    """
    load_groups(conn, [(ns, notes, vectors, links)], material)


def _rows(group: Group, obs: Sequence[int], ids: Sequence[int], kw: dict[str, int]) -> Rows:
    ns, notes, vectors, links = group
    threads = vectors + np.roll(vectors, 1, axis=0)
    threads /= np.linalg.norm(threads, axis=1, keepdims=True)
    digest = [hashlib.sha256(note.text.encode()).hexdigest() for note in notes]
    return {
        "observations": (
            (
                obs[i],
                ns,
                f"syn-{i}",
                t.text,
                digest[i],
                t.speaker,
                t.event_time,
                Jsonb(analyze(t.text, t.context).to_json()),
            )
            for i, t in enumerate(notes)
        ),
        "notes": (
            (
                ids[i],
                ns,
                t.context,
                vectors[i],
                threads[i],
                list(t.keywords),
                [t.speaker.lower()],
                t.event_time,
            )
            for i, t in enumerate(notes)
        ),
        "note_sources": ((ns, ids[i], obs[i]) for i in range(len(notes))),
        "note_keywords": ((ns, ids[i], kw[k]) for i, t in enumerate(notes) for k in t.keywords),
        "edges": ((ns, ids[a], ids[b], "related_to", s, tag) for a, b, s, tag in links),
    }


def load_groups(conn: psycopg.Connection[Any], groups: Sequence[Group], material: Material) -> None:
    """COPY the observations, notes, sources, keywords and edges of several namespaces in
    one transaction. A note's thread vector is its vector plus the one before it,
    normalised (what ingest gives a turn that follows another in its thread).
    """
    sizes = [len(notes) for _ns, notes, _v, _l in groups]
    names = [sorted({k for note in notes for k in note.keywords}) for _ns, notes, _v, _l in groups]
    with conn.transaction(), conn.cursor() as cur:
        obs, ids = _reserve(cur, "observations", sum(sizes)), _reserve(cur, "notes", sum(sizes))
        kw_ids = iter(_reserve(cur, "keywords", sum(len(n) for n in names)))
        tables: dict[str, list[Iterable[Sequence[Any]]]] = {table: [] for table in _COLUMNS}
        offset = 0
        for group, size, group_names in zip(groups, sizes, names, strict=True):
            kw = {name: next(kw_ids) for name in group_names}
            tables["keywords"].append(
                [(k, group[0], name, material.keyword_vectors[name]) for name, k in kw.items()]
            )
            span = slice(offset, offset + size)
            for table, rows in _rows(group, obs[span], ids[span], kw).items():
                tables[table].append(rows)
            offset += size
        for table, parts in tables.items():
            _copy(cur, table, chain.from_iterable(parts))
