"""Iterative evidence refinement: is the evidence pool sufficient, and if not, what to
ask next.

Offline the test is deterministic: the words of the query's keywords must each appear
among the best notes (in their keywords or context terms, compared by stem, so that
"pursue" is covered by "pursuing") and a date the query names must match a best
note's event time; the sub-query is built from what is missing plus the keywords of the
best notes' neighbourhood (the bridge entities of multi-hop questions). A round runs only
when what is missing is something it can find: a keyword memory stores (a cue the pool
lacks though memory holds it), or a date when the round runs the time channel. With an LLM the
paper's sufficiency and sub-query prompts decide.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from langmemcore.prompts import call_model, call_structured
from langmemcore.prompts.sufficiency import (
    SUBQUERY_STEP,
    SUFFICIENCY_STEP,
    Sufficiency,
    parse_subquery,
    render_subquery_prompt,
    render_sufficiency_prompt,
)
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.text import content_stem_set, stem

__all__ = ["EvidenceNote", "Verdict", "judge_offline", "judge_with_llm"]


@dataclass(frozen=True)
class EvidenceNote:
    """What the sufficiency test reads of a note."""

    note_id: int
    context: str
    keywords: tuple[str, ...]
    event_day: str | None


@dataclass(frozen=True)
class Verdict:
    """The sufficiency decision.

    Attributes:
        sufficient: Whether to stop refining.
        missing: What is missing, in words.
        subquery: The next query, or ``None`` to stop.
        keywords: The sub-query's keywords when the judge built it from keywords (offline);
            empty when they are to be extracted from its text.
    """

    sufficient: bool
    missing: str
    subquery: str | None
    keywords: tuple[str, ...] = ()


def judge_offline(
    plan: QueryPlan,
    evidence: Sequence[EvidenceNote],
    asked: Sequence[str],
    *,
    stored: Collection[str] | None = None,
    times: bool = True,
) -> Verdict:
    """Deterministic coverage test and sub-query (see the module docstring).

    A sub-query is asked only for what a round can find: keywords memory stores (when
    ``stored`` is given) and, when the round runs the time channel, dates. Anything else
    missing is named in the verdict, and refinement stops.

    Args:
        plan: The original query's plan.
        evidence: The best notes so far, best first.
        asked: Queries already run (a sub-query is never repeated).
        stored: The plan's keywords memory stores (``None``: treat every keyword as
            stored).
        times: Whether a missing date can be asked for.
    """
    covered: set[str] = set()
    for note in evidence:
        covered.update(stem(word) for keyword in note.keywords for word in keyword.split())
        covered |= content_stem_set(note.context)
    lacking = [k for k in plan.keywords if not {stem(w) for w in k.split()} <= covered]
    askable = [k for k in lacking if stored is None or k in stored]
    days = {n.event_day for n in evidence if n.event_day}
    dates: list[str] = []
    if plan.times and not any(
        m.start.isoformat() <= d <= m.end.isoformat() for m in plan.times for d in days
    ):
        dates = [m.text for m in plan.times]
    missing = ", ".join([*lacking, *dates])
    wanted = [*askable, *(dates if times else [])]
    if not missing:
        return Verdict(True, "", None)
    bridge = [k for note in evidence[:3] for k in note.keywords if k not in plan.keywords]
    keywords = tuple(dict.fromkeys([*wanted, *bridge[:3]])) if wanted else ()
    subquery = " ".join(keywords)
    if not subquery or subquery in asked:
        return Verdict(True, missing, None)
    return Verdict(False, missing, subquery, keywords)


def _context(evidence: Sequence[EvidenceNote]) -> str:
    return "\n".join(f"[note {n.note_id}] {n.context}" for n in evidence)


async def judge_with_llm(
    llm: BaseChatModel,
    question: str,
    evidence: Sequence[EvidenceNote],
    asked: Sequence[str],
    retries: int = 1,
) -> Verdict:
    """The paper's sufficiency evaluator, then its sub-query generator when insufficient.

    Raises:
        LLMOutputError: The evaluator's answer stayed malformed.
        LLMUnavailableError: The endpoint failed, or the model is skipped.
    """
    context = _context(evidence)
    judgement = await call_structured(
        llm,
        render_sufficiency_prompt(question, context),
        Sufficiency,
        step=SUFFICIENCY_STEP,
        retries=retries,
    )
    if judgement.sufficient:
        return Verdict(True, "", None)
    history = "\n".join(f"- {q}" for q in asked[1:])
    prompt = render_subquery_prompt(question, context, history, judgement.missing_info)
    subquery = await call_model(llm, prompt, parse_subquery, step=SUBQUERY_STEP, retries=0)
    if subquery is None or subquery in asked:
        return Verdict(True, judgement.missing_info, None)
    return Verdict(False, judgement.missing_info, subquery)
