"""decompose: query -> topic description + keywords (+ times), embedded in one batch.

Offline by :func:`langmemcore.text.analyze_query`; with an LLM by the paper's query-intent
prompt (malformed output, an endpoint error or an open circuit breaker -> the offline
decomposition).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._errors import LLMOutputError, LLMUnavailableError
from langmemcore.prompts import call_structured
from langmemcore.prompts.query_intent import QueryIntent, render_query_intent_prompt
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.storage.database import Database
from langmemcore.storage.repository import Repository
from langmemcore.text import analyze_query, normalize_keyword

__all__ = [
    "PLAN_VECTORS",
    "KeywordLookup",
    "SpeakerLookup",
    "named_speakers",
    "plan_query",
    "stored_keywords",
    "without_names",
]

_log = logging.getLogger("langmemcore.retrieval")


PLAN_VECTORS = frozenset({"text", "topic", "keywords"})
"""The vectors of a query plan: of its text, its topic description and its keywords."""

KeywordLookup = Callable[[Sequence[str]], Awaitable[Mapping[str, Sequence[float]]]]
"""Finds stored embeddings of keyword names (those it knows)."""

SpeakerLookup = Callable[[Sequence[str]], Awaitable[Sequence[str]]]
"""Finds which of some names are speakers in memory."""


def stored_keywords(database: Database, namespace: tuple[str, ...]) -> KeywordLookup:
    """Finds the stored embeddings of keywords the namespace already has (so that a query
    embeds only its text and the keywords memory has never seen).
    """

    async def stored(names: Sequence[str]) -> dict[str, list[float]]:
        async with Repository.open(database, autocommit=True) as repo:
            return await repo.keyword_vectors(namespace, names)

    return stored


def named_speakers(database: Database, namespace: tuple[str, ...]) -> SpeakerLookup:
    """Finds which of the names a query gives are speakers of the namespace's notes."""

    async def speakers(names: Sequence[str]) -> list[str]:
        async with Repository.open(database, autocommit=True) as repo:
            return await repo.speakers_among(namespace, names)

    return speakers


