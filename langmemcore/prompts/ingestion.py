"""The semantic-ingestion prompt: keywords and a denoised context of one observation.

Two prompt sets: ``"grounded"`` (the default) gives the instructions and one made-up
example first and the observation last, so that a small model cannot take the example
for the input and a server's prefix cache holds everything before it; ``"paper"`` is
MemCoRe's prompt (appendix C.1.1) verbatim, for reproducing the paper. Whatever the
answer, only what the observation supports is kept (see
:mod:`langmemcore.prompts._ground`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from langmemcore.prompts._clean import Context, Keywords

__all__ = ["PROMPT_SETS", "STEP", "SemanticIngestion", "render_ingestion_prompt"]

STEP = "ingestion"
"""The step name this prompt's calls are counted under."""

PROMPT_SETS = ("grounded", "paper")
"""The prompt sets construction can send."""

GROUNDED = """You restate one chat message as a note for a memory. Answer with JSON only.
Rules:
1. context: one or two self-contained sentences saying what the message says and \
nothing else. Write the speaker's name for I, me, my and we; write a date for \
"yesterday" or "last week" from the time given; keep any other pronoun whose person the \
message does not name. Never add a person, place or thing the message does not mention. \
A message that only reacts ("haha", "wow, nice") is restated as that reaction.
2. keywords: up to 5 short noun phrases written in the message (people, places, \
organisations, objects, topics); none for a message that only reacts.
Example message: [14 March 2021] Wenceslas: finally repainted the old dinghy yesterday, \
saffron yellow now!
Example answer: {{"keywords": ["dinghy", "saffron yellow"], "context": "Wenceslas \
repainted the old dinghy saffron yellow on 13 March 2021."}}
The example shows the format only; nothing in it is part of the message below.
Message: {content}
Answer:"""

PAPER = """You are an expert Knowledge Graph Extractor. Your task is to analyze the \
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


def render_ingestion_prompt(
    text: str, speaker: str | None, when: str | None, prompt_set: str = "grounded"
) -> str:
    """Fill the prompt of ``prompt_set`` (one of :data:`PROMPT_SETS`) with one observation
    (speaker and time prefixed, as in the paper).
    """
    content = f"{speaker}: {text}" if speaker else text
    if when:
        content = f"[{when}] {content}"
    return (PAPER if prompt_set == "paper" else GROUNDED).format(content=content)
