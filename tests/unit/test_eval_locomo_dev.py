"""The LoCoMo loader and evidence repair against the real dev split (marked ``locomo_data``:
left out when the split is absent; ``tests/unit/test_eval_locomo.py`` covers the same code on the
committed fixture)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from langmemcore.eval import (
    ADVERSARIAL,
    MULTI_HOP,
    OPEN_DOMAIN,
    RETRIEVAL_CATEGORIES,
    SINGLE_HOP,
    TEMPORAL,
    Conversation,
    Turn,
    evidence_report,
)

pytestmark = pytest.mark.locomo_data


@pytest.fixture(scope="module")
def raw(locomo_dev_path: Path) -> list[dict[str, Any]]:
    with locomo_dev_path.open(encoding="utf-8") as handle:
        data: list[dict[str, Any]] = json.load(handle)
    return data


def _by_id(conversations: list[Conversation], sample_id: str) -> Conversation:
    return next(c for c in conversations if c.sample_id == sample_id)


def _turn(conversation: Conversation, dia_id: str) -> Turn:
    return next(t for t in conversation.turns if t.dia_id == dia_id)


def test_the_only_malformed_id_in_the_dev_split_is_the_semicolon_pair(
    raw: list[dict[str, Any]],
) -> None:
    well_formed = re.compile(r"^D[1-9]\d*:[1-9]\d*$")
    malformed = [
        (sample["sample_id"], entry)
        for sample in raw
        for qa in sample["qa"]
        for entry in qa["evidence"]
        if not well_formed.match(entry)
    ]
    assert malformed == [("conv-26", "D8:6; D9:17")]


def test_evidence_report_counts_repairs_and_drops(raw: list[dict[str, Any]]) -> None:
    reports = {r.sample_id: r for r in evidence_report(raw)}
    assert set(reports) == {"conv-26", "conv-30", "conv-41"}
    assert reports["conv-26"].repaired == 1
    assert all(r.dropped == 0 and r.dropped_ids == () for r in reports.values())
    raw_counts = {s["sample_id"]: sum(len(qa["evidence"]) for qa in s["qa"]) for s in raw}
    assert {k: r.raw_ids for k, r in reports.items()} == raw_counts


def test_loader_counts(raw: list[dict[str, Any]], locomo_dev: list[Conversation]) -> None:
    assert [c.sample_id for c in locomo_dev] == ["conv-26", "conv-30", "conv-41"]
    # Turn counts: every turn of every session_<n> list in the raw JSON.
    assert [len(c.turns) for c in locomo_dev] == [419, 369, 663]
    raw_turns = [
        sum(len(v) for k, v in s["conversation"].items() if re.fullmatch(r"session_\d+", k))
        for s in raw
    ]
    assert [len(c.turns) for c in locomo_dev] == raw_turns
    assert [len(c.questions) for c in locomo_dev] == [len(s["qa"]) for s in raw]


def test_383_retrieval_questions(locomo_dev: list[Conversation]) -> None:
    questions = [q for c in locomo_dev for q in c.retrieval_questions]
    # DESIGN.md: 383 questions of categories 1-4 (two open-domain ones have no evidence).
    assert len(questions) == 383
    per_category = {cat: sum(q.category == cat for q in questions) for cat in RETRIEVAL_CATEGORIES}
    assert per_category == {MULTI_HOP: 74, TEMPORAL: 90, OPEN_DOMAIN: 19, SINGLE_HOP: 200}
    empty = [q.question for c in locomo_dev for q in c.questions if not q.evidence]
    assert empty == [
        "Would Melanie be considered a member of the LGBTQ community?",
        "Would Melanie be considered an ally to the transgender community?",
    ]


def test_all_evidence_ids_are_known_after_repair(locomo_dev: list[Conversation]) -> None:
    for conversation in locomo_dev:
        known = {t.dia_id for t in conversation.turns}
        assert len(known) == len(conversation.turns)
        for question in conversation.questions:
            assert set(question.evidence) <= known
            assert len(set(question.evidence)) == len(question.evidence)


def test_repaired_question_in_real_data(locomo_dev: list[Conversation]) -> None:
    conv = _by_id(locomo_dev, "conv-26")
    question = next(q for q in conv.questions if q.question == "What did Melanie paint recently?")
    assert question.evidence == ("D8:6", "D9:17")
    assert question.category == MULTI_HOP
    assert question.answer == "sunset"


def test_turn_fields(locomo_dev: list[Conversation]) -> None:
    conv = _by_id(locomo_dev, "conv-26")
    assert conv.speakers == ("Caroline", "Melanie")
    first = conv.turns[0]
    assert (first.dia_id, first.speaker, first.session) == ("D1:1", "Caroline", 1)
    assert first.text == "Hey Mel! Good to see you! How have you been?"
    assert first.event_time == datetime(2023, 5, 8, 13, 56)
    assert first.image_caption is None and first.full_text == first.text
    # Session 10 must follow session 9 (numeric, not lexical, order).
    sessions = [t.session for t in conv.turns]
    assert sessions == sorted(sessions) and sessions[-1] == 19
    assert _turn(conv, "D10:1").event_time == datetime(2023, 7, 20, 20, 56)


def test_image_captions(locomo_dev: list[Conversation]) -> None:
    conv = _by_id(locomo_dev, "conv-26")
    shared = _turn(conv, "D8:6")
    assert shared.image_caption == "a photo of a painting of a sunset with a palm tree"
    assert shared.full_text == (
        "We love painting together lately, especially nature-inspired ones. Here's our latest "
        "work from last weekend. [shares a photo of a painting of a sunset with a palm tree]"
    )
    # D4:4 carries a blip_caption without an img_url: the caption is still kept.
    assert _turn(conv, "D4:4").image_caption == (
        "a photo of a stack of bowls with different designs on them"
    )


def test_answers_are_text_and_adversarial_mostly_none(locomo_dev: list[Conversation]) -> None:
    conv = _by_id(locomo_dev, "conv-26")
    sunrise = next(q for q in conv.questions if q.question == "When did Melanie paint a sunrise?")
    assert sunrise.answer == "2022"  # an int in the JSON
    adversarial = [q for c in locomo_dev for q in c.questions if q.category == ADVERSARIAL]
    assert len(adversarial) == 47 + 24 + 41
    assert not any(q.is_retrieval_target for q in adversarial)
    # Two adversarial questions of conv-26 also carry a plain "answer" ("No"); it is kept.
    answered = {q.question: q.answer for q in adversarial if q.answer is not None}
    assert answered == {
        "Did Caroline make the black and white bowl in the photo?": "No",
        "Is Oscar Melanie's pet?": "No",
    }
