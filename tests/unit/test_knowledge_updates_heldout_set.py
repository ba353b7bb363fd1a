"""The blind held-out knowledge-update sets are well formed.

Checked without memory, for each set: the loader accepts it, its keys and ids are unique,
every fact names two turns of its own conversation spoken by its subject with the older one
in a strictly earlier session, both questions are present and distinct, and the set holds
the size and aspect spread it was written to. Each check is a function returning its
problems, and each is shown to find one in a copy of the set broken on purpose.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from langmemcore._errors import InvalidInputError
from langmemcore.eval.knowledge_updates import load_update_set

DATA = Path(__file__).parents[1] / "data"
MAIN_ASPECTS = ("home", "work", "pet", "relationship", "plan", "possession")

Raw = dict[str, Any]


@dataclass(frozen=True)
class HeldOutSet:
    """One blind held-out set and the size it was written to.

    Attributes:
        path: Its file.
        min_facts: Fewest facts it holds.
        min_per_main_aspect: Fewest facts of each of ``MAIN_ASPECTS``.
        conversations: Fewest and most chats it holds.
    """

    path: Path
    min_facts: int
    min_per_main_aspect: int
    conversations: tuple[int, int]


SETS = {
    "heldout": HeldOutSet(DATA / "knowledge_updates_heldout.json", 40, 4, (12, 14)),
    "heldout2": HeldOutSet(DATA / "knowledge_updates_heldout2.json", 45, 5, (13, 15)),
    "heldout3": HeldOutSet(DATA / "knowledge_updates_heldout3.json", 60, 6, (12, 16)),
    "heldout4": HeldOutSet(DATA / "knowledge_updates_heldout4.json", 60, 6, (12, 16)),
    "heldout5": HeldOutSet(DATA / "knowledge_updates_heldout5.json", 60, 6, (12, 16)),
    "heldout6": HeldOutSet(DATA / "knowledge_updates_heldout6.json", 60, 6, (12, 16)),
    "heldout7": HeldOutSet(DATA / "knowledge_updates_heldout7.json", 60, 6, (12, 16)),
    "heldout8": HeldOutSet(DATA / "knowledge_updates_heldout8.json", 65, 7, (13, 15)),
    "heldout9": HeldOutSet(DATA / "knowledge_updates_heldout9.json", 65, 7, (13, 15)),
    "heldout10": HeldOutSet(DATA / "knowledge_updates_heldout10.json", 65, 7, (13, 15)),
    "heldout11": HeldOutSet(DATA / "knowledge_updates_heldout11.json", 65, 7, (13, 15)),
    "heldout12": HeldOutSet(DATA / "knowledge_updates_heldout12.json", 65, 7, (13, 15)),
    "heldout13": HeldOutSet(DATA / "knowledge_updates_heldout13.json", 64, 7, (13, 15)),
}


def _raw(name: str) -> Raw:
    data: Raw = json.loads(SETS[name].path.read_text(encoding="utf-8"))
    return data


def _turns(raw: Raw) -> dict[tuple[str, str], tuple[str, datetime]]:
    """(conversation id, turn key) -> (speaker, session time)."""
    turns = {}
    for conversation in raw["conversations"]:
        for session in conversation["sessions"]:
            when = datetime.fromisoformat(session["time"])
            for turn in session["turns"]:
                turns[(conversation["id"], turn["key"])] = (turn["speaker"], when)
    return turns


def _duplicates(values: list[str]) -> list[str]:
    return sorted(value for value, count in Counter(values).items() if count > 1)


def duplicate_keys(raw: Raw) -> list[str]:
    """Turn keys used more than once in the whole set."""
    return _duplicates(
        [
            turn["key"]
            for conversation in raw["conversations"]
            for session in conversation["sessions"]
            for turn in session["turns"]
        ]
    )


def duplicate_ids(raw: Raw) -> list[str]:
    """Conversation ids or fact ids used more than once."""
    return _duplicates([c["id"] for c in raw["conversations"]]) + _duplicates(
        [f["id"] for f in raw["facts"]]
    )


def misplaced_turns(raw: Raw) -> list[str]:
    """Facts whose older or newer turn is not in its conversation or not by its subject."""
    turns = _turns(raw)
    problems = []
    for fact in raw["facts"]:
        for key in (fact["older"], fact["newer"]):
            found = turns.get((fact["conversation"], key))
            if found is None or found[0] != fact["subject"]:
                problems.append(f"{fact['id']}: {key}")
    return problems


def misordered_facts(raw: Raw) -> list[str]:
    """Facts whose older turn's session is not strictly earlier than the newer's."""
    turns = _turns(raw)
    problems = []
    for fact in raw["facts"]:
        older = turns.get((fact["conversation"], fact["older"]))
        newer = turns.get((fact["conversation"], fact["newer"]))
        if older is None or newer is None or not older[1] < newer[1]:
            problems.append(fact["id"])
    return problems


def bad_questions(raw: Raw) -> list[str]:
    """Facts lacking a question, or asking the same one twice."""
    problems = []
    for fact in raw["facts"]:
        current = fact.get("current_question", "").strip()
        past = fact.get("past_question", "").strip()
        if not current or not past or current.lower() == past.lower():
            problems.append(fact["id"])
    return problems


def thin_aspects(raw: Raw, minimum: int) -> list[str]:
    """Main aspects with fewer than ``minimum`` facts."""
    counts = Counter(fact["aspect"] for fact in raw["facts"])
    return [aspect for aspect in MAIN_ASPECTS if counts[aspect] < minimum]


def bad_conversations(raw: Raw) -> list[str]:
    """Conversations not between two speakers, with a turn by someone else, with sessions
    out of order or without a timezone, or a fact whose subject is not one of them."""
    problems = []
    speakers = {}
    for conversation in raw["conversations"]:
        names = conversation["speakers"]
        speakers[conversation["id"]] = set(names)
        times = [datetime.fromisoformat(s["time"]) for s in conversation["sessions"]]
        by_others = [
            t for s in conversation["sessions"] for t in s["turns"] if t["speaker"] not in names
        ]
        if (
            len(set(names)) != 2
            or by_others
            or any(t.tzinfo is None for t in times)
            or any(a >= b for a, b in pairwise(times))
        ):
            problems.append(conversation["id"])
    for fact in raw["facts"]:
        if fact["subject"] not in speakers.get(fact["conversation"], set()):
            problems.append(fact["id"])
    return problems


def wrong_size(raw: Raw, spec: HeldOutSet) -> list[str]:
    """Departures from the size written to: at least ``spec.min_facts`` facts, as many
    chats as ``spec.conversations`` allows, of 3-5 sessions, 12-20 turns a session."""
    problems = []
    if len(raw["facts"]) < spec.min_facts:
        problems.append(f"{len(raw['facts'])} facts")
    fewest, most = spec.conversations
    if not fewest <= len(raw["conversations"]) <= most:
        problems.append(f"{len(raw['conversations'])} conversations")
    for conversation in raw["conversations"]:
        if not 3 <= len(conversation["sessions"]) <= 5:
            problems.append(conversation["id"])
        for session in conversation["sessions"]:
            if not 12 <= len(session["turns"]) <= 20:
                problems.append(f"{conversation['id']} {session['time']}")
    return problems


def checks(spec: HeldOutSet) -> dict[str, Callable[[Raw], list[str]]]:
    """Every check, with the thresholds ``spec`` was written to."""
    return {
        "keys": duplicate_keys,
        "ids": duplicate_ids,
        "turns": misplaced_turns,
        "order": misordered_facts,
        "questions": bad_questions,
        "aspects": partial(thin_aspects, minimum=spec.min_per_main_aspect),
        "conversations": bad_conversations,
        "size": partial(wrong_size, spec=spec),
    }


def _first_turn(raw: Raw, conversation: int, session: int) -> Raw:
    turn: Raw = raw["conversations"][conversation]["sessions"][session]["turns"][0]
    return turn


def _reuse_key(raw: Raw) -> None:
    _first_turn(raw, 1, 0)["key"] = _first_turn(raw, 0, 0)["key"]


def _reuse_fact_id(raw: Raw) -> None:
    raw["facts"][1]["id"] = raw["facts"][0]["id"]


def _name_other_conversation(raw: Raw) -> None:
    other = next(f for f in raw["facts"] if f["conversation"] != raw["facts"][0]["conversation"])
    raw["facts"][0]["newer"] = other["newer"]


def _give_turn_to_other_speaker(raw: Raw) -> None:
    fact = raw["facts"][0]
    conversation = next(c for c in raw["conversations"] if c["id"] == fact["conversation"])
    other = next(name for name in conversation["speakers"] if name != fact["subject"])
    for session in conversation["sessions"]:
        for turn in session["turns"]:
            if turn["key"] == fact["older"]:
                turn["speaker"] = other


def _swap_older_newer(raw: Raw) -> None:
    fact = raw["facts"][0]
    fact["older"], fact["newer"] = fact["newer"], fact["older"]


def _same_session(raw: Raw) -> None:
    fact = raw["facts"][0]
    conversation = next(c for c in raw["conversations"] if c["id"] == fact["conversation"])
    session = next(
        s for s in conversation["sessions"] if any(t["key"] == fact["newer"] for t in s["turns"])
    )
    twin = next(
        t for t in session["turns"] if t["speaker"] == fact["subject"] and t["key"] != fact["newer"]
    )
    fact["older"] = twin["key"]


def _repeat_question(raw: Raw) -> None:
    raw["facts"][0]["past_question"] = raw["facts"][0]["current_question"]


def _drop_question(raw: Raw) -> None:
    raw["facts"][0]["current_question"] = " "


def _thin_out_pets(raw: Raw, keep: int) -> None:
    pets = [f["id"] for f in raw["facts"] if f["aspect"] == "pet"]
    raw["facts"] = [f for f in raw["facts"] if f["id"] not in pets[keep:]]


def _too_few_facts(raw: Raw, keep: int) -> None:
    raw["facts"] = raw["facts"][:keep]


def _too_many_conversations(raw: Raw, most: int) -> None:
    extra = raw["conversations"][: most + 1 - len(raw["conversations"])]
    raw["conversations"] += [{**c, "id": f"{c['id']}-copy"} for c in copy.deepcopy(extra)]


def _short_session(raw: Raw) -> None:
    session = raw["conversations"][0]["sessions"][-1]
    session["turns"] = session["turns"][:11]


def _session_without_timezone(raw: Raw) -> None:
    raw["conversations"][0]["sessions"][0]["time"] = "2021-03-14T18:20:00"


def _sessions_out_of_order(raw: Raw) -> None:
    first, second = raw["conversations"][0]["sessions"][:2]
    first["time"], second["time"] = second["time"], first["time"]


def _stranger_as_subject(raw: Raw) -> None:
    raw["facts"][0]["subject"] = "Someone Else"


def _third_speaker(raw: Raw) -> None:
    _first_turn(raw, 0, 1)["speaker"] = "Someone Else"


def breakages(spec: HeldOutSet) -> dict[str, tuple[str, Callable[[Raw], None]]]:
    """Breakage name -> (the check that must find it, the breakage), thresholds from ``spec``."""
    return {
        "reuse_key": ("keys", _reuse_key),
        "reuse_fact_id": ("ids", _reuse_fact_id),
        "name_other_conversation": ("turns", _name_other_conversation),
        "give_turn_to_other_speaker": ("turns", _give_turn_to_other_speaker),
        "swap_older_newer": ("order", _swap_older_newer),
        "same_session": ("order", _same_session),
        "repeat_question": ("questions", _repeat_question),
        "drop_question": ("questions", _drop_question),
        "thin_out_pets": ("aspects", partial(_thin_out_pets, keep=spec.min_per_main_aspect - 1)),
        "session_without_timezone": ("conversations", _session_without_timezone),
        "third_speaker": ("conversations", _third_speaker),
        "sessions_out_of_order": ("conversations", _sessions_out_of_order),
        "stranger_as_subject": ("conversations", _stranger_as_subject),
        "too_few_facts": ("size", partial(_too_few_facts, keep=spec.min_facts - 1)),
        "too_many_conversations": (
            "size",
            partial(_too_many_conversations, most=spec.conversations[1]),
        ),
        "short_session": ("size", _short_session),
    }


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_loader_accepts_the_set_and_keeps_every_turn_and_fact(name: str) -> None:
    raw = _raw(name)
    updates = load_update_set(SETS[name].path)
    assert len(updates.facts) == len(raw["facts"])
    assert [c.id for c in updates.conversations] == [c["id"] for c in raw["conversations"]]
    turns = sum(len(s["turns"]) for c in raw["conversations"] for s in c["sessions"])
    assert sum(len(c.observations) for c in updates.conversations) == turns


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_loader_rejects_a_fact_naming_a_missing_turn(name: str, tmp_path: Path) -> None:
    raw = _raw(name)
    raw["facts"][0]["older"] = "no-such-turn"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InvalidInputError):
        load_update_set(broken)


@pytest.mark.parametrize("check", sorted(checks(SETS["heldout"])))
@pytest.mark.parametrize("name", sorted(SETS))
def test_the_set_passes_every_check(name: str, check: str) -> None:
    assert checks(SETS[name])[check](_raw(name)) == []


@pytest.mark.parametrize("breakage", sorted(breakages(SETS["heldout"])))
@pytest.mark.parametrize("name", sorted(SETS))
def test_each_check_finds_a_set_broken_on_purpose(name: str, breakage: str) -> None:
    spec = SETS[name]
    check, breaking = breakages(spec)[breakage]
    raw = copy.deepcopy(_raw(name))
    breaking(raw)
    assert checks(spec)[check](raw) != []


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_description_says_it_is_blind_and_held_out(name: str) -> None:
    description = _raw(name)["description"].lower()
    assert "blind" in description
    assert "held-out" in description
    assert "never tune" in description
