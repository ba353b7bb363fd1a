"""Guarding the calls to a language model: a circuit breaker and a bounded number of calls
in flight per model object, and the count of calls an operation made, saw fail, skipped
and rejected parts of.

A model endpoint that accepts connections and never answers costs the full timeout on
every attempt; the breaker stops calling it after a few consecutive failures, so the
offline path answers at once until the cooldown has passed and one call tries again.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager, nullcontext, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field

from langmemcore.config import LLMConfig

__all__ = [
    "CircuitBreaker",
    "LLMUsage",
    "ModelGuard",
    "StepUsage",
    "configure_model",
    "current_usage",
    "guard_for",
    "track_usage",
]

Clock = Callable[[], float]


class CircuitBreaker:
    """Closed -> open after ``failure_threshold`` consecutive failures -> half-open once
    ``cooldown`` seconds have passed (one call goes through) -> closed on its success, open
    again on its failure.

    Args:
        failure_threshold: Consecutive failures that open the breaker (0: never opens).
        cooldown: Seconds the breaker stays open.
        clock: Monotonic time in seconds (injectable for tests).
    """

    def __init__(self, failure_threshold: int, cooldown: float, clock: Clock = time.monotonic):
        self.failure_threshold = failure_threshold
        self.cooldown = cooldown
        self.clock = clock
        self.failures = 0
        self._opened_at: float | None = None
        self._probing = False
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        """``"closed"``, ``"open"`` or ``"half_open"`` (cooldown over, or a probe running)."""
        with self._lock:
            if self._opened_at is None:
                return "closed"
            if self._probing or self.clock() - self._opened_at >= self.cooldown:
                return "half_open"
            return "open"

    def allow(self) -> bool:
        """Whether a call may go to the model now (in half-open state: the first caller
        only, until its call ends).
        """
        with self._lock:
            if self._opened_at is None or self.failure_threshold <= 0:
                return True
            if self._probing or self.clock() - self._opened_at < self.cooldown:
                return False
            self._probing = True
            return True

    def record_success(self) -> None:
        """The model answered usably: close the breaker."""
        with self._lock:
            self.failures, self._opened_at, self._probing = 0, None, False

    def record_failure(self) -> None:
        """An attempt failed: open the breaker at the threshold, or when a probe failed."""
        with self._lock:
            self.failures += 1
            tripped = 0 < self.failure_threshold <= self.failures
            if self._probing or tripped:
                self._opened_at = self.clock()
            self._probing = False

    def release(self) -> None:
        """A call ended without an outcome (cancelled): let the next caller probe."""
        with self._lock:
            self._probing = False


@dataclass
class ModelGuard:
    """The call settings, circuit breaker and places for calls in flight of one model
    object.
    """

    config: LLMConfig
    breaker: CircuitBreaker
    _places: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = field(
        default_factory=weakref.WeakKeyDictionary, repr=False
    )

    def place(self) -> AbstractAsyncContextManager[object]:
        """A place for one call in flight on the running event loop (see
        :attr:`~langmemcore.config.LLMConfig.concurrency`): waits while every place is
        taken.
        """
        if self.config.concurrency <= 0:
            return nullcontext()
        loop = asyncio.get_running_loop()
        places = self._places.get(loop)
        if places is None:
            places = self._places[loop] = asyncio.Semaphore(self.config.concurrency)
        return places

    def reset_places(self) -> None:
        """Forget the places, so that the next calls get ``config.concurrency`` of them."""
        self._places.clear()


_guards: dict[int, ModelGuard] = {}
_guards_lock = threading.Lock()


def _new_guard(config: LLMConfig) -> ModelGuard:
    return ModelGuard(config, CircuitBreaker(config.failure_threshold, config.cooldown_seconds))


def guard_for(llm: object) -> ModelGuard:
    """The guard of ``llm``, created with default settings on first use.

    Guards are kept per model object (models need not be hashable) and dropped when the
    model is garbage-collected.
    """
    key = id(llm)
    with _guards_lock:
        guard = _guards.get(key)
        if guard is None:
            guard = _guards[key] = _new_guard(LLMConfig())
            with suppress(TypeError):  # a model without weak references: kept for good
                weakref.finalize(llm, _guards.pop, key, None)
        return guard


def configure_model(llm: object, config: LLMConfig) -> ModelGuard:
    """Apply ``config`` to ``llm``'s guard (its breaker's state is kept)."""
    guard = guard_for(llm)
    guard.config = config
    guard.reset_places()
    guard.breaker.failure_threshold = config.failure_threshold
    guard.breaker.cooldown = config.cooldown_seconds
    return guard


@dataclass
class StepUsage:
    """Model calls of one step (a prompt: ``"ingestion"``, ``"gate"``, ``"profile"``,
    ``"intent"``, ``"sufficiency"``, ``"subquery"``; the active agent's steps:
    ``"active"``) within one operation.

    Attributes:
        calls: Prompts the step asked for.
        failed: Prompts that were tried and ended unusable (error, timeout or an answer
            that failed validation); the offline path answered instead.
        skipped: Prompts not sent because the model's circuit breaker was open; the
            offline path answered instead.
        rejected: Parts of answers their input does not support (a name, a keyword or a
            profile value it never says; a restatement of an observation that speaks of
            something else), dropped (see :mod:`langmemcore.prompts._ground`); for a
            rejected restatement the offline path answered instead.
        seconds: Time spent waiting for the model's answers (every attempt, from the
            moment the call had its place among the calls in flight).
        input_tokens: Prompt tokens the model reported.
        output_tokens: Answer tokens the model reported.
    """

    calls: int = 0
    failed: int = 0
    skipped: int = 0
    rejected: int = 0
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0

    def add_tokens(self, answer: object) -> None:
        """Add the tokens a model's answer reports (its ``usage_metadata``, if any)."""
        tokens = getattr(answer, "usage_metadata", None) or {}
        self.input_tokens += tokens.get("input_tokens", 0)
        self.output_tokens += tokens.get("output_tokens", 0)


