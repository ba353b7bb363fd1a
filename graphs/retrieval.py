"""Entry point of the retrieval graph for LangGraph's CLI / Studio (``langgraph.json``).

Invoke it with a ``RetrievalContext`` as the runtime context, e.g.
``await graph.ainvoke({"namespace": ns, "query": "Where does Maya live?", "k": 5},
context=ctx)``; the evidence is in the output's ``results``.
"""

from __future__ import annotations

from langmemcore.retrieval import build_retrieval_graph

graph = build_retrieval_graph()
