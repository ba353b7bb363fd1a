"""MemCoRe's semantic-ingestion prompt (appendix C.1.1): keywords and denoised context."""

from __future__ import annotations

from pydantic import BaseModel, Field

from langmemcore.prompts._clean import Context, Keywords

__all__ = ["SemanticIngestion", "render_ingestion_prompt"]

PROMPT = """You are an expert Knowledge Graph Extractor. Your task is to analyze the \
[TARGET TURN] to extract structured metadata.
Input Text: {content}
Guidelines:
1. Keywords (Entities): GOAL: Extract 3-5 specific Noun Phrases explicitly present in the \
text. FOCUS PRIORITIES: Proper Nouns: People (e.g., "Melanie"), Locations, Organizations. \
Concrete Objects: Physical items (e.g., "painting", "plate", "contract"). Specific Topics: \
"LGBTQ support group", "deadline". CRITICAL STOP LIST: Ignore conversational meta-roles, \
abstract terms, and speaker names acting purely as subjects. ZERO-SHOT RULE: If the text is \
purely phatic (e.g., "Wow", "That's cool"), return an empty list.
2. Context (Factual Restatement): GOAL: Rewrite the text into a self-contained factual \
statement. CONSTRAINT 1 (Strict Fidelity): Only use information present in the Input Text. \
CONSTRAINT 2 (Safe Resolution): Resolve "I/my/we" using the Speaker's name if it appears in \
the text. For external pronouns where the antecedent is missing, keep the pronoun or use a \
generic term. Do not guess. CONSTRAINT 3 (No Meta-Language): Start directly with the \
subject. Avoid "The speaker says...".
Output Format (JSON): {{"keywords": ["entity1", "entity2"], "context": "Melanie thinks the \
item is cool."}}"""


class SemanticIngestion(BaseModel):
    """The prompt's JSON answer, cleaned and bounded (see :mod:`langmemcore.prompts._clean`)."""

    keywords: Keywords = Field(default_factory=list)
    """Noun phrases present in the text."""

    context: Context
    """Self-contained factual restatement."""


def render_ingestion_prompt(text: str, speaker: str | None, when: str | None) -> str:
    """Fill the prompt with one observation (speaker and time prefixed, as in the paper)."""
    content = f"{speaker}: {text}" if speaker else text
    if when:
        content = f"[{when}] {content}"
    return PROMPT.format(content=content)
