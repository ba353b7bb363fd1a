"""Knowledge updates: a changed fact's newer statement first, the older one kept as history.

Does memory rank the newer statement of a fact that changed first, and still find the older
one for a question about the earlier period?

The test set (``tests/data/knowledge_updates.json``, built by the project) holds short
multi-session chats between two speakers and, per fact that changes, the key of the turn
stating the older value, the key of the turn stating the newer one, a current-state
question and a past-period question. Each conversation is remembered in its own namespace
through :meth:`Memory.aingest_many`; every question goes through :meth:`Memory.asearch`.

- a **current-state** question passes when the first note holding the newer turn ranks
  strictly above the first note holding the older one (or the older is not returned);
- a **past-period** question passes when the older turn is among the sources of the top
  ``PAST_TOP`` notes (3);
- for a fact with an ``as_of`` time, its ``as_of_question`` asked as of that time passes
  when the older turn is in the top ``PAST_TOP`` notes and ranks above the newer one (or
  the newer is not returned); asked as of ``as_of_after`` it passes when the newer turn
  ranks above the older one (or the older is not returned). As a baseline the same
  questions can be asked without a time (``as_of=False``: the reference time is now).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from langmemcore._errors import InvalidInputError
from langmemcore.config import RetrievalConfig
from langmemcore.construction.ingest import ObservationIn
from langmemcore.memory import Memory
from langmemcore.retrieval.pack import RetrievedNote

__all__ = [
    "FactOutcome",
    "UpdateConversation",
    "UpdateFact",
    "UpdateReport",
    "UpdateSet",
    "evaluate_updates",
    "ingest_update_set",
    "load_update_set",
]

PAST_TOP = 3
"""Notes within which a past-period question must find the older statement."""


@dataclass(frozen=True)
class UpdateFact:
    """One fact that changes.

    Attributes:
        id: Its id in the set.
        conversation: The conversation it is stated in.
        subject: Whose fact it is.
        aspect: Which aspect changes (home, work, pet, ...).
        older: Key of the turn stating the older value.
        newer: Key of the turn stating the newer value.
        current_question: A question about the current value.
        past_question: A question about the earlier period's value.
        as_of: A time between the two statements' sessions, if the set gives one.
        as_of_question: A question without a date, asked at ``as_of`` (answered by the
            older value) and, if given, at ``as_of_after`` (answered by the newer).
        as_of_after: A time after the newer statement's session, if the set gives one.
    """

    id: str
    conversation: str
    subject: str
    aspect: str
    older: str
    newer: str
    current_question: str
    past_question: str
    as_of: datetime | None = None
    as_of_question: str | None = None
    as_of_after: datetime | None = None


@dataclass(frozen=True)
class UpdateConversation:
    """A conversation of the set, as the observations memory ingests.

    Attributes:
        id: Its id (also its namespace's last label).
        observations: Its turns in order, keyed by their turn key.
    """

    id: str
    observations: tuple[ObservationIn, ...]


@dataclass(frozen=True)
class UpdateSet:
    """The knowledge-update test set.

    Attributes:
        conversations: The chats.
        facts: The facts that change in them.
    """

    conversations: tuple[UpdateConversation, ...]
    facts: tuple[UpdateFact, ...]


def _conversation(raw: dict[str, Any]) -> UpdateConversation:
    observations = []
    for number, session in enumerate(raw["sessions"], start=1):
        when = datetime.fromisoformat(session["time"])
        for turn in session["turns"]:
            observations.append(
                ObservationIn(turn["key"], turn["text"], turn["speaker"], when, {"session": number})
            )
    return UpdateConversation(str(raw["id"]), tuple(observations))


def _fact(raw: dict[str, Any]) -> UpdateFact:
    fields: dict[str, Any] = dict(raw)
    for name in ("as_of", "as_of_after"):
        if name in fields:
            fields[name] = datetime.fromisoformat(fields[name])
    return UpdateFact(**fields)


def load_update_set(path: str | Path) -> UpdateSet:
    """Read and check a knowledge-update set.

    Raises:
        InvalidInputError: The file is not such a set, or a fact names a turn or a
            conversation it does not hold.
    """
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        conversations = tuple(_conversation(c) for c in raw["conversations"])
        facts = tuple(_fact(fact) for fact in raw["facts"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInputError(f"not a knowledge-update set: {path} ({exc})") from exc
    keys = {c.id: {o.key for o in c.observations} for c in conversations}
    for fact in facts:
        turns = keys.get(fact.conversation, set())
        if fact.older not in turns or fact.newer not in turns:
            raise InvalidInputError(f"fact {fact.id!r} names turns its conversation lacks")
    return UpdateSet(conversations, facts)


async def ingest_update_set(memory: Memory, updates: UpdateSet, prefix: str) -> None:
    """Remember every conversation of the set in namespace ``(prefix, conversation id)``."""
    for conversation in updates.conversations:
        await memory.aingest_many((prefix, conversation.id), conversation.observations)
    await memory.aflush()


@dataclass(frozen=True)
class FactOutcome:
    """How one fact's two questions fared.

    Attributes:
        fact: The fact.
        newer_rank: 1-based rank of the first note holding the newer turn, for the
            current-state question (``None``: not returned).
        older_rank_current: The same for the older turn, for that question.
        older_rank_past: 1-based rank of the first note holding the older turn, for the
            past-period question.
        newer_rank_past: The same for the newer turn, for that question.
        as_of_ranks: (older, newer) ranks for the ``as_of_question`` asked at ``as_of``
            (``None``: the fact has no such question).
        after_ranks: The same, asked at ``as_of_after`` (``None``: no such time).
    """

    fact: UpdateFact
    newer_rank: int | None
    older_rank_current: int | None
    older_rank_past: int | None
    newer_rank_past: int | None = None
    as_of_ranks: tuple[int | None, int | None] | None = None
    after_ranks: tuple[int | None, int | None] | None = None

    @property
    def current_ok(self) -> bool:
        """The newer statement ranks strictly above the older one."""
        if self.newer_rank is None:
            return False
        return self.older_rank_current is None or self.newer_rank < self.older_rank_current

    @property
    def past_ok(self) -> bool:
        """The older statement is within the top ``PAST_TOP`` notes."""
        return self.older_rank_past is not None and self.older_rank_past <= PAST_TOP

    @property
    def as_of_ok(self) -> bool | None:
        """Asked at ``as_of``: the older statement in the top ``PAST_TOP`` and above the
        newer (``None``: not asked).
        """
        if self.as_of_ranks is None:
            return None
        older, newer = self.as_of_ranks
        return older is not None and older <= PAST_TOP and (newer is None or older < newer)

    @property
    def after_ok(self) -> bool | None:
        """Asked at ``as_of_after``: the newer statement above the older (``None``: not
        asked).
        """
        if self.after_ranks is None:
            return None
        older, newer = self.after_ranks
        return newer is not None and (older is None or newer < older)


@dataclass(frozen=True)
class UpdateReport:
    """Every fact's outcome, with the two shares the set is judged by.

    Attributes:
        outcomes: One per fact, in the set's order.
    """

    outcomes: tuple[FactOutcome, ...]

    @property
    def current_share(self) -> float:
        """Share of current-state questions ranking the newer statement first."""
        return sum(o.current_ok for o in self.outcomes) / max(len(self.outcomes), 1)

    @property
    def past_share(self) -> float:
        """Share of past-period questions finding the older statement in the top 3."""
        return sum(o.past_ok for o in self.outcomes) / max(len(self.outcomes), 1)

    def summary(self) -> list[str]:
        """The summary lines: current-state and past-period, then (when the set has
        as-of questions) the as-of questions at ``as_of`` and at ``as_of_after``.
        """
        n = len(self.outcomes)
        lines = [
            f"current-state: newer above older in {sum(o.current_ok for o in self.outcomes)}"
            f"/{n} ({100 * self.current_share:.1f}%); past-period: older in top {PAST_TOP} in "
            f"{sum(o.past_ok for o in self.outcomes)}/{n} ({100 * self.past_share:.1f}%)"
        ]
        before = [o.as_of_ok for o in self.outcomes if o.as_of_ok is not None]
        after = [o.after_ok for o in self.outcomes if o.after_ok is not None]
        if before or after:
            lines.append(
                f"as-of: older in top {PAST_TOP} and above newer at as_of in "
                f"{sum(before)}/{len(before)} ({100 * sum(before) / max(len(before), 1):.1f}%); "
                f"newer above older at as_of_after in {sum(after)}/{len(after)} "
                f"({100 * sum(after) / max(len(after), 1):.1f}%)"
            )
        return lines

    def format(self) -> str:
        """The summary lines and one line per failing question."""
        lines = self.summary()
        for o in self.outcomes:
            if not o.current_ok:
                lines.append(
                    f"  current miss {o.fact.id}: newer {o.newer_rank}, older "
                    f"{o.older_rank_current} ({o.fact.current_question})"
                )
            if not o.past_ok:
                lines.append(
                    f"  past miss {o.fact.id}: older {o.older_rank_past} ({o.fact.past_question})"
                )
            if o.as_of_ok is False or o.after_ok is False:
                lines.append(
                    f"  as-of miss {o.fact.id}: at as_of {o.as_of_ranks}, after "
                    f"{o.after_ranks} (older, newer) ({o.fact.as_of_question})"
                )
        return "\n".join(lines)


def _rank(notes: Sequence[RetrievedNote], key: str) -> int | None:
    for position, note in enumerate(notes, start=1):
        if any(source.key == key for source in note.sources):
            return position
    return None


async def _ranks_at(
    memory: Memory,
    fact: UpdateFact,
    ns: tuple[str, ...],
    question: str,
    k: int,
    config: RetrievalConfig | None,
    when: datetime | None,
) -> tuple[int | None, int | None]:
    """(older, newer) ranks for ``question`` asked as of ``when`` (``None``: now)."""
    notes = await memory.asearch(ns, question, k=k, config=config, as_of=when)
    return _rank(notes, fact.older), _rank(notes, fact.newer)


async def evaluate_updates(
    memory: Memory,
    updates: UpdateSet,
    prefix: str,
    *,
    config: RetrievalConfig | None = None,
    k: int = 20,
    as_of: bool = True,
) -> UpdateReport:
    """Ask every fact's questions of the namespaces :func:`ingest_update_set` filled.

    Args:
        memory: The memory holding the set.
        updates: The set.
        prefix: The namespaces' first label.
        config: Retrieval settings (default: the memory's).
        k: Notes asked for per question.
        as_of: Ask the as-of questions at their times; ``False`` asks each once without
            a time (reference time now) and scores that one answer at both times.
    """
    outcomes = []
    for fact in updates.facts:
        ns = (prefix, fact.conversation)
        current = await memory.asearch(ns, fact.current_question, k=k, config=config)
        past = await memory.asearch(ns, fact.past_question, k=k, config=config)
        newer, older = _rank(current, fact.newer), _rank(current, fact.older)
        before = after = None
        if fact.as_of_question and fact.as_of is not None:
            ask = (ns, fact.as_of_question, k, config)
            before = await _ranks_at(memory, fact, *ask, fact.as_of if as_of else None)
            if fact.as_of_after is not None:
                after = await _ranks_at(memory, fact, *ask, fact.as_of_after) if as_of else before
        outcomes.append(
            FactOutcome(
                fact,
                newer,
                older,
                _rank(past, fact.older),
                _rank(past, fact.newer),
                before,
                after,
            )
        )
    return UpdateReport(tuple(outcomes))
