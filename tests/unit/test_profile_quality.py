"""The offline extractor on the project's profile test set meets the issue's targets."""

from __future__ import annotations

import json

from benchmarks.profile_quality import EXTRACTORS, SET_PATH, evaluate, replay, updates_both_sides
from langmemcore.profiles import ASPECTS, AspectStatement

HELD_OUT = SET_PATH.with_name("profile_heldout.json")


def test_the_set_is_as_large_as_the_issue_asks() -> None:
    data = json.loads(SET_PATH.read_text(encoding="utf-8"))
    labels = [s for c in data["conversations"] for t in c["turns"] for s in t["statements"]]
    changes = [ch for c in data["conversations"] for ch in c["changes"]]
    assert sum(not s["ended"] for s in labels) >= 40
    assert len(changes) >= 20
    assert {s["aspect"] for s in labels} <= set(ASPECTS)
    assert len({s["aspect"] for s in labels}) >= 12


def test_offline_extraction_meets_the_targets() -> None:
    total, per = evaluate()
    assert total.precision >= 0.9, total.errors
    assert total.recall >= 0.7, total.errors
    assert total.change_share >= 0.8, total.errors
    assert len(per) >= 10


def test_the_held_out_set_is_well_formed_and_scored() -> None:
    total, _ = evaluate(HELD_OUT)
    assert total.labelled >= 40 and total.changes >= 10
    assert 0.0 < total.precision <= 1.0


def test_compare_scores_each_extractor_and_the_combination_is_what_ingest_runs() -> None:
    scores = {name: evaluate(HELD_OUT, extract)[0] for name, extract in EXTRACTORS.items()}
    assert set(scores) == {"patterns", "parse", "combined"}
    assert scores["combined"].matched >= max(scores["patterns"].matched, scores["parse"].matched)
    both, facts, missed = updates_both_sides(extract=EXTRACTORS["combined"])
    assert facts >= 30 and both + len(missed) == facts and both > 0


def test_replay_replaces_single_valued_and_ends_others() -> None:
    profile = replay(
        [
            AspectStatement("Ann", "home", "Lyon"),
            AspectStatement("Ann", "home", "Hamburg", change=True),
            AspectStatement("Ann", "pet", "cat Mochi"),
            AspectStatement("Ann", "pet", "dog Rex"),
            AspectStatement("Ann", "pet", "Mochi", ended=True),
            AspectStatement("Ann", "work", "bank", ended=True),
        ]
    )
    assert (profile["ann", "home"].current, profile["ann", "home"].history) == (
        ["Hamburg"],
        ["Lyon"],
    )
    assert (profile["ann", "pet"].current, profile["ann", "pet"].history) == (
        ["dog Rex"],
        ["cat Mochi"],
    )
    assert (profile["ann", "work"].current, profile["ann", "work"].history) == ([], ["bank"])
