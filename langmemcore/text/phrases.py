"""Phrase sets: word lists and phrase patterns kept as data, matched on words.

The phrase sets live in ``phrases.toml`` beside this module, each under a name
(``"question.current"``) that :func:`phrases` loads. A phrase is a sequence of word
patterns separated by spaces; a text matches where its words follow the same sequence.

- A word pattern is one or more alternatives separated by ``|`` (``"has|have"``); an
  alternative is a lowercase word where ``*`` stands for one or more characters
  (``"relocate*"``, which "relocate" is not; ``"*'re"``; ``"*"`` alone is any word) and
  ``#`` for a digit (``"19##"``); a punctuation mark matches only itself (``",?"``). A trailing
  ``?`` makes the word optional (``"now|finally?"``; ``"*?"`` is a gap of at most one
  word); a leading ``!`` asks that the next word is none of the alternatives, or that the
  text ends, and takes no word (``"working !out"``).
- Words are compared lowercase with apostrophes folded, and a word written with an
  apostrophe also matches by what comes before it, as a phrase's last word (the match
  then ends at the apostrophe): ``"i"`` matches "I'm", ``"caroline"`` matches
  "Caroline's", ``"that *"`` does not match "that's great", and ``"didn't"`` matches
  only itself.
- Words are letters and digits, with apostrophes inside; every other character but
  spaces is a word of its own, so a phrase never matches across a comma or a full stop.
- A set's ``unless_after`` words cancel a match they come right before
  (``["not", "*not", "*n't", "never"]``: "not moved" is no move).

Matches are found left to right, the longest at each place, without overlapping.
:meth:`PhraseSet.union` joins named sets into one that tells which of them a text
matches in one pass (:meth:`PhraseSet.names_in`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import NamedTuple

from langmemcore._errors import InvalidInputError
from langmemcore.text.tokens import fold_apostrophes, word_and_mark_spans

__all__ = ["Phrase", "PhraseSet", "phrases"]

_ANY = "*"
_DIGIT = "#"
_NOT = "!"
_KNOWN_WORDS = 65536
"""Words a phrase set remembers the glob-led phrases of, at most."""


class _Word(NamedTuple):
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
        words_end: The index after its last word.
    """

    start: int
    end: int
    first: int
    words_end: int


def _glob(pattern: str) -> Callable[[str], bool]:
    """A test of whether a word matches ``pattern``, where ``*`` stands for one or more
    characters and ``#`` for one digit.
    """
    if pattern == _ANY:
        return bool
    if _DIGIT not in pattern and pattern.count(_ANY) == 1:
        prefix, suffix = pattern.split(_ANY)
        least = len(prefix) + len(suffix)
        return lambda w: len(w) > least and w.startswith(prefix) and w.endswith(suffix)
    return lambda w: _globbed(pattern, w)


def _globbed(pattern: str, text: str) -> bool:
    """Whether ``text`` matches ``pattern`` (see :func:`_glob`)."""
    if not pattern:
        return not text
    first = pattern[0]
    if first == _ANY:
        return any(_globbed(pattern[1:], text[i:]) for i in range(1, len(text) + 1))
    if not text or not (text[0].isdigit() if first == _DIGIT else first == text[0]):
        return False
    return _globbed(pattern[1:], text[1:])


