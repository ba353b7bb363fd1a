"""A cheap lexical gate before the dependency parse: which messages can state something.

Every parse rule needs at least one *cue* word in its message: a verb of its own lemma
class ("live", "quit", "adopt"), a noun or adjective of a word class ("dog", "vegan",
"nurse", "flat"), or a particle or mark a general verb's rule reads ("into", "off",
"anymore", "called"). The general verbs ("be", "have", "get", "go", "do", ...) are not cues
by themselves: their rules state nothing without a class word or a particle. The cues are
derived from the rule tables and word classes, so a rule added there is gated with them.
A message without any cue is not parsed (the pattern extractor still reads it); of a
message with one, the parse reads only the sentences with a cue and a subject it could
know, each with the sentences either side of it (`parsed_part`): the parse of a sentence
depends on its neighbours ("Me again. Left teaching and moved up to Airlie Beach": without
the first sentence the second is parsed differently). A statement's subject is the
speaker (a first-person word, or a subject left out before the verb), or a name; a
sentence with no first-person word and no capitalised word after its first, opened by a
pronoun or question word that is no such subject ("You love dancing!", "That sounds like
a great job"), states nothing.

A word matches a cue by its lower-case form, the form without an inflection ending
(-s, -es, -ed, -ing, with or without "e", a doubled last consonant undone) or an
irregular past form; a particle that only a general verb's rule reads ("up", "away", "in")
is a cue only beside that verb or mark ("took up", "passed away", "still in").
"""

from __future__ import annotations

from collections.abc import Iterable

from langmemcore.profiles import _parse_words as words
from langmemcore.profiles._parse_extract import RULE_LEMMAS
from langmemcore.text.tokens import sentences, tokenize, word_spans

__all__ = ["may_state", "parsed_part"]

GENERAL_VERBS = frozenset(
    {
        "be", "have", "get", "go", "do", "take", "start", "begin", "play", "stop", "give",
        "put", "find", "turn", "stay", "call", "name", "pass", "lose", "total",
    }
)  # fmt: skip
"""Verb lemmas of the rule tables too common to be a cue alone."""

_PARTICLES = frozenset(
    {
        "into", "anymore", "longer", "called", "named", "gonna", "going", "fan", "supporter",
        "engaged",
    }
)  # fmt: skip
"""Particles and marks the general verbs' rules read alone ("into", "going to")."""

_PAIRED = {
    "up": frozenset({"take", "pick", "give"}),
    "off": frozenset({"go", "call"}),
    "away": frozenset({"pass", "run", "put"}),
    "in": frozenset({"still", "now", "back", "pack", "trade"}),
    "at": frozenset({"still", "now"}),
}
"""Particles that are a cue only beside one of their general verbs or marks ("took up",
"passed away", "still in")."""

_IRREGULAR = {
    "left": "leave", "quit": "quit", "went": "go", "gone": "go", "got": "get",
    "bought": "buy", "sold": "sell", "taught": "teach", "broke": "break", "broken": "break",
    "drove": "drive", "driven": "drive", "rode": "ride", "ridden": "ride", "became": "become",
    "began": "begin", "begun": "begin", "split": "split", "wed": "wed", "ran": "run",
    "took": "take", "taken": "take", "picked": "pick", "put": "put", "gave": "give",
    "given": "give", "found": "find", "sang": "sing", "sung": "sing", "swam": "swim",
    "swum": "swim", "drew": "draw", "drawn": "draw", "ate": "eat", "eaten": "eat",
    "stood": "stand", "married": "marry",
}  # fmt: skip
"""Irregular past forms of the rule verbs, and "married" (not "marri" + "ed")."""

_SPEAKER_WORDS = frozenset(
    {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"}
)
"""Words that make or possess a first-person subject."""

_OTHER_SUBJECTS = frozenset(
    {
        "you", "he", "she", "it", "they", "that", "this", "these", "those", "there", "what",
        "who", "how", "why", "where", "when", "which",
    }
)  # fmt: skip
"""Sentence openers that are a subject no statement is about (or ask a question)."""


_NOT_CUES = frozenset(
    {
        "FIRST_PERSON", "REPORTING", "WISHING", "NOT_FACT_MARKS", "NOT_FACT_AUX",
        "FUTURE_TIME", "TIME_NOUNS", "SUBJECTIVE", "NOT_PLANNED", "CONTINUING",
    }
)  # fmt: skip
"""Word classes that block or trim a statement, never make one: not cues."""


def _class_words() -> frozenset[str]:
    """Every lemma of the word classes that make statements."""
    found: set[str] = set()
    for key, value in vars(words).items():
        if key in _NOT_CUES or not key.isupper():
            continue
        if isinstance(value, frozenset):
            found |= {w for w in value if isinstance(w, str)}
        elif isinstance(value, dict):
            found |= {w for pair in value.items() for w in pair}
    return frozenset(found)


def _stems(word: str) -> Iterable[str]:
    """The word and its possible lemmas without an inflection ending."""
    yield word
    if word in _IRREGULAR:
        yield _IRREGULAR[word]
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) > len(ending) + 1:
            stem = word[: -len(ending)]
            yield stem
            yield f"{stem}e"
            if len(stem) > 2 and stem[-1] == stem[-2]:
                yield stem[:-1]
    yield from word.split("-")


_CUES = (_class_words() | RULE_LEMMAS | _PARTICLES) - GENERAL_VERBS


def may_state(text: str) -> bool:
    """Tell whether a message has a cue word, so that its parse may state something.

    Args:
        text: The message (apostrophes folded).

    Returns:
        False only when no parse rule can read a statement in it.
    """
    stems = {s for w in tokenize(text) for s in _stems(w)}
    if stems & _CUES:
        return True
    return any(stems & partners for particle, partners in _PAIRED.items() if particle in stems)


def _may_have_subject(sentence: str) -> bool:
    """Whether a sentence may have a subject a statement is about (see the module
    docstring).
    """
    words = [sentence[start:end].split("'")[0] for start, end in word_spans(sentence)]
    if not words:
        return False
    if any(w.lower() in _SPEAKER_WORDS for w in words) or any(w[:1].isupper() for w in words[1:]):
        return True
    return words[0].lower() not in _OTHER_SUBJECTS


def parsed_part(text: str) -> str:
    """The part of a message the parse reads: every sentence with a cue word
    (`may_state`) and a subject it may know, each with the sentences either side of it, in
    order.

    Args:
        text: The message (apostrophes folded).

    Returns:
        The message itself when every sentence is kept, the kept sentences joined by a
        space when some are not, and an empty string when none has a cue.
    """
    parts = sentences(text)
    cued = [may_state(s) and _may_have_subject(s) for s in parts]
    near = [False, *cued, False]
    kept = [near[i] or near[i + 1] or near[i + 2] for i in range(len(cued))]
    if all(kept):
        return text
    return " ".join(s for s, keep in zip(parts, kept, strict=True) if keep)
