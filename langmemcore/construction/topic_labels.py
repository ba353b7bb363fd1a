"""Topic labels: the three best-connected keywords of a topic that read as whole words.

A label is made of stored keywords, each whole (never cut), in the order of their
connectedness, skipping the ones that would read as fragments:

* a keyword with a digit (``12th``, ``1 hour``) or an ordinal word (``first``);
* a keyword with a stop word, filler, time word or generic noun (``thing``, ``week``);
* a keyword with a word of one or two letters (``st mary`` from "St. Mary's");
* a phrase with a conjugated verb before its last word (``loves chasing pigeon``,
  ``cafeteria uses peanut oil``): a piece of a clause, not a name for a subject;
* a keyword whose word does not occur whole in a note that carries it, only as the stem
  of a capitalised word (``ine`` stored for "Ines");
* a keyword all of whose words are already in a chosen one (``half marathon`` after
  ``porto half marathon``), and the other way round.

When no keyword passes, the best-connected one is the label, so a label is never empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langmemcore.text import _lexicon as lx
from langmemcore.text.keywords import lookup_verb
from langmemcore.text.phrases import PhraseSet

__all__ = ["label_worthy", "topic_label"]

_LABEL_SIZE = 3
_NOT_LABEL_WORDS = lx.STOPWORDS | lx.FILLERS | lx.TIME_WORDS | lx.GENERIC_NOUNS
_ORDINALS = lx.word_set(
    """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
    thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth
    thirtieth"""
)


def _conjugated(word: str) -> bool:
    """Whether a non-final phrase word is a conjugated verb (``loves``, ``uses``)."""
    entry = lookup_verb(word)
    if entry is not None:
        return entry[1] in ("s", "ed")
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _occurs_whole(word: str, text: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a word, or as a lowercase plural."""
    if PhraseSet.of_words([word]).search(text) is not None:
        return True
    plurals = PhraseSet.of_words([f"{word}s", f"{word}es"]).finditer(text)
    return any(text[found.start : found.end].islower() for found in plurals)


def label_worthy(keyword: str, text: str | None = None) -> bool:
    """Whether a stored keyword may stand in a topic label (see the module docstring).

    Args:
        keyword: The keyword as stored (normalised, lowercase).
        text: A note text that carries the keyword (its context); ``None`` skips the
            whole-word check.

    Returns:
        ``True`` when the keyword reads as a whole name for a subject.
    """
    words = keyword.split()
    if not words or any(not word.isalpha() for word in words):
        return False
    if any(len(word) < 3 or word in _NOT_LABEL_WORDS or word in _ORDINALS for word in words):
        return False
    if any(_conjugated(word) for word in words[:-1]):
        return False
    return text is None or all(_occurs_whole(word, text) for word in words)


def topic_label(ranked: Sequence[str], texts: Mapping[str, str] | None = None) -> str:
    """The label of a topic: up to three label-worthy keywords, comma-separated.

    Args:
        ranked: The topic's keywords, best-connected first.
        texts: For some keywords, a note text that carries them (see
            :func:`label_worthy`); keywords without one skip the whole-word check.

    Returns:
        The label; the first keyword when none is label-worthy, ``""`` when ``ranked``
        is empty.
    """
    texts = texts or {}
    chosen: list[str] = []
    for keyword in ranked:
        if len(chosen) == _LABEL_SIZE:
            break
        if not label_worthy(keyword, texts.get(keyword)):
            continue
        words = set(keyword.split())
        if any(words <= set(c.split()) or words >= set(c.split()) for c in chosen):
            continue
        chosen.append(keyword)
    return ", ".join(chosen or list(ranked[:1]))