@dataclass
class LLMUsage:
    """Model calls one operation (an ingest, a search) asked for, per step; the totals
    over the steps are read as attributes of the same names (see :class:`StepUsage`).
    """

    steps: dict[str, StepUsage] = field(default_factory=dict)
    """Each step's usage, by the step's name."""

    def step(self, name: str) -> StepUsage:
        """The usage of step ``name`` (created empty on first use)."""
        return self.steps.setdefault(name, StepUsage())

    def _total(self, attribute: str) -> int:
        return sum(getattr(step, attribute) for step in self.steps.values())

    @property
    def calls(self) -> int:
        """Prompts asked for, all steps together."""
        return self._total("calls")

    @property
    def failed(self) -> int:
        """Prompts that ended unusable, all steps together."""
        return self._total("failed")

    @property
    def skipped(self) -> int:
        """Prompts not sent (breaker open), all steps together."""
        return self._total("skipped")

    @property
    def rejected(self) -> int:
        """Answer parts rejected, all steps together."""
        return self._total("rejected")

    @property
    def seconds(self) -> float:
        """Time spent waiting for answers, all steps together."""
        return sum(step.seconds for step in self.steps.values())


_usage: ContextVar[LLMUsage | None] = ContextVar("langmemcore_llm_usage", default=None)


def current_usage() -> LLMUsage:
    """The counter of the operation running in this context (a throwaway one outside)."""
    return _usage.get() or LLMUsage()


@contextmanager
def track_usage() -> Iterator[LLMUsage]:
    """Count the model calls made inside the block (tasks started in it included)."""
    usage = LLMUsage()
    token = _usage.set(usage)
    try:
        yield usage
    finally:
        _usage.reset(token)
