"""The paper's LLM prompts, one module per prompt, each with a pydantic output model.

Every call goes through :func:`langmemcore.prompts._call.call_model`: the model's text
answer is parsed (as JSON into the output model, which cleans and bounds it); malformed
output or an endpoint error is retried once and then raised as ``LLMOutputError`` /
``LLMUnavailableError`` so the caller can fall back to the offline path. A model whose
circuit breaker is open is not called (``LLMSkippedError``, an ``LLMUnavailableError``).
What an answer takes from its input must be said there (:mod:`langmemcore.prompts._ground`).
"""

from __future__ import annotations

from langmemcore.prompts._call import call_model, call_structured, extract_json
from langmemcore.prompts._ground import grounded_context, reject, supported
from langmemcore.prompts._guard import (
    CircuitBreaker,
    LLMUsage,
    StepUsage,
    configure_model,
    current_usage,
    guard_for,
    track_usage,
)

__all__ = [
    "CircuitBreaker",
    "LLMUsage",
    "StepUsage",
    "call_model",
    "call_structured",
    "configure_model",
    "current_usage",
    "extract_json",
    "grounded_context",
    "guard_for",
    "reject",
    "supported",
    "track_usage",
]
