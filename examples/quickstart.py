"""Quickstart: remember a short conversation offline and look at what memory built.

Runs on the embedded Postgres (or DATABASE_URL) with the local embedder; no LLM needed.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from langmemcore.construction import ObservationIn
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository, upgrade

TURNS = [
    ("Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "I painted a sunrise over the lake last weekend."),
    ("Melanie", "I painted a sunrise over the lake last weekend!"),
    ("Caroline", "The support group made me feel accepted and brave."),
]


async def main() -> None:
    upgrade(Database.connect())
    memory = await Memory.aopen()
    namespace = ("quickstart", uuid.uuid4().hex[:8])
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    observations = [
        ObservationIn(f"D1:{i + 1}", text, speaker, when) for i, (speaker, text) in enumerate(TURNS)
    ]
    report = await memory.aingest_many(namespace, observations)
    for result in report.results:
        print(f"{result.operation:7s} note {result.note_id}: {result.reason}")
    note_ids = sorted({result.note_id for result in report.results})
    async with Repository.open(memory.database) as repo:
        for note in await repo.get_notes(namespace, note_ids):
            print(f"[{note.status}] {note.context}  keywords={list(note.keywords)}")


if __name__ == "__main__":
    asyncio.run(main())
