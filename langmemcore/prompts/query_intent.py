"""MemCoRe's query-intent prompt (appendix C.2.1): topic description and entities."""

from __future__ import annotations

from pydantic import BaseModel, Field

from langmemcore.prompts._clean import Keywords, Label

__all__ = ["STEP", "QueryIntent", "render_query_intent_prompt"]

STEP = "intent"
"""The step name this prompt's calls are counted under."""

PROMPT = """Analyze the user query to identify its Target Taxonomy Category, extract key \
entities, and detect time-related intent.
Task 1: topic_desc (Target Category) Predict the Taxonomy Category or Subject Heading this \
query falls under. Style: Strict Noun Phrase (like a book chapter title or library \
category). Constraint: Keep it under 8 words. Do NOT describe the user's intent (e.g., avoid \
"how to...", "techniques for..."). Instead, name the topic itself.
Task 2: Keywords Extract 3-5 core entities, technical terms, or specific concepts. CRITICAL: \
Convert terms to their canonical singular form (e.g., "transformers" -> "Transformer"). \
Exclude generic verbs or stop words.
Query: {query}
Output Format (JSON): {{"topic_desc": "Concise Noun Phrase", "keywords": ["keyword1", \
"keyword2", "keyword3"]}}"""


class QueryIntent(BaseModel):
    """The prompt's JSON answer, cleaned and bounded (see :mod:`langmemcore.prompts._clean`)."""

    topic_desc: Label
    """Subject heading of the query."""

    keywords: Keywords = Field(default_factory=list)
    """Core entities and concepts."""


def render_query_intent_prompt(query: str) -> str:
    """Fill the prompt with a query."""
    return PROMPT.format(query=query)
