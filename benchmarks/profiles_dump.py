"""Dump every profile a bulk ingest builds, to diff two versions of the code.

Ingests each LoCoMo conversation of a file and each conversation of a profile set
(``tests/data/profile_facts.json`` layout) with ``ingest_many`` (offline, profiles on) into
its own namespace of a fresh embedded database, then writes one JSON document: per
namespace, every subject's profile (aspects, values, current, times, end, replacement,
sources by observation key and role) and the ``conflicts`` edges the layer wrote (from the
keys of the note's observations, with tag and reason). Database ids are left out, so two runs
of the same code give the same file.

Run from the repository root (then ``diff`` two outputs):
``python benchmarks/profiles_dump.py ../shared/data/locomo-dev.json
tests/data/profile_facts.json --out /tmp/profiles.json``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from dataclasses import asdict
from datetime import date, datetime
from pathlib import Path
from typing import Any

from langmemcore.construction.ingest import ObservationIn
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.io import conversation_observations
from langmemcore.locomo import load_locomo
from langmemcore.memory import Memory
from langmemcore.storage import Database, Repository, upgrade
from langmemcore.storage.embedded import embedded_database_url

__all__ = ["main"]


def _conversations(path: Path) -> dict[str, list[ObservationIn]]:
    """Observations per conversation of a LoCoMo file or a profile set."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return {c.sample_id: conversation_observations(c) for c in load_locomo(path)}
    return {
        c["id"]: [
            ObservationIn(
                f"{c['id']}-{n}",
                t["text"],
                t["speaker"],
                datetime.combine(date.fromisoformat(t["date"]), datetime.min.time()),
            )
            for n, t in enumerate(c["turns"])
        ]
        for c in data["conversations"]
    }


def _profile(profile: Any) -> dict[str, Any]:
    found = asdict(profile)
    for aspect in found["aspects"]:
        for value in aspect["values"]:
            for source in value["sources"]:
                source.pop("observation_id")
    return found


async def _dump(
    memory: Memory, namespace: tuple[str, ...], observations: list[ObservationIn], report: Any
) -> dict[str, Any]:
    subjects = await memory.asubjects(namespace)
    profiles = [_profile(await memory.aprofile(namespace, s.subject)) for s in subjects]
    held: dict[int, list[str]] = {}
    for observation, result in zip(observations, report.results, strict=True):
        if result.note_id is not None:
            held.setdefault(result.note_id, []).append(observation.key)
    keys = {note: " ".join(sorted(k)) for note, k in held.items()}
    async with Repository.open(memory.database, autocommit=True) as repo:
        edges = await repo.edges_of(namespace, list(keys))
    conflicts = sorted(
        (keys.get(e.source_id, "?"), keys.get(e.target_id, "?"), e.tag, e.reason)
        for e in edges
        if e.relation == "conflicts"
    )
    return {"profiles": profiles, "conflicts": sorted(set(conflicts))}


async def _run(paths: list[Path], out: Path) -> None:
    database = Database(embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-dump-"))))
    upgrade(database)
    memory = Memory(database, LocalEmbeddings())
    dumped: dict[str, Any] = {}
    for path in paths:
        for name, observations in _conversations(path).items():
            namespace = ("dump", path.stem.replace(".", "_").replace("-", "_"), name)
            report = await memory.aingest_many(namespace, observations)
            await memory.aflush()
            dumped[".".join(namespace)] = await _dump(memory, namespace, observations, report)
            print(f"{'.'.join(namespace)}: {len(dumped['.'.join(namespace)]['profiles'])} subjects")
    out.write_text(json.dumps(dumped, indent=1, sort_keys=True, default=str), encoding="utf-8")


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+", help="LoCoMo files or profile sets")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(_run(args.paths, args.out))


if __name__ == "__main__":
    main()
