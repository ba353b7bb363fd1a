"""Benchmark: what MemoryMiddleware adds to an agent turn.

Run from the repository root: ``python benchmarks/agent_middleware.py [--notes 200]
[--turns 20] [--rounds 3] [--url URL]``.

One ``create_agent`` agent with a scripted chat model (it answers at once, so the turn's
time is the agent's own plus the middleware's), over a memory holding ``--notes`` turns of
one user (a fresh embedded server in a temporary folder unless ``--url`` /
``DATABASE_URL``). Each turn is a statement such as "Remind me what I bought in Lisbon,
take 0-3.", so it is both searched with and written. Three set-ups, measured turn by turn
under ``invoke``, their order rotated each round: no middleware; the middleware recalling
only (``write=False``); the middleware recalling and writing. For the last one the time
from the reply to the end of ``flush()`` (the background write of the turn) is measured
apart. Prints p50 / p95 per set-up and round, after two warm-up turns each.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from langmemcore import Memory, MemoryMiddleware
from langmemcore.construction import ObservationIn
from langmemcore.storage import Database, upgrade
from langmemcore.storage.embedded import embedded_database_url

CITIES = ["Lisbon", "Berlin", "Osaka", "Quito", "Tallinn", "Hobart", "Accra", "Cusco"]
THINGS = ["a bike", "a cello", "a kayak", "a telescope", "a sourdough starter", "a tent"]
FRIENDS = ["Maya", "Jonas", "Priya", "Tomas", "Lena", "Kofi"]


def facts(count: int) -> list[str]:
    """``count`` distinct first-person statements."""
    combos = itertools.cycle(itertools.product(CITIES, THINGS, FRIENDS))
    return [
        f"I bought {thing} in {city} with {friend} (trip {i})."
        for i, (city, thing, friend) in zip(range(count), combos, strict=False)
    ]


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    """Load the memory, then time the three set-ups round by round."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    url = args.url or embedded_database_url(Path(tempfile.mkdtemp(prefix="lmc-bench-")))
    upgrade(Database(url))
    memory = Memory.open(url)
    user = f"bench{uuid.uuid4().hex[:8]}"
    namespace = ("memories", user)
    started = time.perf_counter()
    memory.ingest_many(
        namespace, [ObservationIn(f"f{i}", t, user) for i, t in enumerate(facts(args.notes))]
    )
    print(f"loaded {args.notes} turns in {time.perf_counter() - started:.1f} s")

    write = MemoryMiddleware(memory)
    setups: dict[str, Callable[[], list[MemoryMiddleware]]] = {
        "no middleware": lambda: [],
        "recall only": lambda: [MemoryMiddleware(memory, write=False)],
        "recall + write": lambda: [write],
    }
    for round_ in range(args.rounds):
        order = list(setups)[round_ % 3 :] + list(setups)[: round_ % 3]
        for name in order:
            middleware = setups[name]()
            model = GenericFakeChatModel(messages=itertools.repeat("Noted."))
            agent = create_agent(model, middleware=middleware)
            times, flushes = [], []
            for turn in range(args.turns + 2):
                city = CITIES[turn % len(CITIES)]
                asked = f"Remind me what I bought in {city}, take {round_}-{turn}."
                t0 = time.perf_counter()
                agent.invoke({"messages": [("user", asked)]}, context={"user_id": user})
                t1 = time.perf_counter()
                if middleware and middleware[0].write:
                    middleware[0].flush()
                t2 = time.perf_counter()
                if turn >= 2:
                    times.append((t1 - t0) * 1000)
                    flushes.append((t2 - t1) * 1000)
            line = f"round {round_ + 1} {name:15} turn p50 {statistics.median(times):7.1f} ms"
            line += f"  p95 {percentile(times, 0.95):7.1f} ms"
            if name == "recall + write":
                line += f"  background write p50 {statistics.median(flushes):7.1f} ms"
            print(line)


if __name__ == "__main__":
    main()
