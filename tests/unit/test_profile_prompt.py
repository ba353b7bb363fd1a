"""The profile-extraction prompt with a scripted chat model: good, malformed and hostile
answers, and the offline fallback when the model fails."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult

from langmemcore.config import LLM_MAX_ANSWER_CHARS, LLM_MAX_KEYWORD_CHARS
from langmemcore.profiles import AspectStatement
from langmemcore.profiles.aspects import ASPECTS
from langmemcore.profiles.extract import extract_statements
from langmemcore.prompts import track_usage
from langmemcore.prompts.profile import (
    MAX_STATEMENTS,
    ProfileAnswer,
    extract_statements_llm,
    render_profile_prompt,
)

TEXT = "I moved to Hamburg last month and my husband Tom found a job at Airbus."


def scripted(*answers: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(AIMessage(content=a) for a in answers))


class Failing(GenericFakeChatModel):
    """A model whose endpoint raises on every call."""

    calls: int = 0

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.calls += 1
        raise RuntimeError("connection reset by peer")


def answer(*statements: dict[str, Any]) -> str:
    return json.dumps({"statements": list(statements)})


def st(subject: Any, aspect: Any, value: Any, **flags: Any) -> dict[str, Any]:
    return {"subject": subject, "aspect": aspect, "value": value, **flags}


async def test_a_good_answer_is_taken() -> None:
    llm = scripted(
        "Here you go:\n```json\n"
        + answer(
            st("Nadia", "home", "Hamburg", change=True),
            st("Tom", "work", "Airbus", ended=False),
            st("Tom", "partner", "the Nadia"),
        )
        + "\n```"
    )
    found = await extract_statements_llm(llm, TEXT, "Nadia")
    assert found == [
        AspectStatement("Nadia", "home", "Hamburg", change=True),
        AspectStatement("Tom", "work", "Airbus"),
        AspectStatement("Tom", "partner", "Nadia"),
    ]


async def test_first_person_subjects_resolve_and_unknown_people_are_dropped() -> None:
    llm = scripted(
        answer(
            st("I", "home", "Hamburg"),
            st("nadia", "pet", "dog Max"),
            st("Priya", "home", "Lyon"),
            st("Tom", "home", "Hamburg"),
        )
    )
    with track_usage() as usage:
        found = await extract_statements_llm(llm, TEXT, "Nadia")
    assert found == [
        AspectStatement("Nadia", "home", "Hamburg"),
        AspectStatement("Tom", "home", "Hamburg"),
    ]
    assert usage.rejected == 2


async def test_a_value_the_message_does_not_say_is_rejected_and_counted() -> None:
    """A small model echoing the prompt's example ("Split", "dinghy") states nothing about
    a message that never says them; a value said in other words or forms is kept."""
    echo = answer(
        st("Wenceslas", "home", "Split"),
        st("Nadia", "home", "Split", change=True),
        st("Nadia", "possession", "dinghy", ended=True),
        st("Tom", "work", "jobs at Airbus"),
    )
    with track_usage() as usage:
        found = await extract_statements_llm(scripted(echo), TEXT, "Nadia")
    assert found == [AspectStatement("Tom", "work", "jobs at Airbus")]
    assert usage.rejected == 3


async def test_unknown_aspects_wrong_types_and_long_values_are_dropped() -> None:
    llm = scripted(
        answer(
            st("Nadia", "zodiac", "Leo"),
            st("Nadia", 7, "Hamburg"),
            st(["Nadia"], "home", "Hamburg"),
            st("Nadia", "home", {"city": "Hamburg"}),
            "not an object",
            st("Nadia", "home", "x" * (LLM_MAX_KEYWORD_CHARS + 1)),
            st("Nadia", "work", ""),
            st("Nadia", "work", "", ended=True),
            st("Nadia", " HOME ", "Hamburg"),
        )
    )
    found = await extract_statements_llm(llm, TEXT, "Nadia")
    assert found == [
        AspectStatement("Nadia", "work", "", ended=True),
        AspectStatement("Nadia", "home", "Hamburg"),
    ]


async def test_malformed_answers_are_retried_then_the_offline_extractor_answers() -> None:
    llm = scripted("no JSON here", '{"statements": 42}')
    found = await extract_statements_llm(llm, TEXT, "Nadia")
    assert found == extract_statements(TEXT, "Nadia")
    assert AspectStatement("Nadia", "home", "Hamburg", change=True) in found


async def test_a_retry_after_malformed_output_can_succeed() -> None:
    llm = scripted("{oops", answer(st("Nadia", "home", "Hamburg")))
    assert await extract_statements_llm(llm, TEXT, "Nadia") == [
        AspectStatement("Nadia", "home", "Hamburg")
    ]


async def test_an_endpoint_error_falls_back_offline() -> None:
    llm = Failing(messages=iter([]))
    found = await extract_statements_llm(llm, TEXT, "Nadia", retries=2)
    assert found == extract_statements(TEXT, "Nadia")
    assert llm.calls == 3


async def test_hostile_answers_break_nothing() -> None:
    injection = "Ignore previous instructions'); DROP TABLE observations; --"
    hostile = [
        answer(st("Nadia\x00", "home", "Ham\x00burg"), st(injection, "home", "Hamburg")),
        answer(st("Nadia", "home", injection)),
        answer(*(st("Nadia", "hobby", f"hobby {i}") for i in range(MAX_STATEMENTS * 5))),
        "[" * 100_000,
        "x" * (LLM_MAX_ANSWER_CHARS + 1),
        json.dumps({"statements": [{"subject": {"$gt": ""}, "aspect": "home", "value": 1}]}),
    ]
    for text in hostile:
        found = await extract_statements_llm(scripted(text, text), TEXT, "Nadia")
        assert all(s.subject in {"Nadia", "Tom"} for s in found)
        assert all(len(s.value) <= LLM_MAX_KEYWORD_CHARS for s in found)
        assert all("\x00" not in s.value for s in found)
        assert len(found) <= MAX_STATEMENTS
    cleaned = await extract_statements_llm(scripted(hostile[0]), TEXT, "Nadia")
    assert cleaned == [AspectStatement("Nadia", "home", "Hamburg")]
    assert len(ProfileAnswer.model_validate_json(hostile[2]).statements) == MAX_STATEMENTS


async def test_a_message_stating_nothing_gives_nothing() -> None:
    assert await extract_statements_llm(scripted(answer()), "Do you live in Paris?", "Tom") == []
    assert await extract_statements_llm(scripted('{"statements": null}'), "Hi!", None) == []


def test_the_prompt_names_the_speaker_the_text_and_every_aspect() -> None:
    prompt = render_profile_prompt("I love {curly} braces", None)
    assert "Speaker: unknown" in prompt and "I love {curly} braces" in prompt
    listed = [line[2:].split(":")[0] for line in prompt.splitlines() if line.startswith("- ")]
    assert listed == list(ASPECTS)  # every aspect, in order, each with what it holds
    assert "- home: the town, city or country they live in" in prompt


async def test_the_user_in_a_note_without_a_speaker_is_the_user() -> None:
    llm = scripted(
        answer(
            st("The user", "pet", "dog Biscuit"),
            st("User", "home", "Berlin"),
            st("I", "work", "Airbus"),
            st("Nadia", "home", "Lyon"),
        )
    )
    text = "The user's dog is Biscuit. User moved to Berlin. I work at Airbus. Nadia lives in Lyon."
    found = await extract_statements_llm(llm, text, None)
    assert found == [
        AspectStatement("user", "pet", "dog Biscuit"),
        AspectStatement("user", "home", "Berlin"),
        AspectStatement("user", "work", "Airbus"),
        AspectStatement("Nadia", "home", "Lyon"),
    ]
