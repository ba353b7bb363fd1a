"""Calling a chat model for structured output, robustly and with any ``BaseChatModel``.

The answer is read as text and the first JSON object in it is validated against a pydantic
model, so fake chat models, OpenAI-compatible servers and providers without native
structured output all work the same way; a model that takes OpenAI's ``response_format``
is also sent the model's JSON schema (:func:`response_format`), which a server decoding by
grammar answers in. The answer is untrusted: the output models clean
and bound what they take (see :mod:`langmemcore.prompts._clean`).

Every call goes through the model's guard (:mod:`langmemcore.prompts._guard`): a place
among the model's calls in flight, then a time limit per attempt counted from there, and
a circuit breaker that skips a model after consecutive failures.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langchain_openai.chat_models.base import BaseChatOpenAI
from pydantic import BaseModel, ValidationError

from langmemcore._errors import LLMOutputError, LLMSkippedError, LLMUnavailableError
from langmemcore.config import LLM_MAX_ANSWER_CHARS
from langmemcore.prompts._guard import StepUsage, current_usage, guard_for

__all__ = ["call_model", "call_structured", "extract_json", "response_format"]

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
_log = logging.getLogger("langmemcore.llm")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_JSON_STARTS = 64
"""Places in an answer where a JSON value is tried at most (each may fail fast)."""


def extract_json(text: str) -> object:
    """The first JSON object or array in ``text`` (code fences allowed).

    Raises:
        LLMOutputError: If no valid JSON is found, or the text is longer than
            ``LLM_MAX_ANSWER_CHARS``.
    """
    if len(text) > LLM_MAX_ANSWER_CHARS:
        raise LLMOutputError(f"the model's answer has {len(text):,} characters; too long")
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    decoder = json.JSONDecoder()
    starts = (i for i, char in enumerate(body) if char in "{[")
    for _, start in zip(range(_JSON_STARTS), starts, strict=False):
        try:
            value, _end = decoder.raw_decode(body, start)
        except (json.JSONDecodeError, RecursionError):
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


@cache
def response_format(output: type[BaseModel]) -> dict[str, Any]:
    """OpenAI's ``response_format`` asking for an answer in the shape of ``output`` (its
    JSON schema, not strict: the answer is validated here).
    """
    schema = {"name": output.__name__, "schema": output.model_json_schema(), "strict": False}
    return {"type": "json_schema", "json_schema": schema}


def _shaped(llm: BaseChatModel, output: type[BaseModel] | None) -> Runnable[Any, BaseMessage]:
    """``llm``, asked for answers in the shape of ``output`` when it takes OpenAI's
    ``response_format`` and its guard's settings say so.
    """
    if output is None or not isinstance(llm, BaseChatOpenAI):
        return llm
    if not guard_for(llm).config.json_schema:
        return llm
    return llm.bind(response_format=response_format(output))


async def _ask(
    llm: BaseChatModel,
    prompt: str,
    timeout: float | None,
    output: type[BaseModel] | None,
    usage: StepUsage,
) -> str:
    """One attempt: the answer's text (in the shape of ``output``, where the model can be
    asked for one); its time and tokens are added to ``usage``.

    Raises:
        LLMUnavailableError: The endpoint failed or took longer than ``timeout`` seconds.
    """
    asked = _shaped(llm, output).ainvoke([HumanMessage(content=prompt)])
    started = time.monotonic()
    try:
        message = await asyncio.wait_for(asked, timeout)
    except TimeoutError as exc:
        raise LLMUnavailableError(f"the language model did not answer in {timeout} s") from exc
    except Exception as exc:  # provider errors have no common base class
        raise LLMUnavailableError(f"the language model call failed: {exc}") from exc
    finally:
        usage.seconds += time.monotonic() - started
    usage.add_tokens(message)
    return _content_text(message.content)


async def call_model(
    llm: BaseChatModel,
    prompt: str,
    parse: Callable[[str], T],
    *,
    step: str,
    retries: int = 1,
    output: type[BaseModel] | None = None,
) -> T:
    """Ask ``llm`` and ``parse`` its text answer, through the model's guard.

    Each attempt counts for the model's circuit breaker; an attempt is not made while it
    is open. The call is counted in the running operation's :class:`LLMUsage`, under
    ``step``.

    Args:
        llm: Any LangChain chat model.
        prompt: The filled-in prompt.
        parse: Turns the answer's text into the result; raises ``LLMOutputError`` when the
            answer is unusable.
        step: The step asking (``"ingestion"``, ...), whose usage the call counts in.
        retries: Extra attempts after a failure.
        output: The answer's shape, asked of a model that takes OpenAI's
            ``response_format`` (see :func:`response_format`).

    Returns:
        The parsed answer.

    Raises:
        LLMOutputError: The answer stayed unusable after every attempt.
        LLMUnavailableError: The endpoint failed on every attempt.
        LLMSkippedError: The model's circuit breaker is open; no attempt was made.
    """
    guard, usage = guard_for(llm), current_usage().step(step)
    usage.calls += 1
    last: LLMOutputError | LLMUnavailableError | None = None
    for attempt in range(retries + 1):
        if not guard.breaker.allow():
            break
        try:
            async with guard.place():
                answer = await _ask(llm, prompt, guard.config.call_timeout, output, usage)
            result = parse(answer)
        except (LLMOutputError, LLMUnavailableError) as exc:
            guard.breaker.record_failure()
            last = exc
            _log.warning("LLM attempt %d failed: %s", attempt + 1, str(exc)[:300])
            continue
        except BaseException:
            guard.breaker.release()
            raise
        guard.breaker.record_success()
        return result
    if last is None:
        usage.skipped += 1
        raise LLMSkippedError("the language model is skipped: its circuit breaker is open")
    usage.failed += 1
    raise last


async def call_structured(
    llm: BaseChatModel, prompt: str, output: type[M], *, step: str, retries: int = 1
) -> M:
    """Ask ``llm`` for an answer in the shape of ``output`` and parse it into ``output``
    (see :func:`call_model`; ``step`` names the step asking).

    Returns:
        The validated (cleaned and bounded) output.

    Raises:
        LLMOutputError: The answer stayed malformed after every attempt.
        LLMUnavailableError: The endpoint failed on every attempt, or the model is skipped
            (``LLMSkippedError``).
    """

    def parse(text: str) -> M:
        try:
            return output.model_validate(extract_json(text))
        except ValidationError as exc:
            raise LLMOutputError(f"malformed {output.__name__} from the model: {exc}") from exc

    return await call_model(llm, prompt, parse, step=step, retries=retries, output=output)
