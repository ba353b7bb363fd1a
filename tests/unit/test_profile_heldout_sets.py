"""The blind held-out profile sets are well formed and internally consistent.

Covers `profile_heldout2.json`, `profile_heldout3.json`, `profile_heldout4.json` and
`profile_heldout5.json`, each against the size it was written to. Checked without the
extractor: the shape and the labelling vocabulary, the expected profile against the
package's pure replay (`langmemcore.profiles.resolve`), the listed changes against the
events of that replay, and the size. Each check is a function that raises
`AssertionError`; the last tests feed them broken copies to show they can fail.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from langmemcore.profiles.aspects import ASPECTS, is_single_valued
from langmemcore.profiles.resolve import resolve_chain
from langmemcore.storage.profiles.records import ChainValue, StoredStatement

DATA_DIR = Path(__file__).parents[1] / "data"

Chains = dict[tuple[str, str], list[ChainValue]]


@dataclass(frozen=True)
class SetSize:
    """The size a blind set was written to (each a minimum unless said otherwise)."""

    conversations: int
    """Conversations in the set."""
    labels: int
    """Labelled statements, endings included."""
    stated: int
    """Labelled statements that state a value (not endings)."""
    changes: int
    """Listed changes (a value replaced or ended)."""
    turns: tuple[int, int]
    """Fewest and most turns a conversation has."""
    years: int
    """Distinct years the turns' dates span."""


SETS: dict[str, SetSize] = {
    "profile_heldout2.json": SetSize(10, 70, 55, 25, (6, 14), 4),
    "profile_heldout3.json": SetSize(12, 150, 110, 32, (6, 16), 6),
    "profile_heldout4.json": SetSize(14, 250, 200, 60, (13, 15), 14),
    "profile_heldout5.json": SetSize(14, 250, 200, 60, (13, 15), 18),
}
DATA: dict[str, dict[str, Any]] = {
    name: json.loads((DATA_DIR / name).read_text(encoding="utf-8")) for name in SETS
}
CASES = [(name, c) for name, data in DATA.items() for c in data["conversations"]]
CASE_IDS = [f"{name.removesuffix('.json')}-{c['id']}" for name, c in CASES]


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


def replay_changes(conversation: dict[str, Any]) -> Counter[tuple[str, str, str, str | None]]:
    """Every change the replay of the conversation's labels makes."""
    return Counter(
        (subject, aspect, before, after)
        for (subject, aspect), values in replay_chains(conversation).items()
        for before, after in _events(aspect, values)
    )


def check_shape(data: dict[str, Any], size: SetSize) -> None:
    """The set's keys, labelling vocabulary and turn counts."""
    assert data["conventions"] == "see profile_facts.json"
    assert "blind" in data["description"].lower()
    ids = [c["id"] for c in data["conversations"]]
    assert len(set(ids)) == len(ids)
    for conversation in data["conversations"]:
        assert set(conversation) == {"id", "speakers", "turns", "profile", "changes"}
        low, high = size.turns
        assert low <= len(conversation["turns"]) <= high, conversation["id"]
        for turn in conversation["turns"]:
            assert set(turn) == {"speaker", "date", "text", "statements"}
            assert turn["speaker"] in conversation["speakers"] and turn["text"].strip()
            for label in turn["statements"]:
                assert set(label) == {"subject", "aspect", "value", "ended"}
                assert label["aspect"] in ASPECTS, label
                assert isinstance(label["ended"], bool) and label["subject"].strip()
                assert label["ended"] or label["value"].strip(), label
                assert label["value"] == label["value"].strip()


def check_dates(conversation: dict[str, Any]) -> None:
    """Turn dates run forward."""
    dates = [date.fromisoformat(t["date"]) for t in conversation["turns"]]
    assert dates == sorted(dates)


def check_subjects(conversation: dict[str, Any]) -> None:
    """A label about a speaker is made by that speaker or names them in the text; a label
    about anyone else names them in the text."""
    for turn in conversation["turns"]:
        for label in turn["statements"]:
            if label["subject"] != turn["speaker"]:
                assert label["subject"] in turn["text"], (turn["text"], label)


