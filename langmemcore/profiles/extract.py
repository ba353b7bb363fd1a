"""Offline extraction of profile statements from one chat message.

Deterministic and precision first: a statement is made only when a clause opens with a
known subject (``I`` / ``we`` for the speaker, an explicit name for someone else) whose
predicate matches one of the aspect patterns of `profiles._patterns`, or when a
possessive form names the owner ("my dog Max", "Nadia's husband Tom"). Questions,
conditionals, wishes and reported speech state nothing: their clauses do not open with a
subject and a plain verb ("if I moved", "she said she", "I'd love to", "I would move").

Flags come from the clause: a negation without "anymore" / "no longer" drops the
statement, "used to", "no longer", "not ... anymore" or a past-tense stative verb
("I lived in Lyon") end the value, and "now", "new", "these days" or a verb of change
("moved to", "got a job") mark a change.
"""

from __future__ import annotations

import re

from langmemcore.profiles._patterns import OWNED, PREDICATES, Pattern
from langmemcore.profiles._values import cut_value, name_run
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.text._lexicon import word_set
from langmemcore.text.tokens import fold_apostrophes

__all__ = ["extract_statements"]

_SPEAKER_PREFIX = re.compile(r"^\s*([A-Z][\w.' -]{0,40}?)\s*:\s+")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSES = re.compile(
    r"\s*[,;:()]\s*|\s+[-\u2013\u2014]+\s+|\s+(?:and|but|so|because|cause|although|though|"
    r"while|whereas|or|plus)\s+(?!I\b)"
)
_LEAD = re.compile(
    r"(?:(?:and|but|so|also|then|well|oh|yeah|yes|wow|anyway|actually|honestly|btw|finally|"
    r"recently|lately|now|plus|um|hey|ok|okay|guess what|good news|update|"
    r"(?:last|this|next)\s+(?:year|month|week|summer|spring|fall|autumn|winter)|"
    r"in\s+\d{4}|(?:a|one|two|three|four|five|six|a few|a couple of)\s+\w+\s+ago|"
    r"yesterday|today|this morning|these days|since then)\s*[,!]?\s+)*",
    re.IGNORECASE,
)
_SUBJECT = re.compile(
    r"(?P<subj>I|[Ww]e|(?:[Mm]y\s+(?:wife|husband|partner|girlfriend|boyfriend|fianc\w+)|"
    r"(?P<with>[A-Z][a-z]+))\s+and\s+I|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=[\s'])"
)
_AUX = re.compile(
    r"\s*(?:'m|'ve|'re)|\s+(?:just|recently|finally|actually|also|now|still|officially|"
    r"really|totally|absolutely|currently|eventually|even|already|always|never|no longer|"
    r"kinda|kind of|sort of|truly|seriously|definitely|happily|proudly|not|am|is|are|was|"
    r"were|have|has|had|do|does|did|don't|doesn't|didn't|haven't|hasn't|been|used to|"
    r"started to|began to|started|began|went ahead and|decided to|get to|got to)\b",
    re.IGNORECASE,
)
_NEGATIONS = frozenset({"not", "never", "don't", "doesn't", "didn't", "haven't", "hasn't"})
_CHANGE = re.compile(r"\b(?:now|new|these days|anymore|any more|no longer|just|finally)\b", re.I)
_ANYMORE = re.compile(r"\b(?:anymore|any more)\b", re.IGNORECASE)
_PAST_STATIVE = re.compile(r"(?:lived|resided|worked|studied|had)\b", re.IGNORECASE)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|would|could|might|should|wish|hope|imagine|maybe|perhaps|someday|want|"
    r"wanna|dream|whether|unless|suppose)\b|'d\b|'ll\b",
    re.IGNORECASE,
)
_OWNER = re.compile(r"\b(?P<owner>[Mm]y|[Oo]ur|[A-Z][a-z]+'s)\s+")
_GONE = re.compile(
    r"\s*(?:,\s*)?(?:just\s+|recently\s+|sadly\s+)?(?:died|passed away|passed|ran away|"
    r"was put down|is gone|left me|moved out)\b",
    re.IGNORECASE,
)
_NAME_WORDS = word_set(
    """The My Our Your His Her Their It This That There Then So And But Oh Yeah Yes No Well
    Also Now Today Yesterday Last Next You They He She Mom Dad Hey Hi Thanks Sure Wow Lol
    Haha Guess Honestly Actually Anyway Finally Recently Maybe Just Omg What When Where
    Who Why How Do Does Did Are Is Was Were Have Has Can Could Would Should Will If Not
    Because Since While After Before Sometimes Every Speaker Hello Okay Ok"""
)


def _subject(match: re.Match[str], speaker: str | None) -> tuple[str | None, str]:
    """The subject a clause's opening names, and a co-subject ("Tom and I" -> Tom)."""
    raw = match.group("subj")
    if raw == "I" or raw.lower() == "we" or raw.endswith(" and I"):
        with_name = match.group("with") or ""
        return speaker, "" if with_name in _NAME_WORDS else with_name
    if raw.split()[0] in _NAME_WORDS:
        return None, ""
    return raw, ""


