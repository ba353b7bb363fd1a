"""The question as supersession reads it: about the present, about the state before a
change, about how things turned out, or about a named period before a change.

- :func:`asks_about_present` reads a question about how things stand now: it names no
  date or period and no past marker ("used to", "before", "did", "ago", a past
  participle), is neither modal nor in the present perfect, and says "now",
  "currently", "still", "these days" ... or asks in the present tense ("Which band does
  Ines play in?"); :func:`asks_about_before` reads a question about the state before a
  change, :func:`asks_about_then` one in the past tense about the state in a situation it
  names by what happened then ("when she lived in Cork"), :func:`asks_about_outcome` one
  about how things turned out.
- A question naming a period longer than a weekend ("Where was Sanne living in 2020?",
  "What is Kenji's plan as of 2019?") asks how things stood then: a statement said by the
  period's end is the answer, one that supersedes it later is history to come, and in
  the present tense the latest said by then (:attr:`StateQuestion.until`). A question
  naming a day or a weekend asks about what happened then, and is left to the time
  channel.
- :func:`focus_terms` are the question's content words (stemmed) other than the names it
  names and its present markers, and the profile aspects it asks about by their cue words
  ("pet" for "What pet ..."; a statement about "my cat" or "a puppy" speaks of it).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache

from langmemcore.config import RetrievalConfig
from langmemcore.profiles.question import text_aspects
from langmemcore.text import TimeMention, content_stem_set
from langmemcore.text.phrases import phrases
from langmemcore.text.tokens import fold_apostrophes, tokenize
from langmemcore.text.user import USER, asks_about_user

__all__ = [
    "StateQuestion",
    "asked_aspects",
    "asks_about_aspect",
    "asks_about_before",
    "asks_about_outcome",
    "asks_about_present",
    "asks_about_then",
    "aspect_term",
    "aspect_terms",
    "focus_terms",
    "for_settings",
    "named_period_end",
    "named_period_start",
    "named_things",
    "names_speaker",
    "situation_terms",
    "state_question",
]

_CURRENT = phrases("state.current")
_PAST = phrases("state.past")
_BEFORE = phrases("state.before")
_PARTICIPANT = phrases("state.participant")
_SITUATION = phrases("state.situation")
_OUTCOME = phrases("state.outcome")
_MODAL = phrases("state.modal")
_PERFECT = phrases("state.perfect")
_PRESENT = phrases("state.present_tense")


def _participle(text: str) -> bool:
    """Whether ``text`` has a past participle of a regular verb (``recommended``) that
    does not follow "get" ("get married" is no participle of that kind).
    """
    words = tokenize(text)
    return any(
        len(word) > 4 and word.endswith("ed") and (i == 0 or words[i - 1] != "get")
        for i, word in enumerate(words)
    )


def asks_about_present(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things stand now.

    Args:
        question: The question.
        times: The dates and periods it names (any: it asks about them, not the present).

    Returns:
        True for "Where does Tomas work now?" or "Which band does Ines play in?"; False
        for "Where did Tomas work in 2022?", "What pet did Ines have before the puppy?",
        questions in the past tense, modal ones ("What would Caroline choose?") and
        those in the present perfect ("What books has Melanie read?": what happened up
        to now, not a state a newer one replaces) or built on a participle ("What is the
        book Caroline recommended?"; "get married" is no participle of that kind).
    """
    if times:
        return False
    text = fold_apostrophes(question)
    if _PAST.search(text) or _MODAL.search(text) or _PERFECT.search(text):
        return False
    if _CURRENT.search(text):
        return True
    return not _participle(text) and bool(_PRESENT.search(text))


@lru_cache(maxsize=8192)
def aspect_terms(text: str) -> frozenset[str]:
    """The profile aspects a text speaks of by their cue words, as terms (``"aspect:pet"``
    for "my cat", "a puppy", "What pet ..."), so that a question's aspect ties statements
    that share none of its words (:func:`~langmemcore.profiles.question.text_aspects`).
    Cached like :func:`~langmemcore.text.content_stem_set`: packing reads the same note
    contexts search after search.
    """
    return frozenset(aspect_term(aspect) for aspect in text_aspects(text))


