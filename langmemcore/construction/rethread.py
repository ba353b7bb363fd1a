"""Re-threading: giving notes whose thread vector is still their own embedding the one an
ingest gives today.

Notes stored before thread vectors existed got their own embedding as thread vector at
migration 0010 (there is no embedder there), and undo and repair rewrite a note with its
own embedding; until re-threaded, the vector channel finds such a reply only through its
own words, not through what it answers. :func:`rethread_namespace` reads those notes in
batches by id, finds each one's lead as a one-at-a-time ingest in stored order would (the
observation stored before its latest source, at or before that source's time and at most
:attr:`~langmemcore.config.ConstructionConfig.thread_gap` earlier, both said by someone:
:func:`~langmemcore.construction.thread.in_thread`), embeds the thread texts of a batch in
one call and writes each vector unless the note changed meanwhile. Notes without a lead
keep their own embedding, which is their thread vector by definition; a run can stop at
any point and the next one picks up what is left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.embeddings import Embeddings

from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.config import ConstructionConfig
from langmemcore.construction.thread import in_thread, thread_text
from langmemcore.storage.database import Database
from langmemcore.storage.notes.thread_access import Unthreaded
from langmemcore.storage.repository import Repository

__all__ = ["RethreadReport", "lead_of_note", "rethread_namespace"]


@dataclass(frozen=True)
class RethreadReport:
    """What a re-threading run did.

    Attributes:
        examined: Notes read whose thread vector was their own embedding.
        threaded: Those given a thread vector.
        unthreaded: Those without a lead (their own embedding stays).
        changed: Those left alone because they changed while being re-threaded (a merge,
            an undo); the next run reads them again.
    """

    examined: int
    threaded: int
    unthreaded: int
    changed: int


def lead_of_note(note: Unthreaded, config: ConstructionConfig) -> str | None:
    """The text a note's thread vector embeds before its context, if its latest source
    continues the thread of the observation stored before it.
    """
    before = note.before
    if before is None or not in_thread(before, note.source, config.thread_gap):
        return None
    return before.text


async def _write(
    database: Database,
    namespace: Sequence[str],
    notes: Sequence[Unthreaded],
    vectors: Sequence[Sequence[float]],
) -> int:
    """Write each note's thread vector in one transaction; how many were still unchanged."""
    async with Repository.open(database) as repo:
        written = [
            await repo.set_thread_vector(namespace, note.note_id, note.context, vector)
            for note, vector in zip(notes, vectors, strict=True)
        ]
    return sum(written)


async def rethread_namespace(
    database: Database,
    embeddings: Embeddings,
    namespace: Sequence[str],
    config: ConstructionConfig,
    *,
    batch_size: int = 64,
    progress: ProgressLike = None,
) -> RethreadReport:
    """Give the namespace's unthreaded notes their thread vectors (see the module).

    Args:
        database: Where memory lives.
        embeddings: The memory's embedder.
        namespace: The namespace (validated).
        config: Construction settings (the thread gap).
        batch_size: Notes read, and thread texts embedded, per batch.
        progress: ``True`` for a progress bar on stderr, or a ``(done, total)`` callback.
    """
    report = progress_callback(progress, "rethread")
    async with Repository.open(database, autocommit=True) as repo:
        total = await repo.unthreaded_count(namespace)
    examined = threaded = unthreaded = after = 0
    while True:
        async with Repository.open(database, autocommit=True) as repo:
            batch = await repo.unthreaded_notes(namespace, after, batch_size, config.thread_gap)
        if not batch:
            break
        after = batch[-1].note_id
        leads = [(note, lead_of_note(note, config)) for note in batch]
        threads = [(note, lead) for note, lead in leads if lead is not None]
        texts = [thread_text(lead, note.context) for note, lead in threads]
        vectors = await embeddings.aembed_documents(texts) if texts else []
        threaded += await _write(database, namespace, [n for n, _ in threads], vectors)
        examined, unthreaded = examined + len(batch), unthreaded + len(batch) - len(threads)
        if report is not None:
            report(min(examined, total), max(total, examined))
    if report is not None and examined < total:
        report(total, total)
    changed = examined - threaded - unthreaded
    return RethreadReport(examined, threaded, unthreaded, changed)
