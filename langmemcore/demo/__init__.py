"""The demo: a multi-session conversation written for langmemcore, remembered and questioned.

``conversation.json`` (package data) holds three sessions (March, June and October 2024) of
Maya, Jonas and Priya chatting: facts repeat (so notes merge), relate (so notes link) and
change over time (Maya moves from Lisbon to Berlin, Priya changes job). :func:`run_demo`
ingests it, evolves topics, reads back what memory built and answers the questions.
``langmemcore demo`` prints the result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from langmemcore._namespace import validate_namespace
from langmemcore._progress import ProgressLike
from langmemcore.construction.bulk import IngestReport
from langmemcore.construction.ingest import ObservationIn
from langmemcore.io import parse_records
from langmemcore.memory import Memory
from langmemcore.retrieval import RetrievedNote
from langmemcore.storage.stats import NamespaceStats, TopicInfo, list_topics, memory_stats

__all__ = ["DemoConversation", "DemoResult", "load_demo_conversation", "run_demo"]


@dataclass(frozen=True)
class DemoConversation:
    """The shipped demo conversation.

    Attributes:
        title: A short title.
        description: What the conversation exercises.
        namespace: Where the demo remembers it.
        questions: The questions the demo asks.
        observations: The turns, in order.
    """

    title: str
    description: str
    namespace: tuple[str, ...]
    questions: tuple[str, ...]
    observations: tuple[ObservationIn, ...]


@dataclass(frozen=True)
class DemoResult:
    """What the demo did and found.

    Attributes:
        conversation: The conversation.
        report: The ingest report (operations of this run).
        stats: Counts of what memory holds in the demo namespace.
        topics: The namespace's topics.
        answers: Each question with its evidence, best first.
    """

    conversation: DemoConversation
    report: IngestReport
    stats: NamespaceStats
    topics: tuple[TopicInfo, ...]
    answers: tuple[tuple[str, tuple[RetrievedNote, ...]], ...]


def load_demo_conversation() -> DemoConversation:
    """Read ``conversation.json`` from the package."""
    raw: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("conversation.json").read_text(encoding="utf-8")
    )
    return DemoConversation(
        title=str(raw["title"]),
        description=str(raw["description"]),
        namespace=validate_namespace(raw["namespace"]),
        questions=tuple(str(q) for q in raw["questions"]),
        observations=parse_records(raw["observations"], "conversation.json").observations,
    )


async def run_demo(memory: Memory, *, k: int = 3, progress: ProgressLike = None) -> DemoResult:
    """Remember the demo conversation, then answer its questions.

    Re-running it is harmless: already remembered turns are left unchanged.

    Args:
        memory: Where to remember it.
        k: Notes of evidence per question.
        progress: Progress bar / callback of the ingest.
    """
    conversation = load_demo_conversation()
    namespace = conversation.namespace
    report = await memory.aingest_many(namespace, conversation.observations, progress=progress)
    stats = await memory_stats(memory.database, namespace)
    own = next((s for s in stats if s.namespace == namespace), NamespaceStats(namespace))
    topics = await list_topics(memory.database, namespace)
    answers = [
        (question, tuple(await memory.asearch(namespace, question, k=k)))
        for question in conversation.questions
    ]
    return DemoResult(conversation, report, own, tuple(topics), tuple(answers))