class _Pattern:
    """One word of a phrase: its alternatives (words, and globs), whether it may be left
    out, and whether it is a word that must not follow.
    """

    __slots__ = ("globs", "literals", "negated", "optional")

    def __init__(
        self,
        alternatives: Iterable[str],
        optional: bool = False,
        negated: bool = False,
        *,
        literal: bool = False,
    ) -> None:
        alternatives = tuple(alternatives)
        self.literals = frozenset(
            a for a in alternatives if literal or (_ANY not in a and _DIGIT not in a)
        )
        self.globs = tuple(_glob(a) for a in alternatives if a not in self.literals)
        self.optional = optional
        self.negated = negated

    def has(self, word: str) -> bool:
        """Whether the spelling ``word`` is one of the alternatives."""
        if word in self.literals:
            return True
        return bool(self.globs) and any(glob(word) for glob in self.globs)

    def matches(self, word: _Word) -> bool:
        """Whether ``word`` is one of the alternatives, whole or by its head."""
        return self.match(word) is not None

    def match(self, word: _Word) -> bool | None:
        """``None`` when ``word`` is none of the alternatives; else whether it is one only
        by its head (what comes before its apostrophe).
        """
        if not word.is_word:
            return False if word.text in self.literals else None
        if self.has(word.text):
            return False
        if word.head != word.text and self.has(word.head):
            return True
        return None


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
    folded = fold_apostrophes(text)
    for start, end in word_and_mark_spans(folded):
        word = folded[start:end]
        lower = word.lower()
        quote = word.find("'")
        head, head_end = (lower, end) if quote < 0 else (lower[:quote], start + quote)
        found.append(_Word(lower, head, start, end, head_end, word[0].isalnum()))
    return tuple(found)


@lru_cache(maxsize=8192)
def _spellings(text: str) -> frozenset[str]:
    """Every word of ``text`` and every head, for a quick test of a set's first words."""
    lower = fold_apostrophes(text).lower()
    words = [lower[start:end] for start, end in word_and_mark_spans(lower)]
    return frozenset(words) | frozenset(w.split("'", 1)[0] for w in words if "'" in w)


class _Entry(NamedTuple):
    """A phrase of a set: its patterns, the set's name and the words it may not follow."""

    patterns: tuple[_Pattern, ...]
    name: str
    unless: _Pattern | None
    simple: bool


def _entry(patterns: tuple[_Pattern, ...], name: str, unless: _Pattern | None) -> _Entry:
    simple = not any(p.optional or p.negated for p in patterns)
    return _Entry(patterns, name, unless, simple)


