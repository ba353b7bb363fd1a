"""Benchmark: quality of the offline profile extraction on the project's profile test set.

Runs `langmemcore.profiles.extract.extract_statements` on every turn of
``tests/data/profile_facts.json`` (or ``--set``) and prints:

* precision and recall of the extracted statements against the labels (a statement
  matches a label of the same subject, aspect and ``ended`` flag whose value is equal
  after casefolding; an ending also matches when one value's words contain the other's,
  or one of them is empty: "Mochi died" ends "cat Mochi");
* the share of the labelled changes detected: the statements are replayed in turn order
  by the package's own replay (`langmemcore.profiles.resolve.resolve_chain`, through
  `replay`), and a change ``before -> after`` is detected when ``after`` is current and
  ``before`` history (for an ending, ``before`` is history and no longer current);
* per conversation, the same figures; with ``--errors``, every missed and spurious one;
* with ``--compare``, the same table for the pattern extractor alone, the parse
  extractor alone and the two combined (what `extract_statements` runs), side by side;
* with ``--updates``, on the knowledge-update set (``tests/data/knowledge_updates.json``),
  how many of its changing facts have both sides extracted: the older turn states a value
  of the fact's subject and aspect, and the newer turn states (or ends) one;
* with ``--timing``, the cost of extraction beside the offline text analysis of ingest
  (`langmemcore.text.resolve.analyze_observation`) on the same turns: rounds alternate
  analysis alone and analysis plus extraction (`extract_batch` over all the turns, one
  parse call, as bulk ingest does); the median and spread of the time ratio
  (``--timing-turns locomo.json`` times the turns of a LoCoMo file instead).
  This is the text side only; the whole ingest (embedding, database) costs more, so the
  layer's share of a real ingest is smaller than this ratio says;
* with ``--llm MODEL --llm-url URL`` (an OpenAI-compatible server, e.g. the reference
  model of ``benchmarks/local_model.py``), the model route's extractor
  (`langmemcore.prompts.profile.extract_statements_llm`, offline on a failed call) instead,
  and what it asked of the model.

Run from the repository root: ``python benchmarks/profile_quality.py``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from langmemcore.cli._format import usage_lines
from langmemcore.cli._llm import chat_model
from langmemcore.profiles._parse_extract import parse_statements
from langmemcore.profiles._pattern_extract import pattern_statements
from langmemcore.profiles.aspects import AspectStatement
from langmemcore.profiles.extract import extract_batch, extract_statements
from langmemcore.profiles.resolve import ends_value, resolve_chain
from langmemcore.prompts import track_usage
from langmemcore.prompts.profile import extract_statements_llm
from langmemcore.storage.profiles.records import StoredStatement
from langmemcore.text.parse import parse_texts
from langmemcore.text.resolve import analyze_observation
from langmemcore.text.tokens import fold_apostrophes

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SET_PATH = DATA / "profile_facts.json"
UPDATES_PATH = DATA / "knowledge_updates.json"
Extractor = Callable[[str, str | None], list[AspectStatement]]


@dataclass
class Slot:
    """The replayed values of one subject's aspect."""

    current: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)


@dataclass
class Score:
    """Counts behind the figures."""

    matched: int = 0
    extracted: int = 0
    labelled: int = 0
    changes: int = 0
    detected: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        """Add another score's counts and errors to this one."""
        self.matched += other.matched
        self.extracted += other.extracted
        self.labelled += other.labelled
        self.changes += other.changes
        self.detected += other.detected
        self.errors.extend(other.errors)

    @property
    def precision(self) -> float:
        """Matched extracted statements over extracted ones."""
        return self.matched / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        """Matched labels over labels."""
        return self.matched / self.labelled if self.labelled else 1.0

    @property
    def change_share(self) -> float:
        """Detected changes over labelled changes."""
        return self.detected / self.changes if self.changes else 1.0


