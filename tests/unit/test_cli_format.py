"""What the commands print: evidence is never cut short, the topics hint is a whole command,
and --help carries no reStructuredText markup."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from langmemcore.cli import build_parser
from langmemcore.cli._format import evidence_lines, topic_lines
from langmemcore.retrieval import RetrievedNote, SourceRef
from langmemcore.storage.stats import TopicInfo

LONG = (
    "Big news from me: I finally started my new job at St. Mary's Hospital as a pediatric "
    "nurse on September 2nd, after three interviews and a very long summer of waiting."
)


def test_long_sources_are_printed_whole_and_wrapped() -> None:
    when = datetime(2024, 10, 5, 18, 0, tzinfo=UTC)
    note = RetrievedNote(
        3, LONG, 0.03, {"vector": 1}, (), None, (SourceRef("S3:4", "Priya", when, LONG),)
    )
    lines = evidence_lines([note], width=100)
    assert all(len(line) <= 100 for line in lines)
    source_at = next(i for i, line in enumerate(lines) if line.startswith("     source "))
    assert lines[source_at].startswith("     source S3:4 | Priya | 2024-10-05 18:00 | Big news")
    printed = " ".join(line.strip() for line in lines[source_at:])
    assert printed.endswith(
        "on September 2nd, after three interviews and a very long summer of waiting."
    )
    assert "..." not in printed
    score_at = next(i for i, line in enumerate(lines) if line.startswith("     score "))
    assert score_at > 1
    assert " ".join(line.strip() for line in lines[:score_at]) == f"1. {LONG}"


def test_the_topics_hint_names_the_namespace() -> None:
    topics = [TopicInfo(i, f"t{i}", 2, ("x", "y")) for i in range(4)]
    lines = topic_lines(topics, limit=2, namespace=("demo", "friends"))
    assert lines == [
        "  - t0 (2 keywords): x, y",
        "  - t1 (2 keywords): x, y",
        "  ... and 2 more (langmemcore topics --namespace demo.friends)",
    ]
    assert topic_lines(topics, limit=4, namespace=("demo", "friends"))[-1] == (
        "  - t3 (2 keywords): x, y"
    )


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["demo"],
        ["ingest"],
        ["search"],
        ["stats"],
        ["topics"],
        ["migrate"],
        ["downgrade"],
        ["doctor"],
        ["eval"],
        ["eval", "locomo"],
        ["eval", "frontier"],
    ],
)
def test_help_is_plain_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*argv, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: langmemcore")
    assert "``" not in out and ":func:" not in out and ":class:" not in out


def test_the_active_channel_is_printed_after_the_graphs_channels() -> None:
    note = RetrievedNote(7, "Max is a puppy.", 1.0, {"active": 1, "vector": 3}, (), None, ())
    assert "     score 1.0000 | channels: vector #3, active #1" in evidence_lines([note])


def test_search_active_options_parse() -> None:
    args = build_parser().parse_args(
        ["search", "q", "--namespace", "a.b", "--active", "--llm", "openai:m"]
    )
    assert (args.active, args.llm) == (True, "openai:m")
    passive = build_parser().parse_args(["search", "q", "--namespace", "a.b"])
    assert (passive.active, passive.llm) == (False, None)
