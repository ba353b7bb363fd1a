"""The profile channel's pure parts: which value's notes a question ranks first (only the
values of an aspect's history: replaced, ended, and what replaced them), and the
re-ordering of packed notes within the places they hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langmemcore.config import RetrievalConfig
from langmemcore.eval.locomo_eval import ablation_configs
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.retrieval.profile_channel import (
    AspectValue,
    ProfileFocus,
    day_range,
    held_within,
    history_values,
    order_by_profile,
    rank_profile_values,
    said_changes,
)


def at(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


# Tomas: a first job (2020-01 .. 2022-03), replaced by the bakery (.. 2023-05), replaced by
# the roastery (2023-05 .. now); a cat, ended in 2022-09; climbing and chess, held side by
# side and never ended.
FIRST_JOB = AspectValue(at(2020, 1), at(2022, 3), False, (5,), value_id=1, replaced_by=2)
BAKERY = AspectValue(at(2022, 3), at(2023, 5), False, (11,), value_id=2, replaced_by=3)
ROASTERY = AspectValue(at(2023, 5), None, True, (31, 30), value_id=3)
CAT = AspectValue(at(2021, 1), at(2022, 9), False, (7,), ending_note_ids=(20,), value_id=4)
CLIMBING = AspectValue(at(2021, 5), None, True, (40,), value_id=5)
CHESS = AspectValue(at(2023, 2), None, True, (41,), value_id=6)


def focus(period: str | None, start: datetime | None = None, end: datetime | None = None):
    return ProfileFocus("Tomas", ("work",), period, start, end)


def test_current_and_unmarked_questions_rank_the_current_value_first() -> None:
    values = [FIRST_JOB, BAKERY, ROASTERY]
    assert rank_profile_values(focus("current"), values) == [31, 30, 11, 5]
    assert rank_profile_values(focus(None), list(reversed(values))) == [31, 30, 11, 5]


def test_an_ending_without_replacement_is_the_newest_state() -> None:
    assert rank_profile_values(focus("current"), [CAT]) == [20, 7]
    assert rank_profile_values(focus("past"), [CAT]) == [7]


def test_a_past_period_ranks_the_value_that_held_longest_in_it_first() -> None:
    start, end = day_range(at(2022, 1).date(), at(2022, 12).date() + timedelta(days=30))
    ranked = rank_profile_values(focus("past", start, end), [ROASTERY, FIRST_JOB, BAKERY])
    assert ranked == [11, 5, 31, 30]
    early = rank_profile_values(focus("past", at(2021, 1), at(2021, 12)), [ROASTERY, BAKERY])
    assert early[:1] == [11] and early[-2:] == [31, 30]


def test_a_past_question_without_a_period_ranks_the_latest_replaced_value_first() -> None:
    assert rank_profile_values(focus("past"), [ROASTERY, FIRST_JOB, BAKERY]) == [11, 5, 31, 30]


def test_values_that_never_changed_leave_the_order_to_the_fusion() -> None:
    year_2023 = day_range(at(2023, 1).date(), at(2023, 12).date() + timedelta(days=30))
    for asked in (focus("current"), focus(None), focus("past"), focus("past", *year_2023)):
        assert rank_profile_values(asked, [CLIMBING, CHESS]) == []
        assert rank_profile_values(asked, [ROASTERY, CHESS]) == []


def test_only_the_values_in_a_history_relation_are_ranked() -> None:
    values = [CLIMBING, BAKERY, CHESS, ROASTERY, CAT]
    assert history_values(values) == [BAKERY, ROASTERY, CAT]
    assert rank_profile_values(focus("current"), values) == [31, 30, 20, 11, 7]
    assert rank_profile_values(focus("past"), values) == [11, 7, 31, 30]
    assert rank_profile_values(focus("current"), [CHESS, CAT]) == [20, 7]


# Rafael: goldfish since 2022-06; a greyhound from 2023-09, stated as a change ("We got a
# rescue greyhound instead"), the goldfish's ending not extracted; a hamster from 2024-01.
GOLDFISH = AspectValue(at(2022, 6), None, True, (50,), value_id=7, aspect="pet")
GREYHOUND = AspectValue(at(2023, 9), None, True, (51,), value_id=8, aspect="pet", announced=True)
HAMSTER = AspectValue(at(2024, 1), None, True, (52,), value_id=9, aspect="pet")
SAILING = AspectValue(at(2021, 1), None, True, (53,), value_id=10, aspect="hobby")


def test_a_value_stated_as_a_change_follows_the_values_stated_before_it() -> None:
    values = [GOLDFISH, GREYHOUND, HAMSTER, SAILING]
    goldfish, greyhound, hamster, sailing = said_changes(values)
    assert (goldfish.current, goldfish.ended_at, goldfish.replaced_by) == (False, at(2023, 9), 8)
    assert (greyhound, hamster, sailing) == (GREYHOUND, HAMSTER, SAILING)
    assert history_values(values) == [goldfish, GREYHOUND]
    assert rank_profile_values(focus("current"), values) == [51, 50]
    assert rank_profile_values(focus("past"), values) == [50, 51]
    assert rank_profile_values(focus("current"), [GREYHOUND, HAMSTER, SAILING]) == []


def test_held_within_is_the_overlap() -> None:
    assert held_within(BAKERY, at(2023, 1), at(2024, 1)) == at(2023, 5) - at(2023, 1)
    assert held_within(BAKERY, at(2024, 1), at(2025, 1)) == timedelta(0)
    assert held_within(ROASTERY, at(2024, 1), at(2025, 1)) == at(2025, 1) - at(2024, 1)


def note(note_id: int, score: float) -> RetrievedNote:
    return RetrievedNote(note_id, f"note {note_id}", score, {"vector": note_id}, (), None, ())


def test_order_by_profile_permutes_only_the_ranked_notes_and_keeps_scores() -> None:
    packed = [note(11, 0.9), note(2, 0.8), note(3, 0.7), note(31, 0.6), note(4, 0.5)]
    out = order_by_profile(packed, [31, 30, 11])
    assert [n.note_id for n in out] == [31, 2, 3, 11, 4]
    assert [n.score for n in out] == [0.9, 0.8, 0.7, 0.6, 0.5]
    assert out[0].channels == {"vector": 31}
    assert order_by_profile(packed, []) == packed


def test_the_ablation_table_measures_the_channel_offline() -> None:
    """`langmemcore eval locomo --ablations` has a row with the channel on offline (it is one
    of the defaults' `llm_only` mechanisms, off in the offline full system)."""
    defaults = RetrievalConfig()
    row = ablation_configs(defaults)["with profile channel"]
    assert "profile" in row.offline().channels
    assert "profile" not in defaults.offline().channels
