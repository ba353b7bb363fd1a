"""Cutting and normalising the raw value a profile pattern captured.

A value is kept short: a capitalised run for names and places ("Hamburg", "Red Sox",
"University of Toronto"), a noun or gerund phrase of at most five words for the rest,
a verb phrase of at most eight words for plans. Articles, possessive determiners and
trailing punctuation go; a pronoun ("it", "that") or an empty remainder yields no value.
"""

from __future__ import annotations

from langmemcore.text._lexicon import word_set
from langmemcore.text.phrases import phrases

__all__ = ["cut_value", "gerund"]

_WORD_MARKS = "_'.&-"
"""What a value's word holds beside letters and digits ("AT&T", "e-bike", "St.")."""
_LEADING = word_set(
    """a an the my our his her their your some this that these those new own current
    little whole"""
)
_STOP = word_set(
    """and but or because cause since so when while with for from in on at to about as
    after before until now anymore again too lately these this last next every there
    here though which who that than really right yet ever recently currently already
    today yesterday tonight tomorrow soon by during like if lol haha haha! tbh these
    nowadays anyway though it's i'm we're not very so much more most all than downtown
    nearby locally remotely part-time full-time instead"""
)
_PLAN_STOP = word_set(
    """and but or because cause since so when while if next this last soon someday
    eventually later tomorrow tonight once after before in lol haha though anyway for
    instead too again as together"""
)
_PRONOUNS = word_set(
    """it that this them you him her me us those these everything something anything
    everyone someone anyone what how when where which who why there here stuff things
    one ones lot lots myself yourself himself herself ourselves themselves"""
)
_CONNECT = word_set("of de del la upon am on the and")
_NOT_NAMES = word_set(
    """i i'm i've i'd the a an my our his her their your it this that there then so and but
    oh yeah yes no well also now today yesterday last next we you they he she mom dad
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december christmas god lol haha omg
    hey hi thanks thank sure ok okay wow"""
)
_ADVERBS = word_set("just really always actually also still sometimes usually often never")
_CALLED = phrases("value.called")
_VEHICLE_ADJECTIVES = word_set(
    "old used brand-new second-hand electric red blue black white silver grey gray"
)
_VEHICLE_NOUNS = word_set(
    """car truck van suv motorbike motorcycle scooter bike bicycle e-bike minivan jeep camper rv
    vespa"""
)
_JOBS = word_set(
    """nurse chef cook teacher barista engineer doctor lawyer paramedic firefighter librarian
    curator designer developer programmer accountant architect dentist therapist writer
    editor artist musician actor actress pilot driver mechanic plumber carpenter waiter
    waitress bartender cashier manager consultant researcher professor lecturer tutor vet
    surgeon midwife receptionist secretary clerk banker realtor agent officer cop detective
    soldier farmer baker butcher florist hairdresser barber tailor coach trainer instructor
    counselor counsellor worker caregiver nanny babysitter intern freelancer entrepreneur
    founder ceo cto director producer animator translator interpreter lead analyst
    scientist journalist photographer pharmacist electrician veterinarian"""
)
_BAD_GERUNDS = word_set(
    """working feeling thinking going getting looking trying having making taking
    wondering being saying telling talking doing seeing coming waiting living moving
    planning dating hoping wishing considering following using eating drinking smoking
    caring worrying missing needing wanting loving liking hating helping"""
)


