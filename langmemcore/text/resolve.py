"""Offline note drafts and query decomposition built on the text analysers.

:func:`analyze_observation` is the deterministic replacement of the paper's
semantic-ingestion prompt (keywords + a self-contained factual context);
:func:`analyze_query` replaces its query-intent prompt (topic description + keywords).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from langmemcore.text._calendar import format_day
from langmemcore.text._first_person import resolve_first_person
from langmemcore.text.dates import (
    TimeMention,
    TimeSpan,
    format_time_mention,
    scan_time_mentions,
)
from langmemcore.text.keywords import extract_keywords_and_entities, topic_words
from langmemcore.text.tokens import normalize_keyword

__all__ = [
    "NoteDraftText",
    "QueryAnalysis",
    "analyze_observation",
    "analyze_query",
    "resolve_first_person",
]

_MAX_TOPIC_WORDS = 8


@dataclass(frozen=True)
class NoteDraftText:
    """The text side of a note draft produced offline from one observation."""

    context: str
    """``"<Speaker>: <text with I/me/my resolved>"`` with relative times annotated
    (``"yesterday [7 May 2023]"``) and a trailing ``" (on 8 May 2023)"`` when the
    observation time is known."""
    keywords: tuple[str, ...]
    """Normalised keywords, most salient first (see ``extract_keywords``)."""
    entities: tuple[str, ...]
    """Names in surface form: the speaker first, then people / places mentioned
    (addressee-only vocatives excluded)."""
    times: tuple[TimeMention, ...]
    """Time expressions of the text, resolved against the observation time."""


@dataclass(frozen=True)
class QueryAnalysis:
    """The offline query-intent decomposition of a question."""

    topic: str
    """The query's content words as a short noun phrase (at most 8 words), e.g.
    ``"Caroline LGBTQ support group"``."""
    keywords: tuple[str, ...]
    """Normalised keywords of the query (names included), then its content verbs
    ("research", "paint") not already covered."""
    entities: tuple[str, ...]
    """Names mentioned in the query, surface form."""
    times: tuple[TimeMention, ...]
    """Time expressions of the query, resolved when a reference time is given."""


def _annotate(text: str, spans: list[TimeSpan]) -> str:
    """Insert the absolute date in brackets after every relative time mention."""
    pieces: list[str] = []
    last = 0
    for span in spans:
        if not span.relative:
            continue
        pieces.append(text[last : span.finish])
        pieces.append(f" [{format_time_mention(span.mention)}]")
        last = span.finish
    pieces.append(text[last:])
    return "".join(pieces)


def analyze_observation(
    text: str, *, speaker: str | None, event_time: datetime | None, max_keywords: int = 8
) -> NoteDraftText:
    """Build the text side of a note draft from one observation, without an LLM.

    Args:
        text: The observation text (e.g. one conversation turn).
        speaker: Who said it; resolves first-person pronouns and prefixes the context.
        event_time: When it was said; resolves relative times and is appended to the
            context as ``" (on 8 May 2023)"``.
        max_keywords: Cap on the number of keywords.

    Returns:
        The context, keywords, entities and resolved times.
    """
    body = text.strip()
    keywords, entities = extract_keywords_and_entities(
        body, speaker=speaker, max_keywords=max_keywords, include_vocatives=False
    )
    spans = scan_time_mentions(body, event_time)
    context = resolve_first_person(_annotate(body, spans), speaker)
    if speaker:
        context = f"{speaker.strip()}: {context}"
        if speaker.strip().lower() not in {entity.lower() for entity in entities}:
            entities.insert(0, speaker.strip())
    if event_time is not None:
        context = f"{context} (on {format_day(event_time.date())})"
    return NoteDraftText(
        context=context,
        keywords=tuple(keywords),
        entities=tuple(entities),
        times=tuple(span.mention for span in spans),
    )


def analyze_query(query: str, reference: datetime | None = None) -> QueryAnalysis:
    """Decompose a query offline into topic, keywords, entities and times.

    Args:
        query: The question, e.g. "When did Caroline go to the LGBTQ support group?".
        reference: The time the question refers to (resolves "last week" etc.).

    Returns:
        The decomposition; ``topic`` falls back to the stripped query when it has no
        content words.
    """
    keywords, entities = extract_keywords_and_entities(query)
    spans = scan_time_mentions(query, reference)
    time_words = {word.lower() for span in spans for word in span.mention.text.split()}
    words = [word for word in topic_words(query) if word[0].lower() not in time_words]
    topic = " ".join(surface for surface, _, _ in words[:_MAX_TOPIC_WORDS])
    covered = {word for keyword in keywords for word in keyword.split()}
    for _, lemma, tag in words:
        key = normalize_keyword(lemma) if tag == "V" else ""
        if key and key not in covered and len(keywords) < 8:
            keywords.append(key)
            covered.add(key)
    return QueryAnalysis(
        topic=topic or query.strip().rstrip("?").strip(),
        keywords=tuple(keywords),
        entities=tuple(entities),
        times=tuple(span.mention for span in spans),
    )
