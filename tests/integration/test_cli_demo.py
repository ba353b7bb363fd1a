"""`langmemcore demo` with zero configuration: a fresh embedded Postgres (LANGMEMCORE_HOME),
migrated by the demo itself, the shipped conversation remembered and questioned."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from langmemcore.demo import load_demo_conversation
from langmemcore.storage import head_revision
from tests.conftest import REPO_ROOT

SOURCE_LINE = r"source S\d:\d+ \| (Maya|Jonas|Priya) \| 2024-\d\d-\d\d \d\d:\d\d \| "
CONFIG_VARIABLES = ("DATABASE_URL", "LANGMEMCORE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")


def run_demo(home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARIABLES}
    env["LANGMEMCORE_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO_ROOT)
    return subprocess.run(
        [sys.executable, "-m", "langmemcore.cli", "demo"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=600,
    )


def answer_block(stdout: str, question: str) -> str:
    return stdout.split(f"Q: {question}\n", 1)[1].split("\nQ: ", 1)[0]


def test_the_shipped_conversation_has_the_promised_shape() -> None:
    conversation = load_demo_conversation()
    turns = conversation.observations
    assert 40 <= len(turns) <= 60
    assert {t.speaker for t in turns} == {"Maya", "Jonas", "Priya"}
    sessions = {t.key.split(":")[0] for t in turns}
    assert sessions == {"S1", "S2", "S3"}
    assert all(t.event_time is not None for t in turns)
    times = [t.event_time for t in turns]
    assert times == sorted(times)
    assert len({t.key for t in turns}) == len(turns)
    assert 4 <= len(conversation.questions) <= 5


@pytest.mark.embedded_default
def test_demo_on_the_embedded_default(tmp_path: Path) -> None:
    first = run_demo(tmp_path / "home")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert (tmp_path / "home" / "pgdata" / "PG_VERSION").is_file()
    assert out.startswith(
        f"langmemcore demo on the embedded Postgres (schema migrated to {head_revision()})"
    )
    assert "Remembered 50 turns by Jonas, Maya, Priya into namespace demo.friends" in out
    built = re.search(
        r"(\d+) observations -> (\d+) notes \((\d+) built from several turns\)\n"
        r"  (\d+) merges, (\d+) links, (\d+) keywords, (\d+) topics",
        out,
    )
    assert built, out
    observations, notes, merged, merges, links, keywords, topics = map(int, built.groups())
    assert observations == 50
    assert merges >= 2 and merged >= 1
    assert notes == observations - merges
    assert links >= 10 and keywords >= 50 and topics >= 3
    run_line = re.search(r"this run: (\d+) new notes, (\d+) merges, (\d+) links", out)
    assert run_line and tuple(map(int, run_line.groups())) == (notes, merges, links)
    topic_lines = out.split("Topics (largest first):\n", 1)[1].split("\n\nQ: ", 1)[0]
    assert len([line for line in topic_lines.splitlines() if line.startswith("  - ")]) == min(
        8, topics
    )

    conversation = load_demo_conversation()
    for question in conversation.questions:
        block = answer_block(out, question)
        assert block.startswith("  1. "), block
        assert "score " in block and "channels: " in block
        assert re.search(SOURCE_LINE, block)
    dog = answer_block(out, "What is the name of Jonas's dog?")
    assert "Pretzel" in dog.split("\n  2. ")[0]
    cello = answer_block(out, "Which instrument does Priya play?")
    assert "cello" in cello.split("\n  2. ")[0]
    home = answer_block(out, "Where does Maya live now?")
    assert "Berlin" in home

    again = run_demo(tmp_path / "home")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("langmemcore demo on the embedded Postgres (schema up to date)")
    assert "this run: already remembered, nothing new" in again.stdout
    assert built.group(0) in again.stdout
