"""Time words by tense and by the speaker's time: one table of phrasings.

Each row: what was said, when it was said (the reference), the time expression as it
should be reported, and the day range it should resolve to; ``None`` means the words give
no tense evidence (or describe a habit), so the expression must be left unresolved.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest

from langmemcore.text import resolve_time_mentions

SAT = datetime(2024, 10, 5, 18, 0)  # Saturday 5 October 2024, the demo's third session
JAN = datetime(2024, 1, 15, 9, 0)  # Monday 15 January 2024
MAR = datetime(2024, 3, 2, 18, 30)  # Saturday 2 March 2024, the demo's first session
JUN = datetime(2024, 6, 15, 12, 0)  # Saturday 15 June 2024, the demo's second session
DEC = datetime(2024, 12, 20, 10, 0)  # Friday 20 December 2024

Expected = tuple[date, date] | None


def _day(year: int, month: int, day: int) -> tuple[date, date]:
    return date(year, month, day), date(year, month, day)


def _span(first: tuple[int, int, int], last: tuple[int, int, int]) -> tuple[date, date]:
    return date(*first), date(*last)


TENSE_TABLE: list[tuple[str, datetime, str, Expected]] = [
    # weekdays, past
    ("I started my new job at St. Mary's Hospital on Monday!", SAT, "Monday", _day(2024, 9, 30)),
    (
        "Update: I started my new job as a data scientist at St. Mary's Hospital on Monday!",
        SAT,
        "Monday",
        _day(2024, 9, 30),
    ),
    ("We went to the beach on Thursday.", SAT, "Thursday", _day(2024, 10, 3)),
    ("She was sick on Wednesday.", SAT, "Wednesday", _day(2024, 10, 2)),
    ("He had already left on Friday.", SAT, "Friday", _day(2024, 10, 4)),
    ("I've booked the tickets on Wednesday.", SAT, "Wednesday", _day(2024, 10, 2)),
    ("I've been training since Monday.", SAT, "Monday", _day(2024, 9, 30)),
    ("On Friday, I met Jonas for lunch.", SAT, "Friday", _day(2024, 10, 4)),
    ("Did you go on Sunday?", SAT, "Sunday", _day(2024, 9, 29)),
    ("What happened on Thursday?", SAT, "Thursday", _day(2024, 10, 3)),
    ("I bought a bike on Tuesday.", SAT, "Tuesday", _day(2024, 10, 1)),
    ("We got engaged on Sunday!", SAT, "Sunday", _day(2024, 9, 29)),
    ("I took the day off on Thursday.", SAT, "Thursday", _day(2024, 10, 3)),
    ("We had dinner at Mrs. Okafor's on Thursday.", SAT, "Thursday", _day(2024, 10, 3)),
    ("My mom called me on Tuesday.", SAT, "Tuesday", _day(2024, 10, 1)),
    ("What did you do on Sunday?", SAT, "Sunday", _day(2024, 9, 29)),
    # weekdays, future
    ("I start my new job on Monday.", SAT, "Monday", _day(2024, 10, 7)),
    ("I will start on Monday.", SAT, "Monday", _day(2024, 10, 7)),
    ("I'm starting on Monday.", SAT, "Monday", _day(2024, 10, 7)),
    ("I'll call you on Tuesday.", SAT, "Tuesday", _day(2024, 10, 8)),
    ("Are you coming on Sunday?", SAT, "Sunday", _day(2024, 10, 6)),
    ("I'm going to visit on Wednesday.", SAT, "Wednesday", _day(2024, 10, 9)),
    ("I'm gonna call her on Friday", SAT, "Friday", _day(2024, 10, 11)),
    ("We plan to leave on Tuesday.", SAT, "Tuesday", _day(2024, 10, 8)),
    ("I'm about to sign the lease on Monday.", SAT, "Monday", _day(2024, 10, 7)),
    ("See you on Friday!", SAT, "Friday", _day(2024, 10, 11)),
    ("Priya starts on Monday.", SAT, "Monday", _day(2024, 10, 7)),
    ("I have a dentist appointment on Wednesday.", SAT, "Wednesday", _day(2024, 10, 9)),
    ("The concert on Friday will be amazing!", SAT, "Friday", _day(2024, 10, 11)),
    # two clauses: the clause the weekday sits in decides
    ("I was tired, but on Friday I fly to Lisbon.", SAT, "Friday", _day(2024, 10, 11)),
    (
        "I saw her last week and I will see her again on Thursday.",
        SAT,
        "Thursday",
        _day(2024, 10, 10),
    ),
    ("I will tell you what happened on Tuesday.", SAT, "Tuesday", _day(2024, 10, 1)),
    # weekdays, ambiguous
    ("Monday?", SAT, "Monday", None),
    ("I usually swim on Monday.", SAT, "Monday", None),
    ("Every Monday I go running.", SAT, "Monday", None),
    # last / next / this
    ("The race was last Saturday.", SAT, "last Saturday", _day(2024, 9, 28)),
    ("The show is next Friday.", SAT, "next Friday", _day(2024, 10, 11)),
    ("I start this Monday.", SAT, "this Monday", _day(2024, 10, 7)),
    ("I started this Monday.", SAT, "this Monday", _day(2024, 9, 30)),
    ("We met last week.", SAT, "last week", _span((2024, 9, 23), (2024, 9, 29))),
    ("We meet next week.", SAT, "next week", _span((2024, 10, 7), (2024, 10, 13))),
    ("I moved here last month.", SAT, "last month", _span((2024, 9, 1), (2024, 9, 30))),
    ("We had our wedding last May.", SAT, "last May", _span((2024, 5, 1), (2024, 5, 31))),
    ("I will visit next March.", SAT, "next March", _span((2025, 3, 1), (2025, 3, 31))),
    # N days / weeks / months ago, yesterday, tomorrow
    ("I moved to Berlin two weeks ago.", SAT, "two weeks ago", _span((2024, 9, 16), (2024, 9, 22))),
    ("We adopted her 3 days ago.", SAT, "3 days ago", _day(2024, 10, 2)),
    ("I quit six months ago.", SAT, "six months ago", _span((2024, 4, 1), (2024, 4, 30))),
    ("I went yesterday.", SAT, "yesterday", _day(2024, 10, 4)),
    ("I fly tomorrow.", SAT, "tomorrow", _day(2024, 10, 6)),
    ("The day before yesterday we hiked.", SAT, "The day before yesterday", _day(2024, 10, 3)),
    ("We leave the day after tomorrow.", SAT, "the day after tomorrow", _day(2024, 10, 7)),
    # months without a year
    ("I went to Rome in March.", SAT, "March", _span((2024, 3, 1), (2024, 3, 31))),
    ("I went to Rome in March.", JAN, "March", _span((2023, 3, 1), (2023, 3, 31))),
    ("I'm going to Rome in March.", JAN, "March", _span((2024, 3, 1), (2024, 3, 31))),
    ("We are going to move in June.", SAT, "June", _span((2025, 6, 1), (2025, 6, 30))),
    ("Ines is getting married in September.", MAR, "September", _span((2024, 9, 1), (2024, 9, 30))),
    ("The Berlin Marathon is in September.", JUN, "September", _span((2024, 9, 1), (2024, 9, 30))),
    (
        "I signed up for the Berlin Marathon in September next year!",
        SAT,
        "September next year",
        _span((2025, 9, 1), (2025, 9, 30)),
    ),
    ("In March?", SAT, "March", None),
    ("I always travel in August.", SAT, "August", None),
    # months and days with and without a year
    ("We moved here in March 2019.", SAT, "March 2019", _span((2019, 3, 1), (2019, 3, 31))),
    (
        "Ines booked a quinta in Sintra for the wedding on the 14th of September.",
        JUN,
        "14th of September",
        _day(2024, 9, 14),
    ),
    ("The wedding is on the 14th of September.", JUN, "14th of September", _day(2024, 9, 14)),
    ("My birthday is on 3 January.", DEC, "3 January", _day(2025, 1, 3)),
    ("I was born on 3 January 1990.", SAT, "3 January 1990", _day(1990, 1, 3)),
]


@pytest.mark.parametrize(("text", "reference", "surface", "expected"), TENSE_TABLE)
def test_time_words_resolve_by_tense(
    text: str, reference: datetime, surface: str, expected: Expected
) -> None:
    mentions = {m.text: (m.start, m.end) for m in resolve_time_mentions(text, reference)}
    if expected is None:
        assert surface not in mentions, mentions
    else:
        assert mentions.get(surface) == expected, mentions
