"""What-if benchmark: the vector channel ranking notes by a *thread vector*, the note's
embedding with the turn before it in its session, instead of the note's own embedding.

Run from the repository root with a fresh home: ``LANGMEMCORE_HOME=$(mktemp -d)
PYTHONPATH=$PWD python benchmarks/thread_vectors.py [../shared/data/locomo-dev.json]
[--modes text sum note plain] [--add]``

Nothing here is built into the package. The dev split is ingested once with the default
settings (no LLM); then, per conversation, every active note gets a thread vector
computed here from the stored notes and the conversation's turns (the turn before a
note's first source, when it is in the same session):

- ``text``: the embedding of that turn's text and the note's context as one text;
- ``sum``: the normalised sum of the note's embedding and that turn's text embedding;
- ``note``: the normalised sum of the note's embedding and the embedding of the note
  that holds that turn (computable in SQL from stored vectors alone);
- ``plain``: the note's own context embedded again (the control: an exact ranking by the
  note's own vector, as the default vector channel ranks with its index).

Every category 1-4 question is asked with the default settings ("default") and then, for
each mode, with the vector channel's ranking replaced by an exact ranking of the
conversation's notes by their thread vectors (``--add``: kept, and the thread ranking
added as one more channel at weight 1.0). The replacement happens in the retrieval
graph's fusion step, so the rest of the search (speaker, full-text and time channels,
diversity, supersession, packing) runs as it does by default. Prints one row per run:
R@5 / R@10 / R@20 / multi-hop R@20 per conversation and overall.
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text

import langmemcore.retrieval.graph as retrieval_graph
from langmemcore.eval.locomo_eval import ingest_conversations
from langmemcore.eval.metrics import DEFAULT_KS, RecallTable
from langmemcore.locomo import Conversation, load_locomo
from langmemcore.memory import Memory
from langmemcore.retrieval.fusion import ChannelRanking

__all__ = ["main"]

DEFAULT_PATH = Path("../shared/data/locomo-dev.json")
"""The LoCoMo dev split, next to the repository."""

NOTES = text(
    "SELECT n.id, n.context, o.key FROM notes n "
    "JOIN note_sources s ON s.note_id = n.id JOIN observations o ON o.id = s.observation_id "
    "WHERE n.namespace = :namespace AND n.status = 'active'"
)
EMBEDDINGS = text(
    "SELECT id, embedding::text FROM notes WHERE namespace = :namespace AND status = 'active'"
)

_current: dict[str, Any] = {}
_fuse = retrieval_graph.fuse


def _fuse_with_threads(rankings: Sequence[ChannelRanking], rrf_k: int = 60, priors: Any = ()):
    """The graph's fusion, with the vector channel's ranking replaced (or joined)."""
    thread = _current.get("ranking")
    if thread:
        if _current["add"]:
            rankings = [*rankings, ChannelRanking("thread", thread, 1.0)]
        else:
            rankings = [
                ChannelRanking("vector", thread, r.weight) if r.channel == "vector" else r
                for r in rankings
            ]
    return _fuse(rankings, rrf_k, priors)


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


async def _thread_vectors(
    memory: Memory, conversation: Conversation, namespace: str, mode: str
) -> tuple[list[int], np.ndarray]:
    async with memory.database.reader() as session:
        rows = (await session.execute(NOTES, {"namespace": namespace})).all()
        stored = dict((await session.execute(EMBEDDINGS, {"namespace": namespace})).all())
    turns = list(conversation.turns)
    order = {t.dia_id: i for i, t in enumerate(turns)}
    notes: dict[int, tuple[str, list[str]]] = {}
    for note_id, context, key in rows:
        notes.setdefault(note_id, (context, []))[1].append(key)
    ids = list(notes)
    leads: list[int | None] = []
    for note_id in ids:
        first = min(order[k] for k in notes[note_id][1])
        same = first > 0 and turns[first - 1].session == turns[first].session
        leads.append(first - 1 if same else None)
    contexts = [notes[n][0] for n in ids]
    own = _unit(np.asarray(memory.embeddings.embed_documents(contexts)))
    if mode == "plain":
        return ids, own
    if mode == "text":
        pairs = zip(contexts, leads, strict=True)
        texts = [c if i is None else f"{turns[i].text}\n{c}" for c, i in pairs]
        return ids, _unit(np.asarray(memory.embeddings.embed_documents(texts)))
    if mode == "sum":
        lead_texts = [turns[i].text if i is not None else "" for i in leads]
        lead = _unit(np.asarray(memory.embeddings.embed_documents([t or "-" for t in lead_texts])))
        lead[[j for j, i in enumerate(leads) if i is None]] = 0.0
        return ids, _unit(own + lead)
    holder = {k: n for n in ids for k in notes[n][1]}
    vectors = {
        n: np.asarray([float(x) for x in v.strip("[]").split(",")]) for n, v in stored.items()
    }
    mine = _unit(np.asarray([vectors[n] for n in ids]))
    lead = np.zeros_like(mine)
    for j, i in enumerate(leads):
        if i is not None and turns[i].dia_id in holder:
            lead[j] = vectors[holder[turns[i].dia_id]]
    return ids, _unit(mine + _unit(lead))


async def _ask(
    memory: Memory, conversations: Sequence[Conversation], prefix: str, mode: str | None
) -> dict[str, RecallTable]:
    tables = {c.sample_id: RecallTable(DEFAULT_KS) for c in conversations}
    tables["overall"] = RecallTable(DEFAULT_KS)
    for conversation in conversations:
        namespace = (prefix, conversation.sample_id)
        if mode is not None:
            encoded = f"{prefix}.{conversation.sample_id}"
            ids, matrix = await _thread_vectors(memory, conversation, encoded, mode)
        for question in conversation.retrieval_questions:
            _current["ranking"] = None
            if mode is not None:
                query = np.asarray(memory.embeddings.embed_query(question.question))
                best = np.argsort(-(matrix @ (query / np.linalg.norm(query))))
                _current["ranking"] = tuple(ids[i] for i in best[: memory.retrieval.depth])
            notes = await memory.asearch(namespace, question.question, k=max(DEFAULT_KS))
            sources = [[s.key for s in n.sources] for n in notes]
            for name in (conversation.sample_id, "overall"):
                tables[name].add(question.category, sources, question.evidence)
    return tables


def _cell(table: RecallTable) -> str:
    rows = table.report()
    multi = rows.get("multi-hop")
    cells = [rows["overall"].recall[k] for k in DEFAULT_KS]
    cells.append(multi.recall[max(DEFAULT_KS)] if multi else float("nan"))
    return " / ".join(f"{c:.1f}" for c in cells)


async def _run(path: Path, modes: Sequence[str], add: bool) -> None:
    conversations = load_locomo(path)
    memory = await Memory.aopen()
    prefix = f"thread-{uuid.uuid4().hex[:8]}"
    await ingest_conversations(memory, conversations, prefix)
    await memory.aflush()
    retrieval_graph.fuse = _fuse_with_threads  # type: ignore[assignment]
    _current["add"] = add
    header = " | ".join(c.sample_id for c in conversations)
    print(f"| run | {header} | overall |")
    print("|---" * (len(conversations) + 2) + "|")
    for mode in [None, *modes]:
        tables = await _ask(memory, conversations, prefix, mode)
        cells = " | ".join(_cell(tables[c.sample_id]) for c in conversations)
        label = "default" if mode is None else f"{mode}{' added' if add else ''}"
        print(f"| {label} | {cells} | {_cell(tables['overall'])} |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--modes", nargs="+", default=["text", "sum", "note", "plain"])
    parser.add_argument("--add", action="store_true", help="add the thread ranking instead")
    args = parser.parse_args(argv)
    asyncio.run(_run(args.path, args.modes, args.add))


if __name__ == "__main__":
    main()