def aspect_term(aspect: str) -> str:
    """The term a profile aspect adds to a statement's terms and a question's focus."""
    return f"aspect:{aspect}"


def focus_terms(question: str, entities: Collection[str] = ()) -> frozenset[str]:
    """The stems of what the question asks about: its content words without the names
    it names and its present markers ("Where does Tomas work these days?" -> ``work``),
    and the aspects it asks about (:func:`aspect_terms`), not those of the people it
    names beside the subject ("What did Mel and her kids paint?" asks about a painting,
    not about family).
    """
    text = _CURRENT.remove(fold_apostrophes(question))
    names = content_stem_set(" ".join(entities)) if entities else frozenset()
    return (content_stem_set(text) - names) | aspect_terms(_PARTICIPANT.remove(question))


def names_speaker(name: str, speaker: str) -> bool:
    """Whether a name a question gives names ``speaker`` (lowercase), by full or first
    name.
    """
    return name.lower() in (speaker, (speaker.split() or [""])[0])


def named_things(named: Collection[str], speakers: Collection[str]) -> frozenset[str]:
    """The stems of what a question names that is none of ``speakers`` (lowercase, see
    :func:`names_speaker`): "Koos" in "Does Pieter still have Koos?" is what is asked
    about, so two of Pieter's statements naming Koos are about the same thing.
    """
    things = [n for n in named if not any(names_speaker(n, s) for s in speakers)]
    return frozenset().union(*map(content_stem_set, things))


