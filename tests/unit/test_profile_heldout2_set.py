"""The second, blind held-out profile set is well formed and internally consistent.

Checked without the extractor: the shape and the labelling vocabulary, the expected
profile against the package's pure replay (`langmemcore.profiles.resolve`), the listed
changes against the events of that replay, and the size the set was written to.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from langmemcore.profiles.aspects import ASPECTS, is_single_valued
from langmemcore.profiles.resolve import resolve_chain
from langmemcore.storage.profiles.records import ChainValue, StoredStatement

SET_PATH = Path(__file__).parents[1] / "data" / "profile_heldout2.json"
DATA: dict[str, Any] = json.loads(SET_PATH.read_text(encoding="utf-8"))
CONVERSATIONS: list[dict[str, Any]] = DATA["conversations"]
IDS = [c["id"] for c in CONVERSATIONS]

Chains = dict[tuple[str, str], list[ChainValue]]


def _labels() -> list[dict[str, Any]]:
    return [s for c in CONVERSATIONS for t in c["turns"] for s in t["statements"]]


def _stored(turn_index: int, position: int, turn: dict[str, Any]) -> StoredStatement:
    """One label as the replay reads it; the turn's index stands for its observation.

    The conventions end a single-valued aspect's current value whatever the ending
    names ("I left the bank" ends "cashier"), so such an ending is replayed unnamed.
    """
    label = turn["statements"][position]
    value = "" if label["ended"] and is_single_valued(label["aspect"]) else label["value"]
    when = datetime.combine(date.fromisoformat(turn["date"]), datetime.min.time(), UTC)
    return StoredStatement(
        turn_index, position, label["subject"], label["aspect"], value, label["ended"], False, when
    )


def replay_chains(conversation: dict[str, Any]) -> Chains:
    """Every (subject, aspect) chain of a conversation, replayed by `resolve_chain`."""
    statements: dict[tuple[str, str], list[StoredStatement]] = {}
    for index, turn in enumerate(conversation["turns"]):
        for position, label in enumerate(turn["statements"]):
            key = (label["subject"], label["aspect"])
            statements.setdefault(key, []).append(_stored(index, position, turn))
    return {key: resolve_chain(key[1], chain) for key, chain in statements.items()}


def replay_profile(conversation: dict[str, Any]) -> dict[str, dict[str, dict[str, list[str]]]]:
    """The profile the conversation's labels make: current values and history per aspect."""
    profile: dict[str, dict[str, dict[str, list[str]]]] = {}
    for (subject, aspect), values in replay_chains(conversation).items():
        if values:
            profile.setdefault(subject, {})[aspect] = {
                "current": [v.value for v in values if v.current],
                "history": [v.value for v in values if not v.current],
            }
    return profile


def _events(aspect: str, values: list[ChainValue]) -> list[tuple[str, str | None]]:
    """The chain's changes: each replaced value, and each ended one that was once current
    (for a single-valued aspect, with the value its ending observation states in its place,
    if any); a value first named by its ending ("I used to play hockey") is history, not a
    change."""
    events: list[tuple[str, str | None]] = []
    for value in values:
        if value.end == "replaced" and value.replaced_by is not None:
            events.append((value.value, values[value.replaced_by].value))
        elif value.end == "ended" and value.sources[0].role == "states":
            ending = next(s.observation_id for s in value.sources if s.role == "ends")
            after = next((v.value for v in values if v.sources[0].observation_id == ending), None)
            after = after if is_single_valued(aspect) else None
            events.append((value.value, after))
    return events


def test_the_set_has_the_shape_of_the_other_profile_sets() -> None:
    assert DATA["conventions"] == "see profile_facts.json" and DATA["description"]
    assert len(set(IDS)) == len(IDS)
    for conversation in CONVERSATIONS:
        assert set(conversation) == {"id", "speakers", "turns", "profile", "changes"}
        assert 6 <= len(conversation["turns"]) <= 14, conversation["id"]
        for turn in conversation["turns"]:
            assert set(turn) == {"speaker", "date", "text", "statements"}
            assert turn["speaker"] in conversation["speakers"] and turn["text"].strip()
            for label in turn["statements"]:
                assert set(label) == {"subject", "aspect", "value", "ended"}
                assert label["aspect"] in ASPECTS, label
                assert isinstance(label["ended"], bool) and label["subject"].strip()
                assert label["ended"] or label["value"].strip(), label
                assert label["value"] == label["value"].strip()


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=IDS)
def test_turn_dates_run_forward(conversation: dict[str, Any]) -> None:
    dates = [date.fromisoformat(t["date"]) for t in conversation["turns"]]
    assert dates == sorted(dates)


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=IDS)
def test_first_person_labels_name_the_speaker(conversation: dict[str, Any]) -> None:
    """A label about a speaker is made by that speaker or names them in the text."""
    for turn in conversation["turns"]:
        for label in turn["statements"]:
            subject = label["subject"]
            if subject in conversation["speakers"] and subject != turn["speaker"]:
                assert subject in turn["text"], (turn["text"], label)
            if subject not in conversation["speakers"]:
                assert subject in turn["text"], (turn["text"], label)


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=IDS)
def test_the_profile_is_the_replay_of_the_statements(conversation: dict[str, Any]) -> None:
    assert conversation["profile"] == replay_profile(conversation)
    for aspects in conversation["profile"].values():
        for slot in aspects.values():
            assert not set(slot["current"]) & set(slot["history"]), slot


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=IDS)
def test_changes_are_exactly_the_replay_events(conversation: dict[str, Any]) -> None:
    listed = Counter(
        (c["subject"], c["aspect"], c["before"], c["after"]) for c in conversation["changes"]
    )
    replayed = Counter(
        (subject, aspect, before, after)
        for (subject, aspect), values in replay_chains(conversation).items()
        for before, after in _events(aspect, values)
    )
    assert listed == replayed


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=IDS)
def test_each_change_is_history_before_and_current_after(conversation: dict[str, Any]) -> None:
    for change in conversation["changes"]:
        assert set(change) == {"subject", "aspect", "before", "after"}
        slot = conversation["profile"][change["subject"]][change["aspect"]]
        assert change["before"] in slot["history"], change
        if change["after"] is None:
            assert change["before"] not in slot["current"], change
        elif is_single_valued(change["aspect"]):
            assert change["after"] in slot["current"] + slot["history"], change


def test_single_valued_aspects_hold_one_current_value() -> None:
    for conversation in CONVERSATIONS:
        for aspects in conversation["profile"].values():
            for aspect, slot in aspects.items():
                if is_single_valued(aspect):
                    assert len(slot["current"]) <= 1, (conversation["id"], aspect, slot)


def test_the_set_is_as_large_and_varied_as_briefed() -> None:
    labels = _labels()
    changes = [c for conversation in CONVERSATIONS for c in conversation["changes"]]
    per_aspect = Counter(label["aspect"] for label in labels)
    assert len(CONVERSATIONS) >= 10
    assert len(labels) >= 70 and sum(not label["ended"] for label in labels) >= 55
    assert len(changes) >= 25
    assert all(per_aspect[aspect] >= 2 for aspect in ASPECTS), per_aspect
    quiet = [t for c in CONVERSATIONS for t in c["turns"] if not t["statements"]]
    assert len(quiet) >= len(CONVERSATIONS), "distractor turns"
    third_person = [
        label
        for c in CONVERSATIONS
        for t in c["turns"]
        for label in t["statements"]
        if label["subject"] not in c["speakers"]
    ]
    assert third_person
    years = {t["date"][:4] for c in CONVERSATIONS for t in c["turns"]}
    assert len(years) >= 4
