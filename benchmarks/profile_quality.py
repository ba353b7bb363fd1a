"""Benchmark: quality of the offline profile extraction on the project's profile test set.

Runs `langmemcore.profiles.extract.extract_statements` on every turn of
``tests/data/profile_facts.json`` and prints:

* precision and recall of the extracted statements against the labels (a statement
  matches a label of the same subject, aspect and ``ended`` flag whose value is equal
  after casefolding; an ending also matches when one value's words contain the other's,
  or one of them is empty: "Mochi died" ends "cat Mochi");
* the share of the labelled changes detected: the statements are replayed in order
  (a small pure replay, `replay`), and a change ``before -> after`` is detected when
  ``after`` is current and ``before`` history (for an ending, ``before`` is history and no
  longer current);
* per conversation, the same figures; with ``--errors``, every missed and spurious one.

Run from the repository root: ``python benchmarks/profile_quality.py``
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from langmemcore.profiles.aspects import AspectStatement, is_single_valued
from langmemcore.profiles.extract import extract_statements

SET_PATH = Path(__file__).resolve().parents[1] / "tests" / "data" / "profile_facts.json"
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


def _words(value: str) -> set[str]:
    return set(value.casefold().split())


def _same(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


def _ends(ended: str, value: str) -> bool:
    """Whether an ending naming `ended` ends `value` (empty ends anything)."""
    return not ended or _words(ended) <= _words(value) or _words(value) <= _words(ended)


def _matches(found: AspectStatement, label: dict[str, object]) -> bool:
    if (found.subject.casefold(), found.aspect, found.ended) != (
        str(label["subject"]).casefold(),
        label["aspect"],
        label["ended"],
    ):
        return False
    value = str(label["value"])
    return _ends(found.value, value) if found.ended else _same(found.value, value)


def replay(statements: Iterable[AspectStatement]) -> dict[tuple[str, str], Slot]:
    """The profile the statements make, applied in order (see the set's conventions)."""
    profile: dict[tuple[str, str], Slot] = {}
    for st in statements:
        slot = profile.setdefault((st.subject.casefold(), st.aspect), Slot())
        if st.ended:
            gone = [v for v in slot.current if is_single_valued(st.aspect) or _ends(st.value, v)]
            if not gone and st.value and not any(_same(st.value, v) for v in slot.history):
                slot.history.append(st.value)
            slot.current = [v for v in slot.current if v not in gone]
            slot.history.extend(gone)
            continue
        if any(_same(st.value, v) for v in slot.current):
            continue
        slot.history = [v for v in slot.history if not _same(st.value, v)]
        if is_single_valued(st.aspect):
            slot.history.extend(slot.current)
            slot.current = []
        slot.current.append(st.value)
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


def main() -> None:
    """Print the figures (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET_PATH, help="the profile test set")
    parser.add_argument("--errors", action="store_true", help="print every miss and spurious")
    args = parser.parse_args()
    total, per = evaluate(args.set)
    print(
        f"{'conv':<6} {'precision':>9} {'recall':>7} {'changes':>8}  matched/extr matched/lab det"
    )
    for name, score in per.items():
        print(_line(name, score))
    print(_line("all", total))
    if args.errors:
        print("\n".join(total.errors))


if __name__ == "__main__":
    main()