def check_profile(conversation: dict[str, Any]) -> None:
    """The expected profile is the replay of the labels, single-valued aspects hold at
    most one current value, and no value is both current and history."""
    assert conversation["profile"] == replay_profile(conversation)
    for aspects in conversation["profile"].values():
        for aspect, slot in aspects.items():
            assert not set(slot["current"]) & set(slot["history"]), slot
            assert len(slot["current"]) <= 1 or not is_single_valued(aspect), slot


def check_changes(conversation: dict[str, Any]) -> None:
    """The listed changes are exactly the replay's, each history before and current after."""
    listed = Counter(
        (c["subject"], c["aspect"], c["before"], c["after"]) for c in conversation["changes"]
    )
    assert listed == replay_changes(conversation)
    for change in conversation["changes"]:
        assert set(change) == {"subject", "aspect", "before", "after"}
        slot = conversation["profile"][change["subject"]][change["aspect"]]
        assert change["before"] in slot["history"], change
        if change["after"] is None:
            assert change["before"] not in slot["current"], change
        elif is_single_valued(change["aspect"]):
            assert change["after"] in slot["current"] + slot["history"], change


def check_size(data: dict[str, Any], size: SetSize) -> None:
    """The set is as large and varied as it was written to be."""
    conversations = data["conversations"]
    labels = [s for c in conversations for t in c["turns"] for s in t["statements"]]
    per_aspect = Counter(label["aspect"] for label in labels)
    assert len(conversations) >= size.conversations
    assert len(labels) >= size.labels
    assert sum(not label["ended"] for label in labels) >= size.stated
    assert sum(len(c["changes"]) for c in conversations) >= size.changes
    assert all(per_aspect[aspect] >= 2 for aspect in ASPECTS), per_aspect
    quiet = [t for c in conversations for t in c["turns"] if not t["statements"]]
    assert len(quiet) >= len(conversations), "distractor turns"
    assert any(
        label["subject"] not in c["speakers"]
        for c in conversations
        for t in c["turns"]
        for label in t["statements"]
    ), "third-person labels"
    years = {t["date"][:4] for c in conversations for t in c["turns"]}
    assert len(years) >= size.years


@pytest.mark.parametrize("name", SETS)
def test_the_set_has_its_shape_and_size(name: str) -> None:
    check_shape(DATA[name], SETS[name])
    check_size(DATA[name], SETS[name])


@pytest.mark.parametrize(("name", "conversation"), CASES, ids=CASE_IDS)
def test_each_conversation_is_consistent(name: str, conversation: dict[str, Any]) -> None:
    check_dates(conversation)
    check_subjects(conversation)
    check_profile(conversation)
    check_changes(conversation)


def _first_labelled(conversation: dict[str, Any]) -> dict[str, Any]:
    return next(t for t in conversation["turns"] if t["statements"])


def _break_date(c: dict[str, Any]) -> None:
    c["turns"][0]["date"], c["turns"][-1]["date"] = c["turns"][-1]["date"], c["turns"][0]["date"]


def _break_subject(c: dict[str, Any]) -> None:
    _first_labelled(c)["statements"][0]["subject"] = "Nobody Named Here"


def _break_profile(c: dict[str, Any]) -> None:
    labels = (s for t in c["turns"] for s in t["statements"])
    next(s for s in labels if not s["ended"])["value"] += " extra"


def _break_changes(c: dict[str, Any]) -> None:
    c["changes"].pop()


BREAKS = {
    "dates": (_break_date, check_dates),
    "subjects": (_break_subject, check_subjects),
    "profile": (_break_profile, check_profile),
    "changes": (_break_changes, check_changes),
}


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("kind", BREAKS)
def test_each_check_rejects_a_broken_conversation(name: str, kind: str) -> None:
    """A conversation with changes, broken one way, fails the check for that way."""
    original = next(c for c in DATA[name]["conversations"] if c["changes"])
    broken = copy.deepcopy(original)
    spoil, check = BREAKS[kind]
    spoil(broken)
    check(original)
    with pytest.raises(AssertionError):
        check(broken)


@pytest.mark.parametrize("name", SETS)
def test_the_size_check_rejects_a_smaller_set(name: str) -> None:
    data, size = DATA[name], SETS[name]
    smaller = {**data, "conversations": data["conversations"][: size.conversations - 1]}
    check_size(data, size)
    with pytest.raises(AssertionError):
        check_size(smaller, size)
