"""The command line in process (``main([...])`` with ``--url``): ingest, search, stats, topics,
eval locomo, and errors."""

from __future__ import annotations

import json
import re
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from langmemcore.cli._llm import MAX_TOKENS
from langmemcore.storage.stats import COUNTED
from tests.integration.conftest import Cli
from tests.integration.test_profiles import T0, observations
from tests.stub_openai import openai_stub

NADIA_MOVED = T0 + timedelta(days=30)


def record(key: str | None, speaker: str, time: str, text: str) -> dict[str, str]:
    fields = {"speaker": speaker, "time": time, "text": text}
    return fields if key is None else {"key": key, **fields}


RECORDS = [
    record("t1", "Maya", "2024-03-02T18:30:00+00:00", "I live in Lisbon and work as a designer."),
    record("t2", "Jonas", "2024-03-02T18:32:00+00:00", "My beagle Pretzel loves chasing pigeons."),
    record("t3", "Priya", "2024-03-02", "I started cello lessons with Mrs. Okafor last week."),
    record(None, "Jonas", "2024-06-15T10:00Z", "Pretzel, my beagle, still loves chasing pigeons!"),
    record(None, "Maya", "2024-06-15T10:04Z", "I moved from Lisbon to Berlin for a job at Bosch."),
]


def turn(dia_id: str, speaker: str, text: str) -> dict[str, str]:
    return {"dia_id": dia_id, "speaker": speaker, "text": text}


def question(text: str, answer: str, evidence: list[str], category: int) -> dict[str, object]:
    return {"question": text, "answer": answer, "evidence": evidence, "category": category}


def locomo_sample(sample_id: str) -> dict[str, object]:
    """A tiny conversation in the LoCoMo format, with two questions."""
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                turn("D1:1", "Ana", "I just adopted a cat named Miso."),
                turn("D1:2", "Ben", "Cute! I'm learning to play the drums."),
                turn("D1:3", "Ana", "Miso sleeps on my keyboard all day."),
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                turn("D2:1", "Ben", "I played drums at my first gig last night."),
                turn("D2:2", "Ana", "I'm moving to Oslo in August for work."),
            ],
        },
        "qa": [
            question("What is Ana's cat called?", "Miso", ["D1:1"], 4),
            question("Which instrument does Ben play?", "drums", ["D1:2", "D2:1"], 1),
        ],
    }


def test_ingest_search_stats_topics(url: str, tmp_path: Path, cli: Cli) -> None:
    ns = f"cli.{uuid.uuid4().hex[:10]}"
    file = tmp_path / "turns.jsonl"
    file.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n")

    code, out, err = cli("--url", url, "ingest", str(file), "--namespace", ns)
    assert code == 0, err
    assert out.startswith(f"{ns}: 5 observations -> ")
    assert "1 merges" in out and "0 already remembered" in out
    assert "ingest [" in err and "5/5" in err

    code, out, _ = cli("ingest", str(file), "--namespace", ns, "--url", url)
    assert code == 0
    assert "0 new notes, 0 merges, 0 links, 5 already remembered" in out

    query = "What is the name of Jonas's dog?"
    code, out, err = cli("--url", url, "search", query, "--namespace", ns, "--k", "2")
    assert code == 0, err
    assert out.startswith("Q: What is the name of Jonas's dog?\n  1. ")
    first = out.split("\n  2. ")[0]
    assert "Pretzel" in first
    assert "channels: " in first and "vector #" in first
    assert "source t2 | Jonas | 2024-03-02 18:32 | My beagle Pretzel loves chasing" in first
    assert "| Jonas | 2024-06-15 10:00 | Pretzel, my beagle, still" in first
    assert "\n  3. " not in out

    code, out, _ = cli("--url", url, "stats", "--namespace", ns)
    assert code == 0
    header, row = out.strip().splitlines()
    assert header.split() == ["namespace", *COUNTED]
    cells = row.split()
    assert cells[0] == ns
    counts = dict(zip(header.split()[1:], map(int, cells[1:]), strict=True))
    assert counts["observations"] == 5
    assert counts["notes"] == 4
    assert counts["merged_notes"] == 1
    assert counts["merges"] == 1
    assert counts["keywords"] > 5

    code, out, _ = cli("--url", url, "topics", "--namespace", ns, "--evolve")
    assert code == 0
    assert out.startswith(f"Topics of {ns}:\n")
    listed = [line for line in out.splitlines()[1:] if line.startswith("  - ")]
    assert all(" keywords): " in line for line in listed)
    _, after, _ = cli("--url", url, "stats", "--namespace", ns)
    header, row = after.strip().splitlines()
    assert int(row.split()[header.split().index("topics")]) == len(listed)
    assert int(row.split()[header.split().index("queued")]) == 0


