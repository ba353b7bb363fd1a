"""The user a namespace belongs to, and the words that refer to them in the third person.

Agents and memory tools write notes about the user in the third person ("User lives in
Lisbon.", "The user's dog is Biscuit"); a LangChain human message's speaker is the role
``"user"``; an observation with no speaker is taken to be the user's. All three speak of
one subject, :data:`USER`. :func:`user_as_first_person` restates a third-person note as
the user saying it ("I live in Lisbon.", "My dog is Biscuit"), so that what reads a
first-person statement (the semantic layer, supersession) reads it as the user's.

The vocabulary lives here and nowhere else: :data:`USER_NOUNS` (the nouns that name the
user) and the determiner that may precede them. A noun counts as the user only where it
stands for a person: as a subject (followed by a verb, an auxiliary or an adverb), as a
possessive (``user's``) or as an object (followed by punctuation, a preposition or a
conjunction); "the user manual" or "user accounts" are things, not the user.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from langmemcore.text._lexicon import ADVERBS, word_set
from langmemcore.text.keywords import lookup_verb
from langmemcore.text.phrases import PhraseSet, phrases
from langmemcore.text.tokens import tokenize

__all__ = [
    "USER",
    "USER_NOUNS",
    "asks_about_user",
    "is_user",
    "names_user",
    "subject_of",
    "user_as_first_person",
]

USER = "user"
"""The subject name of the user a namespace belongs to (the speaker ``"user"``)."""

USER_NOUNS = word_set("user")
"""Nouns that name the user in the third person (with or without ``the``)."""

_REFERENCE = PhraseSet.of_words([f"the {noun}" for noun in sorted(USER_NOUNS)] + sorted(USER_NOUNS))
_APOSTROPHES = "'\u2019"
_ASKER = phrases("person.asker")
_FIRST_PERSON = {
    "is": "am",
    "isn't": "am not",
    "has": "have",
    "hasn't": "haven't",
    "does": "do",
    "doesn't": "don't",
    "was": "was",
    "wasn't": "wasn't",
}
_CLOSERS = frozenset(".,;:!?)\"'\n")
_AUXILIARIES = word_set(
    """can could may might must will would shall should had did didn't won't wouldn't can't
    cannot couldn't used"""
)
_MORE_VERBS = word_set("live like dislike marry rent")
"""Verbs of what notes say about a user that the verb table lacks."""
_ASKING = word_set("do does did can could will would should may might must has have had")
"""Auxiliaries that ask: a bare verb after "does the user" agrees with the user."""
_AFTER_OBJECT = word_set(
    """and or but nor to for from with about at in on of by as than so because since when
    while who that which"""
)


def is_user(speaker: str | None) -> bool:
    """Whether ``speaker`` is the user (no speaker, or the speaker :data:`USER`)."""
    return speaker is None or not speaker.strip() or speaker.strip().lower() == USER


def names_user(name: str) -> bool:
    """Whether a subject name is a third-person name of the user (``User``, ``the user``,
    ``the user's``).
    """
    words = name.casefold().replace("\u2019", "'").removesuffix("'s").split()
    if words[:1] == ["the"]:
        words = words[1:]
    return len(words) == 1 and words[0] in USER_NOUNS


def subject_of(speaker: str | None) -> str:
    """Whose statement an observation of ``speaker`` is: the speaker, else :data:`USER`."""
    return speaker.strip() if speaker and speaker.strip() else USER


def asks_about_user(question: str) -> bool:
    """Whether a question asks about the user: names them ("Where does the user live
    now?") or asks in the first person ("Where do I live now?").
    """
    if _ASKER.search(question):
        return True
    return any(_role(question, ref) is not None for ref in _references(question))


