"""Threads (pure): when two observations are in one thread, each one's lead in a batch,
and the text a thread vector embeds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langmemcore.construction import ObservationIn
from langmemcore.construction.thread import in_thread, lead_of, thread_text

T0 = datetime(2024, 5, 4, 18, 0, tzinfo=UTC)
GAP = timedelta(minutes=30)


def test_two_times_within_the_gap_are_one_thread_in_either_order() -> None:
    assert in_thread(T0, T0, GAP)
    assert in_thread(T0, T0 + GAP, GAP)
    assert in_thread(T0 + GAP, T0, GAP)
    assert not in_thread(T0, T0 + GAP + timedelta(seconds=1), GAP)


def test_an_unknown_time_starts_no_thread() -> None:
    assert not in_thread(None, T0, GAP)
    assert not in_thread(T0, None, GAP)
    assert not in_thread(None, None, GAP)


def test_each_lead_is_the_observation_before_it_in_its_thread() -> None:
    batch = [
        ObservationIn("a", "Did you go kayaking?", "Ana", T0),
        ObservationIn("b", "Yup, on Saturday!", "Ben", T0 + timedelta(minutes=1)),
        ObservationIn("c", "Back after a month.", "Ana", T0 + timedelta(days=30)),
        ObservationIn("d", "No time given.", "Ben", None),
        ObservationIn("e", "Nor here.", "Ana", None),
    ]
    found = [lead_of(batch, i, "from memory", GAP) for i in range(len(batch))]
    assert found == ["from memory", "Did you go kayaking?", None, None, None]
    assert lead_of(batch, 0, None, GAP) is None


def test_a_thread_text_puts_the_lead_before_the_context() -> None:
    assert thread_text("Did you go?", "Ben: Yup!") == "Did you go?\nBen: Yup!"