def _flags(pattern: Pattern, aux: list[str], clause: str, verb: str) -> tuple[bool, bool] | None:
    """``(ended, change)`` of a matched predicate, or None when the clause negates it."""
    words = " ".join(aux).lower().split()
    used_to = "used" in words
    no_longer = "longer" in words
    negated = any(word in _NEGATIONS for word in words)
    ended = pattern.ended or used_to or no_longer
    if negated and not pattern.ended:
        if not _ANYMORE.search(clause):
            return None
        ended = True
    perfect = any(word in {"'ve", "have", "has"} for word in words)
    if not perfect and _PAST_STATIVE.match(verb):
        ended = True
    if "was" in words or "were" in words:
        ended = ended or verb.lower().endswith("ing")
    change = pattern.change or bool(_CHANGE.search(clause)) or ended
    return ended, change


def _predicate(clause: str, start: int) -> tuple[Pattern, re.Match[str], list[str]] | None:
    """The first pattern matching after the subject, skipping adverbs and auxiliaries."""
    aux: list[str] = []
    at = start
    for _ in range(8):
        rest = clause[at:].lstrip()
        offset = at + len(clause[at:]) - len(rest)
        for pattern in PREDICATES:
            match = pattern.regex.match(clause, offset)
            if match and _value(pattern, match) is not None:
                return pattern, match, aux
        step = _AUX.match(clause, at)
        if not step:
            return None
        aux.append(step.group(0).strip())
        at = step.end()
    return None


def _value(pattern: Pattern, match: re.Match[str]) -> str | None:
    """The normalised value of a match; None when its capture holds no value.

    A pattern whose value group did not take part ("I quit my job", "we broke up")
    yields its `Pattern.fixed` value, often ``""`` (only the aspect is known).
    """
    groups = match.groupdict()
    raw = groups.get("value")
    if raw is None:
        return pattern.fixed
    value = cut_value(raw, pattern.kind, pattern.aspect)
    if not value:
        return None
    name = groups.get("name")
    if pattern.aspect == "pet":
        value = value.lower() + (f" {name}" if name else "")
    return value


def _from_clause(clause: str, speaker: str | None) -> AspectStatement | None:
    lead = _LEAD.match(clause)
    at = lead.end() if lead else 0
    opening = _SUBJECT.match(clause, at)
    if not opening:
        return None
    subject, with_name = _subject(opening, speaker)
    if not subject:
        return None
    found = _predicate(clause, opening.end())
    if not found:
        return None
    pattern, match, aux = found
    flags = _flags(pattern, aux, clause, match.group(0))
    if flags is None:
        return None
    value = _value(pattern, match) or ""
    if pattern.aspect == "partner" and pattern.ended and not value:
        value = with_name
    return AspectStatement(subject, pattern.aspect, value, ended=flags[0], change=flags[1])


def _owner(raw: str, speaker: str | None) -> str | None:
    if raw.lower() in {"my", "our"}:
        return speaker
    name = raw[:-2]
    return None if name in _NAME_WORDS else name


def _owned(sentence: str, speaker: str | None) -> list[AspectStatement]:
    """Statements of the possessive forms in a sentence ("my dog Max died")."""
    found: list[AspectStatement] = []
    for owner in _OWNER.finditer(sentence):
        subject = _owner(owner.group("owner"), speaker)
        if not subject:
            continue
        for form in OWNED:
            match = form.regex.match(sentence, owner.end())
            if not match:
                continue
            name = name_run(match.group("name") or "")
            if form.named_only and not name:
                break
            noun = match.group("noun").lower()
            value = f"{noun} {name}".strip() if form.with_noun else (name or noun)
            gone = bool(_GONE.match(sentence, match.end())) and form.aspect == "pet"
            found.append(AspectStatement(subject, form.aspect, value, ended=gone, change=gone))
            break
    return found


def extract_statements(text: str, speaker: str | None) -> list[AspectStatement]:
    """The profile statements one chat message makes, by deterministic patterns.

    First person resolves to `speaker`; a third person to the named person when the name
    is explicit ("Nadia moved to Hamburg"); anything else (no speaker, "she", "my sister")
    states nothing. A leading ``"Name: "`` is read as the speaker when `speaker` is None.

    Args:
        text: The message, e.g. ``"Nadia: I moved to Hamburg last month!"``.
        speaker: Who wrote it, or None when unknown.

    Returns:
        The statements in the order they are made, duplicates removed.
    """
    text = fold_apostrophes(text)
    prefix = _SPEAKER_PREFIX.match(text)
    if prefix:
        speaker = speaker or prefix.group(1).strip()
        text = text[prefix.end() :]
    found: list[AspectStatement] = []
    for sentence in _SENTENCES.split(text):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue
        for clause in _CLAUSES.split(sentence):
            statement = _from_clause(clause.strip(), speaker)
            if statement:
                found.append(statement)
        if not _HYPOTHETICAL.search(sentence):
            found.extend(_owned(sentence, speaker))
    return list(dict.fromkeys(found))
