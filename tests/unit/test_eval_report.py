"""The evaluation report's per-conversation, gain and cost tables, on hand-made runs."""

from __future__ import annotations

from langmemcore.eval.metrics import RecallTable
from langmemcore.eval.report import FULL, EvalReport, RunResult
from langmemcore.retrieval.cost import SearchCost, count, track_search_cost


def _table(found: list[bool], category: int = 4) -> RecallTable:
    """One question per entry: its evidence ``e`` found at rank 1, or not at all."""
    table = RecallTable()
    for hit in found:
        table.add(category, [["e"]] if hit else [["x"]], ["e"])
    return table


def _run(a: list[bool], b: list[bool], cost: SearchCost | None = None) -> RunResult:
    both = _table(a + b)
    return RunResult(both, {"conv-a": _table(a), "conv-b": _table(b)}, cost or SearchCost(), 0.05)


def _report() -> EvalReport:
    full = _run([True, True], [True, False], SearchCost(4, 1, 3, 26))
    runs = {
        FULL: full,
        "no topic channel": _run([True, False], [True, False]),
        "no time channel": _run([True, True], [True, True]),
    }
    tables = {name: run.table for name, run in runs.items() if name != FULL}
    return EvalReport(full.table, {}, tables, 0.05, runs)


def _row(text: str, start: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(start))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_per_conversation_rows_show_each_conversation_and_overall() -> None:
    text = _report().format_markdown()
    header = _row(text, "| run | conv-a")
    assert header == ["run", "conv-a (n=2)", "conv-b (n=2)", "overall"]
    full = _row(text, "| full system | 100.0")
    assert full == [
        "full system",
        "100.0 / 100.0 / 100.0 / -",
        "50.0 / 50.0 / 50.0 / -",
        "75.0 / 75.0 / 75.0 / -",
    ]


def test_gains_are_full_minus_ablation_and_count_paying_conversations() -> None:
    text = _report().format_markdown()
    assert _row(text, "| no topic channel | +") == [
        "no topic channel",
        "+50.0 / +50.0",
        "+0.0 / +0.0",
        "+25.0 / +25.0",
        "1 of 2",
    ]
    assert _row(text, "| no time channel | +")[-1] == "0 of 2"
    assert _row(text, "| no time channel | +")[2] == "-50.0 / -50.0"


def test_multi_hop_recall_is_shown_where_the_conversation_has_such_questions() -> None:
    table = _table([True])
    table.add(1, [["x"], ["e1"]], ["e1", "e2"])
    run = RunResult(table, {"conv-a": table}, SearchCost(), 0.0)
    report = EvalReport(table, {}, {}, 0.0, {FULL: run})
    assert _row(report.format_markdown(), "| full system | 75.0")[1] == "75.0 / 75.0 / 75.0 / 50.0"


def test_cost_table_reports_share_rounds_and_calls() -> None:
    text = _report().format_markdown()
    row = _row(text, "| full system | 25.0%")
    assert row == ["full system", "25.0%", "0.75", "6.50", "0", "50.0"]


def test_counting_happens_only_inside_a_tracked_block() -> None:
    count(searches=1)
    with track_search_cost() as cost:
        count(searches=2, refined=1, subquery_rounds=2, channel_calls=9, superseded=1)
        with track_search_cost() as inner:
            count(searches=1)
        count(channel_calls=1)
    count(searches=5)
    assert (cost.searches, cost.refined, cost.subquery_rounds, cost.channel_calls) == (2, 1, 2, 10)
    assert inner.searches == 1 and cost.superseded == 1
    assert cost.refined_share == 0.5 and cost.channel_calls_per_search == 5.0
    assert SearchCost().refined_share == 0.0
