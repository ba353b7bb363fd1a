"""The gate's pure decisions and the sentence-level merge."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from langmemcore._errors import ConfigurationError
from langmemcore.analysis import analyze
from langmemcore.config import ConstructionConfig
from langmemcore.construction import (
    Candidate,
    Decision,
    NoteDraft,
    calibrated_strength,
    decide,
    merge_contexts,
)
from langmemcore.construction.gate import detect_relation
from langmemcore.prompts.gating import render_gate_prompt

CONFIG = ConstructionConfig()


def draft(
    context: str = "Caroline adopted a dog.", keywords: tuple[str, ...] = ("dog",)
) -> NoteDraft:
    draft = NoteDraft(context, keywords, ("Caroline",), (1.0, 0.0), None, "Caroline")
    return replace(draft, analysis=analyze(context, context))


def cand(
    note_id: int,
    similarity: float,
    keywords: tuple[str, ...] = ("dog",),
    context: str = "Caroline has a dog.",
    sources: int = 1,
) -> Candidate:
    return Candidate(note_id, context, keywords, similarity, sources)


def test_strength_is_monotone_and_bounded() -> None:
    assert calibrated_strength(CONFIG.cosine_floor, 0.0, CONFIG) == 0.0
    assert calibrated_strength(CONFIG.cosine_ceiling, 1.0, CONFIG) == 1.0
    assert calibrated_strength(1.0, 1.0, CONFIG) == 1.0
    values = [calibrated_strength(s / 20, 0.5, CONFIG) for s in range(21)]
    assert values == sorted(values)
    assert calibrated_strength(0.7, 1.0, CONFIG) > calibrated_strength(0.7, 0.0, CONFIG)


def test_the_calibration_is_configured() -> None:
    assert (CONFIG.cosine_floor, CONFIG.cosine_ceiling, CONFIG.keyword_weight) == (0.45, 1.0, 0.1)
    assert calibrated_strength(0.725, 0.0, CONFIG) == 0.45
    wider = ConstructionConfig(cosine_floor=0.0, keyword_weight=0.0)
    assert calibrated_strength(0.5, 1.0, wider) == 0.5
    assert calibrated_strength(0.5, 0.0, ConstructionConfig(keyword_weight=1.0)) == 0.0
    with pytest.raises(ConfigurationError):
        ConstructionConfig(cosine_floor=0.9, cosine_ceiling=0.8)
    with pytest.raises(ConfigurationError):
        ConstructionConfig(keyword_weight=1.5)


def test_high_strength_merges_into_the_best_candidate() -> None:
    result = decide(draft(), [cand(1, 0.80), cand(2, 0.97)], CONFIG)
    assert result.operation == "merge"
    assert result.target == 2
    assert [link.note_id for link in result.links] == [1]


def test_link_band_appends_and_links() -> None:
    result = decide(draft(), [cand(5, 0.85, keywords=("cat",))], CONFIG)
    strength = calibrated_strength(0.85, 0.0, CONFIG)
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


def test_a_change_is_linked_to_the_note_it_changes_never_merged() -> None:
    change = draft("Caroline gave the dog to her sister, no more dog for her.")
    close = cand(4, 0.97)
    assert decide(draft(), [close], CONFIG).operation == "merge"
    result = decide(change, [close], CONFIG)
    assert result.operation == "append"
    assert [d.note_id for d in result.links] == [4]


def test_a_statement_arriving_after_the_change_that_ended_it_is_linked_never_merged() -> None:
    said = datetime(2024, 3, 1, tzinfo=UTC)
    change = Candidate(4, "Caroline gave the dog away.", ("dog",), 0.97, 1, said, True)
    before, after = said - timedelta(days=30), said + timedelta(days=30)
    late = decide(replace(draft(), event_time=before), [change], CONFIG)
    assert (late.operation, [d.note_id for d in late.links]) == ("append", [4])
    assert decide(replace(draft(), event_time=after), [change], CONFIG).operation == "merge"
    unchanged = replace(change, changes=False)
    assert decide(replace(draft(), event_time=before), [unchanged], CONFIG).operation == "merge"


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
    def relation(other: str, strength: float, config: ConstructionConfig = CONFIG) -> str:
        return detect_relation("Mel likes hiking.", other, strength, config)

    assert relation("Mel does not like hiking.", 0.6) == "conflicts"
    assert relation("Mel loves hiking trips.", 0.9) == "supports"
    assert relation("Mel went camping.", 0.55) == "related_to"
    assert relation("Mel does not like hiking trips.", 0.6) == "conflicts"
    strict = ConstructionConfig(supports_strength=0.95, conflict_overlap=0.7)
    assert relation("Mel loves hiking trips.", 0.9, strict) == "related_to"
    assert relation("Mel does not like hiking.", 0.6, strict) == "conflicts"
    assert relation("Mel does not like hiking trips.", 0.6, strict) == "related_to"


def test_the_gate_prompt_states_the_configured_thresholds() -> None:
    candidates = [(3, "Mel likes hiking.", ["hiking"])]
    default = render_gate_prompt(
        "I hike.", "Mel hikes.", ["hiking"], candidates, merge_threshold=0.7, link_threshold=0.5
    )
    assert "Strength >= 0.7 (High Redundancy)" in default
    assert "Strength in [0.5, 0.7) (Complementary)" in default
    assert "Strength < 0.5 (Distinct)" in default
    tuned = render_gate_prompt(
        "I hike.", "Mel hikes.", ["hiking"], candidates, merge_threshold=0.82, link_threshold=0.6
    )
    assert "Strength >= 0.82 (High Redundancy)" in tuned
    assert "Strength in [0.6, 0.82) (Complementary)" in tuned
    assert "Strength < 0.6 (Distinct)" in tuned
    assert "0.7" not in tuned


def test_merge_keeps_every_distinct_sentence_once() -> None:
    merged = merge_contexts(
        "Melanie painted a sunrise. She loves the lake.",
        "Melanie painted a sunrise! Her kids joined her at the lake in July.",
    )
    assert merged.count("painted a sunrise") == 1
    assert "She loves the lake." in merged
    assert "Her kids joined her at the lake in July." in merged
    assert merged.startswith("Melanie painted a sunrise. She loves the lake.")