def asks_about_before(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things stood before a change, naming no date or
    period ("What pet did Ines have before the puppy?", "Where did Nadia use to live?"; a
    named period is the time channel's).
    """
    return not times and bool(_BEFORE.search(fold_apostrophes(question)))


def asks_about_then(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question, in the past tense, asks how things stood in a past situation
    it names by what happened then instead of a date ("What was Orla's cat called when
    she lived in Cork?", "Where was Rohan living while he prepared for UPSC?"): the
    situation a later change ended, as "before" would name it.
    """
    text = fold_apostrophes(question)
    return not times and bool(_PAST.search(text)) and _after_words(text)


def _after_words(text: str) -> bool:
    """Whether a word comes before a "when", "while" or "during" of ``text``."""
    return any(tokenize(text[: found.start]) for found in _SITUATION.finditer(text))


def situation_terms(question: str) -> frozenset[str]:
    """The stems of the situation a question names by what happened then, the words after
    its last "when", "while" or "during" ("... while he prepared for UPSC?" -> ``prepar``,
    ``upsc``; names stay: "Cork" names "when she lived in Cork" best); empty when it
    names none.
    """
    text = fold_apostrophes(question)
    found = [found.end for found in _SITUATION.finditer(text)]
    return content_stem_set(text[found[-1] :]) if found else frozenset()


def asks_about_outcome(question: str, times: Sequence[TimeMention] = ()) -> bool:
    """Whether the question asks how things turned out, naming no date or period and not
    the state before a change ("Did Siobhan's Lisbon trip go ahead?", "Which walk did Rowan
    end up doing?", "How did the move work out?"): the latest word on it answers.
    """
    if times or asks_about_before(question, times):
        return False
    return bool(_OUTCOME.search(fold_apostrophes(question)))


@dataclass(frozen=True)
class StateQuestion:
    """A question about the present state, the state before a change or the state in a
    named period, as supersession needs it.

    Attributes:
        focus: Its :func:`focus_terms`.
        named: The people it names.
        now: True: it asks about the present (the newer statement first); False: about
            the state before a change or in a named period (the older first).
        marked: Whether it says "now", "still", "these days" ...: the asker expects a
            change, so a newer statement of how things stand now
            (:func:`~langmemcore.text.change.states_present`) supersedes too.
        until: For a question naming a period (:func:`named_period_end`): its last day.
            The state then is the latest statement said by that day: one superseded
            after it goes first; of two said by then, the newer goes first when the
            question asks in the present tense or about an outcome ("What is Kenji's
            plan as of 2019?", ``now``) and keeps its place in the past tense ("Where
            was Jo living in 2021?": the older may be the one meant).
        since: For a question naming a period, its first day
            (:func:`named_period_start`): what the person said from then to ``until``
            about the aspect asked is the state then.
        situation: For a question naming a past situation by what happened then
            (:func:`asks_about_then`), its :func:`situation_terms`: the days the person
            spoke of it are the period asked about.
        similarity: Cosine similarity at or above which two statements are about the same
            thing without sharing a focus term (a setting, see
            :attr:`~langmemcore.config.RetrievalConfig.supersession_similarity`; 1.0: only
            identical embeddings).
    """

    focus: frozenset[str]
    named: tuple[str, ...]
    now: bool = True
    marked: bool = False
    until: date | None = None
    since: date | None = None
    situation: frozenset[str] = frozenset()
    similarity: float = 1.0


def state_question(
    question: str, times: Sequence[TimeMention], entities: tuple[str, ...]
) -> StateQuestion | None:
    """The question as supersession reads it (with the dates and the names a query plan
    found in it), when it asks about the present, the state before a change or the
    state in a named period (else ``None``). A question about the user ("Where does the
    user live now?", "Where do I live now?") names the user
    (:data:`~langmemcore.text.user.USER`).
    """
    until = named_period_end(times)
    if asks_about_present(question, times) or asks_about_outcome(question, times):
        now = True
    elif until is not None:
        now = asks_about_present(question) or asks_about_outcome(question)
    elif asks_about_before(question, times) or asks_about_then(question, times):
        now = False
    else:
        return None
    if asks_about_user(question) and USER not in {e.lower() for e in entities}:
        entities = (*entities, USER)
    focus = focus_terms(question, entities)
    marked = bool(_CURRENT.search(fold_apostrophes(question)))
    since = named_period_start(times)
    then = situation_terms(question) if asks_about_then(question, times) else frozenset()
    return StateQuestion(focus, entities, now, marked, until, since, then)


def for_settings(state: StateQuestion | None, config: RetrievalConfig) -> StateQuestion | None:
    """The state a question asks about as the settings read it: ``None`` when they switch
    supersession off, else with their similarity.
    """
    if state is None or not config.supersession:
        return None
    return replace(state, similarity=config.supersession_similarity)


def asks_about_aspect(focus: frozenset[str]) -> bool:
    """Whether a question's focus names a profile aspect (a person's home, work, pet ...:
    one value at a time, which a statement of the present replaces).
    """
    return bool(asked_aspects(focus))


def asked_aspects(focus: frozenset[str]) -> frozenset[str]:
    """The aspect terms (:func:`aspect_term`) among a question's focus terms."""
    return frozenset(term for term in focus if term.startswith(aspect_term("")))


_EVENT_SPANS = frozenset({"day", "weekend"})


def named_period_end(times: Sequence[TimeMention]) -> date | None:
    """The last day of the periods a question names, when any is longer than a weekend (a
    year, a season, a month, a week, a fuzzy span: a state held then); ``None`` when it
    names none or only days and weekends (what happened then, an event).
    """
    spans = _state_spans(times)
    return max(t.end for t in spans) if spans else None


def named_period_start(times: Sequence[TimeMention]) -> date | None:
    """The first day of the periods a question names, when any is longer than a weekend
    (see :func:`named_period_end`); ``None`` otherwise.
    """
    spans = _state_spans(times)
    return min(t.start for t in spans) if spans else None


def _state_spans(times: Sequence[TimeMention]) -> list[TimeMention]:
    """The periods longer than a weekend among ``times``."""
    return [t for t in times if t.granularity not in _EVENT_SPANS]
