"""Tokenisation, stopwords and canonical keyword forms.

Conventions used by the whole ``langmemcore.text`` package:

* Typographic apostrophes (U+2018, U+2019) are folded to ``'`` before anything else.
* :func:`tokenize` lowercases and keeps contractions and possessives as one token
  (``"I'm"`` -> ``"i'm"``, ``"Melanie's"`` -> ``"melanie's"``); hyphens, slashes and other
  punctuation separate tokens (``"self-care"`` -> ``"self"``, ``"care"``); digits are kept
  (``"18th"``, ``"2023"``).
* :func:`content_terms` drops stopwords and interjections, strips possessive ``'s`` and
  singularises each term, so query and note vocabularies meet in the middle.
* :func:`normalize_keyword` is the canonical key of a keyword in the database: lowercase,
  punctuation and hyphens turned into spaces, possessive ``'s`` removed, leading articles
  dropped, head noun (last word) singularised. It is idempotent.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

import Stemmer

from langmemcore._validate import LIMITS
from langmemcore.text._lexicon import FILLERS, STOPWORDS
from langmemcore.text._plurals import (
    ES_STEMS,
    ICS_FIELDS,
    IE_NOUNS,
    INVARIANT,
    MEN_COMPOUNDS,
    OES_KEEP_E,
    S_FINAL_NAMES,
)

__all__ = [
    "STOPWORDS",
    "after_spaces",
    "content_term_set",
    "content_terms",
    "fold_apostrophes",
    "normalize_keyword",
    "sentences",
    "singularize",
    "tokenize",
    "word_and_mark_spans",
    "word_spans",
]

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_TOKEN_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_TOKEN_OR_MARK_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]|_")
_NON_WORD_RE = re.compile(r"[^\w\s]|_")
_POSSESSIVE_RE = re.compile(r"(?<=\w)'s\b|(?<=s)'(?!\w)")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_STEMMERS = threading.local()
_ARTICLES = frozenset({"a", "an", "the"})

_IRREGULAR = {
    "children": "child",
    "grandchildren": "grandchild",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "geese": "goose",
    "mice": "mouse",
    "oxen": "ox",
    "cacti": "cactus",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "quizzes": "quiz",
    "niches": "niche",
    "lenses": "lens",
    "crises": "crisis",
    "theses": "thesis",
    "analyses": "analysis",
    "menus": "menu",
    "gurus": "guru",
    "haikus": "haiku",
    "tutus": "tutu",
    "emus": "emu",
    "tofus": "tofu",
    "bayous": "bayou",
}
_VES_F = {
    "wolves": "wolf",
    "leaves": "leaf",
    "lives": "life",
    "halves": "half",
    "loaves": "loaf",
    "thieves": "thief",
    "selves": "self",
    "calves": "calf",
    "scarves": "scarf",
    "hooves": "hoof",
    "elves": "elf",
}
_VES_F_SUFFIXES = (("shelves", "shelf"), ("knives", "knife"), ("wives", "wife"))
_IS_SINGULAR_SUFFIXES = ("sis", "itis", "xis")


def fold_apostrophes(text: str) -> str:
    """Replace typographic apostrophes and backticks with ``'``.

    Args:
        text: Any text.

    Returns:
        The text with every apostrophe variant written as ``'``.
    """
    return text.translate(_APOSTROPHES)


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens.

    Contractions and possessives stay whole (``"I'm"`` -> ``"i'm"``, ``"kids'"`` ->
    ``"kids"``); any other non-word character separates tokens, so hyphenated words split
    (``"hand-painted"`` -> ``"hand"``, ``"painted"``). Digits are kept.

    Args:
        text: Raw text.

    Returns:
        The tokens in order, duplicates kept.
    """
    return _TOKEN_RE.findall(fold_apostrophes(text).lower())


def after_spaces(text: str, at: int) -> int:
    """Where the white space that starts at ``at`` in ``text`` ends (``at`` when none)."""
    return len(text) - len(text[at:].lstrip())


def word_spans(text: str) -> list[tuple[int, int]]:
    """The offsets of the words of ``text``, as :func:`tokenize` finds them, case kept.

    Args:
        text: Raw text.

    Returns:
        ``(start, end)`` of each word in order; ``text[start:end]`` is the word as written.
    """
    return [m.span() for m in _TOKEN_RE.finditer(fold_apostrophes(text))]


