"""MemCoRe's iterative evidence refinement prompts (appendix C.2.2): the sufficiency
evaluator (JSON) and the sub-query generator (plain text, ``None`` when done).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from langmemcore.prompts._clean import Reason, cut_label

__all__ = [
    "SUBQUERY_STEP",
    "SUFFICIENCY_STEP",
    "Sufficiency",
    "parse_subquery",
    "render_subquery_prompt",
    "render_sufficiency_prompt",
]

SUFFICIENCY_STEP = "sufficiency"
"""The step name the sufficiency prompt's calls are counted under."""
SUBQUERY_STEP = "subquery"
"""The step name the sub-query prompt's calls are counted under."""

SUFFICIENCY = """You are a reflector agent that evaluates whether the current context and \
answer is sufficient to answer a question.
Question: {question}
Current Context and Current Answer: {context}
Evaluate whether the provided context and answer contains enough information to answer the \
question comprehensively. If the context and answer is insufficient, identify what specific \
information is missing.
Output Format (JSON): {{"sufficient": true or false, "missing_info": "description of \
missing information", "confidence": 0.0 to 1.0}}"""

SUBQUERY = """You are a Query Evolution Agent. Your goal is to decompose a complex user \
question into a specific, actionable sub-query to retrieve missing information from a \
Knowledge Graph.
Original Question: "{query_str}"
Current Known Information (Context): {context_str}
History of Reasoning Steps (Q&A): {prev_reasoning}
CRITICAL: The Reflector Agent has identified the following MISSING INFORMATION needed to \
answer the main question: {missing_info}
Task: Based on the "Missing Information" and "History", formulate the NEXT single \
sub-question to retrieve this missing info. The sub-question must be specific. It should act \
as a search query for the next hop. If we have enough information to answer the main \
question, return 'None'.
Sub-question:"""


class Sufficiency(BaseModel):
    """The sufficiency evaluator's JSON answer, cleaned and bounded (see
    :mod:`langmemcore.prompts._clean`).
    """

    sufficient: bool
    """Whether the evidence answers the question."""

    missing_info: Reason = ""
    """What is missing, in words."""

    confidence: float = Field(default=0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    """The evaluator's confidence."""


def render_sufficiency_prompt(question: str, context: str) -> str:
    """Fill the sufficiency prompt."""
    return SUFFICIENCY.format(question=question, context=context)


def render_subquery_prompt(query: str, context: str, history: str, missing: str) -> str:
    """Fill the sub-query prompt."""
    return SUBQUERY.format(
        query_str=query,
        context_str=context,
        prev_reasoning=history or "(none)",
        missing_info=missing,
    )


def parse_subquery(text: str) -> str | None:
    """The sub-question in the model's answer (cleaned, cut to ``LLM_MAX_LABEL_CHARS``), or
    ``None`` when it says none is needed.
    """
    text = cut_label(text)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.removeprefix("Sub-question:").strip().strip('"').strip()
    if not line or line.lower().rstrip(".") in {"none", "null", "n/a"}:
        return None
    return line
