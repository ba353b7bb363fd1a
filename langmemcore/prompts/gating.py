"""MemCoRe's gated-construction prompt (appendix C.1.2): relation and strength per candidate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from langmemcore.prompts._clean import Context, Reason

__all__ = ["STEP", "CandidateJudgement", "GateJudgement", "render_gate_prompt"]

STEP = "gate"
"""The step name this prompt's calls are counted under."""

PROMPT = """Role: You are a Knowledge Graph Updater. Your job is to evaluate the relationship \
between a NEW NODE and existing CANDIDATE NODES.
[NEW NODE] Content: "{content}" Context: "{context}" Keywords: {keywords}
[CANDIDATE NODES]
{candidates_str}
Instructions: Analyze each candidate and generate a JSON response following these rules:
1. Analyze Relationship: Determine relation_type: 'SUPPORTS', 'CONFLICTS', or 'RELATED_TO'. \
Assign connection_strength (0.0 - 1.0), indicating the degree of semantic overlap or logical \
connection.
2. Determine Operation (Based on Strength): CASE A: Strength >= {merge_threshold:g} (High \
Redundancy) -> MERGE Action: Integrate details from the New Node into the candidate's \
context. Template: "[Original Context]. Specifically, [New Node Info]..." CASE B: Strength \
in [{link_threshold:g}, {merge_threshold:g}) (Complementary) -> LINK Action: Establish \
associative edge; keep contexts separate. CASE C: Strength < {link_threshold:g} (Distinct) \
-> APPEND Action: Add New Node as autonomous unit; no modification. CASE D: relation_type \
is 'CONFLICTS' -> LINK with Contrast Action: Note the conflicting information explicitly.
3. Output: Return strictly valid JSON matching the schema: {{"judgements": [{{"candidate_id": \
<id>, "relation_type": "SUPPORTS|CONFLICTS|RELATED_TO", "connection_strength": 0.0, \
"operation": "MERGE|LINK|APPEND", "merged_context": "<only for MERGE>", "reason": "..."}}]}}"""


class CandidateJudgement(BaseModel):
    """The verdict on one candidate, cleaned and bounded (see
    :mod:`langmemcore.prompts._clean`).
    """

    candidate_id: int
    """Id of the candidate note as given in the prompt."""

    relation_type: Literal["SUPPORTS", "CONFLICTS", "RELATED_TO"]
    """Semantic relation."""

    connection_strength: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    """Degree of overlap or logical connection."""

    operation: Literal["MERGE", "LINK", "APPEND"]
    """Construction operation the model chose."""

    merged_context: Context | None = None
    """The unified context, for MERGE."""

    reason: Reason = ""
    """Short justification."""


class GateJudgement(BaseModel):
    """The prompt's JSON answer."""

    judgements: list[CandidateJudgement]
    """One verdict per candidate."""


def render_gate_prompt(
    content: str,
    context: str,
    keywords: Sequence[str],
    candidates: Sequence[tuple[int, str, Sequence[str]]],
    *,
    merge_threshold: float,
    link_threshold: float,
) -> str:
    """Fill the prompt with the new note, its (id, context, keywords) candidates and the
    strengths that decide merge and link.

    Args:
        content: The observation's text.
        context: The new note's context.
        keywords: The new note's keywords.
        candidates: ``(id, context, keywords)`` of each candidate note.
        merge_threshold: Strength at or above which the model merges
            (``ConstructionConfig.merge_threshold``).
        link_threshold: Strength at or above which the model links
            (``ConstructionConfig.link_threshold``).
    """
    lines = "\n".join(
        f'- id {cid}: Context: "{ctx}" Keywords: {list(kws)}' for cid, ctx, kws in candidates
    )
    return PROMPT.format(
        content=content,
        context=context,
        keywords=list(keywords),
        candidates_str=lines,
        merge_threshold=merge_threshold,
        link_threshold=link_threshold,
    )
