"""The pattern extractor: profile statements of one chat message by clause patterns.

One of the two offline extractors `profiles.extract` combines (the other reads the
dependency parse, `profiles._parse_extract`). Deterministic and precision first: a
statement is made only when a clause opens with a known subject (``I`` / ``we`` for the
speaker, an explicit name or named relation for someone else; see `profiles._clauses`)
whose predicate matches one of the aspect patterns of `profiles._patterns`, or when a
possessive form names the owner ("my dog Max", "Nadia's husband Tom"). Questions,
conditionals, wishes and reported speech state nothing: their clauses do not open with a
subject and a plain verb ("if I moved", "she said she", "I'd love to", "I would move").

Flags come from the clause: a negation without "anymore" / "no longer" drops the
statement; "used to", "no longer", "not ... anymore" or a past-tense stative verb ("I
lived in Lyon") end the value; "now", "new", "these days" or a verb of change ("moved
to", "got a job") mark a change. A value left unnamed in its clause takes a name given
right after it ("a new band, Static Bloom", "a kitten, her name is Pepper").
"""

from __future__ import annotations

import re
from dataclasses import replace

from langmemcore.profiles._clauses import (
    CLAUSES,
    NAME_WORDS,
    agrees,
    flags,
    opening,
    predicates,
    value_of,
)
from langmemcore.profiles._patterns import OWNED
from langmemcore.profiles._values import cut_value, name_run
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import fold_apostrophes, sentences, singularize

__all__ = ["pattern_statements"]

_OWNER = re.compile(r"\b(?P<owner>[Mm]y|[Oo]ur|[A-Z][a-z]+'s)\s+")
_GONE = phrases("owned.gone")
_APPOSED = re.compile(r"(?P<name>[A-Z][a-z]+(?<!ly)),\s*$")
_NAME_LIST = re.compile(r"^(?:named\s+|called\s+)?([A-Z][\w']*(?:\s+[A-Z][\w']*){0,3})$")
_NAMES = re.compile(r"^([A-Z][a-z]+)(?:\s*(?:,|and|&)\s*([A-Z][a-z]+))+$")
_NAME_IS = re.compile(r"\b(?:her|his|its|their)\s+name(?:'s|\s+is)\s+([A-Z][a-z]+)")
_IT_IS = re.compile(r"(?:It's|It is|She's|He's)\s+an?\s+(.+)")
_COMPOUND = phrases("owned.compound")
_NAME_NEXT = re.compile(r"(?:Her|His|Its|Their)\s+name(?:'s|\s+is)\s+([A-Z][a-z]+)")
_UNNAMED = frozenset({"partner", "pet", "band", "gym", "vehicle"})


def _unnamed(statement: AspectStatement) -> bool:
    """Whether a stated value still lacks the name a following clause may give."""
    if statement.ended or statement.aspect not in _UNNAMED:
        return False
    if statement.aspect == "pet":
        return " " not in statement.value
    return statement.value in {"", "gym", "band", "car"}


def _named(statement: AspectStatement, names: list[str]) -> list[AspectStatement]:
    """`statement` with each of `names` as its value (a pet keeps its animal)."""
    out = []
    for name in names:
        value = f"{singularize(statement.value)} {name}" if statement.aspect == "pet" else name
        out.append(
            AspectStatement(statement.subject, statement.aspect, value, False, statement.change)
        )
    return out


def _names_in(clause: str) -> list[str]:
    """The names a clause consists of ("Static Bloom", "Pip and Squeak"), else none."""
    many = _NAMES.match(clause)
    if many:
        return [name for name in re.findall(r"[A-Z][a-z]+", clause) if name not in NAME_WORDS]
    one = _NAME_LIST.match(clause)
    if one and one.group(1).split()[0] not in NAME_WORDS:
        return [name_run(one.group(1))]
    return []


def _following_names(clauses: list[str]) -> list[str]:
    """The names the clauses right after a value consist of ("Pip", "Squeak")."""
    names: list[str] = []
    for clause in clauses:
        found = _names_in(clause.rstrip(".!"))
        if not found:
            break
        names.extend(found)
    return names


