"""The report of one LoCoMo evaluation run: per category, per conversation, per ablation,
and what the searches cost.

The per-conversation tables let a change be judged by the rule the project keeps (it must
help on at least 2 of the 3 dev conversations) from one run: every ablation's gain is
shown conversation by conversation, with the number of conversations on which the
mechanism pays (at least :data:`PAYS` points at R@5 or R@20 when it is on).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langmemcore.eval.metrics import RecallTable
from langmemcore.locomo import CATEGORY_NAMES, MULTI_HOP
from langmemcore.retrieval.cost import SearchCost

__all__ = ["PAYS", "EvalReport", "RunResult"]

PAYS = 0.5
"""Points at R@5 or R@20 a mechanism must add on a conversation to count as paying there."""

FULL = "full system"
"""Name of the full system's run in the per-conversation tables."""


@dataclass(frozen=True)
class RunResult:
    """Every question asked once with one setting.

    Attributes:
        table: All questions together.
        conversations: Sample id -> that conversation's questions.
        cost: Rounds and channel calls of its searches.
        seconds: Mean search latency.
    """

    table: RecallTable
    conversations: dict[str, RecallTable]
    cost: SearchCost
    seconds: float


def _overall(table: RecallTable, k: int) -> float:
    return table.report()["overall"].recall.get(k, 0.0)


def _multi_hop(table: RecallTable, k: int) -> float | None:
    row = table.report()[CATEGORY_NAMES[MULTI_HOP]]
    return row.recall.get(k) if row.n else None


@dataclass(frozen=True)
class EvalReport:
    """Results of one evaluation run.

    Attributes:
        system: The full system's table.
        baselines: Raw-turn baselines ("bm25", "dense", "rrf").
        ablations: Name -> table of each ablation run.
        query_seconds: Mean search latency of the full system.
        runs: Run name (``"full system"``, then each ablation) -> its result, with the
            per-conversation tables and the search cost.
    """

    system: RecallTable
    baselines: dict[str, RecallTable]
    ablations: dict[str, RecallTable]
    query_seconds: float
    runs: dict[str, RunResult] = field(default_factory=dict)

    def format_markdown(self) -> str:
        """The main table, the baselines' overall rows, the ablation table, the
        per-conversation tables and the search cost.
        """
        lines = ["### langmemcore (full system)", "", self.system.format_markdown(), ""]
        lines += [
            "### Overall recall, side by side",
            "",
            "| run | " + " | ".join(f"R@{k}" for k in self.system.ks) + " |",
            "|---|" + "---|" * len(self.system.ks),
        ]
        runs = {
            "langmemcore": self.system,
            **{f"baseline {n}": t for n, t in self.baselines.items()},
            **{f"ablation: {n}": t for n, t in self.ablations.items()},
        }
        for name, table in runs.items():
            cells = " | ".join(f"{_overall(table, k):.1f}" for k in table.ks)
            lines.append(f"| {name} | {cells} |")
        if self.runs:
            lines += ["", *self.per_conversation_lines(), "", *self.gain_lines()]
            lines += ["", *self.cost_lines()]
        return "\n".join(lines)

    def _conversation_ids(self) -> list[str]:
        return list(next(iter(self.runs.values())).conversations) if self.runs else []

    def per_conversation_lines(self) -> list[str]:
        """Each run's R@5 / R@10 / R@20 / multi-hop R@20, one column per conversation."""
        ids = self._conversation_ids()
        first = next(iter(self.runs.values()))
        header = [f"{i} (n={first.conversations[i].n})" for i in ids] + ["overall"]
        lines = [
            "### Per conversation (R@5 / R@10 / R@20 / multi-hop R@20)",
            "",
            "| run | " + " | ".join(header) + " |",
            "|---|" + "---|" * len(header),
        ]
        for name, run in self.runs.items():
            tables = [run.conversations[i] for i in ids] + [run.table]
            lines.append(f"| {name} | " + " | ".join(_cell(t) for t in tables) + " |")
        return lines

    def gain_lines(self) -> list[str]:
        """What each mechanism adds (the run with it minus the run without it: the full
        system minus a ``no ...`` run, a ``with ...`` run minus the full system) at R@5 and
        R@20, per conversation, and on how many conversations it pays.
        """
        full = self.runs.get(FULL)
        ids = self._conversation_ids()
        lines = [
            "### Gain of each mechanism (with it minus without it, R@5 / R@20)",
            "",
            "| ablation | " + " | ".join(ids) + " | overall | pays on |",
            "|---|" + "---|" * (len(ids) + 2),
        ]
        if full is None:
            return lines
        for name, run in self.runs.items():
            if name == FULL:
                continue
            pairs = [(full.conversations[i], run.conversations[i]) for i in ids]
            pairs.append((full.table, run.table))
            if name.startswith("with "):  # a mechanism the full system runs without
                pairs = [(b, a) for a, b in pairs]
            *gains, (g5, g20) = [_gain(a, b) for a, b in pairs]
            pays = sum(max(g) >= PAYS for g in gains)
            cells = [f"{g5:+.1f} / {g20:+.1f}" for g5, g20 in gains]
            cells += [f"{g5:+.1f} / {g20:+.1f}", f"{pays} of {len(ids)}"]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        return lines

    def cost_lines(self) -> list[str]:
        """Each run's share of searches with a sub-query round, rounds and channel calls
        per search, searches whose order supersession changed, and mean latency.
        """
        lines = [
            "### Search cost",
            "",
            "| run | searches with a sub-query round | sub-query rounds / search "
            "| channel calls / search | re-ordered by supersession | mean ms |",
            "|---|---|---|---|---|---|",
        ]
        for name, run in self.runs.items():
            cost = run.cost
            rounds = cost.subquery_rounds / cost.searches if cost.searches else 0.0
            lines.append(
                f"| {name} | {100 * cost.refined_share:.1f}% | {rounds:.2f} "
                f"| {cost.channel_calls_per_search:.2f} | {cost.superseded} "
                f"| {1000 * run.seconds:.1f} |"
            )
        return lines


def _gain(full: RecallTable, without: RecallTable) -> tuple[float, float]:
    """Full minus ablation at the smallest and the largest budget."""
    low, high = full.ks[0], full.ks[-1]
    return (
        _overall(full, low) - _overall(without, low),
        _overall(full, high) - _overall(without, high),
    )


def _cell(table: RecallTable) -> str:
    figures = [f"{_overall(table, k):.1f}" for k in table.ks]
    hop = _multi_hop(table, table.ks[-1])
    return " / ".join([*figures, "-" if hop is None else f"{hop:.1f}"])