class PhraseSet:
    """A set of phrases matched on the words of a text (see the module docstring).

    Args:
        phrases: The phrases.
        unless_after: Word alternatives that cancel a match they come right before.
        name: The set's name (what :meth:`names_in` gives for it).
    """

    def __init__(
        self, phrases: Iterable[str], *, unless_after: Iterable[str] = (), name: str = ""
    ) -> None:
        unless = _Pattern(unless_after) if unless_after else None
        self._index([_entry(_parse(p), name, unless) for p in phrases])

    @classmethod
    def of_words(cls, phrases: Iterable[str]) -> PhraseSet:
        """A set of literal phrases, such as names: no character of theirs is a pattern."""
        found = cls.__new__(cls)
        literal = (tuple(_Pattern((w.text,), literal=True) for w in _words(p)) for p in phrases)
        found._index([_entry(p, "", None) for p in literal if p])
        return found

    @classmethod
    def union(cls, sets: Mapping[str, PhraseSet]) -> PhraseSet:
        """The phrases of ``sets``, each keeping its set's name and ``unless_after``."""
        found = cls.__new__(cls)
        found._index([entry._replace(name=name) for name, s in sets.items() for entry in s._all])
        return found

    def _index(self, entries: list[_Entry]) -> None:
        self._all = tuple(entries)
        self._by_word: dict[str, list[_Entry]] = {}
        self._globbed: dict[_Pattern, list[_Entry]] = {}
        self._globbed_at: dict[str, list[_Entry]] = {}
        self._anywhere: list[_Entry] = []
        for entry in entries:
            first = entry.patterns[0]
            if first.optional:
                self._anywhere.append(entry)
            elif first.globs:
                self._globbed.setdefault(first, []).append(entry)
            else:
                for literal in first.literals:
                    self._by_word.setdefault(literal, []).append(entry)
        self._first_words = frozenset(self._by_word)

    def finditer(self, text: str) -> Iterator[Phrase]:
        """The matches in ``text``, left to right, the longest at each place."""
        if not self._may_match(text):
            return
        words = _words(text)
        at = 0
        while at < len(words):
            found = self._longest(words, at) if self._may_start(words[at]) else None
            if found is None:
                at += 1
                continue
            yield found
            at = found.words_end

    def starts_at(self, text: str, offset: int, *, spaced: bool = False) -> Phrase | None:
        """The longest match whose first word is the first of ``text`` at or after
        ``offset`` with only spaces before it, or ``None``.

        Args:
            text: The text.
            offset: Where the match may start (spaces after it are skipped).
            spaced: Whether at least one space must come between ``offset`` and the match.
        """
        words = _words(text)
        at = next((i for i, word in enumerate(words) if word.start >= offset), len(words))
        if at == len(words) or text[offset : words[at].start].strip():
            return None
        if spaced and words[at].start == offset:
            return None
        return self._longest(words, at)

    def names_in(self, text: str) -> frozenset[str]:
        """The names of the sets (see :meth:`union`) of which some phrase matches ``text``."""
        if not self._may_match(text):
            return frozenset()
        words = _words(text)
        return frozenset(
            entry.name
            for at, word in enumerate(words)
            if self._may_start(word)
            for entry, _ in self._starting(words, at)
        )

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

    def _longest(self, words: tuple[_Word, ...], at: int) -> Phrase | None:
        """The longest match from word ``at``; of two as long, the one whose last word
        matched whole.
        """
        ends = [end for _, end in self._starting(words, at)]
        if not ends:
            return None
        end, head = max(ends, key=lambda end: (end[0], not end[1]))
        last = words[end - 1]
        return Phrase(words[at].start, last.head_end if head else last.end, at, end)

    def _may_match(self, text: str) -> bool:
        """Whether a phrase of the set may match ``text`` (a quick test)."""
        if self._anywhere:
            return True
        spellings = _spellings(text)
        if not self._first_words.isdisjoint(spellings):
            return True
        return bool(self._globbed) and any(self._globbed_by(s) for s in spellings)

    def _may_start(self, word: _Word) -> bool:
        """Whether a phrase of the set may start at ``word`` (a quick test)."""
        if not word.is_word:
            return bool(self._anywhere) or word.text in self._by_word
        if self._anywhere or word.text in self._by_word or word.head in self._by_word:
            return True
        return bool(self._globbed) and bool(self._globbed_from(word))

    def _globbed_from(self, word: _Word) -> list[_Entry]:
        """The phrases whose first word is a glob ``word`` matches."""
        found = self._globbed_by(word.text)
        return found if word.head == word.text else found + self._globbed_by(word.head)

    def _globbed_by(self, spelling: str) -> list[_Entry]:
        """The phrases whose first word is a glob ``spelling`` matches (remembered)."""
        found = self._globbed_at.get(spelling)
        if found is None:
            if len(self._globbed_at) >= _KNOWN_WORDS:
                self._globbed_at.clear()
            found = [e for first, es in self._globbed.items() if first.has(spelling) for e in es]
            self._globbed_at[spelling] = found
        return found

    def _starting(
        self, words: tuple[_Word, ...], at: int
    ) -> Iterator[tuple[_Entry, tuple[int, bool]]]:
        """Each phrase matching from word ``at``, with each place it can end there (a word
        index, and whether its last word matched by its head only).
        """
        word = words[at]
        candidates = self._by_word.get(word.text, [])
        if word.head != word.text:
            candidates = candidates + self._by_word.get(word.head, [])
        if self._globbed and word.is_word:
            candidates = candidates + self._globbed_from(word)
        for entry in (*candidates, *self._anywhere) if self._anywhere else candidates:
            unless = entry.unless
            if unless is not None and at > 0 and unless.matches(words[at - 1]):
                continue
            for end in _ends(entry, words, at):
                yield entry, end


def _ends(entry: _Entry, words: tuple[_Word, ...], at: int) -> Iterable[tuple[int, bool]]:
    """The places where ``entry`` can end when it starts at word ``at``: each a word index
    and whether the last word matched by its head only.

    A word matched only by its head ends the phrase: its apostrophe's part comes next.
    """
    if entry.simple:
        i, head = at, False
        for pattern in entry.patterns:
            how = None if head or i >= len(words) else pattern.match(words[i])
            if how is None:
                return ()
            i, head = i + 1, how
        return ((i, head),)
    places = {(at, False)}
    for pattern in entry.patterns:
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
            return ()
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
            found[prefix] = PhraseSet(words, unless_after=unless, name=prefix)
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