def without_names(text: str, names: Sequence[str]) -> str:
    """``text`` without each of ``names`` (whole words, any case, with a possessive
    \'s), spaces collapsed; empty when no word is left.

    The speaker channel already keeps to the named people's notes, so their names in
    its query vector only pull it towards notes that mention them.
    """
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}(?:['\u2019]s)?\b", " ", text, flags=re.IGNORECASE)
    text = " ".join(text.split())
    return text if re.search(r"\w", text) else ""


async def _speaker_text(plan: QueryPlan, speakers: SpeakerLookup | None) -> str | None:
    """The text the speaker channel embeds, when it differs from the query's: the query
    without the names of the speakers it names.
    """
    if speakers is None or not plan.entities:
        return None
    named = await speakers(plan.entities)
    stripped = without_names(plan.text, named)
    return stripped if stripped and stripped != plan.text else None


async def _intent(
    text: str, llm: BaseChatModel, retries: int, offline: tuple[str, tuple[str, ...]]
) -> tuple[str, tuple[str, ...], bool]:
    """The LLM's topic description and keywords, or ``offline`` (not described) when the
    query-intent prompt fails.
    """
    try:
        intent = await call_structured(
            llm, render_query_intent_prompt(text), QueryIntent, retries=retries
        )
    except (LLMOutputError, LLMUnavailableError) as exc:
        _log.warning("query-intent prompt failed, decomposing offline: %s", exc)
        return *offline, False
    keywords = tuple(dict.fromkeys(k for k in (normalize_keyword(w) for w in intent.keywords) if k))
    return intent.topic_desc, keywords, True


async def _vectors(
    plan: QueryPlan,
    embeddings: Embeddings,
    vectors: Collection[str],
    described: bool,
    known: Mapping[str, Sequence[float]] | None,
    lookup: KeywordLookup | None,
    speaker_text: str | None = None,
) -> QueryPlan:
    """``plan`` with the vectors in ``vectors``, embedded in one batch: the query text
    (standing for an offline topic, which is only the query's content words), an LLM's
    topic description, the speaker channel's text (with the query's), then keywords
    without a known or stored vector.
    """
    keywords = plan.keywords
    found: dict[str, Sequence[float]] = {}
    stored: Mapping[str, Sequence[float]] = {}
    if "keywords" in vectors:
        found = {k: v for k, v in (known or {}).items() if k in keywords}
        missing = [k for k in keywords if k not in found]
        if missing and lookup is not None:
            stored = await lookup(missing)
            found.update(stored)
    parts = ["text"] if "text" in vectors or ("topic" in vectors and not described) else []
    parts += ["topic"] if "topic" in vectors and described else []
    parts += ["speaker"] if "text" in vectors and speaker_text else []
    fresh = [k for k in keywords if "keywords" in vectors and k not in found]
    texts = {"text": plan.text, "topic": plan.topic, "speaker": speaker_text}
    batch = [*(texts[name] or "" for name in parts), *fresh]
    embedded = await embeddings.aembed_documents(batch) if batch else []
    own = dict(zip(parts, embedded, strict=False))
    found.update(zip(fresh, embedded[len(parts) :], strict=True))
    return replace(
        plan,
        vector=tuple(own.get("text", ())),
        topic_vector=tuple(own.get("topic", own.get("text", ()))) if "topic" in vectors else (),
        keyword_vectors=tuple(tuple(found[k]) for k in keywords) if "keywords" in vectors else (),
        stored=tuple(k for k in keywords if k in stored),
        speaker_vector=tuple(own.get("speaker", ())),
    )


async def plan_query(
    text: str,
    embeddings: Embeddings,
    *,
    llm: BaseChatModel | None = None,
    round: int = 0,
    reference: datetime | None = None,
    retries: int = 1,
    vectors: Collection[str] = PLAN_VECTORS,
    known: Mapping[str, Sequence[float]] | None = None,
    lookup: KeywordLookup | None = None,
    keywords: Sequence[str] | None = None,
    subjects: Sequence[str] = (),
    speakers: SpeakerLookup | None = None,
) -> QueryPlan:
    """Decompose and embed a (sub-)query, in one embedding call at most.

    Args:
        text: The query.
        embeddings: Embedder of the query, its topic and keywords.
        llm: Optional chat model for the query-intent prompt.
        round: Refinement round the plan belongs to.
        reference: Time that relative dates in the query refer to.
        retries: LLM retries before the offline fallback.
        vectors: Which of :data:`PLAN_VECTORS` to fill (the others stay empty: a round
            whose channels do not read them skips the embedding). Offline the topic
            description is the query's content words, and the query's own vector
            stands for it; an LLM's topic description is embedded.
        known: Keyword embeddings already at hand (e.g. from an earlier round).
        lookup: Finds stored embeddings of the keywords not in ``known``; the rest are
            embedded.
        keywords: The query's keywords when the caller knows them (a sub-query built from
            keywords); then neither the text analysis nor the LLM extracts them.
        subjects: The namespace's profile subjects (for the profile channel).
        speakers: Finds which names the query gives are speakers in memory; with it, a
            query naming one also gets a vector of its text without those names for the
            speaker channel (see :func:`without_names`).
    """
    analysis = analyze_query(text, reference)
    given = tuple(keywords) if keywords else None
    topic, words, described = analysis.topic, given or analysis.keywords, False
    if llm is not None and given is None:
        topic, words, described = await _intent(text, llm, retries, (topic, words))
    plan = QueryPlan(
        text=text,
        topic=topic,
        keywords=words,
        entities=analysis.entities,
        times=analysis.times,
        vector=(),
        topic_vector=(),
        keyword_vectors=(),
        round=round,
        subjects=tuple(subjects),
    )
    speaker_text = await _speaker_text(plan, speakers) if "text" in vectors else None
    return await _vectors(plan, embeddings, vectors, described, known, lookup, speaker_text)