def _same(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


def _matches(found: AspectStatement, label: dict[str, object]) -> bool:
    if (found.subject.casefold(), found.aspect, found.ended) != (
        str(label["subject"]).casefold(),
        label["aspect"],
        label["ended"],
    ):
        return False
    value = str(label["value"])
    return ends_value(found.value, value) if found.ended else _same(found.value, value)


def patterns_only(text: str, speaker: str | None) -> list[AspectStatement]:
    """The pattern extractor alone (for ``--compare``)."""
    return pattern_statements(fold_apostrophes(text), speaker)


def parse_only(text: str, speaker: str | None) -> list[AspectStatement]:
    """The parse extractor alone (for ``--compare``)."""
    return parse_statements(parse_texts([fold_apostrophes(text)])[0], speaker)


EXTRACTORS: dict[str, Extractor] = {
    "patterns": patterns_only,
    "parse": parse_only,
    "combined": extract_statements,
}
"""The extractors ``--compare`` puts side by side; "combined" is what ingest runs."""


def model_extractor(spec: str, url: str | None) -> Extractor:
    """The model route's extractor, its calls made one at a time on one event loop (each
    counted in the usage tracked around it, :func:`~langmemcore.prompts.track_usage`).
    """
    llm, loop = chat_model(spec, url), asyncio.new_event_loop()
    return lambda text, speaker: loop.run_until_complete(extract_statements_llm(llm, text, speaker))


def replay(statements: Iterable[AspectStatement]) -> dict[tuple[str, str], Slot]:
    """The profile the statements make, stated in this order one turn apart, replayed by
    the package (`langmemcore.profiles.resolve.resolve_chain`, chain by chain).
    """
    start = datetime(2020, 1, 1, tzinfo=UTC)
    chains: dict[tuple[str, str], list[StoredStatement]] = {}
    for i, st in enumerate(statements):
        stored = StoredStatement(
            i, 0, st.subject, st.aspect, st.value, st.ended, st.change, start + timedelta(i)
        )
        chains.setdefault((st.subject.casefold(), st.aspect), []).append(stored)
    profile: dict[tuple[str, str], Slot] = {}
    for key, chain in chains.items():
        values = resolve_chain(key[1], chain)
        profile[key] = Slot(
            [v.value for v in values if v.current], [v.value for v in values if not v.current]
        )
    return profile


def _detected(profile: dict[tuple[str, str], Slot], change: dict[str, object]) -> bool:
    slot = profile.get((str(change["subject"]).casefold(), str(change["aspect"])), Slot())
    before, after = str(change["before"]), change["after"]
    old = any(_same(before, v) for v in slot.history)
    if after is None:
        return old and not any(_same(before, v) for v in slot.current)
    return old and any(_same(str(after), v) for v in slot.current)


def score_conversation(conversation: dict[str, object], extract: Extractor) -> Score:
    """Score one conversation of the set with `extract`."""
    score, replayed = Score(), []
    for turn in conversation["turns"]:  # type: ignore[attr-defined]
        found = extract(turn["text"], turn["speaker"])
        labels = list(turn["statements"])
        replayed.extend(found)
        score.extracted += len(found)
        score.labelled += len(labels)
        for statement in found:
            hit = next((label for label in labels if _matches(statement, label)), None)
            if hit is None:
                score.errors.append(f"spurious {statement} <- {turn['text']!r}")
                continue
            labels.remove(hit)
            score.matched += 1
        score.errors.extend(f"missed {label} <- {turn['text']!r}" for label in labels)
    profile = replay(replayed)
    for change in conversation["changes"]:  # type: ignore[attr-defined]
        score.changes += 1
        if _detected(profile, change):
            score.detected += 1
        else:
            score.errors.append(f"change not detected {change}")
    return score


def evaluate(
    path: Path = SET_PATH, extract: Extractor = extract_statements
) -> tuple[Score, dict[str, Score]]:
    """The total score and the score per conversation of the set at `path`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    total, per = Score(), {}
    for conversation in data["conversations"]:
        per[conversation["id"]] = score_conversation(conversation, extract)
        total.add(per[conversation["id"]])
    return total, per


def _line(name: str, s: Score) -> str:
    return (
        f"{name:<6} {s.precision:>9.3f} {s.recall:>7.3f} {s.change_share:>8.3f}"
        f" {s.matched:>4}/{s.extracted:<4} {s.matched:>4}/{s.labelled:<4}"
        f" {s.detected:>3}/{s.changes}"
    )


def _turns(path: Path) -> list[tuple[str, str]]:
    """The (text, speaker) turns of a profile set, or of a LoCoMo file's sessions."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        sessions = (v for sample in data for v in sample["conversation"].values())
        return [(t["text"], t["speaker"]) for v in sessions if isinstance(v, list) for t in v]
    return [(t["text"], t["speaker"]) for c in data["conversations"] for t in c["turns"]]


def _round(turns: list[tuple[str, str]], with_profiles: bool, repeat: int) -> float:
    began = time.perf_counter()
    for _ in range(repeat):
        for text, speaker in turns:
            analyze_observation(text, speaker=speaker, event_time=None)
        if with_profiles:
            extract_batch(turns)
    return time.perf_counter() - began


def timing(path: Path, rounds: int = 7) -> tuple[float, float, float]:
    """Median, lowest and highest ratio of (analysis + extraction) over analysis alone."""
    turns = _turns(path)
    repeat = max(1, 2000 // len(turns))
    ratios = []
    for _ in range(rounds):
        alone = _round(turns, False, repeat)
        both = _round(turns, True, repeat)
        ratios.append(both / alone)
    return statistics.median(ratios), min(ratios), max(ratios)


def updates_both_sides(
    path: Path = UPDATES_PATH, extract: Extractor = extract_statements
) -> tuple[int, int, list[str]]:
    """(facts with both sides extracted, facts, the facts without) on a knowledge-update set."""
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = {
        t["key"]: t
        for c in data["conversations"]
        for session in c["sessions"]
        for t in session["turns"]
    }
    both, missed = 0, []
    for fact in data["facts"]:
        key = (fact["subject"].casefold(), fact["aspect"])
        older, newer = (turns[fact[side]] for side in ("older", "newer"))
        old = [s for s in extract(older["text"], older["speaker"]) if not s.ended]
        new = extract(newer["text"], newer["speaker"])
        if any((s.subject.casefold(), s.aspect) == key for s in old) and any(
            (s.subject.casefold(), s.aspect) == key for s in new
        ):
            both += 1
        else:
            missed.append(f"{fact['id']}: {older['text']!r} -> {newer['text']!r}")
    return both, len(data["facts"]), missed


def _table(path: Path, extract: Extractor, errors: bool) -> None:
    total, per = evaluate(path, extract)
    print(
        f"{'conv':<6} {'precision':>9} {'recall':>7} {'changes':>8}  matched/extr matched/lab det"
    )
    for name, score in per.items():
        print(_line(name, score))
    print(_line("all", total))
    if errors:
        print("\n".join(total.errors))


def main() -> None:
    """Print the figures (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET_PATH, help="the profile test set")
    parser.add_argument("--errors", action="store_true", help="print every miss and spurious")
    parser.add_argument("--compare", action="store_true", help="patterns, parse and combined")
    parser.add_argument("--updates", action="store_true", help="both sides on the KU set")
    parser.add_argument("--timing", action="store_true", help="time extraction beside analysis")
    parser.add_argument(
        "--timing-turns", type=Path, help="time on these turns instead (a LoCoMo JSON file)"
    )
    parser.add_argument("--llm", help="the model route's model (with --llm-url: its name)")
    parser.add_argument("--llm-url", help="an OpenAI-compatible server")
    args = parser.parse_args()
    chosen: dict[str, Extractor] = EXTRACTORS if args.compare else {"combined": extract_statements}
    if args.llm:
        chosen = {"model": model_extractor(args.llm, args.llm_url)}
    with track_usage() as usage:
        _tables(args, chosen)
    if args.llm:
        print("\n".join(usage_lines(usage)))
    if args.timing:
        median, low, high = timing(args.timing_turns or args.set)
        print(f"text analysis + extraction / text analysis: {median:.3f} ({low:.3f}-{high:.3f})")


def _tables(args: argparse.Namespace, chosen: dict[str, Extractor]) -> None:
    for name, extract in chosen.items():
        if args.compare:
            print(f"## {name}")
        _table(args.set, extract, args.errors)
        if args.updates:
            both, facts, missed = updates_both_sides(extract=extract)
            print(f"knowledge updates, both sides extracted: {both}/{facts}")
            if args.errors:
                print("\n".join(missed))


if __name__ == "__main__":
    main()
