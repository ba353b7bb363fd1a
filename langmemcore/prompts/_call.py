"""Calling a chat model for structured output, robustly and with any ``BaseChatModel``.

The answer is read as text and the first JSON object in it is validated against a pydantic
model, so fake chat models, OpenAI-compatible servers and providers without native
structured output all work the same way.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, ValidationError

from langmemcore._errors import LLMOutputError, LLMUnavailableError

__all__ = ["call_structured", "extract_json"]

M = TypeVar("M", bound=BaseModel)
_log = logging.getLogger("langmemcore.llm")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> object:
    """The first JSON object or array in ``text`` (code fences allowed).

    Raises:
        LLMOutputError: If no valid JSON is found.
    """
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    decoder = json.JSONDecoder()
    for start, char in enumerate(body):
        if char in "{[":
            try:
                value, _end = decoder.raw_decode(body[start:])
            except json.JSONDecodeError:
                continue
            return value
    raise LLMOutputError(f"no JSON object in the model's answer: {text[:200]!r}")


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    return str(content)


async def call_structured(
    llm: BaseChatModel, prompt: str, output: type[M], *, retries: int = 1
) -> M:
    """Ask ``llm`` and parse its answer into ``output``.

    Args:
        llm: Any LangChain chat model.
        prompt: The filled-in prompt.
        output: The pydantic model of the expected JSON.
        retries: Extra attempts after a failure.

    Returns:
        The validated output.

    Raises:
        LLMOutputError: The answer stayed malformed after every attempt.
        LLMUnavailableError: The endpoint failed on every attempt.
    """
    last: Exception | None = None
    for attempt in range(retries + 1):
        try:
            message = await llm.ainvoke([HumanMessage(content=prompt)])
        except Exception as exc:  # provider errors have no common base class
            last = LLMUnavailableError(f"the language model call failed: {exc}")
            _log.warning("LLM call failed (attempt %d): %s", attempt + 1, exc)
            continue
        text = _content_text(message.content)
        try:
            return output.model_validate(extract_json(text))
        except (LLMOutputError, ValidationError) as exc:
            last = LLMOutputError(f"malformed {output.__name__} from the model: {exc}")
            _log.warning("malformed LLM output (attempt %d): %s", attempt + 1, text[:200])
    assert last is not None
    raise last
