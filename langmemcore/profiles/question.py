"""Reading a question as a question about a person's profile: who, which aspects, when.

"Where does Tomas work now?" asks about Tomas's work, currently; "What pet did Nadia
have before the dog?" about Nadia's pets, in the past; "Where did Nadia live in 2022?"
about her home in the year 2022. The profile channel of the retrieval graph uses this to
reach the current value's sources first, or the named period's value.

Pure and offline: a subject is one of the names memory knows (the `subjects` given),
aspects come from the question's words, the period from its markers ("now", "these
days", "used to", "before", a date) or else its tense, and dates from
`langmemcore.text.dates`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from langmemcore.profiles.aspects import ASPECTS
from langmemcore.text import TimeMention
from langmemcore.text.dates import scan_time_mentions
from langmemcore.text.phrases import PhraseSet, phrases
from langmemcore.text.tokens import fold_apostrophes
from langmemcore.text.user import USER, asks_about_user

__all__ = ["ProfileQuestion", "parse_profile_question", "text_aspects"]


@dataclass(frozen=True)
class ProfileQuestion:
    """What a question asks of a profile.

    Attributes:
        subject: The person asked about, as given in `subjects`.
        aspects: The aspects asked about, in `ASPECTS` order; every aspect when the
            question asks about the person as a whole ("What do you know about Nadia?").
        period: ``"current"`` (now, these days, present tense), ``"past"`` (used to,
            before, a past date, "when she lived in ...") or None when the question
            does not say.
        start: First day of the period the question names, when it names one.
        end: Last day of that period (inclusive), when it names one.
    """

    subject: str
    aspects: tuple[str, ...]
    period: str | None = None
    start: date | None = None
    end: date | None = None


_ASPECT_CUES = PhraseSet.union(
    {aspect: phrases(f"question.aspects.{aspect}") for aspect in ASPECTS}
)
_WHOLE = phrases("question.whole")
_PAST = phrases("question.past")
_WHEN = phrases("question.when_clause")
_CURRENT = phrases("question.current")
_PRESENT = phrases("question.present_tense")
_WORK_OUT = phrases("question.work_out")
_PLAYS_FOR = phrases("question.plays_for")


def _subject(question: str, subjects: Sequence[str]) -> str | None:
    """The first of `subjects` the question names (whole name or its first word)."""
    best: tuple[int, str] | None = None
    for subject in subjects:
        for form in dict.fromkeys((subject, subject.split()[0] if subject.split() else "")):
            if not form:
                continue
            found = _name(form).search(question)
            if found and (best is None or found.start < best[0]):
                best = (found.start, subject)
    return best[1] if best else None


@lru_cache(maxsize=4096)
def _name(form: str) -> PhraseSet:
    """A name as a phrase set (cached: the same subjects are looked for in each question)."""
    return PhraseSet.of_words([form])


def _the_user(question: str, subjects: Sequence[str]) -> str | None:
    """The user's subject among `subjects` when the question asks in the first person
    ("Where do I live now?"; see :func:`~langmemcore.text.user.asks_about_user`).
    """
    if not asks_about_user(question):
        return None
    return next((s for s in subjects if s.strip().lower() == USER), None)


def _aspects(question: str) -> tuple[str, ...]:
    """The aspects the question asks about (a "when she lived in ..." clause dates it)."""
    question = _without_when_clauses(question)
    found = set(_ASPECT_CUES.names_in(question))
    if _WORK_OUT.search(question):
        found.discard("work")
    if found & {"team", "band"} and _PLAYS_FOR.search(question):
        found.discard("hobby")
    return tuple(aspect for aspect in ASPECTS if aspect in found)


def _without_when_clauses(question: str) -> str:
    """``question`` without the clauses that date it by what the person did then ("when
    she lived in Cork"), each up to the next comma or question mark.
    """
    kept, last = [], 0
    for found in _WHEN.finditer(question):
        if found.start < last:
            continue
        ends = (question.find(",", found.end), question.find("?", found.end))
        stop = min((at for at in ends if at >= 0), default=len(question))
        kept += [question[last : found.start], " "]
        last = stop
    return "".join([*kept, question[last:]])


def _period(
    question: str, times: Sequence[TimeMention], reference: datetime | date | None
) -> tuple[str | None, date | None, date | None]:
    """The period the question asks about, and its dates when it names them."""
    if times:
        mention = times[0]
        today = reference.date() if isinstance(reference, datetime) else reference
        current = today is not None and mention.start <= today <= mention.end
        return ("current" if current else "past"), mention.start, mention.end
    if _PAST.search(question):
        return "past", None, None
    if _CURRENT.search(question) or _PRESENT.search(question):
        return "current", None, None
    return None, None, None


def text_aspects(text: str) -> tuple[str, ...]:
    """The aspects a text speaks of by their cue words ("my dog", "I work at" -> pet,
    work), in `ASPECTS` order: what a question asks about, or what a statement is about.
    """
    return _aspects(fold_apostrophes(text))


def parse_profile_question(
    question: str,
    subjects: Sequence[str],
    *,
    reference: datetime | date | None = None,
    times: Sequence[TimeMention] | None = None,
) -> ProfileQuestion | None:
    """Read `question` as a question about one known person's profile.

    Args:
        question: The question, e.g. ``"Where does Tomas work now?"``.
        subjects: The names memory knows (the profile subjects of the namespace).
        reference: When the question is asked, to resolve "last year" and to tell a
            past period from the current one; None keeps only absolute dates.
        times: The dates and periods found in the question, when they are at hand (a
            query plan's); else they are read from it against ``reference``.

    Returns:
        The subject, aspects and period asked about (the user's subject when the
        question names none and asks in the first person); None when it has no subject
        or asks about no aspect.
    """
    question = fold_apostrophes(question)
    subject = _subject(question, subjects) or _the_user(question, subjects)
    if subject is None:
        return None
    aspects = _aspects(question)
    if not aspects:
        if not _WHOLE.search(question):
            return None
        aspects = ASPECTS
    if times is None:
        times = [span.mention for span in scan_time_mentions(question, reference)]
    period, start, end = _period(question, times, reference)
    return ProfileQuestion(subject, aspects, period, start, end)
