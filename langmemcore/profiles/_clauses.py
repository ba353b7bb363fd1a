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
from typing import NamedTuple

from langmemcore.profiles._patterns import ANY_PREDICATE, PREDICATES, Pattern
from langmemcore.profiles._values import cut_value
from langmemcore.text._lexicon import word_set
from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import after_spaces

__all__ = [
    "NAME_WORDS",
    "OWNERS",
    "Opening",
    "Predicate",
    "clauses",
    "flags",
    "is_name",
    "name_end",
    "opening",
    "predicates",
    "value_of",
]

_CONJUNCTIONS = phrases("clause.conjunction")
_CLAUSE_MARKS = ",;:()"
_DASHES = "-\u2013\u2014"
_LEADS = phrases("clause.lead")
_RELATIONS = phrases("clause.relation")
OWNERS = ("my", "My", "our", "Our")
"""The possessives that make the speaker the owner ("my sister Ana", "our dog")."""
_AUX = phrases("clause.aux")
_CONTRACTED = ("'m", "'ve", "'re")
_PAST_VERB = phrases("clause.past_verb")
_NEGATIONS = frozenset({"not", "never", "don't", "doesn't", "didn't", "haven't", "hasn't"})
_CHANGE = phrases("clause.change")
_ANYMORE = phrases("clause.anymore")
_PAST_STATIVE = phrases("clause.past_stative")
_PRONOUNS = word_set(
    """he she they it it's you i we this that there her his my our their your its he's she's
    they're you're that's there's"""
)
_HE_SHE = phrases("clause.he_she")
_BE_FORMS = frozenset({"am", "is", "are", "was", "were", "'m", "'s", "'re", "been"})
_NOT_VERBS = word_set(
    """am is are was were be been 'm 's 're have has had 've do does did a an the in on at
    into so not no this that these my our his her their its"""
)
_IRREGULAR_PAST = word_set(
    """got left quit bought broke became took found began made went gave sold drove rode ran
    swam taught met fell won lost sang wrote said kept felt knew thought brought held stood
    spent built sent paid led put set cut let hurt tore split wore chose"""
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
        person: ``"first"`` (the speaker), ``"third"`` (a name) or ``"none"`` (carried
            from the previous clause or dropped, as chat drops "I").
    """

    subject: str
    with_name: str
    end: int
    person: str = "first"


@dataclass(frozen=True)
class Predicate:
    """A pattern matched in a clause, with the auxiliaries and adverbs before it."""

    pattern: Pattern
    match: re.Match[str]
    aux: tuple[str, ...]


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence, stripped: it is cut at ``,`` ``;`` ``:`` ``(`` ``)``, at a
    dash between spaces and at a lowercase conjunction between spaces, unless "I" follows it
    ("my sister and I moved" is one clause; "SO much" is no conjunction).
    """
    pieces, last, at = [], 0, 0
    while at < len(sentence):
        end = _cut_at(sentence, at)
        if end is None:
            at += 1
            continue
        pieces.append(sentence[last:at].strip())
        last = at = end
    return [*pieces, sentence[last:].strip()]


def _cut_at(sentence: str, at: int) -> int | None:
    """Where a cut between two clauses that starts at ``at`` ends, or ``None``."""
    start = after_spaces(sentence, at)
    if sentence[start : start + 1] and sentence[start] in _CLAUSE_MARKS:
        return after_spaces(sentence, start + 1)
    if start == at:
        return None
    dash = start
    while sentence[dash : dash + 1] and sentence[dash] in _DASHES:
        dash += 1
    if start < dash < after_spaces(sentence, dash):
        return after_spaces(sentence, dash)
    joined = _CONJUNCTIONS.starts_at(sentence, start)
    if joined is None or joined.start != start or not sentence[start : joined.end].islower():
        return None
    end = after_spaces(sentence, joined.end)
    if end == joined.end:
        return None
    following = sentence[end : end + 2]
    if following[:1] == "I" and not (following[1:].isalnum() or following[1:] == "_"):
        return end - 1 if end - joined.end > 1 else None
    return end


def opening(
    clause: str, speaker: str | None, carried: str | None, first: bool, named: str | None = None
) -> Opening | None:
    """The clause's subject, or the carried one when it opens with a verb.

    Args:
        clause: One clause of a sentence.
        speaker: Who wrote the message (first person), or None.
        carried: The previous clause's subject in the sentence, or None.
        first: Whether this is the sentence's first clause.
        named: The one person the message has named as a subject so far, whom "she" /
            "he" then refers to; None when it named nobody or several.
    """
    at = _after_leads(clause)
    pronoun = _pronoun_end(clause, at)
    if pronoun is not None and named:
        return Opening(named, "", pronoun, "third")
    found = _subject_at(clause, at)
    if found:
        if found.first_person:
            with_name = "" if found.with_name in NAME_WORDS else found.with_name
            return Opening(speaker, with_name, found.end) if speaker else None
        if found.subject.split()[0] in NAME_WORDS:
            return None
        return Opening(found.subject, "", found.end, "third")
    word = clause[at:].split(" ", 1)[0].lower()
    if carried and word and word not in _PRONOUNS and not clause[at].isupper():
        return Opening(carried, "", at, "none")
    past = _PAST_VERB.starts_at(clause, at)
    if first and speaker and past is not None and past.start == at:
        return Opening(speaker, "", at, "none")
    return None


def _after_leads(clause: str) -> int:
    """Where the clause goes on after its opening interjections and time phrases, each
    followed by a space and maybe a ``,`` ``!`` or ``:`` ("So, last year I ...").
    """
    at = 0
    while (lead := _LEADS.starts_at(clause, at)) is not None and lead.start == at:
        spaced = after_spaces(clause, lead.end)
        marked = (
            after_spaces(clause, spaced + 1)
            if clause[spaced : spaced + 1] in (",", "!", ":")
            else 0
        )
        if marked > spaced + 1:
            at = marked
        elif spaced > lead.end:
            at = spaced
        else:
            break
    return at


def _aux_step(clause: str, at: int) -> tuple[str, int] | None:
    """The adverb or auxiliary right after ``at`` ("'ve", "just", "used to") and where it
    ends, or ``None``.
    """
    start = after_spaces(clause, at)
    contracted = next((c for c in _CONTRACTED if clause.startswith(c, start)), None)
    if contracted:
        return contracted, start + len(contracted)
    found = _AUX.starts_at(clause, at, spaced=True)
    return (clause[found.start : found.end], found.end) if found else None


class _Subject(NamedTuple):
    """A clause's written subject: who (a name, or the speaker), the other person of "Tom
    and I", and where it ends.
    """

    subject: str
    with_name: str
    end: int
    first_person: bool


def _subject_at(clause: str, at: int) -> _Subject | None:
    """The subject written at ``at``, before a space or an apostrophe: ``I``, ``we``, "my
    sister and I", "Tom and I", "my sister Ana" / "Tom's best friend Jess" (the name), or
    one or two capitalised words ("Nadia", "Uncle Ray"); ``None`` for anything else.
    """
    for word in ("I", "We", "we"):
        if clause.startswith(word, at) and _subject_ends(clause, at + len(word)):
            return _Subject(word, "", at + len(word), True)
    if clause[at : at + 2] in ("my", "My"):
        relation = _relation_end(clause, after_spaces(clause, at + 2), at + 2)
        together = _and_i_end(clause, relation)
        if together is not None:
            return _Subject(clause[at:together], "", together, True)
    first = name_end(clause, at)
    together = _and_i_end(clause, first)
    if together is not None:
        return _Subject(clause[at:together], clause[at:first], together, True)
    return _related_name(clause, at, first) or _name_subject(clause, at, first)


def _subject_ends(clause: str, end: int) -> bool:
    """Whether a subject may end at ``end``: before a space or an apostrophe."""
    return clause[end : end + 1].isspace() or clause[end : end + 1] == "'"


def is_name(word: str) -> bool:
    """Whether ``word`` is written as a one-word name: a capital, then small letters."""
    return len(word) > 1 and word.isalpha() and word[0].isupper() and word[1:].islower()


def name_end(text: str, at: int) -> int | None:
    """Where the one-word name at ``at`` ends, or ``None`` when no name starts there."""
    end = at
    while end < len(text) and text[end].isalpha():
        end += 1
    return end if is_name(text[at:end]) else None


def _relation_end(clause: str, at: int, after: int) -> int | None:
    """Where the relation ("sister", "best friend") at ``at`` ends, when spaces come
    between ``after`` and it and it is written in small letters.
    """
    found = _RELATIONS.starts_at(clause, at)
    if at == after or found is None or found.start != at:
        return None
    return found.end if clause[at : found.end].islower() else None


def _and_i_end(clause: str, end: int | None) -> int | None:
    """Where "and I" after the spaces at ``end`` ends, if it follows and may end a subject."""
    if end is None or not clause[end : end + 1].isspace():
        return None
    joined = after_spaces(clause, end)
    if not clause.startswith("and", joined) or not clause[joined + 3 : joined + 4].isspace():
        return None
    i = after_spaces(clause, joined + 3)
    return i + 1 if clause.startswith("I", i) and _subject_ends(clause, i + 1) else None


def _related_name(clause: str, at: int, first: int | None) -> _Subject | None:
    """The name after an owned relation ("my sister Ana", "Tom's friend, Jess")."""
    if clause[at : at + 2] in OWNERS or clause[at : at + 3] in OWNERS:
        owner = at + 2 if clause[at : at + 2] in ("my", "My") else at + 3
    elif first is not None and clause.startswith("'s", first):
        owner = first + 2
    else:
        return None
    start = after_spaces(clause, owner)
    if start == owner:
        return None
    adjective = start
    while adjective < len(clause) and (clause[adjective].isalnum() or clause[adjective] == "_"):
        adjective += 1
    gap = after_spaces(clause, adjective)
    ends = [gap] if adjective > start and gap > adjective else []
    for relation_at in [*ends, start]:
        relation = _relation_end(clause, relation_at, relation_at - 1)
        named = _named_after(clause, relation)
        if named is not None:
            return _Subject(clause[at : named[1]], "", named[1], False)._replace(subject=named[0])
    return None


def _named_after(clause: str, end: int | None) -> tuple[str, int] | None:
    """The name after a relation that ends at ``end`` (spaces, maybe a comma, spaces)."""
    if end is None:
        return None
    start = after_spaces(clause, end)
    if clause[start : start + 1] == ",":
        start = after_spaces(clause, start + 1)
        spaced = clause[start - 1 : start].isspace()
    else:
        spaced = start > end
    name = name_end(clause, start) if spaced else None
    return (clause[start:name], name) if name and _subject_ends(clause, name) else None


def _name_subject(clause: str, at: int, first: int | None) -> _Subject | None:
    """One or two capitalised words ("Nadia", "Uncle Ray")."""
    if first is None:
        return None
    second_at = after_spaces(clause, first)
    second = name_end(clause, second_at) if second_at > first else None
    if second is not None and _subject_ends(clause, second):
        return _Subject(clause[at:second], "", second, False)
    return _Subject(clause[at:first], "", first, False) if _subject_ends(clause, first) else None


def _pronoun_end(clause: str, at: int) -> int | None:
    """Where "she" / "he" ends when the clause has it at ``at``, before a space or "'s"
    ("She moved", "he's in Oslo").
    """
    found = _HE_SHE.starts_at(clause, at)
    if found is None or found.start != at or not clause[at + 1 : found.end].islower():
        return None
    after = clause[found.end : found.end + 3]
    spaced = after[:1].isspace()
    owned = after[:2] == "'s" and not (after[2:].isalnum() or after[2:] == "_")
    return found.end if spaced or owned else None


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
        first = ANY_PREDICATE.match(clause, offset)
        for pattern in PREDICATES[int(first.lastgroup[1:]) :] if first and first.lastgroup else ():
            if found and frozenset({found[0].pattern.aspect, pattern.aspect}) not in _COMBINE:
                continue
            match = pattern.regex.match(clause, offset)
            if match and value_of(pattern, match) is not None:
                found.append(Predicate(pattern, match, tuple(aux)))
        if found:
            return found
        step = _aux_step(clause, at)
        if not step:
            return []
        aux.append(step[0])
        at = step[1]
    return []


def _form(word: str) -> str:
    """``"ing"``, ``"ed"``, ``"s"``, ``"base"`` for a verb-like word; ``""`` for others."""
    if word in _NOT_VERBS or not word.isalpha():
        return ""
    if word.endswith("ing"):
        return "ing"
    if word.endswith("ed") or word in _IRREGULAR_PAST:
        return "ed"
    if word.endswith("s") and not word.endswith("ss"):
        return "s"
    return "base"


def agrees(found: Predicate, start: Opening) -> bool:
    """Whether the predicate's verb fits its subject and auxiliaries.

    A name takes a verb in -s or the past ("Nadia lives", not "Sounds like"); after a
    form of *be* comes no base verb ("Dancing is like ..."); a clause with a carried or
    dropped subject continues with -ing or the past ("..., working as a nurse").
    """
    form = _form(found.match.group(0).split()[0].lower())
    last = found.aux[-1].lower() if found.aux else ""
    if last in _BE_FORMS and form in {"base", "s"}:
        return False
    if start.person == "third" and not found.aux:
        return form in {"s", "ed", ""}
    if start.person == "none" and not found.aux:
        return form in {"ing", "ed"}
    return True


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
    stative = _PAST_STATIVE.search(verb)
    if not perfect and stative is not None and stative.start == 0:
        ended = True
    if "was" in words or "were" in words:
        ended = ended or verb.lower().endswith("ing")
    change = pattern.change or bool(_CHANGE.search(clause)) or ended
    return ended, change