def test_stats_without_namespace_lists_every_namespace(url: str, tmp_path: Path, cli: Cli) -> None:
    root = f"clistats{uuid.uuid4().hex[:8]}"
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(RECORDS[:2]))
    for child in ("a", "b"):
        assert cli("--url", url, "ingest", str(file), "--namespace", f"{root}.{child}").code == 0
    code, out, _ = cli("--url", url, "stats")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert f"{root}.a" in names and f"{root}.b" in names
    assert names == sorted(names)
    code, out, _ = cli("--url", url, "stats", "--namespace", root)
    assert [line.split()[0] for line in out.splitlines()[1:]] == [f"{root}.a", f"{root}.b"]
    code, out, _ = cli("--url", url, "stats", "--namespace", f"{root}x")
    assert out.strip() == "(memory is empty)"


def test_ingest_a_locomo_file_and_evaluate_it(url: str, tmp_path: Path, cli: Cli) -> None:
    ns = f"clilocomo.{uuid.uuid4().hex[:10]}"
    file = tmp_path / "locomo.json"
    file.write_text(json.dumps([locomo_sample("conv-a"), locomo_sample("conv-b")]))
    code, out, err = cli("--url", url, "ingest", str(file), "--namespace", ns)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == [f"{ns}.conv-a", f"{ns}.conv-b"]
    assert all("5 observations" in line for line in lines)

    code, out, _ = cli(
        "--url", url, "search", "What is Ana's cat called?", "--namespace", f"{ns}.conv-a"
    )
    assert "source D1:1 | Ana | 2023-05-08 13:56 | I just adopted a cat named Miso." in out

    code, out, err = cli("--url", url, "eval", "locomo", str(file), "--limit", "1")
    assert code == 0, err
    overall = next(line for line in out.splitlines() if line.startswith("| overall |"))
    assert overall.split("|")[-2].strip() == "2"
    assert "| baseline rrf |" in out
    assert "mean search latency:" in out
    assert "conv-a (n=2)" in out and "conv-b" not in out

    saved = tmp_path / "report.md"
    code, out, err = cli(
        "--url", url, "eval", "locomo", str(file), "--ablations", "--out", str(saved)
    )
    assert code == 0, err
    assert saved.read_text(encoding="utf-8").strip() == out.strip()
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("| run | conv-a"))
    assert header.split(" | ")[1:] == ["conv-a (n=2)", "conv-b (n=2)", "overall |"]
    gains = [line.split(" | ")[0] for line in lines if line.endswith(" of 2 |")]
    assert gains[0] == "| with topic channel" and gains[-1] == "| append-only memory"
    assert "| with keyword channel" in gains and "| no keyword channel" not in gains
    assert "| no vector channel" in gains and "| no topic channel" not in gains
    full_cost = next(line for line in lines if line.startswith("| full system |") and "%" in line)
    assert float(full_cost.split(" | ")[3]) >= 4  # at least four channels ran per search


def test_errors_are_reported_with_exit_code_2(url: str, tmp_path: Path, cli: Cli) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"speaker": "Maya"}\n')
    code, _, err = cli("--url", url, "ingest", str(bad), "--namespace", "cli.bad")
    assert code == 2
    assert "error: bad.jsonl record 2: 'text' is missing or empty" in err
    code, _, err = cli("--url", url, "search", "x", "--namespace", "langgraph.x")
    assert code == 2
    assert "error:" in err and "langgraph" in err
    code, _, err = cli("--url", url, "search", "   ", "--namespace", "cli.bad")
    assert code == 2
    assert "error: query is empty" in err


UPDATE_SET = {
    "conversations": [
        {
            "id": "c1",
            "sessions": [
                {
                    "time": "2023-01-08T10:00:00+00:00",
                    "turns": [
                        {"key": "lyon", "speaker": "Nadia", "text": "I live in Lyon with Max."},
                        {"key": "cello", "speaker": "Omar", "text": "I play the cello."},
                    ],
                },
                {
                    "time": "2024-02-03T10:00:00+00:00",
                    "turns": [
                        {"key": "hamburg", "speaker": "Nadia", "text": "I moved to Hamburg!"},
                        {"key": "rain", "speaker": "Omar", "text": "It rains a lot here."},
                    ],
                },
            ],
        }
    ],
    "facts": [
        {
            "id": "nadia-home",
            "conversation": "c1",
            "subject": "Nadia",
            "aspect": "home",
            "older": "lyon",
            "newer": "hamburg",
            "current_question": "Where does Nadia live now?",
            "past_question": "Where did Nadia live in 2023?",
        }
    ],
}


