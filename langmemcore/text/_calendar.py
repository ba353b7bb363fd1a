"""Calendar arithmetic and names behind :mod:`langmemcore.text.dates` (private)."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

MONTH_NAMES = (
    "",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTHS: dict[str, int] = {name.lower(): index for index, name in enumerate(MONTH_NAMES) if name}
MONTHS.update({name.lower()[:3]: index for index, name in enumerate(MONTH_NAMES) if name})
MONTHS["sept"] = 9

WEEKDAYS: dict[str, int] = {
    name: index
    for index, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}

SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}


def add_months(day: date, months: int) -> date:
    """Shift a date by whole months, clamping the day to the target month's length."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def month_span(year: int, month: int) -> tuple[date, date]:
    """First and last day of a month."""
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def week_span(day: date) -> tuple[date, date]:
    """Monday and Sunday of the week containing ``day``."""
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def weekend_span(day: date) -> tuple[date, date]:
    """Saturday and Sunday of the (Monday-first) week containing ``day``."""
    saturday = week_span(day)[0] + timedelta(days=5)
    return saturday, saturday + timedelta(days=1)


def _season_instance(season: str, year: int) -> tuple[date, date]:
    """The season starting in ``year`` (winter runs into the next year)."""
    start = date(year, SEASON_START[season], 1)
    return start, add_months(start, 3) - timedelta(days=1)


def season_span(season: str, ref: date, direction: int) -> tuple[date, date]:
    """Resolve "last / this / next <season>" against a reference day.

    Args:
        season: ``"spring"``, ``"summer"``, ``"autumn"``, ``"fall"`` or ``"winter"``.
        ref: The reference day.
        direction: ``-1`` the latest one already over, ``0`` the one of the reference's
            year (for winter: the one containing or following January / February), ``+1``
            the first one starting after ``ref``.

    Returns:
        First and last day of the season.
    """
    year = ref.year - 1 if season == "winter" and ref.month < 3 else ref.year
    start, end = _season_instance(season, year)
    if direction < 0 and end >= ref:
        return _season_instance(season, year - 1)
    if direction > 0 and start <= ref:
        return _season_instance(season, year + 1)
    return start, end


def closest_year_date(ref: date, month: int, day: int) -> date:
    """The date with this month and day nearest to ``ref`` (previous, same or next year).

    Raises:
        ValueError: No year makes the month and day valid (e.g. 31 April).
    """
    candidates = []
    for year in (ref.year - 1, ref.year, ref.year + 1):
        try:
            candidates.append(date(year, month, day))
        except ValueError:
            continue
    if not candidates:
        raise ValueError(f"invalid day {day} for month {month}")
    return min(candidates, key=lambda candidate: abs((candidate - ref).days))


def format_day(day: date) -> str:
    """``date(2023, 5, 7)`` -> ``"7 May 2023"``."""
    return f"{day.day} {MONTH_NAMES[day.month]} {day.year}"


def format_interval(start: date, end: date) -> str:
    """Compact inclusive interval: ``"7 May 2023"``, ``"1-7 May 2023"``,
    ``"29 May - 4 June 2023"`` or ``"29 December 2022 - 4 January 2023"``.
    """
    if start == end:
        return format_day(start)
    if (start.year, start.month) == (end.year, end.month):
        return f"{start.day}-{format_day(end)}"
    if start.year == end.year:
        return f"{start.day} {MONTH_NAMES[start.month]} - {format_day(end)}"
    return f"{format_day(start)} - {format_day(end)}"


FUZZY_QUANTITIES = {"few": (2, 4), "couple": (2, 3), "several": (3, 6)}
DIRECTIONS = {"last": -1, "past": -1, "this past": -1, "this": 0}
DIRECTIONS.update({"next": 1, "coming": 1, "this coming": 1})


def quantity(raw: str) -> tuple[int, int]:
    """Turn a quantity phrase ("two", "a few", "3") into a (low, high) pair."""
    word = raw.lower().split()
    head = word[1] if word[0] == "a" and len(word) > 1 else word[0]
    if head in FUZZY_QUANTITIES:
        return FUZZY_QUANTITIES[head]
    if head.isdigit():
        return int(head), int(head)
    value = NUMBER_WORDS.get(head, 1)
    return value, value


def unit_span(unit: str, day: date) -> tuple[date, date]:
    """Return the calendar unit (day / week / weekend / month / year) containing ``day``."""
    if unit == "week":
        return week_span(day)
    if unit == "weekend":
        return weekend_span(day)
    if unit == "month":
        return month_span(day.year, day.month)
    if unit == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    return day, day


def shift(unit: str, day: date, amount: int) -> date:
    """Move ``day`` by ``amount`` units (negative is the past)."""
    if unit in ("week", "weekend"):
        return day + timedelta(days=7 * amount)
    if unit == "month":
        return add_months(day, amount)
    if unit == "year":
        return add_months(day, 12 * amount)
    return day + timedelta(days=amount)


def weekday_shift(ref: date, weekday: int, direction: int) -> date:
    """Nearest given weekday strictly before (``-1``) or after (``+1``) ``ref``."""
    if direction < 0:
        return ref - timedelta(days=(ref.weekday() - weekday - 1) % 7 + 1)
    return ref + timedelta(days=(weekday - ref.weekday() - 1) % 7 + 1)


def relative_span(qualifier: str, unit: str, ref: date, tense: int) -> tuple[date, date, str]:
    """Resolve "<last|this|next> <unit>" where unit is a period, season, weekday or month.

    Args:
        qualifier: A key of :data:`DIRECTIONS` ("last", "this", "next", "this past", ...).
        unit: "week", "weekend", "month", "year", a season, a weekday or a month name.
        ref: The reference day.
        tense: ``-1`` past, ``+1`` future, ``0`` unknown; only used by "this <month>" for
            a month later in the year than ``ref`` (past tense: last year's) and by "this
            <weekday>" on the wrong side of ``ref`` (past: the week before, future: after).

    Returns:
        First day, last day and granularity.
    """
    direction = DIRECTIONS[qualifier]
    if unit in ("week", "weekend", "month", "year"):
        start, end = unit_span(unit, shift(unit, ref, direction))
        return start, end, unit
    if unit in SEASON_START:
        return (*season_span(unit, ref, direction), "season")
    if unit in WEEKDAYS:
        weekday = WEEKDAYS[unit]
        if direction == 0:
            day = ref + timedelta(days=weekday - ref.weekday())
            if (day - ref).days * tense < 0:
                day += timedelta(days=7 * tense)
        else:
            day = weekday_shift(ref, weekday, direction)
        return day, day, "day"
    month = MONTHS[unit]
    year = ref.year
    if direction < 0 and month >= ref.month:
        year -= 1
    elif direction > 0 and month <= ref.month:
        year += 1
    elif direction == 0 and tense < 0 and month > ref.month:
        year -= 1
    return (*month_span(year, month), "month")
