"""Loading observation files (JSON, JSON Lines, the demo's shape, LoCoMo), LoCoMo limits, and
the CLI's text rendering: pure, no database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from langmemcore._errors import InvalidInputError
from langmemcore.cli import build_parser
from langmemcore.cli._format import evidence_lines, stats_lines, topic_lines
from langmemcore.io import load_observations, parse_records, parse_time
from langmemcore.locomo import Conversation, limit_conversations, load_locomo
from langmemcore.retrieval import RetrievedNote, SourceRef
from langmemcore.storage.stats import NamespaceStats, TopicInfo
from tests.conftest import LOCOMO_MINI

RECORDS = [
    {"text": "I moved to Berlin.", "speaker": "Maya", "time": "2024-06-15T10:00:00Z", "key": "a"},
    {"text": "Pretzel is my beagle.", "speaker": "Jonas", "time": "2024-06-15"},
    {"text": "No speaker, no time."},
    "A bare string is a record too.",
]


def test_parse_time_accepts_iso_and_locomo_dates() -> None:
    assert parse_time("2024-06-15T10:00:00Z") == datetime(2024, 6, 15, 10, tzinfo=UTC)
    assert parse_time(" 2024-06-15 ") == datetime(2024, 6, 15)
    assert parse_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    with pytest.raises(InvalidInputError):
        parse_time("last Tuesday")


def test_records_become_observations_with_stable_keys() -> None:
    batch = parse_records(RECORDS)
    assert batch.name is None
    first, second, third, fourth = batch.observations
    assert (first.key, first.speaker, first.event_time) == (
        "a",
        "Maya",
        datetime(2024, 6, 15, 10, tzinfo=UTC),
    )
    assert second.event_time == datetime(2024, 6, 15, tzinfo=UTC)
    assert third.speaker is None and third.event_time is None
    assert fourth.text == "A bare string is a record too."
    again = parse_records(RECORDS).observations
    assert [o.key for o in again] == [o.key for o in batch.observations]
    assert len({o.key for o in batch.observations}) == 4
    moved = parse_records([{**RECORDS[1], "speaker": "Maya"}]).observations[0]
    assert moved.key != second.key


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"speaker": "Maya"}, "'text' is missing or empty"),
        ({"text": "  "}, "'text' is missing or empty"),
        ({"text": "x", "speaker": 3}, "'speaker' must be a string"),
        ({"text": "x", "time": "soon"}, "unrecognised LoCoMo session date"),
        ({"text": "x", "metadata": [1]}, "'metadata' must be an object"),
        (42, "expected an object with 'text'"),
    ],
)
def test_malformed_records_are_refused(record: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message) as info:
        parse_records([{"text": "fine"}, record], "f.json")
    assert "f.json record 2" in str(info.value)


def test_a_key_used_for_two_texts_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="key 'k' used twice"):
        parse_records([{"key": "k", "text": "one"}, {"key": "k", "text": "two"}])


def test_files_in_every_shape(tmp_path: Path) -> None:
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(RECORDS))
    as_lines = tmp_path / "lines.jsonl"
    as_lines.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n\n")
    as_object = tmp_path / "object.json"
    as_object.write_text(json.dumps({"title": "t", "observations": RECORDS}))
    loaded = [load_observations(p) for p in (as_list, as_lines, as_object)]
    assert all(len(batches) == 1 for batches in loaded)
    assert loaded[0][0].observations == loaded[1][0].observations == loaded[2][0].observations
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "ok"}\n{"text": \n')
    with pytest.raises(InvalidInputError, match=r"broken\.jsonl:2: not JSON"):
        load_observations(broken)
    scalar = tmp_path / "scalar.json"
    scalar.write_text("3")
    with pytest.raises(InvalidInputError, match="expected a JSON list"):
        load_observations(scalar)


def test_a_locomo_file_gives_one_batch_per_conversation() -> None:
    batches = load_observations(LOCOMO_MINI)
    assert [(b.name, len(b.observations)) for b in batches] == [("mini-a", 10), ("mini-b", 9)]
    assert [o.key for o in batches[0].observations] == [
        *("D1:1", "D1:2", "D1:3", "D1:4"),
        *("D2:1", "D2:2", "D2:3"),
        *("D3:1", "D3:2", "D3:3"),
    ]
    photo = batches[0].observations[2]
    assert (photo.speaker, photo.event_time, photo.metadata) == (
        "Ines",
        datetime(2023, 3, 3, 16, 15, tzinfo=UTC),  # naive session dates read as UTC
        {"session": 1},
    )
    assert photo.text == (
        "Here is the first thing I made there. "
        "[shares a photo of a lopsided blue clay bowl on a table]"
    )
    last = batches[1].observations[-1]
    assert (last.key, last.speaker, last.event_time, last.metadata) == (
        "D3:2",
        "Ravi",
        datetime(2024, 3, 1, 15, 5, tzinfo=UTC),
        {"session": 3},
    )


def _questions(conversation: Conversation) -> list[str]:
    return [q.question for q in conversation.questions]


def test_limit_conversations_keeps_sessions_and_answerable_questions() -> None:
    conversations = load_locomo(LOCOMO_MINI)
    short = limit_conversations(conversations, conversations_limit=1, sessions_limit=2)
    (cut,) = short
    assert cut.sample_id == "mini-a"
    assert cut.turns == conversations[0].turns[:7]  # sessions 1 and 2
    # "What has Ines shared photos of?" needs D3:3 and goes; the rest stay (every category).
    assert _questions(cut) == [q for q in _questions(conversations[0]) if "photos" not in q]
    (_, other) = limit_conversations(conversations, sessions_limit=2)
    # Two mini-b questions need session 3 (D3:1).
    assert _questions(other) == [
        "What is the name of Ravi's kitten?",
        "What language is Ravi learning?",
        "Is Ravi's kitten likely to break more things?",
        "What did Oona's grandmother name her kitten?",
        "What colour is the cabin of Oona's grandmother?",
    ]
    few = limit_conversations(conversations, questions_limit=3)
    assert [_questions(c) for c in few] == [
        [
            "When did Ines sign up for the pottery class?",
            "What has Ines shared photos of?",
            "What is the name of Tomas's sailboat?",
        ],
        [
            "What is the name of Ravi's kitten?",
            "How did Oona prepare for and do in the half marathon?",
            "When did Oona finish the half marathon?",
        ],
    ]
    assert [c.turns for c in few] == [c.turns for c in conversations]
    both = limit_conversations(conversations, sessions_limit=2, questions_limit=5)
    assert [len(c.questions) for c in both] == [5, 4]  # mini-b keeps only 4 targets
    assert limit_conversations(conversations) == conversations


def test_rendering() -> None:
    when = datetime(2024, 6, 15, 10, 4, tzinfo=UTC)
    note = RetrievedNote(
        7,
        "Maya moved to Berlin.",
        0.0312,
        {"fulltext": 2, "vector": 1},
        ("berlin",),
        "berlin, lisbon",
        (SourceRef("S2:7", "Maya", when, "I moved to Berlin."),),
    )
    assert evidence_lines([note]) == [
        "  1. Maya moved to Berlin.",
        "     score 0.0312 | channels: vector #1, fulltext #2",
        "     topic: berlin, lisbon",
        "     source S2:7 | Maya | 2024-06-15 10:04 | I moved to Berlin.",
    ]
    assert evidence_lines([]) == ["  (no evidence found)"]
    table = stats_lines([NamespaceStats(("a", "b"), observations=3, notes=2, merges=1)])
    assert table[0].split()[:3] == ["namespace", "observations", "notes"]
    assert table[1].split() == ["a.b", "3", "2", "0", "1", "0", "0", "0", "0", "0"]
    topics = [TopicInfo(i, f"t{i}", 3, ("x", "y", "z")) for i in range(3)]
    assert topic_lines(topics, limit=2) == [
        "  - t0 (3 keywords): x, y, z",
        "  - t1 (3 keywords): x, y, z",
        "  ... and 1 more",
    ]


def test_url_and_embeddings_go_before_or_after_the_command() -> None:
    parser = build_parser()
    before = parser.parse_args(["--url", "postgresql://h/db", "stats"])
    after = parser.parse_args(["stats", "--url", "postgresql://h/db"])
    assert before.url == after.url == "postgresql://h/db"
    search = parser.parse_args(["search", "q", "--namespace", "a.b"])
    assert (search.query, search.namespace, search.k) == ("q", "a.b", 5)
    assert not hasattr(search, "url")
