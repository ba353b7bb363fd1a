"""The LoCoMo conversation format: loading, date parsing and evidence-id repair.

Pure parsing, no evaluation: :mod:`langmemcore.io` reads LoCoMo files with it (``langmemcore
ingest``), and :mod:`langmemcore.eval` scores retrieval on the conversations it returns.

The LoCoMo JSON holds, per conversation, numbered sessions of dialogue turns (``D<session>:<n>``
ids), one date string per session, and question-answer pairs whose ``evidence`` lists the turn
ids that support the answer. A few evidence ids are malformed in the published data
(``"D8:6; D9:17"``, ``"D30:05"``, ``"D:11:26"``); :func:`repair_evidence_ids` fixes them and drops
ids that name no turn. Category 5 (adversarial) questions have no answer and their evidence is
not ground truth for retrieval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from langmemcore._errors import InvalidInputError

MULTI_HOP = 1
"""Category id of multi-hop questions."""
TEMPORAL = 2
"""Category id of temporal questions."""
OPEN_DOMAIN = 3
"""Category id of open-domain questions."""
SINGLE_HOP = 4
"""Category id of single-hop questions."""
ADVERSARIAL = 5
"""Category id of adversarial questions (no answer; excluded from retrieval evaluation)."""

CATEGORY_NAMES: Mapping[int, str] = {
    MULTI_HOP: "multi-hop",
    TEMPORAL: "temporal",
    OPEN_DOMAIN: "open-domain",
    SINGLE_HOP: "single-hop",
    ADVERSARIAL: "adversarial",
}
"""Human-readable name of each category id."""

RETRIEVAL_CATEGORIES: tuple[int, ...] = (MULTI_HOP, TEMPORAL, OPEN_DOMAIN, SINGLE_HOP)
"""Categories whose evidence is ground truth for retrieval evaluation."""

_MONTHS = {
    name: number
    for number, name in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        start=1,
    )
}
_SESSION_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\s*,?\s*(\d{4})\s*$",
    re.IGNORECASE,
)
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"^D:?(\d+):(\d+)$")
_EVIDENCE_SEPARATORS = re.compile(r"[;,]")


@dataclass(frozen=True)
class Turn:
    """One dialogue turn of a LoCoMo conversation."""

    dia_id: str
    """Turn id, ``D<session>:<n>``."""
    speaker: str
    """Name of the speaker."""
    text: str
    """What the speaker said."""
    session: int
    """Session number the turn belongs to (1-based)."""
    event_time: datetime | None
    """Date and time of the session, or ``None`` when the data gives none."""
    image_caption: str | None
    """Caption of a photo shared in the turn (LoCoMo's ``blip_caption``), if any."""

    @property
    def full_text(self) -> str:
        """The text, followed by ``" [shares <caption>]"`` when the turn shares a photo."""
        if self.image_caption is None:
            return self.text
        return f"{self.text} [shares {self.image_caption}]"


@dataclass(frozen=True)
class Question:
    """One question-answer pair with its evidence turn ids."""

    question: str
    """The question text."""
    answer: str | None
    """Reference answer as text; ``None`` when the data gives none (adversarial questions)."""
    evidence: tuple[str, ...]
    """Repaired ids of the turns that support the answer (distinct, in data order)."""
    category: int
    """Category id (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)."""

    @property
    def is_retrieval_target(self) -> bool:
        """Whether the question counts in retrieval evaluation (categories 1-4, some evidence)."""
        return self.category in RETRIEVAL_CATEGORIES and bool(self.evidence)


@dataclass(frozen=True)
class Conversation:
    """A LoCoMo conversation: two speakers, their turns in order, and questions about them."""

    sample_id: str
    """Conversation id, e.g. ``"conv-26"``."""
    speakers: tuple[str, str]
    """The two speakers (``speaker_a``, ``speaker_b``)."""
    turns: tuple[Turn, ...]
    """All turns, sessions in number order, turns in data order."""
    questions: tuple[Question, ...]
    """All questions, in data order (every category)."""

    @property
    def retrieval_questions(self) -> tuple[Question, ...]:
        """Questions that count in retrieval evaluation (:attr:`Question.is_retrieval_target`)."""
        return tuple(q for q in self.questions if q.is_retrieval_target)


@dataclass(frozen=True)
class EvidenceReport:
    """What evidence repair did to one conversation's questions (all categories)."""

    sample_id: str
    """Conversation id."""
    raw_ids: int
    """Number of raw evidence entries in the data."""
    repaired: int
    """Raw entries that were not already a known id but yielded at least one after repair."""
    dropped: int
    """Ids (after splitting and normalising) that name no turn and were dropped."""
    dropped_ids: tuple[str, ...]
    """The dropped ids, as normalised."""


def parse_session_datetime(value: str) -> datetime:
    """Parse a LoCoMo session date such as ``"1:56 pm on 8 May, 2023"``.

    Args:
        value: The date string.

    Returns:
        The naive datetime it denotes.

    Raises:
        InvalidInputError: If the string does not have that shape or names an impossible date.
    """
    match = _SESSION_DATE.match(value)
    if match is None:
        raise InvalidInputError(f"unrecognised LoCoMo session date: {value!r}")
    hour_s, minute_s, half, day_s, month_s, year_s = match.groups()
    month = _MONTHS.get(month_s.lower())
    hour = int(hour_s)
    if month is None or not 1 <= hour <= 12:
        raise InvalidInputError(f"unrecognised LoCoMo session date: {value!r}")
    hour = hour % 12 + (12 if half.lower() == "p" else 0)
    try:
        return datetime(int(year_s), month, int(day_s), hour, int(minute_s))
    except ValueError as exc:
        raise InvalidInputError(f"impossible LoCoMo session date: {value!r}") from exc


def _normalise_evidence_id(token: str) -> str:
    """Canonical form of one evidence id: no whitespace, no stray colon, no leading zeros."""
    compact = "".join(token.split())
    match = _EVIDENCE_ID.match(compact)
    if match is None:
        return compact
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def _split_evidence(raw: Iterable[str]) -> list[str]:
    """Split and normalise raw evidence entries, keeping data order and duplicates."""
    return [
        _normalise_evidence_id(token)
        for entry in raw
        for token in _EVIDENCE_SEPARATORS.split(entry)
        if token.strip()
    ]


def repair_evidence_ids(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """Repair malformed evidence ids and keep those that name a known turn.

    Entries holding several ids (``"D8:6; D9:17"``) are split on ``;`` and ``,``; whitespace is
    removed; a stray colon after ``D`` (``"D:11:26"``) and leading zeros (``"D30:05"``) are
    removed. Ids not in ``known`` are dropped; duplicates are dropped after their first use.

    Args:
        raw: Evidence entries as they appear in the data.
        known: The turn ids of the conversation.

    Returns:
        The repaired, known, distinct ids in data order.
    """
    kept: dict[str, None] = {}
    for evidence_id in _split_evidence(raw):
        if evidence_id in known:
            kept.setdefault(evidence_id, None)
    return tuple(kept)


def _session_numbers(conversation: Mapping[str, Any]) -> list[int]:
    """Numbers of the sessions that hold turns, ascending."""
    numbers = [
        int(match.group(1))
        for key in conversation
        if (match := _SESSION_KEY.match(key)) is not None
    ]
    return sorted(numbers)


def _parse_turns(conversation: Mapping[str, Any]) -> tuple[Turn, ...]:
    """All turns of one raw ``conversation`` object, sessions in number order."""
    turns: list[Turn] = []
    for number in _session_numbers(conversation):
        date = conversation.get(f"session_{number}_date_time")
        event_time = parse_session_datetime(date) if date else None
        for raw_turn in conversation[f"session_{number}"]:
            caption = raw_turn.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=str(raw_turn["dia_id"]).strip(),
                    speaker=str(raw_turn["speaker"]),
                    text=str(raw_turn["text"]),
                    session=number,
                    event_time=event_time,
                    image_caption=str(caption).strip() if caption else None,
                )
            )
    return tuple(turns)