def _base(verb: str) -> str:
    """The first-person form of a third-person singular verb (``lives`` -> ``live``)."""
    low = verb.lower().replace("\u2019", "'")
    if low in _FIRST_PERSON:
        return _FIRST_PERSON[low]
    entry = lookup_verb(low)
    if entry is not None and entry[1] == "s":
        return entry[0]
    if entry is not None or not low.endswith("s") or low.endswith("ss"):
        return verb
    if low.endswith("ies"):
        return verb[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return verb[:-2]
    return verb[:-1]


def _verb_like(word: str, asked: bool) -> bool:
    """Whether the word after a user noun makes it a subject: a verb agreeing with a
    third-person subject, an auxiliary or an adverb; a bare verb only after an auxiliary
    (``does the user live``), as "user experience" or "user guide" are things.
    """
    low = word.lower().replace("\u2019", "'")
    if low in _FIRST_PERSON or low in _AUXILIARIES or low in ADVERBS:
        return True
    entry = lookup_verb(low)
    if entry is not None:
        return entry[1] in ("s", "ed") or (asked and entry[1] == "base")
    if low in _MORE_VERBS:
        return asked
    if low.endswith("ed") and {low[:-1], low[:-2], low[:-3] + "y"} & _MORE_VERBS:
        return True
    if not low.endswith("s") or low.endswith("ss"):
        return False
    base = _base(low).lower()
    found = lookup_verb(base)
    return base in _MORE_VERBS or (found is not None and found[1] == "base")


@dataclass(frozen=True)
class _Reference:
    """Words of a text naming the user ("the user", "User's"), and what follows them.

    Attributes:
        start: Where they start.
        noun_end: Where the noun ends.
        poss: The possessive ``'s`` after the noun, or ``""``.
        gap: The spaces after them.
        next: The word after the spaces (letters and apostrophes), or ``""``.
        next_start: Where that word starts.
    """

    start: int
    noun_end: int
    poss: str
    gap: str
    next: str
    next_start: int


def _references(text: str) -> Iterator[_Reference]:
    """The references to the user in ``text``, each with the word after it."""
    last = 0
    for found in _REFERENCE.finditer(text):
        if found.start < last:
            continue
        poss = text[found.end : found.end + 2]
        closed = not (
            text[found.end + 2 : found.end + 3].isalnum()
            or text[found.end + 2 : found.end + 3] == "_"
        )
        poss = poss if poss[:1] in _APOSTROPHES and poss[1:] == "s" and closed else ""
        at = found.end + len(poss)
        gap = text[at:][: len(text[at:]) - len(text[at:].lstrip())]
        word = _letters(text, at + len(gap))
        last = at + len(gap) + len(word)
        yield _Reference(found.start, found.end, poss, gap, word, at + len(gap))


def _letters(text: str, start: int) -> str:
    """The run of ASCII letters and apostrophes of ``text`` from ``start``."""
    end = start
    while end < len(text) and (
        (text[end].isascii() and text[end].isalpha()) or text[end] in _APOSTROPHES
    ):
        end += 1
    return text[start:end]


def _asks_before(text: str) -> bool:
    """Whether ``text`` ends with an asking auxiliary and spaces ("Where does ")."""
    stripped = text.rstrip()
    words = tokenize(stripped)
    return stripped != text and stripped[-1:].isalpha() and bool(words) and words[-1] in _ASKING


def _role(text: str, ref: _Reference) -> str | None:
    """``"poss"``, ``"subject"`` or ``"object"`` for a reference to the user, else None."""
    if ref.poss:
        return "poss"
    if not ref.next or not ref.gap:
        after = text[ref.noun_end : ref.noun_end + 1]
        return "object" if not after.strip() or after in _CLOSERS else None
    low = ref.next.lower()
    if low in _AFTER_OBJECT:
        return "object"
    return "subject" if _verb_like(ref.next, _asks_before(text[: ref.start])) else None


def _subject(text: str, ref: _Reference) -> tuple[str, int]:
    """``I`` and the agreeing verb for a subject reference, with where the rewrite ends:
    up to two adverbs between the two stay (``User also likes`` -> ``I also like``).
    """
    out, at, word = "I" + ref.gap, ref.next_start, ref.next
    for _ in range(2):
        low = word.lower()
        if low not in ADVERBS or low in _FIRST_PERSON:
            break
        rest = text[at + len(word) :]
        start = at + len(word) + len(rest) - len(rest.lstrip())
        following = _letters(text, start)
        if start == at + len(word) or not following:
            break
        out += text[at:start]
        at, word = start, following
    return out + _base(word), at + len(word)


def user_as_first_person(text: str) -> str | None:
    """The note restated as the user saying it, or None when it does not refer to them.

    ``User lives in Lisbon.`` -> ``I live in Lisbon.``; ``The user's dog is Biscuit`` ->
    ``My dog is Biscuit``; ``Biscuit belongs to the user.`` -> ``Biscuit belongs to me.``.
    The verb after a subject agrees (``lives`` -> ``live``, ``is`` -> ``am``); "the user
    manual" is left alone.

    Args:
        text: The note as written.

    Returns:
        The restated text, or None when no word of it refers to the user.
    """
    pieces: list[str] = []
    last = 0
    for ref in _references(text):
        role = _role(text, ref)
        if role is None:
            continue
        start = ref.start
        initial = not text[:start].strip() or text[:start].rstrip()[-1] in ".!?;:\n"
        if role == "poss":
            word, end = ("My" if initial else "my"), ref.noun_end + len(ref.poss)
        elif role == "object":
            word, end = "me", ref.noun_end
        else:
            word, end = _subject(text, ref)
        pieces.append(text[last:start])
        pieces.append(word)
        last = end
    if not pieces:
        return None
    pieces.append(text[last:])
    return "".join(pieces)