def _from_clause(
    clause: str, speaker: str | None, carried: str | None, first: bool, named: list[str]
) -> tuple[list[AspectStatement], str | None]:
    """The statements of one clause, and the subject the next clause may carry on.

    `named` collects the people the message names as subjects, for "she" / "he".
    """
    single = named[0] if len(set(named)) == 1 else None
    start = opening(clause, speaker, carried, first, single)
    if start is None:
        return [], None
    if start.person == "third":
        named.append(start.subject)
    found: list[AspectStatement] = []
    for predicate in predicates(clause, start.end):
        marks = flags(predicate, clause)
        if marks is None or not agrees(predicate, start):
            continue
        pattern = predicate.pattern
        value = value_of(pattern, predicate.match) or ""
        if pattern.aspect == "partner" and not value:
            value = start.with_name
        found.append(AspectStatement(start.subject, pattern.aspect, value, *marks))
    return found, start.subject if found or start.person == "first" else None


def _owner(raw: str, speaker: str | None) -> str | None:
    if raw.lower() in {"my", "our"}:
        return speaker
    name = raw[:-2]
    return None if name in NAME_WORDS else name


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
            name = name_run(match.groupdict().get("name") or "")
            before = _APPOSED.search(sentence[: owner.start()]) if form.aspect == "pet" else None
            if not name and before and before.group("name") not in NAME_WORDS:
                name = before.group("name")
            if _COMPOUND.starts_at(sentence, match.end(), spaced=True):
                break
            gone = _GONE.starts_at(sentence, match.end()) is not None
            if (form.named_only and not name) or (form.gone_only and not gone):
                break
            noun = match.group("noun").lower() if form.with_noun else ""
            value = f"{noun} {name}".strip() or match.group("noun")
            found.append(AspectStatement(subject, form.aspect, value, ended=gone, change=gone))
            break
    return found


def _sentence(sentence: str, speaker: str | None, named: list[str]) -> list[AspectStatement]:
    """The statements of one sentence: its clauses', then its possessive forms'."""
    clauses = [clause.strip() for clause in CLAUSES.split(sentence)]
    found: list[AspectStatement] = []
    carried: str | None = None
    for i, clause in enumerate(clauses):
        statements, carried = _from_clause(clause, speaker, carried, i == 0, named)
        names = _following_names(clauses[i + 1 :])
        for statement in statements:
            found.extend(_named(statement, names) if names and _unnamed(statement) else [statement])
    name_is = _NAME_IS.search(sentence)
    if name_is and found and _unnamed(found[-1]):
        found[-1:] = _named(found[-1], [name_is.group(1)])
    found.extend(_owned(sentence, speaker))
    return [st for st in found if st.value or st.ended]


def pattern_statements(text: str, speaker: str | None) -> list[AspectStatement]:
    """The profile statements one chat message makes, by the clause patterns.

    First person resolves to `speaker`; a third person to the named person when the name
    is explicit ("Nadia moved to Hamburg", "my roommate Jess supports ..."); anything else
    (no speaker, "she", "my sister") states nothing.

    Args:
        text: The message, without a speaker prefix.
        speaker: Who wrote it, or None when unknown.

    Returns:
        The statements in the order they are made, duplicates removed.
    """
    text = fold_apostrophes(text)
    found: list[AspectStatement] = []
    named: list[str] = []
    for sentence in sentences(text):
        model, name = _IT_IS.match(sentence), _NAME_NEXT.match(sentence)
        if model and found and found[-1].aspect == "vehicle" and _unnamed(found[-1]):
            value = cut_value(model.group(1), "vehicle", "vehicle")
            found[-1] = replace(found[-1], value=value or found[-1].value)
        elif name and found and found[-1].aspect in {"pet", "partner"} and _unnamed(found[-1]):
            found[-1:] = _named(found[-1], [name.group(1)])
        elif not sentence.endswith("?"):
            found.extend(_sentence(sentence, speaker, named))
    return list(dict.fromkeys(found))
