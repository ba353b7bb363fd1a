"""Threads (pure): when two observations are in one thread, each one's lead in a batch,
and the text a thread vector embeds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langmemcore.construction import ObservationIn
from langmemcore.construction.thread import in_thread, lead_of, thread_text

T0 = datetime(2024, 5, 4, 18, 0, tzinfo=UTC)
GAP = timedelta(minutes=30)


def turn(when: datetime | None, speaker: str | None = "Ana") -> ObservationIn:
    return ObservationIn("k", "text", speaker, when)


def test_two_turns_within_the_gap_are_one_thread_in_either_order() -> None:
    assert in_thread(turn(T0), turn(T0, "Ben"), GAP)
    assert in_thread(turn(T0), turn(T0 + GAP), GAP)
    assert in_thread(turn(T0 + GAP), turn(T0), GAP)
    assert not in_thread(turn(T0), turn(T0 + GAP + timedelta(seconds=1)), GAP)


def test_an_unknown_time_or_speaker_starts_no_thread() -> None:
    assert not in_thread(turn(None), turn(T0), GAP)
    assert not in_thread(turn(T0), turn(None), GAP)
    assert not in_thread(turn(T0, None), turn(T0), GAP)
    assert not in_thread(turn(T0), turn(T0, None), GAP)


def test_each_lead_is_the_observation_before_it_in_its_thread() -> None:
    batch = [
        ObservationIn("a", "Did you go kayaking?", "Ana", T0),
        ObservationIn("b", "Yup, on Saturday!", "Ben", T0 + timedelta(minutes=1)),
        ObservationIn("c", "Back after a month.", "Ana", T0 + timedelta(days=30)),
        ObservationIn("d", "Nobody said this.", None, T0 + timedelta(days=30, minutes=1)),
        ObservationIn("e", "After the unsaid.", "Ben", T0 + timedelta(days=30, minutes=2)),
        ObservationIn("f", "No time given.", "Ana", None),
    ]
    found = [lead_of(batch, i, "from memory", GAP) for i in range(len(batch))]
    assert found == ["from memory", "Did you go kayaking?", None, None, None, None]
    assert lead_of(batch, 0, None, GAP) is None


def test_a_thread_text_puts_the_lead_before_the_context() -> None:
    assert thread_text("Did you go?", "Ben: Yup!") == "Did you go?\nBen: Yup!"
