"""Clauses of a chat sentence, their subjects and their predicates' flags.

A clause states something about a subject only when it opens (after interjections and
time phrases) with ``I`` / ``we`` / ``X and I`` (the speaker), an explicit name, or a
named relation ("my roommate Jess"), followed by adverbs and auxiliaries and then a known
predicate. A clause with no subject continues the previous clause's subject ("I'm in
Lyon, working as a nurse"); a sentence's first clause with no subject and a past-tense
verb is the speaker's, as chat drops the pronoun ("Finally sold the Civic!").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langmemcore.profiles._patterns import PREDICATES, Pattern
from langmemcore.profiles._values import cut_value
from langmemcore.text._lexicon import word_set

__all__ = ["NAME_WORDS", "Opening", "Predicate", "flags", "opening", "predicates", "value_of"]

SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
CLAUSES = re.compile(
    r"\s*[,;:()]\s*|\s+[-\u2013\u2014]+\s+|\s+(?:and|but|so|because|cause|although|though|"
    r"while|whereas|or|plus)\s+(?!I\b)"
)
_LEAD = re.compile(
    r"(?:(?:and|but|so|also|then|well|oh|yeah|yes|wow|anyway|actually|honestly|btw|finally|"
    r"recently|lately|now|plus|um|hey|ok|okay|guess what|good news|big news|update|"
    r"(?:last|this|next)\s+(?:year|month|week|summer|spring|fall|autumn|winter)|"
    r"in\s+\d{4}|(?:a|one|two|three|four|five|six|a few|a couple of)\s+\w+\s+ago|"
    r"yesterday|today|this morning|these days|since then|just)\s*[,!:]?\s+)*",
    re.IGNORECASE,
)
_RELATIONS = (
    r"(?:friend|best friend|roommate|flatmate|neighbor|neighbour|colleague|coworker|boss|"
    r"brother|sister|mom|mum|mother|dad|father|son|daughter|cousin|aunt|uncle|wife|husband|"
    r"partner|girlfriend|boyfriend|fianc\w+|grandma|grandpa|niece|nephew)"
)
_SUBJECT = re.compile(
    r"(?P<subj>I|[Ww]e|(?:[Mm]y\s+" + _RELATIONS + r"|(?P<with>[A-Z][a-z]+))\s+and\s+I|"
    r"(?:[Mm]y|[Oo]ur|[A-Z][a-z]+'s)\s+(?:\w+\s+)?"
    + _RELATIONS
    + r"\s*,?\s+(?P<named>[A-Z][a-z]+)|[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=[\s'])"
)
_AUX = re.compile(
    r"\s*(?:'m|'ve|'re)|\s+(?:just|recently|finally|actually|also|now|still|officially|"
    r"really|totally|absolutely|currently|eventually|even|already|always|never|no longer|"
    r"kinda|kind of|sort of|truly|seriously|definitely|happily|proudly|not|am|is|are|was|"
    r"were|have|has|had|do|does|did|don't|doesn't|didn't|haven't|hasn't|been|used to|"
    r"started to|began to|started|began|went ahead and|decided to|get to|got to|"
    r"fully|somehow|basically|mostly)\b",
    re.IGNORECASE,
)
_PAST_VERB = re.compile(
    r"(?:\w+ed|sold|got|left|quit|bought|broke|became|took|found|began|made|went|gave|"
    r"joined|moved|started|picked up|took up)\b",
    re.IGNORECASE,
)
_NEGATIONS = frozenset({"not", "never", "don't", "doesn't", "didn't", "haven't", "hasn't"})
_CHANGE = re.compile(r"\b(?:now|new|these days|anymore|any more|no longer|just|finally)\b", re.I)
_ANYMORE = re.compile(r"\b(?:anymore|any more)\b", re.IGNORECASE)
_PAST_STATIVE = re.compile(r"(?:lived|resided|worked|studied|had)\b", re.IGNORECASE)
_PRONOUNS = word_set(
    """he she they it it's you i we this that there her his my our their your its he's she's
    they're you're that's there's"""
)
_COMBINE = frozenset({frozenset({"hobby", "band"})})
NAME_WORDS = word_set(
    """The My Our Your His Her Their It This That There Then So And But Oh Yeah Yes No Well
    Also Now Today Yesterday Last Next You They He She Mom Dad Hey Hi Thanks Sure Wow Lol
    Haha Guess Honestly Actually Anyway Finally Recently Maybe Just Omg What When Where
    Who Why How Do Does Did Are Is Was Were Have Has Can Could Would Should Will If Not
    Because Since While After Before Sometimes Every Speaker Hello Okay Ok Big Good Update
    Meet Sad Aw Congrats Congratulations Nice Cool Amazing Ooh Time Still Please Let"""
)
"""Capitalised words that are never a person's name at a clause's start."""


@dataclass(frozen=True)
class Opening:
    """Who a clause is about and where its predicate starts.

    Attributes:
        subject: The subject as memory names them.
        with_name: The other person of "Tom and I" (a partner ending's value).
        end: Offset in the clause where adverbs, auxiliaries and the predicate begin.
    """

    subject: str
    with_name: str
    end: int


@dataclass(frozen=True)
class Predicate:
    """A pattern matched in a clause, with the auxiliaries and adverbs before it."""

    pattern: Pattern
    match: re.Match[str]
    aux: tuple[str, ...]


def opening(clause: str, speaker: str | None, carried: str | None, first: bool) -> Opening | None:
    """The clause's subject, or the carried one when it opens with a verb.

    Args:
        clause: One clause of a sentence.
        speaker: Who wrote the message (first person), or None.
        carried: The previous clause's subject in the sentence, or None.
        first: Whether this is the sentence's first clause.
    """
    lead = _LEAD.match(clause)
    at = lead.end() if lead else 0
    found = _SUBJECT.match(clause, at)
    if found:
        raw = found.group("subj")
        if raw == "I" or raw.lower() == "we" or raw.endswith(" and I"):
            with_name = found.group("with") or ""
            with_name = "" if with_name in NAME_WORDS else with_name
            return Opening(speaker, with_name, found.end()) if speaker else None
        subject = found.group("named") or raw
        if subject.split()[0] in NAME_WORDS:
            return None
        return Opening(subject, "", found.end())
    word = clause[at:].split(" ", 1)[0].lower()
    if carried and word and word not in _PRONOUNS and not clause[at].isupper():
        return Opening(carried, "", at)
    if first and speaker and _PAST_VERB.match(clause, at):
        return Opening(speaker, "", at)
    return None


def value_of(pattern: Pattern, match: re.Match[str]) -> str | None:
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
    if pattern.aspect == "pet":
        name = groups.get("name")
        value = value.lower() + (f" {name}" if name else "")
    return pattern.template.format(value)


def predicates(clause: str, start: int) -> list[Predicate]:
    """The patterns matching after the subject, skipping adverbs and auxiliaries.

    At the first place where a pattern yields a value, that pattern and any other of an
    aspect it combines with ("play bass in a band called ..." : hobby and band).
    """
    aux: list[str] = []
    at = start
    for _ in range(8):
        rest = clause[at:].lstrip()
        offset = len(clause) - len(rest)
        found: list[Predicate] = []
        for pattern in PREDICATES:
            match = pattern.regex.match(clause, offset)
            if not match or value_of(pattern, match) is None:
                continue
            if not found or frozenset({found[0].pattern.aspect, pattern.aspect}) in _COMBINE:
                found.append(Predicate(pattern, match, tuple(aux)))
        if found:
            return found
        step = _AUX.match(clause, at)
        if not step:
            return []
        aux.append(step.group(0).strip())
        at = step.end()
    return []


def flags(found: Predicate, clause: str) -> tuple[bool, bool] | None:
    """``(ended, change)`` of a matched predicate, or None when the clause negates it."""
    words = " ".join(found.aux).lower().split()
    pattern, verb = found.pattern, found.match.group(0)
    negated = any(word in _NEGATIONS for word in words)
    ended = pattern.ended or "used" in words or "longer" in words
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
