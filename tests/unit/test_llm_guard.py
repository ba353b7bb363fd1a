"""The circuit breaker's state machine (injectable clock, no sleeps), the cleaning of model
output, and call_model's use of the breaker with a scripted fake model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from langmemcore import LLMOutputError, LLMSkippedError, LLMUnavailableError
from langmemcore.cli._llm import llm_config, server_slots
from langmemcore.config import (
    LLM_MAX_ANSWER_CHARS,
    LLM_MAX_CONTEXT_CHARS,
    LLM_MAX_KEYWORD_CHARS,
    LLM_MAX_KEYWORDS,
    LLM_MAX_LABEL_CHARS,
    LLMConfig,
)
from langmemcore.prompts import (
    CircuitBreaker,
    call_structured,
    configure_model,
    extract_json,
    guard_for,
    track_usage,
)
from langmemcore.prompts.gating import GateJudgement
from langmemcore.prompts.ingestion import SemanticIngestion
from langmemcore.prompts.query_intent import QueryIntent
from langmemcore.prompts.sufficiency import parse_subquery
from tests.stub_openai import openai_stub


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_breaker_opens_after_threshold_consecutive_failures() -> None:
    clock = Clock()
    breaker = CircuitBreaker(3, 10.0, clock)
    for _ in range(2):
        assert breaker.allow()
        breaker.record_failure()
    assert breaker.state == "closed"
    breaker.record_success()  # a success resets the count
    for _ in range(2):
        breaker.record_failure()
    assert breaker.state == "closed" and breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    assert not breaker.allow()
    clock.now += 9.99
    assert not breaker.allow()


def test_breaker_half_open_lets_one_probe_through_then_closes_on_success() -> None:
    clock = Clock()
    breaker = CircuitBreaker(1, 10.0, clock)
    breaker.record_failure()
    clock.now += 10.0
    assert breaker.state == "half_open"
    assert breaker.allow()  # the probe
    assert not breaker.allow()  # everyone else waits for it
    breaker.record_success()
    assert breaker.state == "closed"
    assert breaker.allow() and breaker.allow()


def test_breaker_failed_probe_reopens_for_a_full_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker(2, 10.0, clock)
    breaker.record_failure()
    breaker.record_failure()
    clock.now += 15.0
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    clock.now += 9.0
    assert not breaker.allow()
    clock.now += 1.0
    assert breaker.allow()


def test_cancelled_probe_lets_the_next_caller_probe() -> None:
    clock = Clock()
    breaker = CircuitBreaker(1, 5.0, clock)
    breaker.record_failure()
    clock.now += 5.0
    assert breaker.allow()
    assert not breaker.allow()
    breaker.release()
    assert breaker.allow()


def test_threshold_zero_never_opens() -> None:
    breaker = CircuitBreaker(0, 10.0, Clock())
    for _ in range(50):
        breaker.record_failure()
    assert breaker.state == "closed"
    assert breaker.allow()


def test_llm_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        LLMConfig(call_timeout=0)
    with pytest.raises(ValueError):
        LLMConfig(failure_threshold=-1)
    with pytest.raises(ValueError):
        LLMConfig(concurrency=-1)


def test_ingestion_output_is_cleaned_and_bounded() -> None:
    answer = SemanticIngestion.model_validate(
        {
            "keywords": ["te\x00a", "x" * 4096, "tea", "  ", "\ud800cake", *"abcdefghijklmn"],
            "context": "  Caroline\x00 likes tea\udfff.  ",
        }
    )
    assert answer.context == "Caroline likes tea."
    assert answer.keywords[:2] == ["tea", "cake"]
    assert len(answer.keywords) == LLM_MAX_KEYWORDS
    assert all(len(k) <= LLM_MAX_KEYWORD_CHARS and "\x00" not in k for k in answer.keywords)
    answer.context.encode("utf-8")  # storable: no lone surrogate left


@pytest.mark.parametrize(
    "payload",
    [
        {"keywords": ["tea"], "context": "word " * 200_000},
        {"keywords": ["tea"], "context": "x" * (LLM_MAX_CONTEXT_CHARS + 1)},
        {"keywords": 42, "context": "fine"},
        {"keywords": "tea, cake", "context": "fine"},
        {"keywords": [1, 2], "context": "fine"},
        {"keywords": ["tea"], "context": None},
        {"keywords": ["tea"], "context": "\x00 \x00"},
        {"keywords": [{"a": [1, {"b": None}]}], "context": {"x": [1, 2]}},
        {"keywords": ["tea"], "context": 3.5},
    ],
)
def test_hostile_ingestion_output_is_rejected(payload: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        SemanticIngestion.model_validate(payload)


def test_gate_output_is_cleaned_and_bounded() -> None:
    good = {
        "candidate_id": 3,
        "relation_type": "SUPPORTS",
        "connection_strength": 0.8,
        "operation": "MERGE",
        "merged_context": "A\x00 and B.",
        "reason": "r\x00" * 5000,
    }
    judgement = GateJudgement.model_validate({"judgements": [good]}).judgements[0]
    assert judgement.merged_context == "A and B."
    assert len(judgement.reason) <= LLM_MAX_LABEL_CHARS and "\x00" not in judgement.reason
    for bad in (
        {"connection_strength": float("nan")},
        {"connection_strength": "high"},
        {"candidate_id": "abc"},
        {"operation": "DESTROY"},
        {"merged_context": "y" * (LLM_MAX_CONTEXT_CHARS + 1)},
        {"reason": ["nested", {"garbage": True}]},
    ):
        with pytest.raises(ValueError):
            GateJudgement.model_validate({"judgements": [{**good, **bad}]})
    with pytest.raises(ValueError):
        GateJudgement.model_validate({"judgements": "nope"})


def test_query_outputs_are_cleaned_and_bounded() -> None:
    intent = QueryIntent.model_validate({"topic_desc": "Pet\x00s", "keywords": None})
    assert (intent.topic_desc, intent.keywords) == ("Pets", [])
    with pytest.raises(ValueError):
        QueryIntent.model_validate({"topic_desc": "t" * (LLM_MAX_LABEL_CHARS + 1)})
    subquery = parse_subquery("Where\x00 is \ud800Max?" + "?" * 10_000)
    assert subquery is not None and subquery.startswith("Where is Max?")
    assert len(subquery) <= LLM_MAX_LABEL_CHARS


def test_extract_json_survives_deep_nesting_and_huge_answers() -> None:
    with pytest.raises(LLMOutputError):
        extract_json("[" * 100_000)
    with pytest.raises(LLMOutputError):
        extract_json(json.dumps({"context": "x" * LLM_MAX_ANSWER_CHARS}))
    assert extract_json("[" * 10 + ' then {"ok": 1}') == {"ok": 1}


async def test_call_structured_skips_an_open_model_and_counts_it() -> None:
    llm = FakeListChatModel(responses=["garbage"] * 10)
    configure_model(llm, LLMConfig(failure_threshold=3, cooldown_seconds=3600))
    with track_usage() as usage:
        for _ in range(2):  # 2 attempts each: the 3rd failure opens the breaker
            with pytest.raises(LLMOutputError):
                await call_structured(llm, "p", SemanticIngestion, step="ingestion", retries=1)
        with pytest.raises(LLMSkippedError):
            await call_structured(llm, "p", SemanticIngestion, step="ingestion", retries=1)
    assert (usage.calls, usage.failed, usage.skipped) == (3, 2, 1)
    assert list(usage.steps) == ["ingestion"] and usage.step("ingestion").calls == 3
    assert llm.i == 3  # the model saw three attempts, then nothing
    assert guard_for(llm).breaker.state == "open"
    assert issubclass(LLMSkippedError, LLMUnavailableError)


async def test_call_timeout_counts_as_a_failure() -> None:
    llm = FakeListChatModel(responses=["{}"], sleep=30)
    configure_model(llm, LLMConfig(call_timeout=0.05, failure_threshold=1))
    with track_usage() as usage, pytest.raises(LLMUnavailableError, match="did not answer"):
        await call_structured(llm, "p", SemanticIngestion, step="ingestion", retries=0)
    assert (usage.failed, guard_for(llm).breaker.state) == (1, "open")


class Counting(FakeListChatModel):
    """A fake model that records how many of its calls were in flight at once."""

    in_flight: int = 0
    most: int = 0

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        message = AIMessage(content=json.dumps({"keywords": [], "context": "c"}))
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.mark.parametrize(("concurrency", "most"), [(2, 2), (0, 6)])
async def test_calls_in_flight_are_bounded_per_model(concurrency: int, most: int) -> None:
    """Calls beyond the model's places wait for one (their time limit not yet running)."""
    llm = Counting(responses=["unused"])
    configure_model(llm, LLMConfig(concurrency=concurrency))
    calls = [
        call_structured(llm, "p", SemanticIngestion, step="ingestion", retries=0) for _ in range(6)
    ]
    answers = await asyncio.gather(*calls)
    assert [a.context for a in answers] == ["c"] * 6
    assert (llm.most, llm.in_flight) == (most, 0)


async def test_a_call_counts_its_time_and_the_tokens_the_model_reports() -> None:
    answer = AIMessage(
        content='{"context": "c", "keywords": ["k"]}',
        usage_metadata={"input_tokens": 120, "output_tokens": 17, "total_tokens": 137},
    )
    llm = GenericFakeChatModel(messages=iter([answer]))
    with track_usage() as usage:
        await call_structured(llm, "p", SemanticIngestion, step="ingestion", retries=0)
    step = usage.step("ingestion")
    assert (step.calls, step.input_tokens, step.output_tokens) == (1, 120, 17)
    assert step.seconds > 0 and usage.seconds == step.seconds


def test_a_command_calls_a_server_as_often_at_once_as_it_serves() -> None:
    with openai_stub(lambda body: "{}", props={"total_slots": 3}) as (url, _received):
        assert server_slots(url) == 3 and llm_config(url).concurrency == 3
    with openai_stub(lambda body: "{}") as (url, _received):  # a server without /props
        assert server_slots(url) is None and llm_config(url) == LLMConfig()
    assert llm_config(None) == LLMConfig()