def gerund(verb: str) -> str:
    """The ``-ing`` form of a base verb ("cook" -> "cooking", "swim" -> "swimming")."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    return verb + verb[-1] + "ing" if _one_closed_syllable(verb) else verb + "ing"


def _one_closed_syllable(verb: str) -> bool:
    """Whether a short verb ends in its only vowel and a consonant that doubles before
    ``-ing`` ("swim", "stop"; not "go", "show", "fix" or "rain").
    """
    vowels = [i for i, c in enumerate(verb) if c in _VOWELS]
    return len(verb) <= 4 and vowels == [len(verb) - 2] and verb[-1] not in _NOT_DOUBLED


_VOWELS = frozenset("aeiou")
_NOT_DOUBLED = frozenset("aeiouwxy")


def _without_to(raw: str) -> str:
    """``raw`` without a leading "to" and the spaces after it ("to open a cafe")."""
    rest = raw.lstrip()
    after = rest[2:]
    if rest.startswith("to") and after[:1].isspace():
        return after.lstrip()
    return raw


def _words(raw: str) -> list[str]:
    """The words of a value: each opens with an ASCII letter or digit and holds letters,
    digits and `_WORD_MARKS`; a trailing ``.`` or ``'`` goes.
    """
    words: list[str] = []
    current: list[str] = []
    for char in [*raw, " "]:
        if current and (char.isalnum() or char in _WORD_MARKS):
            current.append(char)
            continue
        if current:
            words.append("".join(current).rstrip(".'"))
        current = [char] if char.isascii() and char.isalnum() else []
    return [word for word in words if word]


def _without_called(raw: str) -> str:
    """``raw`` from the name on when it opens "a band called" or "my dog named" and a
    capital follows; else ``raw``.
    """
    opening = _CALLED.starts_at(raw, 0)
    rest = raw[opening.end :] if opening else ""
    name = rest.lstrip()
    return name if rest[:1].isspace() and "A" <= name[:1] <= "Z" else raw


def name_run(raw: str) -> str:
    """The leading run of capitalised words in `raw` ("the Red Sox now" -> "Red Sox").

    Returns:
        The run, or ``""`` when `raw` does not start (after an article) with a name.
    """
    words = _words(raw)
    if words and words[0].lower() == "the":
        words = words[1:]
    run: list[str] = []
    for word in words:
        capital = word[0].isupper() and word.lower() not in _NOT_NAMES
        if capital or (run and word.lower() in _CONNECT and len(run) < 4):
            run.append(word)
        else:
            break
    while run and run[-1].lower() in _CONNECT:
        run.pop()
    return " ".join(run).rstrip(".'").removesuffix("'s")


def _phrase(raw: str, stop: frozenset[str], limit: int) -> list[str]:
    words = _words(raw)
    while words and words[0].lower() in _LEADING:
        words = words[1:]
    kept: list[str] = []
    for i, word in enumerate(words):
        low = word.lower()
        capital_of = low == "of" and kept and i + 1 < len(words) and words[i + 1][0].isupper()
        verb_for = low == "for" and len(kept) == 1 and stop is _PLAN_STOP
        if kept and low in stop and not capital_of and not verb_for:
            break
        kept.append(word)
        if len(kept) >= limit:
            break
    return kept


def _role(raw: str) -> str:
    """A job title ("high school teacher"): lowercase words whose head names a job."""
    words = _phrase(raw, _STOP, 4)
    if not words or any(word[0].isupper() for word in words):
        return ""
    head = words[-1].lower()
    job = head in _JOBS or head.endswith(("ist", "ian", "grapher"))
    return " ".join(words).lower() if job else ""


def _vehicle(raw: str) -> str:
    """A make and model ("Honda Civic", "Tesla Model 3") or a vehicle noun ("car")."""
    words = _words(raw)
    while words and words[0].lower() in _LEADING | _VEHICLE_ADJECTIVES:
        words = words[1:]
    if words and words[0][0].isupper():
        run = []
        for word in words:
            if not (word[0].isupper() or any(char.isdigit() for char in word)):
                break
            run.append(word)
        return " ".join(run[:3])
    for i, word in enumerate(words[:3]):
        if word.lower() in _VEHICLE_NOUNS:
            return " ".join(words[: i + 1]).lower()
    return ""


def cut_value(raw: str, kind: str, aspect: str) -> str:
    """The normalised value of a raw capture, or ``""`` when it does not hold one.

    Args:
        raw: The text the pattern's ``value`` group captured (to the clause's end).
        kind: The pattern's kind (see `profiles._patterns_base.Pattern`).
        aspect: The pattern's aspect (hobbies refuse non-hobby gerunds).

    Returns:
        A short value in its original case, stripped of articles and punctuation.
    """
    raw = _without_called(raw)
    if kind in _CUTS:
        return _CUTS[kind](raw)
    if kind == "fixed":
        return " ".join(_words(raw)).lower()
    if kind == "gerund":
        return gerund(raw.strip().lower())
    if kind == "verb":
        words = _phrase(_without_to(raw), _PLAN_STOP, 8)
    else:
        words = _phrase(raw, _STOP, 5)
        if words and words[0].lower() == "to":
            words = [w for w in words[1:] if w.lower() not in _ADVERBS]
            words = [gerund(words[0].lower()), *words[1:]] if words else []
    if not words or words[0].lower() in _PRONOUNS or words[0].lower() in _STOP:
        return ""
    if aspect == "hobby" and words[0].lower() in _BAD_GERUNDS:
        return ""
    value = " ".join(words).rstrip(".'")
    return value if value and value[0].isalnum() else ""


_CUTS = {"name": name_run, "role": _role, "vehicle": _vehicle}