def word_and_mark_spans(text: str) -> list[tuple[int, int]]:
    """The offsets of the words of ``text`` (as :func:`word_spans`) and of every other
    character but white space, each a one-character mark (``,`` ``-`` ``"``).

    Args:
        text: Raw text.

    Returns:
        ``(start, end)`` of each word or mark in order.
    """
    return [m.span() for m in _TOKEN_OR_MARK_RE.finditer(fold_apostrophes(text))]


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: a sentence ends at ``.``, ``!`` or ``?`` followed by a
    space, or at a line break; each keeps its end mark, without the spaces around it.

    Args:
        text: Any text.

    Returns:
        Its sentences in order, none empty (``"3.5 km. Then home"`` -> ``["3.5 km.",
        "Then home"]``).
    """
    return [s.strip() for s in _SENTENCE_END_RE.split(text) if s.strip()]


def singularize(word: str) -> str:
    """Return the singular of a lowercase English noun, leaving non-plurals alone.

    Rule-based and conservative: irregular plurals (``children``), ``-ies`` (``stories``
    -> ``story`` but ``movies`` -> ``movie``), ``-ves`` (``wolves`` -> ``wolf``), sibilant
    ``-es`` (``boxes``, ``glasses``, ``beaches``) and plain ``-s``. Words that only look
    plural stay (``glass``, ``bus``, ``news``, ``analysis``, ``Paris``, ``Texas``).
    Idempotent: ``singularize(singularize(w)) == singularize(w)``.

    Args:
        word: One lowercase word.

    Returns:
        Its singular form (the word itself when it is not a recognised plural).
    """
    irregular = _IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    if word in MEN_COMPOUNDS:
        return word[:-2] + "an"
    if len(word) <= 3 or word[-1] != "s" or not word.isalpha():
        return word
    if word in INVARIANT or word in S_FINAL_NAMES:
        return word
    if word.endswith(("ss", "us")) or word in ICS_FIELDS:
        return word
    if word.endswith("is"):
        return word if word.endswith(_IS_SINGULAR_SUFFIXES) else word[:-1]
    if word.endswith("ies"):
        if len(word) <= 4 or word[:-1] in IE_NOUNS:
            return word[:-1]
        return word[:-3] + "y"
    if word.endswith("ves"):
        return _singular_ves(word)
    if word.endswith("es"):
        return _singular_es(word)
    return word[:-1]


def _singular_ves(word: str) -> str:
    """Singularise a word ending in ``-ves`` (``wolves``, ``bookshelves``, ``olives``)."""
    known = _VES_F.get(word)
    if known is not None:
        return known
    for plural, singular in _VES_F_SUFFIXES:
        if word.endswith(plural):
            return word[: -len(plural)] + singular
    return word[:-1]


def _singular_es(word: str) -> str:
    """Singularise a word ending in ``-es`` that is not ``-ies`` / ``-ves``."""
    stem = word[:-2]
    if stem in ES_STEMS:
        return stem
    if word.endswith("aches") and (len(word) == 5 or word[-6] not in "eo"):
        return word[:-1]
    if word.endswith(("sses", "xes", "zzes", "shes", "ches")):
        return stem
    if word.endswith("oes"):
        if word in OES_KEEP_E or word.endswith("shoes"):
            return word[:-1]
        return stem
    return word[:-1]


def normalize_keyword(phrase: str) -> str:
    """Return the canonical database key of a keyword phrase.

    Lowercases, folds apostrophes, drops possessive ``'s``, turns every other
    non-alphanumeric character (hyphens included) into a space, ``&`` into ``and``,
    collapses whitespace, drops leading articles and singularises the head noun (the last
    word). Idempotent.

    Examples: ``"LGBTQ Support Groups"`` -> ``"lgbtq support group"``, ``"the kids'"`` ->
    ``"kid"``, ``"hand-painted bowls"`` -> ``"hand painted bowl"``, ``"Paris"`` ->
    ``"paris"``, ``"glass"`` -> ``"glass"``.

    Args:
        phrase: A keyword as extracted or typed.

    Returns:
        The canonical form; ``""`` when nothing word-like remains or the form is
        longer than ``Limits.keyword_chars`` (a keyword is an indexed database key).
    """
    text = fold_apostrophes(phrase).lower().replace("&", " and ")
    text = _POSSESSIVE_RE.sub("", text).replace("'", "")
    words = _NON_WORD_RE.sub(" ", text).split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    if not words:
        return ""
    words[-1] = singularize(words[-1])
    key = " ".join(words)
    return key if len(key) <= LIMITS.keyword_chars else ""


def content_terms(text: str) -> list[str]:
    """Return the normalised content words of a text, in order, duplicates kept.

    Stopwords and interjections are dropped; possessive ``'s`` is stripped and each term
    singularised (``"Melanie's paintings"`` -> ``["melanie", "painting"]``). Numbers stay.

    Args:
        text: Raw text.

    Returns:
        Lowercase terms suitable for lexical matching and coverage tests.
    """
    terms: list[str] = []
    for token in tokenize(text):
        if token in STOPWORDS or token in FILLERS:
            continue
        if "'" in token:
            token = _POSSESSIVE_RE.sub("", token).replace("'", "")
            if not token or token in STOPWORDS:
                continue
        terms.append(singularize(token))
    return terms


@lru_cache(maxsize=8192)
def content_term_set(text: str) -> frozenset[str]:
    """The distinct :func:`content_terms` of a text (cached: the gate and the retrieval
    loop compare the same note contexts again and again).
    """
    return frozenset(content_terms(text))


@lru_cache(maxsize=16384)
def stem(term: str) -> str:
    """English stem of a normalised term, so that the inflections of a word meet.

    The Snowball ``english`` (Porter 2) stemmer of PyStemmer: ``"pursue"``,
    ``"pursued"``, ``"pursuing"`` -> ``"pursu"``; ``"camped"``, ``"camping"`` ->
    ``"camp"``; ``"planned"`` -> ``"plan"``; ``"studied"``, ``"study"`` -> ``"studi"``.
    Short words keep their ending (``"bed"``, ``"sing"``, ``"need"``); irregular forms
    (``"met"``) do not meet their base. On the project's text-analysis set it conflates
    the inflections of a word more often, and unrelated words less often, than the
    hand-made suffix rules it replaced (docs/experiments/text-analysis.md).

    Args:
        term: A lowercase term, as :func:`content_terms` gives.

    Returns:
        The stem (used only to compare terms, never shown).
    """
    return str(_snowball().stemWord(term))


def _snowball() -> Any:
    """Return the Snowball English stemmer of this thread (PyStemmer's are not thread-safe)."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = Stemmer.Stemmer("english")
    return stemmer


@lru_cache(maxsize=8192)
def content_stem_set(text: str) -> frozenset[str]:
    """The :func:`stem` of each of :func:`content_term_set` (cached like it)."""
    return frozenset(stem(t) for t in content_term_set(text))
