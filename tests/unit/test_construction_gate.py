"""The gate's pure decisions and the sentence-level merge."""

from __future__ import annotations

import pytest

from langmemcore.config import ConstructionConfig
from langmemcore.construction import (
    Candidate,
    Decision,
    NoteDraft,
    calibrated_strength,
    decide,
    merge_contexts,
)
from langmemcore.construction.gate import COSINE_CEILING, COSINE_FLOOR, detect_relation

CONFIG = ConstructionConfig()


def draft(
    context: str = "Caroline adopted a dog.", keywords: tuple[str, ...] = ("dog",)
) -> NoteDraft:
    return NoteDraft(context, keywords, ("Caroline",), (1.0, 0.0), None, "Caroline")


def cand(
    note_id: int,
    similarity: float,
    keywords: tuple[str, ...] = ("dog",),
    context: str = "Caroline has a dog.",
    sources: int = 1,
) -> Candidate:
    return Candidate(note_id, context, keywords, similarity, sources)


def test_strength_is_monotone_and_bounded() -> None:
    assert calibrated_strength(COSINE_FLOOR, 0.0) == 0.0
    assert calibrated_strength(COSINE_CEILING, 1.0) == 1.0
    assert calibrated_strength(1.0, 1.0) == 1.0
    values = [calibrated_strength(s / 20, 0.5) for s in range(21)]
    assert values == sorted(values)
    assert calibrated_strength(0.7, 1.0) > calibrated_strength(0.7, 0.0)


def test_high_strength_merges_into_the_best_candidate() -> None:
    result = decide(draft(), [cand(1, 0.80), cand(2, 0.97)], CONFIG)
    assert result.operation == "merge"
    assert result.target == 2
    assert [link.note_id for link in result.links] == [1]


def test_link_band_appends_and_links() -> None:
    result = decide(draft(), [cand(5, 0.85, keywords=("cat",))], CONFIG)
    strength = calibrated_strength(0.85, 0.0)
    assert CONFIG.link_threshold <= strength < CONFIG.merge_threshold
    assert result.operation == "append"
    assert [(d.note_id, d.relation) for d in result.links] == [(5, "related_to")]


def test_low_strength_appends_without_links() -> None:
    result = decide(draft(), [cand(5, 0.3, keywords=("cat",))], CONFIG)
    assert result.operation == "append"
    assert result.links == ()
    assert "distinct" in result.decisions[0].reason


def test_conflict_links_with_contrast_and_never_merges() -> None:
    conflicting = cand(9, 0.96, context="Caroline did not adopt a dog.")
    result = decide(draft(), [conflicting], CONFIG)
    assert result.operation == "append"
    assert [(d.note_id, d.relation) for d in result.links] == [(9, "conflicts")]


def test_full_notes_take_no_more_sources() -> None:
    full = cand(3, 0.99, sources=CONFIG.max_sources_per_note)
    result = decide(draft(), [full], CONFIG)
    assert result.operation == "append"
    assert [d.note_id for d in result.links] == [3]


@pytest.mark.parametrize(
    ("config", "operation", "links"),
    [
        (ConstructionConfig(mode="append_only"), "append", 0),
        (ConstructionConfig(enable_merge=False), "append", 2),
        (ConstructionConfig(enable_link=False), "merge", 0),
    ],
)
def test_ablations(config: ConstructionConfig, operation: str, links: int) -> None:
    result = decide(draft(), [cand(1, 0.97), cand(2, 0.85, keywords=("cat",))], config)
    assert result.operation == operation
    assert len(result.links) == links


def test_given_verdicts_override_the_offline_judgement() -> None:
    llm = Decision(1, "merge", "supports", 0.9, "LLM: same fact")
    result = decide(draft(), [cand(1, 0.3)], CONFIG, [llm])
    assert result.operation == "merge"
    assert result.reason == "LLM: same fact"


def test_relation_detection() -> None:
    assert detect_relation("Mel likes hiking.", "Mel does not like hiking.", 0.6) == "conflicts"
    assert detect_relation("Mel likes hiking.", "Mel loves hiking trips.", 0.9) == "supports"
    assert detect_relation("Mel likes hiking.", "Mel went camping.", 0.55) == "related_to"


def test_merge_keeps_every_distinct_sentence_once() -> None:
    merged = merge_contexts(
        "Melanie painted a sunrise. She loves the lake.",
        "Melanie painted a sunrise! Her kids joined her at the lake in July.",
    )
    assert merged.count("painted a sunrise") == 1
    assert "She loves the lake." in merged
    assert "Her kids joined her at the lake in July." in merged
    assert merged.startswith("Melanie painted a sunrise. She loves the lake.")
