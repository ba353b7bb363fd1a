"""LangGraph's own cost in one offline search: the retrieval graph as built, the same
nodes as four steps (``decompose -> channel -> fuse -> pack``, the shape before
``channel_fuse_pack``) and the same node functions called one after another without
LangGraph, in one process on one loaded memory.

Run from the repository root: ``python benchmarks/graph_steps.py DATA --namespace A.B
[--url URL] [--questions 60] [--rounds 4]`` (``--url`` or ``LANGMEMCORE_HOME`` names the
database, for example the memory of ``benchmarks/ranked_notes.py ingest``). The query
embeddings are computed once and then served from a cache, so that what differs is the
graph, not the embedder; the query log is not written (the graph does not write it). Each
question goes to the three variants back to back, the first rotating, after one warm-up
pass; printed: each variant's p50 and mean ms, and that every variant returned the same
notes.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from langmemcore.config import RetrievalConfig
from langmemcore.embeddings import LocalEmbeddings
from langmemcore.locomo import load_locomo
from langmemcore.retrieval import RetrievalContext, build_retrieval_graph
from langmemcore.retrieval import graph as nodes
from langmemcore.storage import Database
from langmemcore.storage.database import resolve_database_url

Search = Callable[[dict[str, Any], RetrievalContext], Awaitable[dict[str, Any]]]


class _Runtime:
    """The part of LangGraph's ``Runtime`` the nodes read."""

    def __init__(self, context: RetrievalContext) -> None:
        self.context = context


def four_steps() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The offline default as four supersteps: decompose, channel (one Send), fuse, pack."""

    def fan_out(state: dict[str, Any]) -> list[Send]:
        runnable = [c for c in state["channels"] if c not in nodes.SEEDED_CHANNELS]
        task = {"namespace": state["namespace"], "current": state["current"]}
        return [Send("channel", {**task, "group": g}) for g in nodes.channel_groups(runnable)]

    graph = StateGraph(
        nodes.RetrievalState, context_schema=RetrievalContext, input_schema=nodes.RetrievalInput
    )
    graph.add_node("decompose", nodes.decompose)
    graph.add_node("channel", nodes.channel)
    graph.add_node("fuse", nodes.fuse_node)
    graph.add_node("pack", nodes.pack)
    graph.add_edge(START, "decompose")
    graph.add_conditional_edges("decompose", fan_out, ["channel"])
    graph.add_edge("channel", "fuse")
    graph.add_conditional_edges("fuse", lambda _state: "pack", ["pack"])
    graph.add_edge("pack", END)
    return graph.compile()


async def direct(state: dict[str, Any], context: RetrievalContext) -> dict[str, Any]:
    """The same node functions one after another, without LangGraph."""
    runtime: Any = _Runtime(context)
    state = {**state, **await nodes.decompose(state, runtime), "rankings": []}
    for group in nodes.channel_groups(state["channels"]):
        state["rankings"] += (await nodes.channel({**state, "group": group}, runtime))["rankings"]
    state.update(await nodes.fuse_node(state, runtime))
    return {**state, **await nodes.pack(state, runtime)}


def _graph_search(graph: CompiledStateGraph[Any, Any, Any, Any]) -> Search:
    async def search(state: dict[str, Any], context: RetrievalContext) -> dict[str, Any]:
        return dict(await graph.ainvoke(state, context=context))

    return search


async def _run(args: argparse.Namespace) -> None:
    database = Database.connect(resolve_database_url(args.url))
    embeddings = LocalEmbeddings()
    cache: dict[tuple[str, ...], list[list[float]]] = {}
    embed = embeddings.aembed_documents

    async def cached(texts: list[str]) -> list[list[float]]:
        if tuple(texts) not in cache:
            cache[tuple(texts)] = await embed(texts)
        return cache[tuple(texts)]

    embeddings.aembed_documents = cached  # type: ignore[method-assign]
    context = RetrievalContext(database, embeddings, RetrievalConfig())
    variants: dict[str, Search] = {
        "as built": _graph_search(build_retrieval_graph()),
        "four steps": _graph_search(four_steps()),
        "no LangGraph": direct,
    }
    questions = [q.question for c in load_locomo(args.path) for q in c.retrieval_questions]
    asked = questions[: args.questions]
    namespace = tuple(args.namespace.split("."))
    spent: dict[str, list[float]] = {name: [] for name in variants}
    for round in range(args.rounds + 1):
        for index, question in enumerate(asked):
            state = {"namespace": namespace, "query": question, "k": 20}
            names = list(variants)
            first = (round * len(asked) + index) % len(names)
            found = set()
            for name in names[first:] + names[:first]:
                start = time.perf_counter()
                result = await variants[name](state, context)
                if round:
                    spent[name].append((time.perf_counter() - start) * 1000)
                found.add(tuple(n.note_id for n in result["results"]))
            assert len(found) == 1, f"the variants disagree on {question!r}"
    for name, ms in spent.items():
        print(f"{name:>14}: p50 {np.median(ms):6.2f} ms, mean {np.mean(ms):6.2f} ms")
    print(f"same notes from every variant on all {len(asked)} questions")
    await database.dispose()


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--url", default=None)
    parser.add_argument("--namespace", required=True, help="dot-separated")
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=4, help="measured passes")
    asyncio.run(_run(parser.parse_args()))


if __name__ == "__main__":
    main()
