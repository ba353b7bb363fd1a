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

from collections.abc import Iterator
from dataclasses import replace

from langmemcore.profiles._clauses import (
    NAME_WORDS,
    OWNERS,
    agrees,
    clauses,
    flags,
    is_name,
    name_end,
    opening,
    predicates,
    value_of,
)
from langmemcore.profiles._patterns import OWNED, Owned
from langmemcore.profiles._values import cut_value, name_run
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import (
    after_spaces,
    fold_apostrophes,
    sentences,
    singularize,
    word_spans,
)

__all__ = ["pattern_statements"]

_GONE = phrases("owned.gone")
_NAME_GIVEN = phrases("owned.name_given")
_DESCRIBED = phrases("owned.described")
_COMPOUND = phrases("owned.compound")
_NAME_SEPARATORS = (",", "and", "&")
_CALLING = ("named", "called")
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


def _is_name_word(word: str) -> bool:
    """Whether ``word`` may be a word of a longer name ("O'Neill", "Bloom2")."""
    return "A" <= word[0] <= "Z" and all(c.isalnum() or c in "_'" for c in word[1:])


def _name_after(text: str, pos: int) -> str | None:
    """The name after the spaces at ``pos`` (``"Pepper"``), if a name comes next."""
    start = after_spaces(text, pos)
    end = name_end(text, start) if start > pos else None
    return text[start:end] if end else None


def _names_in(clause: str) -> list[str]:
    """The names a clause consists of ("Static Bloom", "Pip and Squeak"), else none."""
    if not clause or clause != clause.strip():
        return []
    parts = clause.replace(",", " , ").replace("&", " & ").split()
    names, separators = parts[::2], parts[1::2]
    listed = len(parts) % 2 and all(is_name(name) for name in names)
    if listed and separators and all(sep in _NAME_SEPARATORS for sep in separators):
        return [name for name in names if name not in NAME_WORDS]
    words = clause.split()
    called = words[0] in _CALLING and len(words) > 1
    run = clause[len(words[0]) :].lstrip() if called else clause
    if len(run.split()) <= 4 and all(_is_name_word(word) for word in run.split()):
        return [] if run.split()[0] in NAME_WORDS else [name_run(run)]
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


def _owners(sentence: str, speaker: str | None) -> Iterator[tuple[int, int, str]]:
    """Each possessive in ``sentence`` ("my", "Nadia's") whose owner is known: where it
    starts, where the word after it starts, and the owner.
    """
    for start, end in word_spans(sentence):
        word = sentence[start:end]
        after = after_spaces(sentence, end)
        if after == end:
            continue
        if word in OWNERS and speaker:
            yield start, after, speaker
        elif word.endswith("'s") and is_name(word[:-2]) and word[:-2] not in NAME_WORDS:
            yield start, after, word[:-2]


def _apposed(text: str) -> str | None:
    """The name ``text`` ends with before a comma ("Max, " of "Max, my dog"), if any."""
    head = text.rstrip()
    if not head.endswith(","):
        return None
    start = len(head) - 1
    while start and head[start - 1].isalpha():
        start -= 1
    name = head[start:-1]
    return name if is_name(name) and not name.endswith("ly") else None


def _owned_name(sentence: str, at: int) -> tuple[str, int]:
    """The name of one or two words after an owned noun that ends at ``at`` ("my dog,
    Max", "my son named Leo Park") and where it ends; ``("", at)`` when none follows.
    """
    start = after_spaces(sentence, at)
    if sentence[start : start + 1] == ",":
        start = after_spaces(sentence, start + 1)
        if sentence[start - 1 : start] == ",":
            return "", at
    elif start == at:
        return "", at
    for calling in _CALLING:
        if sentence.startswith(calling, start) and sentence[start + len(calling) :][:1].isspace():
            start = after_spaces(sentence, start + len(calling))
            break
    end = name_end(sentence, start)
    if end is None:
        return "", at
    second = after_spaces(sentence, end)
    end = (name_end(sentence, second) if second > end else None) or end
    return sentence[start:end], end


def _owned_form(form: Owned, sentence: str, at: int) -> tuple[str, str, int] | None:
    """The noun and the name of ``form`` at ``at`` ("little sister Ana"), and where the
    form ends; ``None`` when it is not there.
    """
    for modifier in form.modifiers:
        word = next((w for w in modifier if sentence.startswith(w, at)), "")
        if word and sentence[at + len(word) :][:1].isspace():
            at = after_spaces(sentence, at + len(word))
    noun = form.nouns.starts_at(sentence, at)
    if noun is None or noun.start != at:
        return None
    name, end = _owned_name(sentence, noun.end)
    return sentence[noun.start : noun.end], name, end


def _owned(sentence: str, speaker: str | None) -> list[AspectStatement]:
    """Statements of the possessive forms in a sentence ("my dog Max died")."""
    found: list[AspectStatement] = []
    for start, after, subject in _owners(sentence, speaker):
        for form in OWNED:
            match = _owned_form(form, sentence, after)
            if not match:
                continue
            noun, name, end = match[0], name_run(match[1]), match[2]
            before = _apposed(sentence[:start]) if form.aspect == "pet" else None
            if not name and before and before not in NAME_WORDS:
                name = before
            if _COMPOUND.starts_at(sentence, end, spaced=True):
                break
            gone = _GONE.starts_at(sentence, end) is not None
            if (form.named_only and not name) or (form.gone_only and not gone):
                break
            value = f"{noun.lower() if form.with_noun else ''} {name}".strip() or noun
            found.append(AspectStatement(subject, form.aspect, value, ended=gone, change=gone))
            break
    return found


def _sentence(sentence: str, speaker: str | None, named: list[str]) -> list[AspectStatement]:
    """The statements of one sentence: its clauses', then its possessive forms'."""
    parts = clauses(sentence)
    found: list[AspectStatement] = []
    carried: str | None = None
    for i, clause in enumerate(parts):
        statements, carried = _from_clause(clause, speaker, carried, i == 0, named)
        names = _following_names(parts[i + 1 :])
        for statement in statements:
            found.extend(_named(statement, names) if names and _unnamed(statement) else [statement])
    given = _NAME_GIVEN.search(sentence)
    name = _name_after(sentence, given.end) if given else None
    if name and found and _unnamed(found[-1]):
        found[-1:] = _named(found[-1], [name])
    found.extend(_owned(sentence, speaker))
    return [st for st in found if st.value or st.ended]


def _described(sentence: str) -> str | None:
    """What a sentence opening "It's a" / "She's an" says the thing is, if it opens so."""
    opening = _DESCRIBED.starts_at(sentence, 0)
    rest = sentence[opening.end :] if opening else ""
    return rest.strip() or None if rest[:1].isspace() else None


def _given_name(sentence: str) -> str | None:
    """The name a sentence opening "Her name is" / "His name's" gives, if it opens so."""
    opening = _NAME_GIVEN.starts_at(sentence, 0)
    return _name_after(sentence, opening.end) if opening else None


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
        model, name = _described(sentence), _given_name(sentence)
        if model and found and found[-1].aspect == "vehicle" and _unnamed(found[-1]):
            value = cut_value(model, "vehicle", "vehicle")
            found[-1] = replace(found[-1], value=value or found[-1].value)
        elif name and found and found[-1].aspect in {"pet", "partner"} and _unnamed(found[-1]):
            found[-1:] = _named(found[-1], [name])
        elif not sentence.endswith("?"):
            found.extend(_sentence(sentence, speaker, named))
    return list(dict.fromkeys(found))
