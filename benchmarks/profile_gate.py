"""Benchmark: what the lexical gate before the profile parse saves, and what it loses.

On the turns of a LoCoMo file (or a profile set, or a knowledge-update set), rounds
alternate the offline extraction `langmemcore.profiles.extract.extract_batch` as ingest
runs it (the gate `profiles._parse_gate.parsed_part` decides which turns, and which of
their sentences, are parsed) and the same extraction with every turn parsed whole; prints
the share of turns the gate lets through and of their words it parses, the median and
range of the time ratio gated / ungated, and the turns whose parse statements the gate
lost (there should be none).

Run from the repository root:
``python benchmarks/profile_gate.py ../shared/data/locomo-dev.json``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from unittest.mock import patch

from langmemcore.profiles import extract
from langmemcore.profiles._parse_extract import parse_statements
from langmemcore.profiles._parse_gate import parsed_part
from langmemcore.text.parse import english_pipeline, parse_texts


def _turns(path: Path) -> list[tuple[str, str | None]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        sessions = (v for sample in data for v in sample["conversation"].values())
        return [(t["text"], t["speaker"]) for v in sessions if isinstance(v, list) for t in v]
    if "facts" in data:
        sessions = (s for c in data["conversations"] for s in c["sessions"])
        return [(t["text"], t["speaker"]) for s in sessions for t in s["turns"]]
    return [(t["text"], t["speaker"]) for c in data["conversations"] for t in c["turns"]]


def _timed(turns: list[tuple[str, str | None]], gated: bool) -> float:
    began = time.perf_counter()
    if gated:
        extract.extract_batch(turns)
    else:
        with patch.object(extract, "parsed_part", lambda text: text):
            extract.extract_batch(turns)
    return time.perf_counter() - began


def main() -> None:
    """Print the figures (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "path", type=Path, help="a LoCoMo JSON file, a profile set or a knowledge-update set"
    )
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    turns = _turns(args.path)
    english_pipeline()
    texts = [extract._message(text, speaker) for text, speaker in turns]
    parts = [parsed_part(text) for text, _ in texts]
    whole = parse_texts([text for text, _ in texts])
    gated = parse_texts(parts)
    lost = [
        text
        for (text, speaker), a, b in zip(texts, whole, gated, strict=True)
        if parse_statements(a, speaker) != parse_statements(b, speaker)
    ]
    passed = sum(bool(part) for part in parts)
    words = sum(len(part.split()) for part in parts) / sum(len(t.split()) for t, _ in texts)
    ratios = []
    for round_ in range(args.rounds):
        order = (True, False) if round_ % 2 == 0 else (False, True)
        seconds = {gated: _timed(turns, gated) for gated in order}
        ratios.append(seconds[True] / seconds[False])
    print(f"turns {len(turns)}, parsed with the gate {passed} ({passed / len(turns):.2f})")
    print(f"share of all words parsed with the gate: {words:.2f}")
    print(
        f"extraction time gated / ungated over {len(ratios)} rounds: median "
        f"{statistics.median(ratios):.3f}, range {min(ratios):.3f} .. {max(ratios):.3f}"
    )
    print(f"turns whose parse statements the gate loses: {len(lost)}")
    print("\n".join(lost))


if __name__ == "__main__":
    main()
