"""MemCoRe's semantic-ingestion prompt (appendix C.1.1): keywords and denoised context."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

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
    """The prompt's JSON answer."""

    keywords: list[str] = Field(default_factory=list, max_length=12)
    """Noun phrases present in the text."""

    context: str = Field(min_length=1)
    """Self-contained factual restatement."""

    @field_validator("context")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("context is blank")
        return value.strip()


def render_ingestion_prompt(text: str, speaker: str | None, when: str | None) -> str:
    """Fill the prompt with one observation (speaker and time prefixed, as in the paper)."""
    content = f"{speaker}: {text}" if speaker else text
    if when:
        content = f"[{when}] {content}"
    return PROMPT.format(content=content)
