"""The gate, as pure functions: how strongly a new note relates to each candidate, and
whether it is merged (redundant), linked (complementary or conflicting) or appended (novel).

Offline the strength is a calibrated similarity: cosine similarity of the context
embeddings mapped onto [0, 1] so that near-paraphrases land above the merge threshold and
same-subject statements in the link band, blended with keyword overlap. Conflicts are
detected as opposite polarity over largely shared content. The calibration is part of
:class:`~langmemcore.config.ConstructionConfig` (``cosine_floor``, ``cosine_ceiling``,
``keyword_weight``, ``supports_strength``, ``conflict_overlap``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from langmemcore.analysis import Analysis
from langmemcore.config import ConstructionConfig
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.text import content_term_set, content_terms
from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import sentences

__all__ = [
    "Candidate",
    "Decision",
    "GateResult",
    "NoteDraft",
    "calibrated_strength",
    "decide",
    "detect_relation",
    "keyword_overlap",
    "merge_contexts",
]

_NEGATION = phrases("polarity.negation")


@dataclass(frozen=True)
class NoteDraft:
    """An observation turned into a note shape, before it meets memory.

    Attributes:
        context: Denoised, self-contained restatement (or the raw text without denoising).
        keywords: Normalised keywords, most salient first.
        entities: Proper names mentioned (speaker included).
        embedding: Embedding of ``context``.
        event_time: When the observation happened, if known.
        speaker: Who said it, if known.
        origin: ``"offline"``, ``"llm"``, or ``"fallback"`` (LLM failed, offline used).
        statements: What it states about its subjects' aspects (the semantic layer;
            empty when profiles are off).
        lead: Text of the observation before it in its thread, if any
            (:mod:`~langmemcore.construction.thread`).
        thread_embedding: Embedding of ``context`` after ``lead`` (empty without a lead:
            the note's thread vector is then its own embedding).
        analysis: What the observation says (:func:`~langmemcore.analysis.analyze`),
            stored with it.
    """

    context: str
    keywords: tuple[str, ...]
    entities: tuple[str, ...]
    embedding: tuple[float, ...]
    event_time: datetime | None
    speaker: str | None
    origin: str = "offline"
    statements: tuple[AspectStatement, ...] = ()
    lead: str | None = None
    thread_embedding: tuple[float, ...] = ()
    analysis: Analysis = field(default_factory=Analysis)


@dataclass(frozen=True)
class Candidate:
    """An existing active note the gate compares the draft with.

    Attributes:
        note_id: The note's id.
        context: Its context.
        keywords: Its keywords.
        similarity: Cosine similarity of its embedding and the draft's.
        source_count: How many observations it was built from.
        said: When it was last said (its ``valid_from``), if known.
        changes: Whether a source of it announces a change (its stored analysis).
    """

    note_id: int
    context: str
    keywords: tuple[str, ...]
    similarity: float
    source_count: int
    said: datetime | None = None
    changes: bool = False


@dataclass(frozen=True)
class Decision:
    """The gate's verdict on one candidate.

    Attributes:
        note_id: The candidate.
        operation: ``"merge"``, ``"link"`` or ``"append"`` (no relation).
        relation: ``"supports"``, ``"conflicts"`` or ``"related_to"``.
        strength: Connection strength in [0, 1].
        reason: Why, in words (stored with the edge and the lineage row).
        tag: Short label of the association (shared keyword), MRAgent's tag.
    """

    note_id: int
    operation: str
    relation: str
    strength: float
    reason: str
    tag: str | None = None


@dataclass(frozen=True)
class GateResult:
    """What to do with a draft: merge into ``target`` or append; plus edges.

    Attributes:
        operation: ``"merge"`` or ``"append"``.
        target: The note merged into (``None`` for append).
        links: Edges to create from the resulting note, strongest first.
        decisions: Every per-candidate verdict, for the record.
        reason: Why, in words.
        merged_context: The merged context an LLM wrote, if any (offline: ``None``, the
            sentence-level union is used).
    """

    operation: str
    target: int | None
    links: tuple[Decision, ...]
    decisions: tuple[Decision, ...]
    reason: str
    merged_context: str | None = None


def keyword_overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard overlap of two keyword lists (0 when both are empty)."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def calibrated_strength(similarity: float, overlap: float, config: ConstructionConfig) -> float:
    """Map cosine similarity and keyword overlap onto a connection strength in [0, 1], with
    the calibration of ``config``.
    """
    floor, ceiling, weight = config.cosine_floor, config.cosine_ceiling, config.keyword_weight
    scaled = (similarity - floor) / (ceiling - floor)
    blended = (1.0 - weight) * scaled + weight * overlap
    return round(min(1.0, max(0.0, blended)), 4)


def _polarity(text: str) -> bool:
    return _NEGATION.count(text) % 2 == 1


def detect_relation(
    draft_context: str, candidate_context: str, strength: float, config: ConstructionConfig
) -> str:
    """Classify the relation: ``conflicts`` (opposite polarity over shared content),
    ``supports`` (near-paraphrase) or ``related_to``, with the thresholds of ``config``.
    """
    terms_a = content_term_set(draft_context)
    terms_b = content_term_set(candidate_context)
    shared = len(terms_a & terms_b) / max(1, min(len(terms_a), len(terms_b)))
    opposite = _polarity(draft_context) != _polarity(candidate_context)
    if shared >= config.conflict_overlap and opposite:
        return "conflicts"
    if strength >= config.supports_strength:
        return "supports"
    return "related_to"


def _tag(draft: NoteDraft, candidate: Candidate) -> str | None:
    shared = [k for k in draft.keywords if k in set(candidate.keywords)]
    if shared:
        return shared[0]
    return draft.keywords[0] if draft.keywords else None


def _changes_one(draft: NoteDraft, candidate: Candidate) -> bool:
    """Whether one of the two announces a change to what the other, said before it,
    says (their analyses, see :attr:`~langmemcore.analysis.Analysis.changes`): the draft
    ("I quit the bakery", "I've given up keto"), or the candidate when the draft arrives
    late, said before it.
    """
    if draft.analysis.changes:
        return True
    said, time = candidate.said, draft.event_time
    return candidate.changes and said is not None and time is not None and time < said


def judge(draft: NoteDraft, candidate: Candidate, config: ConstructionConfig) -> Decision:
    """The offline verdict on one candidate. A change and the statement it changes are
    two pieces of information however close they are (:func:`_changes_one`): they are
    linked, never merged, so the older statement stays a note of its own for validity and
    supersession to order, in whichever order the two arrive.
    """
    overlap = keyword_overlap(draft.keywords, candidate.keywords)
    strength = calibrated_strength(candidate.similarity, overlap, config)
    relation = detect_relation(draft.context, candidate.context, strength, config)
    basis = f"cosine {candidate.similarity:.2f}, keyword overlap {overlap:.2f}"
    if relation == "conflicts" and strength >= config.link_threshold:
        operation, why = "link", f"conflicting ({basis}): opposite polarity"
    elif strength >= config.merge_threshold and not _changes_one(draft, candidate):
        operation, why = "merge", f"redundant ({basis})"
    elif strength >= config.link_threshold:
        operation, why = "link", f"complementary ({basis})"
    else:
        return Decision(candidate.note_id, "append", relation, strength, f"distinct ({basis})")
    return Decision(candidate.note_id, operation, relation, strength, why, _tag(draft, candidate))


def decide(
    draft: NoteDraft,
    candidates: Sequence[Candidate],
    config: ConstructionConfig,
    verdicts: Sequence[Decision] | None = None,
) -> GateResult:
    """Turn per-candidate verdicts into one operation plus edges.

    Args:
        draft: The new note draft.
        candidates: Existing notes to compare with.
        config: Thresholds and ablation switches.
        verdicts: Verdicts already made (e.g. by an LLM) for some candidates; the rest
            are judged offline.

    Returns:
        Merge into the strongest redundant candidate that still takes sources, else
        append; link to the strongest complementary or conflicting candidates.
    """
    if config.mode == "append_only" or not candidates:
        why = "append-only mode" if config.mode == "append_only" else "no candidates"
        return GateResult("append", None, (), (), why)
    given = {v.note_id: v for v in verdicts or ()}
    decisions = tuple(
        sorted(
            (given.get(c.note_id) or judge(draft, c, config) for c in candidates),
            key=lambda d: (-d.strength, d.note_id),
        )
    )
    full = {c.note_id for c in candidates if c.source_count >= config.max_sources_per_note}
    merge = (
        next(
            (
                d
                for d in decisions
                if d.operation == "merge" and d.relation != "conflicts" and d.note_id not in full
            ),
            None,
        )
        if config.enable_merge
        else None
    )
    links: tuple[Decision, ...] = ()
    if config.enable_link:
        linkable = [
            d
            if d.operation == "link"
            else Decision(d.note_id, "link", d.relation, d.strength, d.reason, d.tag)
            for d in decisions
            if d.operation in ("link", "merge") and (merge is None or d.note_id != merge.note_id)
        ]
        links = tuple(linkable[: config.max_links])
    if merge is not None:
        return GateResult("merge", merge.note_id, links, decisions, merge.reason)
    reason = links[0].reason if links else (decisions[0].reason if decisions else "novel")
    return GateResult("append", None, links, decisions, f"novel; best candidate {reason}")


def merge_contexts(existing: str, new: str) -> str:
    """Sentence-level union: keep every sentence of ``existing`` and add the sentences of
    ``new`` whose content is not already there (no distinct fact is lost).
    """
    kept = sentences(existing)
    seen = [set(content_terms(s)) for s in kept]
    for sentence in sentences(new):
        terms = set(content_terms(sentence))
        duplicate = any(
            terms == other or (terms and len(terms & other) / len(terms) >= 0.9) for other in seen
        )
        if not duplicate:
            kept.append(sentence)
            seen.append(terms)
    return " ".join(kept)
