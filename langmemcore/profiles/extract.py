"""Offline extraction of profile statements from chat messages.

Two deterministic extractors are combined: the dependency-parse rules
(`profiles._parse_extract`: subject, verb lemma class, object, negation, read off spaCy's
parse) and the clause patterns (`profiles._pattern_extract`). A message's statements are
the parse's, plus each pattern statement about a (subject, aspect, ended) the parse said
nothing of, unless the parse read the same value as another aspect ("a fan of Arsenal":
team, not preference). Where both speak of the same one, the pattern's value is kept
instead when it names more: it contains the parse's words ("puppy Coco" for "puppy",
"running my own studio" for "running studio"), or it is a name where the parse has only a
one-word kind ("Mazda CX-5" for "car"); a hobby keeps the parse's activity unless the
pattern adds a name or number ("cello", not "learning the cello"). A
value the message ends is not also stated by it ("My cat Luna died": only the ending).

`extract_batch` parses a batch of messages with one call of the shared pipeline
(`langmemcore.text.parse.parse_texts`), each message's sentences that may state something
(`profiles._parse_gate.parsed_part`); `extract_statements` is the one-message form.
"""

from __future__ import annotations

from collections.abc import Sequence

from langmemcore.profiles._parse_extract import parse_statements
from langmemcore.profiles._parse_gate import parsed_part
from langmemcore.profiles._pattern_extract import pattern_statements
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.text.parse import parse_texts
from langmemcore.text.tokens import fold_apostrophes
from langmemcore.text.user import is_user, subject_of, user_as_first_person

__all__ = ["extract_batch", "extract_statements"]

_NAME_MARKS = ".' -"
"""What a speaker's name holds beside letters, digits and ``_``."""


def _speaker_prefix(text: str) -> tuple[str, str] | None:
    """The name and the rest of a text opening ``"Name: "``: a capital, at most 40 more
    letters, digits, spaces or ``.'-``, a colon and a space; else ``None``.
    """
    head, colon, rest = text.partition(":")
    name = head.strip()
    if not colon or not rest[:1].isspace() or not "A" <= name[:1] <= "Z" or len(name) > 41:
        return None
    if not all(char.isalnum() or char in _NAME_MARKS or char == "_" for char in name):
        return None
    return name, rest.lstrip()


def _message(text: str, speaker: str | None) -> tuple[str, str]:
    """The text without a leading ``"Name: "`` and its speaker: the one given, else the one
    the prefix names, else the user (:data:`~langmemcore.text.user.USER`). What the user's
    text says of the user in the third person ("User lives in Lisbon") is read as said by
    them in the first person (:func:`~langmemcore.text.user.user_as_first_person`).
    """
    text = fold_apostrophes(text)
    named = _speaker_prefix(text)
    if named:
        text, speaker = named[1], speaker or named[0]
    if is_user(speaker):
        text = user_as_first_person(text) or text
    return text, subject_of(speaker)


def _words(value: str) -> set[str]:
    return set(value.casefold().split())


def _names_more(pattern: str, parse: str, aspect: str) -> bool:
    """Whether the pattern's value names more than the parse's (see the module docstring)."""
    if not parse:
        return False
    extra = [w for w in pattern.split() if w.casefold() not in _words(parse)]
    named = any(w[0].isupper() or w[0].isdigit() for w in extra)
    if aspect == "hobby" and not named:
        return False
    kind = parse.islower() and " " not in parse
    return _words(parse) < _words(pattern) or (named and kind)


def combine(
    parsed: Sequence[AspectStatement], patterned: Sequence[AspectStatement]
) -> list[AspectStatement]:
    """The statements of one message from both extractors (see the module docstring)."""
    keys = {(st.subject, st.aspect, st.ended) for st in parsed}
    readings = {(st.subject, st.value.casefold()): st.aspect for st in parsed}
    found = list(parsed)
    for st in patterned:
        key = (st.subject, st.aspect, st.ended)
        if key not in keys:
            if readings.get((st.subject, st.value.casefold()), st.aspect) == st.aspect:
                found.append(st)
            continue
        for i, other in enumerate(found):
            same_key = (other.subject, other.aspect, other.ended) == key
            if same_key and _names_more(st.value, other.value, st.aspect):
                found[i] = st
    ended = {(st.subject, st.aspect, st.value.casefold()) for st in found if st.ended}
    kept = [
        st for st in found if st.ended or (st.subject, st.aspect, st.value.casefold()) not in ended
    ]
    return list(dict.fromkeys(kept))


def extract_batch(
    observations: Sequence[tuple[str, str | None]],
) -> list[list[AspectStatement]]:
    """The profile statements of each message of a batch, parsed in one pipeline call.

    First person resolves to the speaker; a third person to the person named ("Nadia
    moved to Hamburg", "Mia and I got married"); pronouns and unnamed relations ("she",
    "my sister") state nothing. A leading ``"Name: "`` is read as the speaker when the
    speaker is None; with neither, the speaker is the user, and the user's notes about
    themself in the third person ("User moved to Berlin", "The user's dog is Biscuit")
    are statements of the user.

    Args:
        observations: ``(text, speaker)`` pairs, speaker None when unknown.

    Returns:
        One list of statements per message, in order, duplicates removed.
    """
    messages = [_message(text, speaker) for text, speaker in observations]
    parts = [parsed_part(text) for text, _ in messages]
    gated = [i for i, part in enumerate(parts) if part]
    docs = dict(zip(gated, parse_texts([parts[i] for i in gated]), strict=True))
    return [
        [
            st
            for st in combine(
                parse_statements(docs[i], speaker) if i in docs else [],
                pattern_statements(text, speaker),
            )
            if not _lone_breakup(st, speaker)
        ]
        for i, (text, speaker) in enumerate(messages)
    ]


def _lone_breakup(statement: AspectStatement, speaker: str | None) -> bool:
    """Whether a partner ending names one other subject breaking up with nobody ("Rust Belt
    broke up"): a group's end, not a couple's.
    """
    partner_end = statement.aspect == "partner" and statement.ended and not statement.value
    return partner_end and statement.subject != speaker


def extract_statements(text: str, speaker: str | None) -> list[AspectStatement]:
    """The profile statements one chat message makes (`extract_batch` for one message).

    Args:
        text: The message, e.g. ``"Nadia: I moved to Hamburg last month!"``.
        speaker: Who wrote it, or None when unknown.

    Returns:
        The statements in the order they are made, duplicates removed.
    """
    return extract_batch([(text, speaker)])[0]
