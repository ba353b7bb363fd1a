"""The pure parts of the agent integration: which messages are written, what is a bare
question, how recalled notes read, and how a namespace template is filled in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from langmemcore import ConfigurationError, InvalidNamespaceError
from langmemcore.agents import NamespaceTemplate
from langmemcore.agents._exchange import (
    RECALL_HEADER,
    format_recall,
    is_question,
    message_time,
    new_exchange,
)
from langmemcore.retrieval.pack import RetrievedNote, SourceRef


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What is my dog called?", True),
        ("Where do I live? And since when?", True),
        ("  where?  ", True),
        ("My dog is Rex.", False),
        ("My dog is Rex. What breed is he?", False),
        ("What a day, I adopted a dog!", False),
        ("", False),
    ],
)
def test_is_question(text: str, asks: bool) -> None:
    assert is_question(text) is asks


def test_new_exchange_is_the_last_run_without_tool_chatter_or_questions() -> None:
    messages = [
        HumanMessage("I live in Porto.", id="h0"),
        AIMessage("Nice.", id="a0"),
        HumanMessage("I moved to Berlin.", id="h1"),
        HumanMessage("Is it cold there?", id="h2"),
        AIMessage("", id="a1", tool_calls=[{"name": "w", "args": {}, "id": "c1"}]),
        ToolMessage("3 degrees", tool_call_id="c1", id="t1"),
        AIMessage("It is 3 degrees in Berlin.", id="a2"),
    ]
    turns = new_exchange(messages)
    assert [(t.message.id, t.role, t.text) for t in turns] == [
        ("h1", "human", "I moved to Berlin."),
        ("a2", "ai", "It is 3 degrees in Berlin."),
    ]


def test_new_exchange_is_empty_without_a_final_answer() -> None:
    pending = AIMessage("", tool_calls=[{"name": "w", "args": {}, "id": "c1"}])
    assert new_exchange([HumanMessage("I moved to Berlin."), pending]) == []
    assert new_exchange([]) == []


def test_message_time_reads_the_message_else_the_default() -> None:
    default = datetime(2026, 1, 1, tzinfo=UTC)
    stamped = HumanMessage("x", additional_kwargs={"created_at": "2024-05-01T10:00:00+00:00"})
    epoch = AIMessage("x", response_metadata={"timestamp": 0})
    assert message_time(stamped, default) == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert message_time(epoch, default) == datetime(1970, 1, 1, tzinfo=UTC)
    assert message_time(HumanMessage("x"), default) == default


def note(note_id: int, *sources: SourceRef, context: str = "ctx") -> RetrievedNote:
    return RetrievedNote(note_id, context, 1.0, {}, (), None, sources)


def test_format_recall_lists_sources_with_speaker_and_date_once_within_the_budget() -> None:
    when = datetime(2024, 3, 2, 18, 30, tzinfo=UTC)
    lisbon = SourceRef("k1", "Ana", when, "I live in Lisbon.")
    berlin = SourceRef("k2", "Ana", None, "I moved to Berlin.")
    block = format_recall([note(1, berlin, lisbon), note(2, lisbon), note(3)], 1000)
    assert block.splitlines() == [
        RECALL_HEADER,
        "- Ana: I moved to Berlin.",
        "- [2024-03-02] Ana: I live in Lisbon.",
        "- ctx",
    ]
    tight = format_recall([note(1, berlin, lisbon)], len(RECALL_HEADER) // 4 + 8)
    assert tight.splitlines() == [RECALL_HEADER, "- Ana: I moved to Berlin."]
    assert format_recall([note(1, berlin)], 1) == ""
    assert format_recall([], 1000) == ""


@dataclass
class Context:
    user_id: str


def test_namespace_template_fills_fields_from_context_then_configurable() -> None:
    template = NamespaceTemplate(("memories", "{org}-{user_id}"))
    assert template.fields == ("org", "user_id")
    from_dict = SimpleNamespace(context={"user_id": "ana", "org": "acme"})
    assert template.resolve(from_dict, {"org": "other"}) == ("memories", "acme-ana")
    from_attribute = SimpleNamespace(context=Context("bo"))
    assert template.resolve(from_attribute, {"org": "acme"}) == ("memories", "acme-bo")
    with pytest.raises(ConfigurationError, match="'org'"):
        template.resolve(from_attribute, {})
    with pytest.raises(InvalidNamespaceError):
        template.resolve(SimpleNamespace(context={"user_id": "a.b", "org": "x"}), {})


def test_namespace_template_fixed_and_callable() -> None:
    fixed = NamespaceTemplate(["shared", "notes"])
    assert fixed.fixed and fixed.resolve(None, None) == ("shared", "notes")
    computed = NamespaceTemplate(lambda runtime: ["per", runtime.context["who"]])
    assert not computed.fixed
    assert computed.resolve(SimpleNamespace(context={"who": "cy"}), None) == ("per", "cy")


@pytest.mark.parametrize("bad", ["memories", ("memories", "{user.id}"), ("a", "{")])
def test_namespace_template_refuses_bad_templates(bad: object) -> None:
    with pytest.raises(ConfigurationError):
        NamespaceTemplate(bad)  # type: ignore[arg-type]


def test_fixed_namespace_is_validated_up_front() -> None:
    with pytest.raises(InvalidNamespaceError):
        NamespaceTemplate(("langgraph", "x.y"))
