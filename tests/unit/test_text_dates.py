"""Time expressions: absolute dates, relative ones against a session time, timestamps."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime

import pytest

from langmemcore.text import (
    TimeMention,
    format_time_mention,
    parse_event_time,
    resolve_time_mentions,
)

# Monday 8 May 2023, 1:56 pm: the first LoCoMo-style session time used throughout.
MONDAY = datetime(2023, 5, 8, 13, 56)


def _one(text: str, reference: datetime | None = MONDAY) -> TimeMention:
    mentions = resolve_time_mentions(text, reference)
    assert len(mentions) == 1, mentions
    return mentions[0]


@pytest.mark.parametrize(
    "text",
    [
        "We got married on 7 May 2023.",
        "We got married on May 7, 2023.",
        "We got married on 2023-05-07.",
        "We got married on the 7th of May, 2023.",
    ],
)
def test_absolute_day_formats(text: str) -> None:
    mention = _one(text, reference=None)
    assert (mention.start, mention.end, mention.granularity) == (
        date(2023, 5, 7),
        date(2023, 5, 7),
        "day",
    )


def test_month_year_and_year_and_season_and_decade() -> None:
    month = _one("I started boot camp in April 2023.", None)
    assert (month.start, month.end, month.granularity) == (
        date(2023, 4, 1),
        date(2023, 4, 30),
        "month",
    )
    year = _one("We moved here in 2019 from Sweden.", None)
    assert (year.start, year.end, year.granularity) == (
        date(2019, 1, 1),
        date(2019, 12, 31),
        "year",
    )
    season = _one("The trip was in summer 2022.", None)
    assert (season.start, season.end, season.granularity) == (
        date(2022, 6, 1),
        date(2022, 8, 31),
        "season",
    )
    decade = _one("I grew up listening to music from the 90s.", None)
    assert (decade.start, decade.end, decade.granularity) == (
        date(1990, 1, 1),
        date(1999, 12, 31),
        "decade",
    )


def test_mention_text_is_the_expression_as_written() -> None:
    assert _one("I went to a support group yesterday.").text == "yesterday"
    assert _one("We met on May 7, 2023 at noon.", None).text == "May 7, 2023"


def test_without_reference_only_absolute_dates_are_returned() -> None:
    mentions = resolve_time_mentions("Yesterday I found the 7 May 2023 ticket from 2022.", None)
    assert [mention.text for mention in mentions] == ["7 May 2023", "2022"]


@pytest.mark.parametrize(
    ("text", "start", "end", "granularity"),
    [
        ("I went yesterday.", date(2023, 5, 7), date(2023, 5, 7), "day"),
        ("I'm tired today.", date(2023, 5, 8), date(2023, 5, 8), "day"),
        ("See you tomorrow!", date(2023, 5, 9), date(2023, 5, 9), "day"),
        ("We met up last week!", date(2023, 5, 1), date(2023, 5, 7), "week"),
        ("Last weekend we camped.", date(2023, 5, 6), date(2023, 5, 7), "weekend"),
        ("It rained a lot last month.", date(2023, 4, 1), date(2023, 4, 30), "month"),
        ("I painted it last year.", date(2022, 1, 1), date(2022, 12, 31), "year"),
        ("I got it two days ago.", date(2023, 5, 6), date(2023, 5, 6), "day"),
        ("I moved 4 years ago.", date(2019, 1, 1), date(2019, 12, 31), "year"),
        ("It started three weeks ago.", date(2023, 4, 17), date(2023, 4, 23), "week"),
        ("We go camping next month.", date(2023, 6, 1), date(2023, 6, 30), "month"),
        ("I'll visit this summer.", date(2023, 6, 1), date(2023, 8, 31), "season"),
        ("The race was last Saturday.", date(2023, 5, 6), date(2023, 5, 6), "day"),
        ("The show is next Friday.", date(2023, 5, 12), date(2023, 5, 12), "day"),
        ("It happened the day before yesterday.", date(2023, 5, 6), date(2023, 5, 6), "day"),
        ("Last May we went to Rome.", date(2022, 5, 1), date(2022, 5, 31), "month"),
        ("My exam is in two weeks.", date(2023, 5, 22), date(2023, 5, 28), "week"),
    ],
)
def test_relative_mentions_resolve_against_the_reference(
    text: str, start: date, end: date, granularity: str
) -> None:
    mention = _one(text)
    assert (mention.start, mention.end, mention.granularity) == (start, end, granularity)


def test_fuzzy_quantities_give_a_range() -> None:
    mention = _one("I moved here a few weeks ago.")
    assert mention.granularity == "range"
    # two to four weeks back: Monday of the earliest week .. Sunday of the latest.
    assert (mention.start, mention.end) == (date(2023, 4, 10), date(2023, 4, 30))


def test_bare_weekday_follows_the_tense() -> None:
    past = _one("On Friday I went to the pottery workshop.")
    assert past.start == date(2023, 5, 5)
    assert past.text == "Friday"
    future = _one("On Friday I will go to the pottery workshop.")
    assert future.start == date(2023, 5, 12)


def test_last_weekend_on_a_sunday_is_the_previous_one() -> None:
    sunday = datetime(2023, 5, 14, 10, 0)
    mention = _one("We went hiking last weekend.", sunday)
    assert (mention.start, mention.end) == (date(2023, 5, 6), date(2023, 5, 7))


def test_relative_mentions_cross_year_boundaries() -> None:
    tuesday = datetime(2023, 1, 3, 9, 0)
    month = _one("I adopted a cat last month.", tuesday)
    assert (month.start, month.end) == (date(2022, 12, 1), date(2022, 12, 31))
    week = _one("I adopted a cat last week.", tuesday)
    assert (week.start, week.end) == (date(2022, 12, 26), date(2023, 1, 1))


def test_winter_spans_the_new_year_and_leap_day() -> None:
    mention = _one("We are going skiing this winter.")
    assert (mention.start, mention.end) == (date(2023, 12, 1), date(2024, 2, 29))


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the concert.",
        "We raised money from 2000 people.",
        "It cost $2022 in the end.",
        "Let's march on together.",
        "The meeting starts at 2:30 pm.",
    ],
)
def test_non_dates_are_ignored(text: str) -> None:
    assert resolve_time_mentions(text, MONDAY) == []


def test_several_mentions_come_back_in_text_order() -> None:
    mentions = resolve_time_mentions(
        "Yesterday I booked the trip for next month, like the one in 2021.", MONDAY
    )
    assert [mention.text for mention in mentions] == ["Yesterday", "next month", "2021"]


def test_time_mention_is_frozen() -> None:
    mention = _one("I went yesterday.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        mention.text = "today"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37)),
        ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9)),
        ("12:30 pm on 1 January, 2024", datetime(2024, 1, 1, 12, 30)),
        ("2023-05-08T13:56:00", datetime(2023, 5, 8, 13, 56)),
        ("2023-05-08", datetime(2023, 5, 8)),
        ("May 8, 2023", datetime(2023, 5, 8)),
    ],
)
def test_parse_event_time(stamp: str, expected: datetime) -> None:
    assert parse_event_time(stamp) == expected


@pytest.mark.parametrize("stamp", ["", "sometime last week", "1:56 pm", "31 February, 2023"])
def test_parse_event_time_rejects_incomplete_or_invalid(stamp: str) -> None:
    assert parse_event_time(stamp) is None


@pytest.mark.parametrize(
    ("mention", "rendered"),
    [
        (TimeMention("x", date(2023, 5, 7), date(2023, 5, 7), "day"), "7 May 2023"),
        (TimeMention("x", date(2023, 5, 1), date(2023, 5, 7), "week"), "1-7 May 2023"),
        (TimeMention("x", date(2023, 5, 29), date(2023, 6, 4), "week"), "29 May - 4 June 2023"),
        (TimeMention("x", date(2023, 4, 1), date(2023, 4, 30), "month"), "April 2023"),
        (TimeMention("x", date(2022, 1, 1), date(2022, 12, 31), "year"), "2022"),
        (TimeMention("x", date(2023, 6, 1), date(2023, 8, 31), "season"), "summer 2023"),
        (TimeMention("x", date(2022, 12, 1), date(2023, 2, 28), "season"), "winter 2022/2023"),
    ],
)
def test_format_time_mention(mention: TimeMention, rendered: str) -> None:
    assert format_time_mention(mention) == rendered
