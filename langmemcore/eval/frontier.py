"""The utility-capacity frontier of a memory, and where its compaction policy sits on it.

Sequential setting (the formal paper's Level 1b): per namespace, a fixed-seed half of the
questions is *disclosed* first, asked through :meth:`Memory.asearch` (which logs them) and
settled with :meth:`Memory.afeedback` naming the gold evidence notes as used; the other
half *scores*. A scoring question is covered when every one of its evidence observations
is a source of an active note (the formal paper's coverage utility with conjunctive
requirements, mass uniform over the scoring half).

At each capacity ``S`` (a share of the namespace's note count) it measures:

- **policy**: what :meth:`Memory.acompact` keeps at ``S`` (archived notes are restored
  right after, exactly);
- **recency**: the ``S`` newest notes (keep-newest eviction);
- **random**: ``S`` notes drawn with the fixed seed;
- **oracle**: ``U*(S)`` on the scoring half itself, by enumeration when the instance is
  small enough, else greedy (a lower bound; the report says which);
- **full**: the full-memory baseline (every note kept).

The memory-efficiency loss of the policy is ``oracle - policy``. With truth labels (a set
of true notes) coverage, precision and the water-inflation degree are also reported.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from langmemcore._namespace import encode_namespace
from langmemcore._progress import ProgressLike, progress_callback
from langmemcore.formal.coverage import CoverageInstance, CoverageQuery, coverage, precision
from langmemcore.formal.max_coverage import DEFAULT_EXACT_LIMIT, frontier
from langmemcore.io import conversation_observations
from langmemcore.locomo import Conversation
from langmemcore.memory import Memory
from langmemcore.storage.repository import Repository

__all__ = [
    "DEFAULT_SHARES",
    "TABLE_SHARES",
    "CurvePoint",
    "FrontierReport",
    "GoldQuery",
    "NamespaceCurve",
    "frontier_locomo",
    "gold_instance",
    "namespace_curve",
    "split_questions",
]

TABLE_SHARES = (0.25, 0.5, 0.75)
"""Capacities (shares of the note count) of the summary table."""

DEFAULT_SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0)
"""Capacities of the curve (and the plot)."""

POLICIES = ("policy", "recency", "random", "oracle")
"""Columns of the curve, in report order."""


@dataclass(frozen=True)
class GoldQuery:
    """A question with the keys of the observations that answer it together.

    Attributes:
        text: The question.
        evidence: Observation keys, all needed.
    """

    text: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class CurvePoint:
    """Covered scoring mass of each policy at one capacity of one namespace.

    Attributes:
        share: Capacity as a share of the note count.
        capacity: ``S`` in notes.
        covered: Policy -> covered scoring questions (mass, in questions).
        method: ``"exact"`` or ``"greedy"`` for the oracle.
        precision: Policy -> mass covered by true notes only (with truth labels).
    """

    share: float
    capacity: int
    covered: dict[str, float]
    method: str
    precision: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class NamespaceCurve:
    """One namespace's curve.

    Attributes:
        name: The namespace's label in reports.
        notes: Active notes at full memory.
        scoring: Scoring questions.
        full: Scoring questions the full memory covers.
        points: One per capacity.
    """

    name: str
    notes: int
    scoring: int
    full: float
    points: tuple[CurvePoint, ...]


def split_questions(
    questions: Sequence[GoldQuery], seed: int, name: str
) -> tuple[list[GoldQuery], list[GoldQuery]]:
    """A fixed-seed half (rounded down) to disclose and the rest to score."""
    order = list(range(len(questions)))
    random.Random(f"{seed}:{name}").shuffle(order)
    half = len(order) // 2
    return [questions[i] for i in sorted(order[:half])], [
        questions[i] for i in sorted(order[half:])
    ]


def gold_instance(
    notes: Sequence[int], note_of: dict[str, int], questions: Sequence[GoldQuery]
) -> CoverageInstance[int]:
    """Coverage instance of ``questions`` (mass 1 each) over ``notes``: a question needs
    every note holding one of its evidence observations (none if one is missing).
    """
    queries = []
    for index, question in enumerate(questions):
        needed = [note_of.get(key) for key in question.evidence]
        ok = bool(needed) and all(n is not None for n in needed)
        requirement = (frozenset(n for n in needed if n is not None),) if ok else ()
        queries.append(CoverageQuery(index, 1.0, requirement))
    return CoverageInstance(tuple(notes), tuple(queries))


async def _note_map(memory: Memory, namespace: tuple[str, ...]) -> tuple[list[int], dict[str, int]]:
    """Active note ids (oldest first) and observation key -> the note holding it."""
    async with Repository.open(memory.database) as repo:
        note_of = await repo.note_of_observation_keys(namespace)
        ids = await repo.active_note_ids(namespace)
    return ids, note_of


async def namespace_curve(
    memory: Memory,
    namespace: tuple[str, ...],
    disclosed: Sequence[GoldQuery],
    scoring: Sequence[GoldQuery],
    *,
    shares: Sequence[float] = DEFAULT_SHARES,
    seed: int = 0,
    true_notes: Collection[int] | None = None,
    k: int = 20,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
) -> NamespaceCurve:
    """Disclose, then measure every policy at every capacity (see the module doc).

    Args:
        memory: The memory (the namespace already written, no budget configured).
        namespace: The namespace.
        disclosed: Questions asked and settled first.
        scoring: Questions that score.
        shares: Capacities as shares of the note count.
        seed: Seed of random eviction.
        true_notes: True notes, when truth labels exist (precision and water inflation).
        k: Notes each disclosed search returns.
        exact_limit: Largest enumeration of the exact oracle per capacity.
    """
    notes, note_of = await _note_map(memory, namespace)
    for question in disclosed:
        results = await memory.asearch(namespace, question.text, k=k)
        used = sorted({note_of[key] for key in question.evidence if key in note_of})
        if results.query_id is not None and used:
            await memory.afeedback(namespace, results.query_id, used, 1.0)
    instance = gold_instance(notes[::-1], note_of, scoring)
    rng = random.Random(seed)
    points = []
    for share in sorted(set(shares)):
        size = round(share * len(notes))
        report = await memory.acompact(namespace, max_notes=size)
        await memory.arestore(namespace, report.archived)
        oracle = frontier(instance, [size], exact_limit=exact_limit).points[0]
        kept = {
            "policy": report.kept,
            "recency": notes[len(notes) - size :] if size else [],
            "random": rng.sample(notes, size),
            "oracle": oracle.memory,
        }
        covered = {p: coverage(instance, kept[p]) for p in POLICIES}
        precise = (
            {p: precision(instance, kept[p], true_notes) for p in POLICIES}
            if true_notes is not None
            else {}
        )
        points.append(CurvePoint(share, size, covered, oracle.method, precise))
    name = encode_namespace(namespace)
    return NamespaceCurve(name, len(notes), len(scoring), coverage(instance, notes), tuple(points))


@dataclass(frozen=True)
class FrontierReport:
    """Curves of several namespaces, pooled (covered questions over scoring questions).

    Attributes:
        curves: One per namespace.
    """

    curves: tuple[NamespaceCurve, ...]

    @property
    def scoring(self) -> int:
        """Scoring questions in all."""
        return sum(c.scoring for c in self.curves)

    def shares(self) -> list[float]:
        """Capacities measured in every namespace."""
        common = set.intersection(*({p.share for p in c.points} for c in self.curves))
        return sorted(common)

    def _point(self, curve: NamespaceCurve, share: float) -> CurvePoint:
        return next(p for p in curve.points if p.share == share)

    def pooled(self, share: float, policy: str, *, precise: bool = False) -> float:
        """Covered share (percent) of all scoring questions for ``policy`` at ``share``."""
        total = 0.0
        for curve in self.curves:
            point = self._point(curve, share)
            total += (point.precision if precise else point.covered)[policy]
        return 100.0 * total / max(1, self.scoring)

    def method(self, share: float) -> str:
        """``exact`` if every namespace's oracle was enumerated at ``share``, else greedy."""
        methods = {self._point(c, share).method for c in self.curves}
        return "exact" if methods == {"exact"} else "greedy"

    @property
    def full(self) -> float:
        """Full-memory baseline (percent of scoring questions covered)."""
        return 100.0 * sum(c.full for c in self.curves) / max(1, self.scoring)

    @property
    def has_truth(self) -> bool:
        """Whether precision was measured."""
        return all(p.precision for c in self.curves for p in c.points)

    def rows(self, shares: Sequence[float] | None = None) -> list[dict[str, object]]:
        """One row per capacity: coverage of each policy (percent), loss, oracle method."""
        result: list[dict[str, object]] = []
        for share in shares if shares is not None else self.shares():
            row: dict[str, object] = {
                "share": share,
                "notes": sum(self._point(c, share).capacity for c in self.curves),
            }
            for policy in POLICIES:
                row[policy] = round(self.pooled(share, policy), 2)
            if self.has_truth:
                for policy in POLICIES:
                    precise = self.pooled(share, policy, precise=True)
                    row[f"{policy}_precision"] = round(precise, 2)
                    row[f"{policy}_inflation"] = round(self.pooled(share, policy) - precise, 2)
            row["policy_loss"] = round(
                self.pooled(share, "oracle") - self.pooled(share, "policy"), 2
            )
            row["oracle_method"] = self.method(share)
            row["full"] = round(self.full, 2)
            result.append(row)
        return result

    def format_markdown(self, shares: Sequence[float] = TABLE_SHARES) -> str:
        """The summary table (coverage in percent of the scoring questions)."""
        lines = [
            f"scoring questions: {self.scoring} in {len(self.curves)} namespaces; "
            f"notes at full memory: {sum(c.notes for c in self.curves)}; "
            f"full-memory baseline: {self.full:.1f}",
            "",
            "| capacity | notes | policy | recency | random | oracle U*(S) | policy loss |"
            " oracle |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in self.rows([s for s in shares if s in self.shares()]):
            lines.append(
                f"| {float(str(row['share'])):.0%} | {row['notes']} | {row['policy']:.1f} | "
                f"{row['recency']:.1f} | {row['random']:.1f} | {row['oracle']:.1f} | "
                f"{row['policy_loss']:.1f} | {row['oracle_method']} |"
            )
        if self.has_truth:
            lines += [
                "",
                "| capacity | policy coverage | policy precision | water inflation |",
                "|---|---|---|---|",
            ]
            for row in self.rows([s for s in shares if s in self.shares()]):
                lines.append(
                    f"| {float(str(row['share'])):.0%} | {row['policy']:.1f} | "
                    f"{row['policy_precision']:.1f} | {row['policy_inflation']:.1f} |"
                )
        else:
            lines += ["", "no truth labels: precision equals coverage, water inflation 0"]
        return "\n".join(lines)

    def write_csv(self, path: Path) -> None:
        """Every capacity's row, as CSV."""
        rows = self.rows()
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    def plot(self, path: Path) -> None:
        """The curves as a PNG (needs matplotlib: ``pip install langmemcore[eval]``)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        shares = self.shares()
        figure, axes = plt.subplots(figsize=(7, 4.5))
        styles = {"oracle": "k-", "policy": "C0o-", "recency": "C1s--", "random": "C2^:"}
        for policy in ("oracle", "policy", "recency", "random"):
            label = f"oracle U*(S) ({self.method(shares[0])})" if policy == "oracle" else policy
            axes.plot(
                [100 * s for s in shares],
                [self.pooled(s, policy) for s in shares],
                styles[policy],
                label=label,
            )
        axes.axhline(self.full, color="grey", linewidth=0.8, label="full memory")
        axes.set_xlabel("capacity S (% of notes)")
        axes.set_ylabel("scoring questions covered (%)")
        axes.set_ylim(0, 105)
        axes.legend(loc="lower right")
        axes.grid(alpha=0.3)
        figure.tight_layout()
        figure.savefig(path, dpi=120)
        plt.close(figure)


async def frontier_locomo(
    memory: Memory,
    conversations: Sequence[Conversation],
    *,
    prefix: str,
    seed: int = 0,
    shares: Sequence[float] = DEFAULT_SHARES,
    progress: ProgressLike = None,
) -> FrontierReport:
    """The sequential frontier evaluation on LoCoMo conversations (categories 1-4), each
    conversation in its own namespace ``(prefix, sample_id)``.
    """
    report = progress_callback(progress, "conversations")
    curves = []
    for done, conversation in enumerate(conversations, start=1):
        namespace = (prefix, conversation.sample_id)
        await memory.aingest_many(namespace, conversation_observations(conversation))
        questions = [GoldQuery(q.question, q.evidence) for q in conversation.retrieval_questions]
        disclosed, scoring = split_questions(questions, seed, conversation.sample_id)
        curves.append(
            await namespace_curve(memory, namespace, disclosed, scoring, shares=shares, seed=seed)
        )
        if report:
            report(done, len(conversations))
    return FrontierReport(tuple(curves))
