"""``langmemcore profile`` in process against the test database."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from tests.integration.conftest import Cli

RECORDS = [
    {"key": "a", "speaker": "Nadia", "time": "2024-01-10", "text": "I live in Lyon."},
    {"key": "b", "speaker": "Omar", "time": "2024-01-11", "text": "I work as a nurse."},
    {"key": "c", "speaker": "Nadia", "time": "2024-03-01", "text": "I moved to Hamburg!"},
]


def test_profile_prints_current_values_and_history(url: str, tmp_path: Path, cli: Cli) -> None:
    ns = f"cliprofile.{uuid.uuid4().hex[:10]}"
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(RECORDS))
    assert cli("--url", url, "ingest", str(file), "--namespace", ns)[0] == 0

    code, out, err = cli("--url", url, "profile", "nadia", "--namespace", ns)
    assert code == 0, err
    assert out.splitlines() == [
        f"Profile of Nadia in {ns}:",
        "home",
        "  Hamburg (current, since 2024-03-01) [c]",
        "  Lyon (2024-01-10 .. 2024-03-01, replaced by Hamburg) [a]",
    ]

    code, out, _ = cli("--url", url, "profile", "Nadia", "--namespace", ns, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["subject"] == "Nadia"
    assert [(v["value"], v["current"]) for v in data["aspects"]["home"]] == [
        ("Lyon", False),
        ("Hamburg", True),
    ]
    assert data["aspects"]["home"][0]["sources"][0]["text"] == "I live in Lyon."

    code, out, _ = cli("--url", url, "profile", "Zoe", "--namespace", ns)
    assert (code, out.strip()) == (0, f"No profile of Zoe in {ns}.")


def test_profile_rejects_a_blank_subject(url: str, cli: Cli) -> None:
    code, _out, err = cli("--url", url, "profile", "  ", "--namespace", "a.b")
    assert code == 2
    assert err.startswith("error: ") and "subject" in err
