"""Offline keyword and entity extraction (the deterministic semantic-ingestion step).

No model and no part-of-speech tagger: a word list driven tagger (function words,
interjections, verbs with their inflections, adverbs, evaluative adjectives, time words)
plus a few context rules decide, per token, whether it is a verb or a noun ("I *love*
painting" vs "my *love*"; "the *support* group" vs "to *support* them"). Content runs
between boundaries are noun-phrase chunks ("lgbtq support group", "charity race"),
trimmed of leading evaluative adjectives ("a *great* counselor" -> "counselor").

Salience order: names of people / places mentioned (not merely addressed) first, then
multi-word phrases, then single concrete nouns and activities ("camping"), then abstract
nouns ("support", "life"); generic words ("thing", "photo", "way"), times and phatic
words never become keywords, so "Wow, that's cool!" yields ``[]``. Names used as a
vocative ("Thanks, Mel!") are the addressee, a conversational meta-role: they are not
keywords, and not entities when ``include_vocatives=False``. The speaker's own name is
dropped when it is only the subject or possessor.
"""

from __future__ import annotations

from collections.abc import Callable

from langmemcore.text import _lexicon as lx
from langmemcore.text._tagger import CONTENT, VERB_FORMS, Tok, lex, noun_context, tag_tokens
from langmemcore.text.tokens import normalize_keyword

__all__ = [
    "extract_entities",
    "extract_keywords",
    "extract_keywords_and_entities",
    "lookup_verb",
    "topic_words",
]

_TOPICAL_TAGS = frozenset("NPGMV")
_NOT_TOPICAL = lx.GENERIC_NOUNS | lx.STOPWORDS | lx.FILLERS | lx.TIME_WORDS
_VOCATIVE_LEAD = (
    lx.FILLERS
    | lx.WEAK_ADJECTIVES
    | lx.word_set(
        "you so much for again to see good morning evening night all oh my too you're be it"
    )
)
_Adder = Callable[[str, float, int], None]


def _chunks(toks: list[Tok], speaker_low: str) -> list[list[int]]:
    """Group content tokens into chunks (lists of token indices)."""
    chunks: list[list[int]] = []
    cur: list[int] = []
    for i, tok in enumerate(toks):
        if tok.tag in CONTENT:
            if cur and _breaks(toks, cur, i, speaker_low):
                chunks.append(cur)
                cur = []
            cur.append(i)
            if tok.poss:
                chunks.append(cur)
                cur = []
        elif (
            cur
            and tok.low in lx.PROPER_CONNECTORS
            and toks[cur[-1]].tag == "P"
            and i + 1 < len(toks)
            and toks[i + 1].tag == "P"
        ):
            cur.append(i)
        elif cur:
            chunks.append(cur)
            cur = []
    if cur:
        chunks.append(cur)
    return chunks


def _breaks(toks: list[Tok], cur: list[int], i: int, speaker_low: str) -> bool:
    """Whether token ``i`` starts a new chunk instead of extending ``cur``."""
    last, tok = toks[cur[-1]], toks[i]
    if tok.tag == "P":
        return last.tag != "P"
    if last.tag == "P":
        before = toks[cur[0] - 1] if cur[0] else None
        return (
            last.low in lx.FIRST_NAMES
            or last.low == speaker_low
            or (before is not None and before.low in lx.AUXILIARIES)
        )
    if tok.tag == "J" and last.tag == "N" and last.low.endswith("s"):
        return not last.low.endswith("ss")
    if last.tag == "G" and len(cur) == 1:
        return not noun_context(toks[cur[0] - 1] if cur[0] else None)
    return False


def _is_vocative(toks: list[Tok], run: list[int]) -> bool:
    """Whether a name run addresses the listener ("Hey Mel!", "Thanks, Caroline!")."""
    first, end = run[0], run[-1] + 1
    nxt = toks[end] if end < len(toks) else None
    prev = toks[first - 1] if first else None
    if prev is not None and prev.tag == "F":
        return True
    closes = nxt is None or nxt.tag == "." or nxt.low in (",", ")")
    if not closes or toks[run[0]].low in lx.PLACES:
        return False
    if prev is None or prev.tag == ".":
        return nxt is not None and nxt.low == ","
    if prev.low == "," and (nxt is None or nxt.tag == "."):
        return True
    j = first - 1
    while j >= 0 and toks[j].tag != ".":
        if toks[j].tag != "," and toks[j].low not in _VOCATIVE_LEAD:
            return False
        j -= 1
    return True


def extract_keywords_and_entities(
    text: str,
    *,
    speaker: str | None = None,
    max_keywords: int = 8,
    include_vocatives: bool = True,
) -> tuple[list[str], list[str]]:
    """Run the extraction once and return both keywords and entities.

    Args:
        text: Raw text (one turn, one query).
        speaker: Who wrote the text; their name is not a keyword when only the subject.
        max_keywords: Cap on the number of keywords.
        include_vocatives: Whether names used to address the listener count as entities.

    Returns:
        ``(keywords, entities)`` as documented in :func:`extract_keywords` and
        :func:`extract_entities`.
    """
    toks = lex(text)
    tag_tokens(toks)
    speaker_words = speaker.lower().split() if speaker else []
    speaker_low = speaker_words[0] if speaker_words else ""
    scores: dict[str, list[float]] = {}
    entities: dict[str, str] = {}

    def add(key: str, score: float, position: int) -> None:
        if not key:
            return
        entry = scores.get(key)
        if entry is None:
            scores[key] = [score, float(position)]
        else:
            entry[0] = max(entry[0], score) + 0.3

    for chunk in _chunks(toks, speaker_low):
        names = _name_runs(toks, chunk)
        for run in names:
            surface = " ".join(toks[k].surface for k in run)
            modifier = len(run) == 1 and surface.isupper() and run[-1] != chunk[-1]
            vocative = _is_vocative(toks, run) if run == chunk else False
            if not modifier and (include_vocatives or not vocative):
                entities.setdefault(surface.lower(), surface)
            if run != chunk or vocative:
                continue
            low_words = [toks[k].low for k in run]
            if speaker_words and low_words in (speaker_words, speaker_words[:1]):
                prev = toks[run[0] - 1] if run[0] else None
                if prev is None or not (prev.tag == "V" or prev.low in lx.PREPOSITIONS):
                    continue
            add(normalize_keyword(surface), 3.0 + 0.5 * (len(run) > 1), run[0])
        if chunk in names:
            continue
        _add_phrase(toks, chunk, add)
    for i, tok in enumerate(toks):
        if tok.tag == "V" and tok.lemma in lx.ACTIVITY_VERBS:
            add(tok.lemma, 0.6, i)
    ranked = sorted(scores.items(), key=lambda item: (-item[1][0], item[1][1]))
    return [key for key, _ in ranked[:max_keywords]], list(entities.values())


