"""ingest: observation -> note draft (keywords, denoised context, embedding).

Offline (the default) the draft comes from deterministic extraction
(:func:`langmemcore.text.analyze_observation`). With an LLM it comes from the paper's
semantic-ingestion prompt, whose answer is cleaned and bounded like any untrusted input;
malformed output or an endpoint error is retried once, then the offline extraction takes
over (at once while the model's circuit breaker is open) and the draft records
``origin="fallback"``. The answer keeps only what the observation supports
(:mod:`langmemcore.prompts._ground`): keywords it never says are dropped, and a context
that speaks of something else or names someone it never names gives way to the offline
draft, each counted as ``rejected``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from langmemcore._errors import LLMOutputError, LLMUnavailableError, safe_error_text
from langmemcore._validate import check_event_time, check_observation
from langmemcore.analysis import analyze
from langmemcore.config import ConstructionConfig
from langmemcore.construction.gate import NoteDraft
from langmemcore.construction.thread import thread_text
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.profiles.extract import extract_batch
from langmemcore.prompts import call_structured, grounded_context, reject, supported
from langmemcore.prompts.ingestion import STEP, SemanticIngestion, render_ingestion_prompt
from langmemcore.prompts.profile import extract_statements_llm
from langmemcore.storage.records import content_hash
from langmemcore.text import analyze_observation, normalize_keyword

__all__ = [
    "KeywordEmbedder",
    "ObservationIn",
    "checked_observation",
    "draft_statements",
    "draft_texts",
    "make_drafts",
]

_log = logging.getLogger("langmemcore.construction")


@dataclass(frozen=True)
class ObservationIn:
    """One raw input to remember.

    Attributes:
        key: Unique key within the namespace (re-ingesting the same key is a no-op).
        text: The raw text; stored whole, never rewritten.
        speaker: Who said it, if known.
        event_time: When it happened, if known (used to resolve "yesterday"); a naive
            datetime is taken as UTC, anything but a datetime is an ``InvalidInputError``.
        metadata: Free-form JSON-able metadata kept with the observation.
    """

    key: str
    text: str
    speaker: str | None = None
    event_time: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_event_time(self.event_time)
        if self.event_time is not None and self.event_time.tzinfo is None:
            object.__setattr__(self, "event_time", self.event_time.replace(tzinfo=UTC))


def checked_observation(
    text: str,
    key: str | None,
    speaker: str | None,
    event_time: datetime | None,
    metadata: dict[str, Any] | None,
    max_chars: int,
) -> ObservationIn:
    """An observation from a caller's values, validated (key default: the text's hash).

    Raises:
        InvalidInputError: Any value out of bounds (see :func:`check_observation`).
    """
    check_observation(key, text, speaker, event_time, metadata, max_chars=max_chars)
    return ObservationIn(key or content_hash(text), text, speaker, event_time, metadata or {})


@dataclass(frozen=True)
class DraftText:
    """The text half of a draft, before embedding."""

    context: str
    keywords: tuple[str, ...]
    entities: tuple[str, ...]
    origin: str


class KeywordEmbedder:
    """Embeds keyword names with a bounded in-process cache (keywords repeat a lot).

    Args:
        embeddings: The embedder.
        capacity: Names kept in the cache.
    """

    def __init__(self, embeddings: Embeddings, capacity: int = 50_000) -> None:
        self.embeddings = embeddings
        self.capacity = capacity
        self._cache: OrderedDict[str, list[float]] = OrderedDict()

    async def vectors(self, names: Sequence[str]) -> dict[str, list[float]]:
        """Vectors of ``names`` (embedding only those not cached, in one batch)."""
        missing = [n for n in dict.fromkeys(names) if n not in self._cache]
        if missing:
            for name, vector in zip(
                missing, await self.embeddings.aembed_documents(missing), strict=True
            ):
                self._cache[name] = vector
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return {n: self._cache[n] for n in names}


def _offline(observation: ObservationIn, config: ConstructionConfig, origin: str) -> DraftText:
    analysis = analyze_observation(
        observation.text,
        speaker=observation.speaker,
        event_time=observation.event_time,
        max_keywords=config.max_keywords,
    )
    context = analysis.context if config.denoise else observation.text
    return DraftText(context, analysis.keywords, analysis.entities, origin)


async def _with_llm(
    llm: BaseChatModel, observation: ObservationIn, config: ConstructionConfig
) -> DraftText:
    when = observation.event_time.strftime("%d %B %Y") if observation.event_time else None
    prompt = render_ingestion_prompt(observation.text, observation.speaker, when, config.prompt_set)
    try:
        answer = await call_structured(
            llm, prompt, SemanticIngestion, step=STEP, retries=config.llm_retries
        )
    except (LLMOutputError, LLMUnavailableError) as exc:
        _log.warning("ingestion prompt failed, using offline extraction (%s)", safe_error_text(exc))
        return _offline(observation, config, "fallback")
    given = " ".join(part for part in (observation.speaker, when) if part)
    if config.denoise and not grounded_context(answer.context, observation.text, given):
        reject(STEP)
        _log.warning("ingestion prompt answered a context the observation does not support")
        return _offline(observation, config, "fallback")
    offline = analyze_observation(
        observation.text, speaker=observation.speaker, event_time=observation.event_time
    )
    named = dict.fromkeys(k for k in (normalize_keyword(w) for w in answer.keywords) if k)
    keywords = tuple(k for k in named if supported(k, observation.text, given))
    reject(STEP, len(named) - len(keywords))
    context = answer.context if config.denoise else observation.text
    return DraftText(context, keywords[: config.max_keywords], offline.entities, "llm")


async def draft_texts(
    observations: Sequence[ObservationIn],
    config: ConstructionConfig,
    llm: BaseChatModel | None = None,
) -> list[DraftText]:
    """Extract keywords and context for each observation (LLM calls run concurrently)."""
    if llm is None:
        return [_offline(o, config, "offline") for o in observations]
    return list(await asyncio.gather(*(_with_llm(llm, o, config) for o in observations)))


async def draft_statements(
    observations: Sequence[ObservationIn],
    config: ConstructionConfig,
    llm: BaseChatModel | None = None,
) -> list[tuple[AspectStatement, ...]]:
    """What each observation states about its subjects' aspects (none when profiles are
    off): the offline extraction, first person resolved to the speaker (the whole batch
    parsed in one call, in a worker thread), or with ``config.profile_llm`` and an ``llm``
    the profile prompt (calls run concurrently).
    """
    if not config.profiles:
        return [() for _o in observations]
    if llm is None or not config.profile_llm:
        pairs = [(o.text, o.speaker) for o in observations]
        return [tuple(found) for found in await asyncio.to_thread(extract_batch, pairs)]
    found = await asyncio.gather(
        *(
            extract_statements_llm(llm, o.text, o.speaker, retries=config.llm_retries)
            for o in observations
        )
    )
    return [tuple(statements) for statements in found]


async def _no_vectors() -> list[list[float]]:
    return []


async def _embed_threads(
    embeddings: Embeddings, pairs: Sequence[tuple[str, str]]
) -> list[list[float]]:
    """Embeddings of the thread texts of ``(lead, context)`` pairs, in one batch."""
    if not pairs:
        return []
    return await embeddings.aembed_documents([thread_text(lead, c) for lead, c in pairs])


async def make_drafts(
    observations: Sequence[ObservationIn],
    embeddings: Embeddings,
    config: ConstructionConfig,
    llm: BaseChatModel | None = None,
    leads: Sequence[str | None] = (),
) -> list[NoteDraft]:
    """Turn observations into note drafts, embedding all contexts in one batch and the
    thread texts of those with a lead in another (while the profile statements are
    drafted beside them). The contexts are embedded on their own, so that a context's
    vector does not depend on which thread texts share its batch.

    Args:
        observations: The observations, in the order they are stored.
        embeddings: The embedder.
        config: Construction settings.
        llm: Chat model for the semantic drafting, if any.
        leads: Each observation's lead (:func:`~langmemcore.construction.thread.lead_of`);
            none when empty.
    """
    texts = await draft_texts(observations, config, llm)
    contexts = [t.context for t in texts]
    lead_of = list(leads) or [None] * len(observations)
    threaded = [i for i, lead in enumerate(lead_of) if lead is not None]
    statements, vectors, threads = await asyncio.gather(
        draft_statements(observations, config, llm),
        embeddings.aembed_documents(contexts) if contexts else _no_vectors(),
        _embed_threads(embeddings, [(lead_of[i] or "", contexts[i]) for i in threaded]),
    )
    thread_vectors: list[Sequence[float]] = [()] * len(observations)
    for i, vector in zip(threaded, threads, strict=True):
        thread_vectors[i] = vector
    return [
        NoteDraft(
            context=t.context,
            keywords=t.keywords,
            entities=t.entities,
            embedding=tuple(v),
            event_time=o.event_time,
            speaker=o.speaker,
            origin=t.origin,
            statements=said,
            lead=lead,
            thread_embedding=tuple(thread),
            analysis=analyze(o.text, t.context),
        )
        for o, t, v, said, lead, thread in zip(
            observations,
            texts,
            vectors,
            statements,
            lead_of,
            thread_vectors,
            strict=True,
        )
    ]
