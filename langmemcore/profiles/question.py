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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from langmemcore.profiles.aspects import ASPECTS
from langmemcore.text import TimeMention
from langmemcore.text.dates import scan_time_mentions
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


def _cues(text: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(text.split(",")) + r")\b", re.IGNORECASE)


_ASPECT_CUES: dict[str, re.Pattern[str]] = {
    "home": _cues(
        r"live,lives,lived,living in,reside,resides,based,move,moves,moved,moving,relocate\w*,"
        r"hometown,home city,where\s+(?:is|was)\s+\w+\s+(?:now|these days)"
    ),
    "work": _cues(
        r"work,works,worked,working(?!\s+out),job,jobs,career,employer,company,profession,"
        r"occupation,for a living,boss,hired,employed,what does \w+ do"
    ),
    "education": _cues(
        r"school,college,university,uni,study,studies,studying,studied,degree,major"
    ),
    "partner": _cues(
        r"married,marry,wife,husband,partner,girlfriend,boyfriend,gf,bf,dating,fianc\w+,spouse,"
        r"engaged,relationship,broke up,divorced,single"
    ),
    "family": _cues(
        r"sister,sisters,brother,brothers,siblings?,kids?,children,child,sons?,daughters?,"
        r"mother,father,mom,mum,dad,parents,family"
    ),
    "pet": _cues(
        r"pets?,dogs?,cats?,pupp(?:y|ies),kittens?,hamsters?,rabbits?,parrots?,birds?,fish,"
        r"turtles?,horses?,animals?"
    ),
    "possession": _cues(r"own,owns,owned,bought,buy,purchased?,house,flat,apartment"),
    "vehicle": _cues(
        r"car,cars,drive,drives,drove,driving,vehicle,motorbike,motorcycle,scooter,"
        r"truck,bike,van"
    ),
    "preference": _cues(
        r"like,likes,liked,love,loves,loved,enjoy,enjoys,favou?rite,prefer\w*,"
        r"fan of,into"
    ),
    "dislike": _cues(r"hate,hates,hated,dislike\w*,can't stand,cannot stand,not like"),
    "diet": _cues(r"vegan,vegetarian,diet,eat,eats,meat,pescatarian"),
    "health": _cues(
        r"health,healthy,sick,ill,illness,allergic,allergy,allergies,diagnosed,"
        r"injury,injured,condition,asthma,pregnant"
    ),
    "hobby": _cues(
        r"hobby,hobbies,plays?,played,free time,spare time,instrument,sports?,"
        r"pastime,activities"
    ),
    "team": _cues(r"team,teams,support,supports,supported,root for,roots for,play for,club"),
    "band": _cues(r"band,bands"),
    "gym": _cues(r"gym,gyms,work out,works out,workout,exercise,fitness,train,trains"),
    "plan": _cues(r"plan,plans,planning,planned,intend\w*,going to,future"),
}
_WHOLE = re.compile(
    r"\b(?:know about|tell me about|who is|who's|what about|anything about|profile of)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:used to|did(?:n't)? (?:\w+ ){1,3}?use to|before|previously|formerly|former|"
    r"originally|earlier|ex|at first|"
    r"old (?:job|home|house|place|car|school|band|team|gym|apartment|flat|city)|"
    r"back then|back when|in the past|when (?:she|he|they|\w+) (?:lived|worked|was|were|had|"
    r"studied|dated))\b",
    re.IGNORECASE,
)
_WHEN = re.compile(
    r"\b(?:back\s+)?when\s+(?:she|he|they|\w+)\s+(?:still\s+)?(?:lived|worked|was|were|had|"
    r"studied|dated)\b[^,?]*",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\b(?:now|currently|current|these days|at the moment|still|nowadays|present|today|"
    r"new|latest|at present|right now)\b",
    re.IGNORECASE,
)
_PRESENT = re.compile(
    r"\b(?:does|do|is|are|has|have|lives|works|plays|drives|owns|supports|studies|likes|"
    r"loves|hates)\b",
    re.IGNORECASE,
)


def _subject(question: str, subjects: Sequence[str]) -> str | None:
    """The first of `subjects` the question names (whole name or its first word)."""
    best: tuple[int, str] | None = None
    for subject in subjects:
        for form in dict.fromkeys((subject, subject.split()[0] if subject.split() else "")):
            if not form:
                continue
            found = re.search(r"\b" + re.escape(form) + r"(?:'s)?\b", question, re.IGNORECASE)
            if found and (best is None or found.start() < best[0]):
                best = (found.start(), subject)
    return best[1] if best else None


def _the_user(question: str, subjects: Sequence[str]) -> str | None:
    """The user's subject among `subjects` when the question asks in the first person
    ("Where do I live now?"; see :func:`~langmemcore.text.user.asks_about_user`).
    """
    if not asks_about_user(question):
        return None
    return next((s for s in subjects if s.strip().lower() == USER), None)


def _aspects(question: str) -> tuple[str, ...]:
    """The aspects the question asks about (a "when she lived in ..." clause dates it)."""
    question = _WHEN.sub(" ", question)
    found = {aspect for aspect, cue in _ASPECT_CUES.items() if cue.search(question)}
    if re.search(r"\bwork(?:s|ing)? out\b", question, re.IGNORECASE):
        found.discard("work")
    if found & {"team", "band"} and re.search(r"\bplay(?:s|ed)? (?:for|in)\b", question, re.I):
        found.discard("hobby")
    return tuple(aspect for aspect in ASPECTS if aspect in found)


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