def test_eval_knowledge_updates(url: str, tmp_path: Path, cli: Cli) -> None:
    file = tmp_path / "updates.json"
    file.write_text(json.dumps(UPDATE_SET))
    code, out, err = cli("--url", url, "eval", "knowledge-updates", str(file))
    assert code == 0, err
    assert out.splitlines()[:2] == [f"1 facts in {file}", "## default settings"]
    code, out, err = cli(
        "eval", "knowledge-updates", str(file), "--url", url, "--with", "profile",
        "--without", "time",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[lines.index("## with profile, without time") + 1] == (
        "current-state: newer above older in 1/1 (100.0%); past-period: older in top 3 in "
        "1/1 (100.0%)"
    )

    code, out, err = cli(
        "--url", url, "eval", "knowledge-updates", str(file), "--without", "supersession"
    )
    assert code == 0, err
    assert "## without supersession" in out.splitlines()

    code, _, err = cli("--url", url, "eval", "knowledge-updates", str(file), "--without", "x")
    assert code == 2 and "error: unknown mechanisms ['x']" in err
    file.write_text(json.dumps({"conversations": [], "facts": [{"id": "f"}]}))
    code, _, err = cli("--url", url, "eval", "knowledge-updates", str(file))
    assert code == 2 and err.startswith("error: not a knowledge-update set: ")


def test_the_cli_says_when_a_returned_note_was_superseded(
    url: str, tmp_path: Path, cli: Cli
) -> None:
    ns = f"validity.{uuid.uuid4().hex[:10]}"
    file = tmp_path / "turns.jsonl"
    rows = [
        {"key": o.key, "speaker": o.speaker, "time": o.event_time.isoformat(), "text": o.text}
        for o in observations()
        if o.event_time is not None
    ]
    file.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    code, _, err = cli("--url", url, "ingest", str(file), "--namespace", ns)
    assert code == 0, err
    question = "Where does Nadia live?"
    code, out, err = cli("--url", url, "search", question, "--namespace", ns)
    assert code == 0, err
    (lyon,) = [block for block in re.split(r"\n  \d+\. ", out) if "I live in Lyon" in block]
    assert f"superseded since {NADIA_MOVED:%Y-%m-%d %H:%M}" in lyon
    assert out.count("superseded since") == 1


def test_ingest_with_a_model_on_an_openai_compatible_server(
    url: str, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--llm`` names the model on the ``--llm-url`` server: each turn's note is the model's
    restatement when the turn supports it, the offline draft when it does not (the model
    echoing its prompt's example), and the command says what it asked of the model."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)

    def respond(body: dict[str, Any]) -> str:
        said = body["messages"][-1]["content"].rsplit("Message: ", 1)[1]
        if "Pretzel" in said:
            restated = "Jonas's beagle Pretzel loves chasing pigeons."
            return json.dumps({"keywords": ["Pretzel", "beagle"], "context": restated})
        echo = "Wenceslas repainted the old dinghy saffron yellow on 13 March 2021."
        return json.dumps({"keywords": ["dinghy"], "context": echo})

    ns = f"cli.{uuid.uuid4().hex[:10]}"
    file = tmp_path / "turns.jsonl"
    file.write_text("\n".join(json.dumps(r) for r in RECORDS[:3]) + "\n")
    with openai_stub(respond) as (base_url, received):
        args = ["ingest", str(file), "--namespace", ns, "--llm", "stub-model"]
        code, out, err = cli("--url", url, *args, "--llm-url", base_url)
    assert code == 0, err
    assert len(received) == 3 and {r["model"] for r in received} == {"stub-model"}
    assert all(r.get("max_completion_tokens") == MAX_TOKENS for r in received)
    assert "  model: 3 calls, 0 failed, 0 skipped (breaker open), 2 answer parts rejected" in out
    assert "    ingestion: 3 calls, 0 failed, 0 skipped, 2 rejected" in out
    code, out, err = cli("--url", url, "search", "Who is Pretzel?", "--namespace", ns, "--k", "3")
    assert code == 0, err
    assert "Jonas's beagle Pretzel loves chasing pigeons." in out
    assert "Wenceslas" not in out and "dinghy" not in out
