"""Evidence-recall metrics under a turn budget, and a per-category aggregator.

A retriever returns ranked results (notes, turns, ...), each backed by one or more source turns.
Results are compared fairly by a *turn budget* k: walk the ranking, expand every result to its
source turn ids, and stop once k distinct turns are collected. Recall@k is the fraction of a
question's evidence turns among them; Hit@k is whether any is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from langmemcore._errors import InvalidInputError
from langmemcore.locomo import CATEGORY_NAMES, RETRIEVAL_CATEGORIES

DEFAULT_KS: tuple[int, ...] = (5, 10, 20)
"""Turn budgets reported by default."""


def turns_within_budget(ranked_sources: Sequence[Sequence[str]], k: int) -> list[str]:
    """Collect the first ``k`` distinct source turns of a ranking.

    Args:
        ranked_sources: One entry per ranked result, best first; each lists the result's
            source turn ids in order.
        k: The turn budget (non-negative).

    Returns:
        At most ``k`` distinct turn ids in the order first met; the last result's expansion is
        cut once ``k`` are collected.

    Raises:
        InvalidInputError: If ``k`` is negative.
    """
    if k < 0:
        raise InvalidInputError(f"turn budget must be non-negative, got {k}")
    collected: dict[str, None] = {}
    for sources in ranked_sources:
        for turn_id in sources:
            if len(collected) >= k:
                return list(collected)
            collected.setdefault(turn_id, None)
    return list(collected)


def _evidence_set(evidence: Sequence[str]) -> set[str]:
    """Distinct evidence ids; an empty set is an error (recall is undefined)."""
    wanted = set(evidence)
    if not wanted:
        raise InvalidInputError("evidence is empty: recall is undefined")
    return wanted


def recall_at_k(evidence: Sequence[str], retrieved_turns: Sequence[str]) -> float:
    """Fraction of the distinct evidence ids found among the retrieved turns.

    Args:
        evidence: Ground-truth turn ids (non-empty).
        retrieved_turns: Turn ids retrieved within the budget (see :func:`turns_within_budget`).

    Returns:
        A value in [0, 1].

    Raises:
        InvalidInputError: If ``evidence`` is empty.
    """
    wanted = _evidence_set(evidence)
    return len(wanted.intersection(retrieved_turns)) / len(wanted)


def hit_at_k(evidence: Sequence[str], retrieved_turns: Sequence[str]) -> bool:
    """Whether any evidence id is among the retrieved turns.

    Args:
        evidence: Ground-truth turn ids (non-empty).
        retrieved_turns: Turn ids retrieved within the budget.

    Returns:
        ``True`` if at least one evidence id was retrieved.

    Raises:
        InvalidInputError: If ``evidence`` is empty.
    """
    return not _evidence_set(evidence).isdisjoint(retrieved_turns)


@dataclass(frozen=True)
class RecallRow:
    """Aggregated figures for one group of questions (a category, or all of them)."""

    name: str
    """Group name (``"multi-hop"``, ..., ``"overall"``)."""
    n: int
    """Number of questions in the group."""
    recall: dict[int, float]
    """Mean recall per turn budget, in percent (empty when ``n`` is 0)."""
    hit: float | None
    """Mean Hit at the largest budget, in percent (``None`` when ``n`` is 0)."""


@dataclass
class _Sums:
    """Running sums for one group."""

    n: int = 0
    recall: dict[int, float] = field(default_factory=dict)
    hits: int = 0


class RecallTable:
    """Accumulates per-question recall by category and reports sample-weighted means.

    Only retrieval categories (1-4) are accepted. The overall row is the mean over all added
    questions, not the mean of category means.
    """

    def __init__(self, ks: Sequence[int] = DEFAULT_KS) -> None:
        """Create an empty table.

        Args:
            ks: Turn budgets to report, strictly increasing positive integers; Hit is reported
                at the largest.

        Raises:
            InvalidInputError: If ``ks`` is empty, not strictly increasing, or not positive.
        """
        budgets = tuple(ks)
        if not budgets or budgets[0] <= 0 or any(a >= b for a, b in pairwise(budgets)):
            raise InvalidInputError(
                f"ks must be strictly increasing positive integers, got {budgets}"
            )
        self.ks: tuple[int, ...] = budgets
        self._sums: dict[int, _Sums] = {category: _Sums() for category in RETRIEVAL_CATEGORIES}

    def add(
        self, category: int, ranked_sources: Sequence[Sequence[str]], evidence: Sequence[str]
    ) -> None:
        """Score one question's ranking and add it to its category.

        Args:
            category: Question category (1-4).
            ranked_sources: Ranked results, each expanded to its source turn ids.
            evidence: Ground-truth turn ids (non-empty).

        Raises:
            InvalidInputError: If the category is not a retrieval category or ``evidence`` is empty.
        """
        sums = self._sums.get(category)
        if sums is None:
            raise InvalidInputError(f"category {category} is not scored for retrieval")
        _evidence_set(evidence)
        largest = turns_within_budget(ranked_sources, self.ks[-1])
        sums.n += 1
        for k in self.ks:
            sums.recall[k] = sums.recall.get(k, 0.0) + recall_at_k(evidence, largest[:k])
        sums.hits += hit_at_k(evidence, largest)

    @property
    def n(self) -> int:
        """Number of questions added."""
        return sum(sums.n for sums in self._sums.values())

    def _row(self, name: str, groups: Sequence[_Sums]) -> RecallRow:
        """Sample-weighted means over the given groups."""
        n = sum(g.n for g in groups)
        if n == 0:
            return RecallRow(name=name, n=0, recall={}, hit=None)
        recall = {k: 100.0 * sum(g.recall.get(k, 0.0) for g in groups) / n for k in self.ks}
        return RecallRow(name=name, n=n, recall=recall, hit=100.0 * sum(g.hits for g in groups) / n)

    def rows(self) -> list[RecallRow]:
        """One row per retrieval category (ids 1-4, in order), then ``overall``.

        Returns:
            The rows; figures are percentages.
        """
        rows = [self._row(CATEGORY_NAMES[c], [self._sums[c]]) for c in RETRIEVAL_CATEGORIES]
        rows.append(self._row("overall", list(self._sums.values())))
        return rows

    def report(self) -> dict[str, RecallRow]:
        """Return the rows of :meth:`rows`, keyed by name."""
        return {row.name: row for row in self.rows()}

    def format_markdown(self) -> str:
        """Render a Markdown table: a row per category and overall; columns R@k..., Hit@max, n.

        Returns:
            The table, percentages with one decimal (``-`` for empty categories).
        """
        header = ["category", *(f"R@{k}" for k in self.ks), f"Hit@{self.ks[-1]}", "n"]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        for row in self.rows():
            figures = [row.recall.get(k) for k in self.ks] + [row.hit]
            cells = [row.name, *("-" if f is None else f"{f:.1f}" for f in figures), str(row.n)]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"
