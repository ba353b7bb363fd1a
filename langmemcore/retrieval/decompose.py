"""decompose: query -> topic description + keywords (+ times), embedded in one batch.

Offline by :func:`langmemcore.text.analyze_query`; with an LLM by the paper's query-intent
prompt (malformed output, an endpoint error or an open circuit breaker -> the offline
decomposition). The question is read here once: what state it asks about
(:func:`~langmemcore.retrieval.state_question.state_question`) and what it asks of a
profile (:func:`~langmemcore.profiles.question.parse_profile_question`), from the dates
and names found in it; later steps read the plan.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._errors import LLMOutputError, LLMUnavailableError
from langmemcore.profiles.question import parse_profile_question
from langmemcore.prompts import call_structured
from langmemcore.prompts.query_intent import STEP, QueryIntent, render_query_intent_prompt
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.retrieval.state_question import state_question
from langmemcore.storage.database import Database
from langmemcore.storage.repository import Repository
from langmemcore.text import analyze_query, normalize_keyword
from langmemcore.text.phrases import PhraseSet
from langmemcore.text.tokens import fold_apostrophes, tokenize

__all__ = [
    "PLAN_VECTORS",
    "CueLookup",
    "Cues",
    "draft_query",
    "embed_plan",
    "plan_query",
    "speaker_query_text",
    "stored_cues",
]

_log = logging.getLogger("langmemcore.retrieval")


PLAN_VECTORS = frozenset({"text", "topic", "keywords"})
"""The vectors of a query plan: of its text, its topic description and its keywords."""


class Cues(NamedTuple):
    """What memory already holds of a query's cues.

    Attributes:
        vectors: Stored embedding of each keyword name memory has.
        speakers: The names (as asked) that speakers of memory's notes bear.
    """

    vectors: Mapping[str, Sequence[float]]
    speakers: Sequence[str]


CueLookup = Callable[[Sequence[str], Sequence[str]], Awaitable[Cues]]
"""Finds, in one statement, the stored embeddings of keyword names and which of some
names are speakers in memory."""


def stored_cues(database: Database, namespace: tuple[str, ...]) -> CueLookup:
    """Finds the stored embeddings of keywords the namespace already has (so that a query
    embeds only its text and the keywords memory has never seen) and which of the names
    a query gives are speakers of its notes.
    """

    async def stored(keywords: Sequence[str], names: Sequence[str]) -> Cues:
        async with Repository.open(database, autocommit=True) as repo:
            return Cues(*await repo.query_cues(namespace, keywords, names))

    return stored


def speaker_query_text(text: str, names: Sequence[str]) -> str:
    """``text`` with each of ``names`` (whole words, any case) replaced by "someone" (a
    possessive by "someone's"), spaces collapsed; empty when no other word is left.

    The speaker channel already keeps to the named people's notes, so their names in
    its query vector only pull it towards notes that mention them; a neutral word in
    their place keeps the question well formed for the sentence encoder.
    """
    for name in names:
        text = PhraseSet.of_words([name, f"{name}'s"]).remove(text, _someone)
    text = " ".join(text.split())
    return text if set(tokenize(text)) - {"someone", "someone's"} else ""


def _someone(name: str) -> str:
    """What stands for a name: "someone", or "someone's" for a possessive."""
    return "someone's" if fold_apostrophes(name).endswith("'s") else "someone"


async def _intent(
    text: str, llm: BaseChatModel, retries: int, offline: tuple[str, tuple[str, ...]]
) -> tuple[str, tuple[str, ...], bool]:
    """The LLM's topic description and keywords, or ``offline`` (not described) when the
    query-intent prompt fails.
    """
    try:
        intent = await call_structured(
            llm, render_query_intent_prompt(text), QueryIntent, step=STEP, retries=retries
        )
    except (LLMOutputError, LLMUnavailableError) as exc:
        _log.warning("query-intent prompt failed, decomposing offline: %s", exc)
        return *offline, False
    keywords = tuple(dict.fromkeys(k for k in (normalize_keyword(w) for w in intent.keywords) if k))
    return intent.topic_desc, keywords, True


async def embed_plan(
    plan: QueryPlan,
    embeddings: Embeddings,
    *,
    vectors: Collection[str] = PLAN_VECTORS,
    known: Mapping[str, Sequence[float]] | None = None,
    lookup: CueLookup | None = None,
    speakers: bool = False,
) -> QueryPlan:
    """``plan`` (a :func:`draft_query`) with the vectors in ``vectors``, embedded in one
    batch: the query text (standing for an offline topic, which is only the query's
    content words), an LLM's topic description, the speaker channel's text (when
    ``speakers`` and the query names speakers memory has), then keywords without a known
    or stored vector; with the names found to be speakers (``speakers``, when ``lookup``
    was asked).

    Args:
        plan: The drafted plan.
        embeddings: Embedder of the query, its topic and keywords.
        vectors: Which of :data:`PLAN_VECTORS` to fill (the others stay empty: a round
            whose channels do not read them skips the embedding). Offline the topic
            description is the query's content words, and the query's own vector
            stands for it; an LLM's topic description is embedded.
        known: Keyword embeddings already at hand (e.g. from an earlier round).
        lookup: Finds stored embeddings of the keywords not in ``known`` (the rest are
            embedded) and, with ``speakers``, which names the query gives are speakers.
        speakers: Whether a query naming speakers memory has (asked of ``lookup``) also
            gets a vector of its text with their names made neutral, for the speaker
            channel (see :func:`speaker_query_text`).
    """
    described = plan.described
    keywords = plan.keywords if "keywords" in vectors else ()
    found = {k: v for k, v in (known or {}).items() if k in keywords}
    missing = [k for k in keywords if k not in found]
    names = plan.entities if speakers and "text" in vectors else ()
    cues = Cues({}, ())
    if lookup is not None and (missing or names):
        cues = await lookup(missing, names)
        found.update(cues.vectors)
    speaker_text = speaker_query_text(plan.text, cues.speakers) if cues.speakers else ""
    parts = ["text"] if "text" in vectors or ("topic" in vectors and not described) else []
    parts += ["topic"] if "topic" in vectors and described else []
    parts += ["speaker"] if speaker_text and speaker_text != plan.text else []
    fresh = [k for k in keywords if k not in found]
    texts = {"text": plan.text, "topic": plan.topic, "speaker": speaker_text}
    batch = [*(texts[p] for p in parts), *fresh]
    embedded = await embeddings.aembed_documents(batch) if batch else []
    own = dict(zip(parts, embedded, strict=False))
    found.update(zip(fresh, embedded[len(parts) :], strict=True))
    return replace(
        plan,
        vector=tuple(own.get("text", ())),
        topic_vector=tuple(own.get("topic", own.get("text", ()))) if "topic" in vectors else (),
        keyword_vectors=tuple(tuple(found[k]) for k in keywords),
        stored=tuple(k for k in keywords if k in cues.vectors),
        speaker_vector=tuple(own.get("speaker", ())),
        speakers=tuple(cues.speakers) if names and lookup is not None else None,
    )


async def draft_query(
    text: str,
    *,
    llm: BaseChatModel | None = None,
    round: int = 0,
    reference: datetime | None = None,
    retries: int = 1,
    keywords: Sequence[str] | None = None,
    subjects: Sequence[str] = (),
) -> QueryPlan:
    """Decompose a (sub-)query, not yet embedded: its text analysis (or the LLM's topic
    description and keywords), the times and names it gives, the state and the profile
    it asks about. The channels that read only text run on it (see
    :data:`~langmemcore.retrieval.channels.TEXT_CHANNELS`); :func:`embed_plan` adds the
    vectors.

    Args:
        text: The query.
        llm: Optional chat model for the query-intent prompt.
        round: Refinement round the plan belongs to.
        reference: Time that relative dates in the query refer to.
        retries: LLM retries before the offline fallback.
        keywords: The query's keywords when the caller knows them (a sub-query built from
            keywords); then neither the text analysis nor the LLM extracts them.
        subjects: The namespace's profile subjects (for the profile channel).
    """
    analysis = analyze_query(text, reference)
    given = tuple(keywords) if keywords else None
    topic, words, described = analysis.topic, given or analysis.keywords, False
    if llm is not None and given is None:
        topic, words, described = await _intent(text, llm, retries, (topic, words))
    return QueryPlan(
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
        state=state_question(text, analysis.times, analysis.entities),
        profile=parse_profile_question(text, subjects, reference=reference, times=analysis.times)
        if subjects
        else None,
        described=described,
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
    lookup: CueLookup | None = None,
    keywords: Sequence[str] | None = None,
    subjects: Sequence[str] = (),
    speakers: bool = False,
) -> QueryPlan:
    """Decompose and embed a (sub-)query, in one embedding call at most:
    :func:`draft_query`, then :func:`embed_plan` (their arguments).
    """
    draft = await draft_query(
        text,
        llm=llm,
        round=round,
        reference=reference,
        retries=retries,
        keywords=keywords,
        subjects=subjects,
    )
    return await embed_plan(
        draft, embeddings, vectors=vectors, known=known, lookup=lookup, speakers=speakers
    )
