"""Phrase sets: word lists and phrase patterns kept as data, matched on words.

The phrase sets live in ``phrases.toml`` beside this module, each under a name
(``"question.current"``) that :func:`phrases` loads. A phrase is a sequence of word
patterns separated by spaces; a text matches where its words follow the same sequence.

- A word pattern is one or more alternatives separated by ``|`` (``"has|have"``); an
  alternative is a lowercase word where ``*`` stands for any letters (``"relocate*"``,
  ``"*'re"``; ``"*"`` alone is any word) and ``#`` for a digit (``"19##"``). A trailing
  ``?`` makes the word optional (``"now|finally?"``; ``"*?"`` is a gap of at most one
  word); a leading ``!`` asks that the next word is none of the alternatives, or that the
  text ends, and takes no word (``"working !out"``).
- Words are compared lowercase with apostrophes folded, and a word written with an
  apostrophe also matches by what comes before it: ``"i"`` matches "I'm", ``"caroline"``
  matches "Caroline's", while ``"didn't"`` matches only itself.
- Words are letters and digits, with apostrophes inside; every other character but
  spaces is a word of its own, so a phrase never matches across a comma or a full stop.
- A set's ``unless_after`` words cancel a match they come right before
  (``["*not", "*n't", "never"]``: "not moved" is no move).

Matches are found left to right, the longest at each place, without overlapping.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from langmemcore._errors import InvalidInputError
from langmemcore.text.tokens import fold_apostrophes

__all__ = ["Phrase", "PhraseSet", "phrases"]

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]|_")
_ANY = "*"
_DIGIT = "#"
_NOT = "!"


@dataclass(frozen=True)
class _Word:
    """A text's word: lowercase, apostrophes folded, with its place in the text (where it
    starts, ends, and where its head ends: at its apostrophe, or its end).
    """

    text: str
    head: str
    start: int
    end: int
    head_end: int
    is_word: bool


@dataclass(frozen=True)
class Phrase:
    """Where a phrase set matched a text.

    Attributes:
        start: The offset of the match's first character.
        end: The offset after its last character (before the apostrophe of a last word
            matched by its head: "Caroline" in "Caroline's").
        first: The index of its first word among the text's words.
    """

    start: int
    end: int
    first: int


@dataclass(frozen=True)
class _Pattern:
    """One word of a phrase: its alternatives, whether it may be left out, and whether it
    is a word that must not follow.
    """

    alternatives: tuple[str, ...]
    optional: bool = False
    negated: bool = False

    def matches(self, word: _Word) -> bool:
        """Whether ``word`` is one of the alternatives, whole or by its head."""
        return self.match(word) is not None

    def match(self, word: _Word) -> bool | None:
        """``None`` when ``word`` is none of the alternatives; else whether it is one only
        by its head (what comes before its apostrophe).
        """
        if not word.is_word:
            return False if word.text in self.alternatives else None
        if any(_glob(alt, word.text) for alt in self.alternatives):
            return False
        if word.head != word.text and any(_glob(alt, word.head) for alt in self.alternatives):
            return True
        return None


def _glob(pattern: str, text: str) -> bool:
    """Whether ``text`` matches ``pattern``, where ``*`` stands for one or more characters
    and ``#`` for one digit.
    """
    if not pattern:
        return not text
    first = pattern[0]
    if first == _ANY:
        return any(_glob(pattern[1:], text[i:]) for i in range(1, len(text) + 1))
    if not text:
        return False
    if first == _DIGIT:
        return text[0].isdigit() and _glob(pattern[1:], text[1:])
    return first == text[0] and _glob(pattern[1:], text[1:])


def _parse(phrase: str) -> tuple[_Pattern, ...]:
    """A phrase as its word patterns (see the module docstring)."""
    patterns = []
    for word in phrase.lower().split():
        negated = word.startswith(_NOT)
        optional = word.endswith("?")
        body = word[int(negated) : len(word) - int(optional)]
        alternatives = tuple(alt for alt in fold_apostrophes(body).split("|") if alt)
        if not alternatives:
            raise InvalidInputError(f"Phrase {phrase!r} has an empty word.")
        patterns.append(_Pattern(alternatives, optional, negated))
    if not any(not (p.optional or p.negated) for p in patterns) or patterns[0].negated:
        raise InvalidInputError(f"Phrase {phrase!r} has no word it needs.")
    return tuple(patterns)


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[_Word, ...]:
    """The words of ``text`` (cached: one question is read by several phrase sets)."""
    found = []
    for match in _WORD.finditer(fold_apostrophes(text)):
        word, start = match.group(), match.start()
        head_end = start + word.find("'") if "'" in word else match.end()
        lower = word.lower()
        found.append(
            _Word(lower, lower.split("'", 1)[0], start, match.end(), head_end, word[0].isalnum())
        )
    return tuple(found)


class PhraseSet:
    """A set of phrases matched on the words of a text (see the module docstring).

    Args:
        phrases: The phrases.
        unless_after: Word alternatives that cancel a match they come right before.
    """

    def __init__(self, phrases: Iterable[str], *, unless_after: Iterable[str] = ()) -> None:
        self._build(tuple(_parse(p) for p in phrases), tuple(unless_after))

    @classmethod
    def of_words(cls, phrases: Iterable[str]) -> PhraseSet:
        """A set of literal phrases, such as names: no character of theirs is a pattern."""
        found = cls.__new__(cls)
        literal = (tuple(_Pattern((w.text,)) for w in _words(p)) for p in phrases)
        found._build(tuple(p for p in literal if p), ())
        return found

    def _build(self, phrases: tuple[tuple[_Pattern, ...], ...], unless: tuple[str, ...]) -> None:
        self._phrases = phrases
        self._unless = _Pattern(unless) if unless else None
        self._by_word: dict[str, list[tuple[_Pattern, ...]]] = {}
        self._anywhere: list[tuple[_Pattern, ...]] = []
        for patterns in self._phrases:
            first = patterns[0]
            if first.optional or any(_ANY in alt for alt in first.alternatives):
                self._anywhere.append(patterns)
            else:
                for alt in first.alternatives:
                    self._by_word.setdefault(alt, []).append(patterns)

    def finditer(self, text: str) -> Iterator[Phrase]:
        """The matches in ``text``, left to right, the longest at each place."""
        words = _words(text)
        at = 0
        while at < len(words):
            found = self._longest(words, at)
            if found is None:
                at += 1
                continue
            end, head = found
            last = words[end - 1]
            yield Phrase(words[at].start, last.head_end if head else last.end, at)
            at = end

    def search(self, text: str) -> Phrase | None:
        """The first match in ``text``, or ``None``."""
        return next(self.finditer(text), None)

    def count(self, text: str) -> int:
        """How many times the set matches ``text``."""
        return sum(1 for _ in self.finditer(text))

    def remove(self, text: str, replacement: str | Callable[[str], str] = " ") -> str:
        """``text`` with every match replaced by ``replacement``, or by what it gives for
        the matched text.
        """
        kept, last = [], 0
        for found in self.finditer(text):
            matched = text[found.start : found.end]
            written = replacement if isinstance(replacement, str) else replacement(matched)
            kept += [text[last : found.start], written]
            last = found.end
        return "".join([*kept, text[last:]])

    def _longest(self, words: tuple[_Word, ...], at: int) -> tuple[int, bool] | None:
        """The end (a word index) of the longest match starting at word ``at``, and
        whether its last word matched by its head only.
        """
        word = words[at]
        if not word.is_word:
            return None
        if self._unless is not None and at > 0 and self._unless.matches(words[at - 1]):
            return None
        candidates = self._by_word.get(word.text, []) + self._anywhere
        if word.head != word.text:
            candidates += self._by_word.get(word.head, [])
        ends = [end for patterns in candidates for end in _ends(patterns, words, at)]
        return max(ends, key=lambda end: (end[0], not end[1])) if ends else None


def _ends(
    patterns: tuple[_Pattern, ...], words: tuple[_Word, ...], at: int
) -> set[tuple[int, bool]]:
    """The word indexes where ``patterns`` can end when they start at word ``at``, each
    with whether the last word matched by its head only.

    A word matched only by its head ends the phrase: its apostrophe's part comes next.
    """
    places = {(at, False)}
    for pattern in patterns:
        if pattern.negated:
            places = {
                (i, head)
                for i, head in places
                if head or i >= len(words) or not pattern.matches(words[i])
            }
            continue
        reached = set()
        for i, head in places:
            how = None if head or i >= len(words) else pattern.match(words[i])
            if how is not None:
                reached.add((i + 1, how))
        places = reached | places if pattern.optional else reached
        if not places:
            return set()
    return {(i, head) for i, head in places if i != at}


@cache
def _vocabulary() -> dict[str, PhraseSet]:
    """Every phrase set of ``phrases.toml``, by its dotted name."""
    data = tomllib.loads(resources.files(__package__).joinpath("phrases.toml").read_text())
    found: dict[str, PhraseSet] = {}

    def walk(table: dict[str, object], prefix: str) -> None:
        if "phrases" in table:
            words = table["phrases"]
            unless = table.get("unless_after", [])
            assert isinstance(words, list) and isinstance(unless, list)
            found[prefix] = PhraseSet(words, unless_after=unless)
            return
        for key, value in table.items():
            if isinstance(value, dict):
                walk(value, f"{prefix}.{key}" if prefix else key)

    walk(data, "")
    return found


def phrases(name: str) -> PhraseSet:
    """The phrase set ``name`` of ``phrases.toml`` (``"question.current"``).

    Raises:
        InvalidInputError: No phrase set has that name.
    """
    found = _vocabulary().get(name)
    if found is None:
        raise InvalidInputError(f"No phrase set is named {name!r}.")
    return found
