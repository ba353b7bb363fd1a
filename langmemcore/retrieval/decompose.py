"""decompose: query -> topic description + keywords (+ times), embedded in one batch.

Offline by :func:`langmemcore.text.analyze_query`; with an LLM by the paper's query-intent
prompt (malformed output or an endpoint error -> the offline decomposition).
"""

from __future__ import annotations

import logging
from datetime import datetime

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._errors import LLMOutputError, LLMUnavailableError
from langmemcore.prompts import call_structured
from langmemcore.prompts.query_intent import QueryIntent, render_query_intent_prompt
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.text import analyze_query, normalize_keyword

__all__ = ["plan_query"]

_log = logging.getLogger("langmemcore.retrieval")


async def plan_query(
    text: str,
    embeddings: Embeddings,
    *,
    llm: BaseChatModel | None = None,
    round: int = 0,
    reference: datetime | None = None,
    retries: int = 1,
) -> QueryPlan:
    """Decompose and embed a (sub-)query.

    Args:
        text: The query.
        embeddings: Embedder of the query, its topic and keywords.
        llm: Optional chat model for the query-intent prompt.
        round: Refinement round the plan belongs to.
        reference: Time that relative dates in the query refer to.
        retries: LLM retries before the offline fallback.
    """
    analysis = analyze_query(text, reference)
    topic, keywords = analysis.topic, analysis.keywords
    if llm is not None:
        try:
            intent = await call_structured(
                llm, render_query_intent_prompt(text), QueryIntent, retries=retries
            )
            topic = intent.topic_desc
            keywords = tuple(
                dict.fromkeys(k for k in (normalize_keyword(w) for w in intent.keywords) if k)
            )
        except (LLMOutputError, LLMUnavailableError) as exc:
            _log.warning("query-intent prompt failed, decomposing offline: %s", exc)
    vectors = await embeddings.aembed_documents([text, topic, *keywords])
    return QueryPlan(
        text=text,
        topic=topic,
        keywords=keywords,
        entities=analysis.entities,
        times=analysis.times,
        vector=tuple(vectors[0]),
        topic_vector=tuple(vectors[1]),
        keyword_vectors=tuple(tuple(v) for v in vectors[2:]),
        round=round,
    )