def _name_runs(toks: list[Tok], chunk: list[int]) -> list[list[int]]:
    """Maximal runs of proper-noun tokens (with inner connectors) inside a chunk."""
    runs: list[list[int]] = []
    for k in chunk:
        tag = toks[k].tag
        if tag == "P" or (tag == "S" and runs and runs[-1][-1] == k - 1):
            if runs and runs[-1][-1] == k - 1:
                runs[-1].append(k)
            else:
                runs.append([k])
    return runs


def _add_phrase(toks: list[Tok], chunk: list[int], add: _Adder) -> None:
    """Turn a non-name chunk into a keyword candidate (trimmed, scored)."""
    words = [k for k in chunk if toks[k].tag != "S"]
    while words and toks[words[0]].tag in ("J", "M"):
        words.pop(0)
    while words and (toks[words[-1]].tag in ("J", "M") or toks[words[-1]].low in lx.GENERIC_HEADS):
        words.pop()
    words = words[-4:]
    if not words:
        return
    if len(words) == 1:
        tok = toks[words[0]]
        if tok.low in _NOT_TOPICAL or tok.low in lx.PLAIN_ADJECTIVES or len(tok.low) < 3:
            return
        if tok.low.endswith(lx.PLAIN_ADJECTIVE_SUFFIXES) and tok.low not in lx.SUFFIX_NOUNS:
            return
        score = 0.4 if tok.low in lx.ABSTRACT_NOUNS else 1.1 if tok.tag == "G" else 1.0
        add(normalize_keyword(tok.surface), score, words[0])
        return
    proper = any(toks[k].tag == "P" for k in words)
    score = 2.0 + 0.25 * (len(words) - 2) + 0.5 * proper
    add(normalize_keyword(" ".join(toks[k].surface for k in words)), score, words[0])


def extract_keywords(text: str, *, speaker: str | None = None, max_keywords: int = 8) -> list[str]:
    """Extract normalised keywords from a text, most salient first.

    Args:
        text: Raw text, e.g. one conversation turn or a question.
        speaker: The author's name; dropped when it is only the subject or possessor.
        max_keywords: At most this many keywords are returned.

    Returns:
        Keys in :func:`~langmemcore.text.tokens.normalize_keyword` form: names of people
        and places mentioned, noun phrases ("lgbtq support group"), concrete nouns,
        activities; ``[]`` for purely phatic text.
    """
    return extract_keywords_and_entities(text, speaker=speaker, max_keywords=max_keywords)[0]


def extract_entities(text: str, *, include_vocatives: bool = True) -> list[str]:
    """Extract proper-noun names (people, places, organisations) in surface form.

    Args:
        text: Raw text.
        include_vocatives: Whether names that only address the listener ("Thanks,
            Mel!") are included.

    Returns:
        Names in order of first mention, deduplicated case-insensitively, possessive
        ``'s`` removed ("Caroline", "New York", "Door Dash").
    """
    return extract_keywords_and_entities(text, include_vocatives=include_vocatives)[1]


def lookup_verb(word: str) -> tuple[str, str] | None:
    """Look a lowercase word up in the verb table.

    Args:
        word: A lowercase word.

    Returns:
        ``(lemma, form)`` with form ``"base"``, ``"s"``, ``"ed"`` or ``"ing"``, or ``None``
        when the word is not a known verb form.
    """
    entry = VERB_FORMS.get(word)
    return None if entry is None else (entry[0], entry[1])


def topic_words(text: str) -> list[tuple[str, str, str]]:
    """Content words of a text in order, as ``(surface, lemma, tag)`` triples.

    Keeps nouns, names, gerunds, modifiers and non-light verbs; drops function words,
    auxiliaries, light verbs ("go", "do", "make"), evaluative adjectives, adverbs, time
    words and generic heads ("kind", "type"). The lemma is the verb base for verbs and
    the lowercase word otherwise; the tag is ``"V"`` for verbs, ``"P"`` for names and
    ``"N"`` / ``"G"`` / ``"M"`` for nouns, gerunds and participle modifiers.

    Args:
        text: A query or any short text.

    Returns:
        ``(surface, lemma, tag)`` triples, possessive ``'s`` removed from the surface.
    """
    toks = lex(text)
    tag_tokens(toks)
    words: list[tuple[str, str, str]] = []
    for tok in toks:
        if tok.tag not in _TOPICAL_TAGS or tok.low in lx.GENERIC_HEADS:
            continue
        lemma = tok.lemma or tok.low
        if tok.tag == "V" and (lemma in lx.LIGHT_VERBS or tok.low in lx.LIGHT_VERBS):
            continue
        words.append((tok.surface, lemma, tok.tag))
    return words
