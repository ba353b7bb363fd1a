"""The paper's LLM prompts, one module per prompt, each with a pydantic output model.

Every call goes through :func:`langmemcore.prompts._call.call_structured`: the model's
text answer is parsed as JSON into the output model; malformed output or an endpoint error
is retried once and then raised as ``LLMOutputError`` / ``LLMUnavailableError`` so the
caller can fall back to the offline path.
"""

from __future__ import annotations

from langmemcore.prompts._call import call_structured, extract_json

__all__ = ["call_structured", "extract_json"]