def _parse_question(raw_qa: Mapping[str, Any], known: set[str]) -> Question:
    """One raw QA object as a :class:`Question` with repaired evidence."""
    answer = raw_qa.get("answer")
    return Question(
        question=str(raw_qa["question"]),
        answer=None if answer is None else str(answer),
        evidence=repair_evidence_ids(list(raw_qa.get("evidence", ())), known),
        category=int(raw_qa["category"]),
    )


def parse_locomo(raw: Sequence[Mapping[str, Any]]) -> list[Conversation]:
    """Build conversations from the parsed LoCoMo JSON (a list of samples).

    Args:
        raw: The decoded JSON document.

    Returns:
        One :class:`Conversation` per sample, in data order.

    Raises:
        InvalidInputError: If a session date cannot be parsed.
        KeyError: If a required field is missing.
    """
    conversations: list[Conversation] = []
    for sample in raw:
        body = sample["conversation"]
        turns = _parse_turns(body)
        known = {turn.dia_id for turn in turns}
        conversations.append(
            Conversation(
                sample_id=str(sample["sample_id"]),
                speakers=(str(body["speaker_a"]), str(body["speaker_b"])),
                turns=turns,
                questions=tuple(_parse_question(qa, known) for qa in sample["qa"]),
            )
        )
    return conversations


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo JSON file and parse it with :func:`parse_locomo`.

    Args:
        path: Path of the JSON file (e.g. ``locomo10.json`` or a subset of it).

    Returns:
        The conversations in file order.
    """
    with Path(path).open(encoding="utf-8") as handle:
        raw = json.load(handle)
    return parse_locomo(raw)


def evidence_report(raw: Sequence[Mapping[str, Any]]) -> list[EvidenceReport]:
    """Report, per conversation, how evidence repair changed the raw ids.

    Args:
        raw: The decoded LoCoMo JSON document.

    Returns:
        One :class:`EvidenceReport` per sample, in data order.
    """
    reports: list[EvidenceReport] = []
    for sample in raw:
        known = {turn.dia_id for turn in _parse_turns(sample["conversation"])}
        raw_ids = 0
        repaired = 0
        dropped: list[str] = []
        for qa in sample["qa"]:
            for entry in qa.get("evidence", ()):
                raw_ids += 1
                ids = _split_evidence([entry])
                dropped.extend(i for i in ids if i not in known)
                if entry not in known and any(i in known for i in ids):
                    repaired += 1
        reports.append(
            EvidenceReport(
                sample_id=str(sample["sample_id"]),
                raw_ids=raw_ids,
                repaired=repaired,
                dropped=len(dropped),
                dropped_ids=tuple(dropped),
            )
        )
    return reports


def limit_conversations(
    conversations: Sequence[Conversation],
    *,
    conversations_limit: int | None = None,
    sessions_limit: int | None = None,
    questions_limit: int | None = None,
) -> list[Conversation]:
    """A shorter evaluation: the first conversations, their first sessions, their first
    questions.

    Args:
        conversations: The conversations.
        conversations_limit: Conversations kept (``None``: all).
        sessions_limit: Sessions kept per conversation (``None``: all); only the questions
            whose evidence lies entirely in the kept sessions remain.
        questions_limit: Retrieval questions (categories 1-4) kept per conversation
            (``None``: all questions).

    Returns:
        The shortened conversations.
    """
    kept: list[Conversation] = []
    for conversation in conversations[:conversations_limit]:
        turns, questions = conversation.turns, conversation.questions
        if sessions_limit is not None:
            turns = tuple(t for t in turns if t.session <= sessions_limit)
            known = {t.dia_id for t in turns}
            questions = tuple(q for q in questions if set(q.evidence) <= known)
        if questions_limit is not None:
            questions = tuple(q for q in questions if q.is_retrieval_target)[:questions_limit]
        kept.append(replace(conversation, turns=turns, questions=questions))
    return kept
