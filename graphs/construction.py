"""Entry point of the construction graph for LangGraph's CLI / Studio (``langgraph.json``).

Invoke it with a ``ConstructionContext`` as the runtime context, e.g.
``await graph.ainvoke({"namespace": ns, "observation": obs}, context=ctx)``.
"""

from __future__ import annotations

from langmemcore.construction import build_construction_graph

graph = build_construction_graph()
