"""Thin async layer of the formal memory: query log, settlement (feedback), write
evidence, compaction to a budget, archive and restore.

Compaction never deletes: a note it drops is *archived* (``status = 'archived'``,
``archived_at`` set) with its sources, keywords and edges untouched, so every observation
stays the source of a note, archived notes can be searched on request
(:func:`archived_note_ids`) and :func:`restore` brings them back exactly as they were.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from langmemcore._errors import InvalidInputError, NotFoundError
from langmemcore._namespace import encode_namespace
from langmemcore.construction.apply import ApplyResult, lock_namespace
from langmemcore.formal.config import Budget, FormalConfig
from langmemcore.formal.coverage import CoverageInstance, coverage, greedy_max_coverage
from langmemcore.formal.expected import EdgeFacts, LoggedQuery, NoteFacts, expected_queries
from langmemcore.formal.precision import BetaBelief, edge_evidence, prior_belief, settle
from langmemcore.storage import formal_queries as fq
from langmemcore.storage.repository import Repository
from langmemcore.storage.search import channels

__all__ = [
    "CompactionReport",
    "apply_write_evidence",
    "archive",
    "archived_note_ids",
    "compact",
    "load_expected_queries",
    "over_budget",
    "record_query",
    "restore",
    "settle_feedback",
]


@dataclass(frozen=True)
class CompactionReport:
    """What one compaction did.

    Attributes:
        budget: The budget compacted to.
        before: Active notes before.
        kept: Notes kept, in the order greedy chose them.
        archived: Notes archived.
        expected_coverage: Share of the expected query mass the kept notes cover.
    """

    budget: Budget
    before: int
    kept: tuple[int, ...]
    archived: tuple[int, ...]
    expected_coverage: float


async def record_query(
    repo: Repository, namespace: Sequence[str], query: str, returned: Sequence[int]
) -> int:
    """Log a search and the notes it returned (rank order); returns the query id."""
    prepared = fq.insert_query(encode_namespace(namespace), query, returned)
    return int((await repo.session.execute(*prepared)).scalar_one())


async def _beliefs(
    repo: Repository, ns: str, note_ids: Sequence[int], config: FormalConfig
) -> dict[int, BetaBelief]:
    rows = await repo.session.execute(fq.note_beliefs(ns, note_ids, lock=True))
    return {
        i: BetaBelief(a, b)
        if a is not None and b is not None
        else prior_belief(c, config.prior_strength)
        for i, c, a, b, _status in rows
    }


async def _store_beliefs(repo: Repository, ns: str, beliefs: dict[int, BetaBelief]) -> None:
    if beliefs:
        await repo.session.execute(
            fq.update_beliefs(ns),
            [
                {"b_id": i, "b_alpha": b.alpha, "b_beta": b.beta, "b_confidence": b.tau}
                for i, b in beliefs.items()
            ],
        )


async def settle_feedback(
    repo: Repository,
    namespace: Sequence[str],
    query_id: int,
    note_ids: Sequence[int],
    outcome: float,
    config: FormalConfig,
) -> dict[int, float]:
    """Settle a logged query: the answer used ``note_ids`` and had ``outcome``.

    Adds the notes to the query's used notes, records the outcome, and updates each
    note's Beta belief by :func:`~langmemcore.formal.precision.settle` with weight
    ``config.feedback_weight``.

    Returns:
        The new confidence of each note.

    Raises:
        NotFoundError: The query or a note is not in the namespace.
        InvalidInputError: ``outcome`` is outside ``[0, 1]``.
    """
    ns = encode_namespace(namespace)
    ids = list(dict.fromkeys(int(i) for i in note_ids))
    row = (await repo.session.scalars(fq.query_for_update(ns, query_id))).one_or_none()
    if row is None:
        raise NotFoundError(f"query {query_id} is not logged in {tuple(namespace)}")
    beliefs = await _beliefs(repo, ns, ids, config)
    missing = [i for i in ids if i not in beliefs]
    if missing:
        raise NotFoundError(f"notes {missing} are not in {tuple(namespace)}")
    updated = {i: settle(beliefs[i], outcome, config.feedback_weight) for i in ids}
    used = list(dict.fromkeys([*row.used, *ids]))
    await repo.session.execute(fq.settle_query(ns, query_id, used, float(outcome)))
    await _store_beliefs(repo, ns, updated)
    return {i: b.tau for i, b in updated.items()}


async def apply_write_evidence(
    repo: Repository,
    namespace: Sequence[str],
    results: Sequence[ApplyResult],
    config: FormalConfig,
) -> None:
    """Agreement and contradiction from a write: merges (``w_merge`` to the grown note's
    alpha) and the supports / conflicts edges created (see
    :mod:`langmemcore.formal.precision`).
    """
    ns = encode_namespace(namespace)
    delta: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for result in results:
        if result.operation == "merge" and result.note_id is not None:
            delta[result.note_id][0] += config.merge_weight
    edge_ids = [e for r in results for e in r.edge_ids]
    if edge_ids:
        for source, target, relation, strength in await repo.session.execute(
            fq.edges_by_ids(ns, edge_ids)
        ):
            d_alpha, d_beta = edge_evidence(relation, strength, config.edge_weight)
            for note in (source, target):
                delta[note][0] += d_alpha
                delta[note][1] += d_beta
    delta = {i: d for i, d in delta.items() if d[0] or d[1]}
    if not delta:
        return
    beliefs = await _beliefs(repo, ns, list(delta), config)
    await _store_beliefs(
        repo,
        ns,
        {i: BetaBelief(b.alpha + delta[i][0], b.beta + delta[i][1]) for i, b in beliefs.items()},
    )


async def over_budget(repo: Repository, namespace: Sequence[str], budget: Budget) -> bool:
    """Whether the namespace's active notes exceed ``budget``."""
    if not budget.limited:
        return False
    notes, tokens = (await repo.session.execute(fq.active_usage(encode_namespace(namespace)))).one()
    return (budget.max_notes is not None and notes > budget.max_notes) or (
        budget.max_tokens is not None and tokens > budget.max_tokens
    )


async def load_expected_queries(
    repo: Repository, namespace: Sequence[str], config: FormalConfig, *, token_costs: bool
) -> CoverageInstance[int]:
    """The namespace's expected queries over its active notes
    (:func:`~langmemcore.formal.expected.expected_queries`).
    """
    ns = encode_namespace(namespace)
    notes = [
        NoteFacts(int(i), int(i), tuple(kw), int(t), float(c))
        for i, kw, t, c in await repo.session.execute(fq.active_note_facts(ns))
    ]
    edges = [
        EdgeFacts(int(s), int(t), float(w))
        for s, t, w in await repo.session.execute(fq.edges_among_active(ns))
    ]
    topic_keywords = list(await repo.session.scalars(fq.current_topic_keywords(ns)))
    log = [
        LoggedQuery(int(i), tuple(r), tuple(u))
        for i, r, u in await repo.session.execute(fq.recent_queries(ns, config.log_window))
    ]
    return expected_queries(notes, edges, topic_keywords, log, config, token_costs=token_costs)


def _keep(instance: CoverageInstance[int], budget: Budget, fraction: float) -> tuple[int, ...]:
    """Greedy max coverage within the budget (tokens first, then the note count)."""
    kept: tuple[int, ...] = instance.elements
    if budget.max_tokens is not None:
        kept = greedy_max_coverage(instance, budget.max_tokens * fraction).memory
    if budget.max_notes is not None:
        unit = CoverageInstance(instance.elements, instance.queries)
        kept = greedy_max_coverage(unit.restricted(kept), int(budget.max_notes * fraction)).memory
    return kept


async def compact(
    repo: Repository, namespace: Sequence[str], budget: Budget, config: FormalConfig
) -> CompactionReport:
    """Archive the notes of least marginal expected coverage until ``budget`` holds.

    Keeps the greedy weighted max-coverage memory of the namespace's expected queries
    (:func:`load_expected_queries`) within ``config.compact_to`` of the budget; archives
    the rest. Serialised with construction in the namespace.
    """
    if not budget.limited:
        raise InvalidInputError("compaction needs a budget (max_notes or max_tokens)")
    await lock_namespace(repo, namespace)
    instance = await load_expected_queries(
        repo, namespace, config, token_costs=budget.max_tokens is not None
    )
    kept = _keep(instance, budget, config.compact_to)
    keep = set(kept)
    dropped = [e for e in instance.elements if e not in keep]
    archived = await archive(repo, namespace, dropped, reason=f"compaction to {budget}")
    total = instance.total_mass
    share = coverage(instance, kept) / total if total > 0 else 1.0
    return CompactionReport(budget, len(instance.elements), kept, tuple(archived), share)


async def archive(
    repo: Repository, namespace: Sequence[str], note_ids: Sequence[int], *, reason: str
) -> list[int]:
    """Archive the active notes among ``note_ids`` (one lineage row each); returns them."""
    if not note_ids:
        return []
    ns = encode_namespace(namespace)
    done = sorted(int(i) for i in await repo.session.scalars(fq.archive_notes(ns, note_ids)))
    await repo.append_lineages(
        namespace,
        [
            {
                "operation": "archive",
                "note_id": i,
                "before": {"status": "active"},
                "after": {"status": fq.ARCHIVED},
                "reason": reason,
            }
            for i in done
        ],
    )
    return done


async def restore(repo: Repository, namespace: Sequence[str], note_ids: Sequence[int]) -> list[int]:
    """Bring archived notes back into memory exactly as archived; returns the ids restored.

    Raises:
        NotFoundError: A note is not in the namespace.
    """
    ns = encode_namespace(namespace)
    ids = list(dict.fromkeys(int(i) for i in note_ids))
    if not ids:
        return []
    found = {int(r[0]) for r in await repo.session.execute(fq.note_beliefs(ns, ids))}
    if len(found) != len(ids):
        raise NotFoundError(f"notes {sorted(set(ids) - found)} are not in {tuple(namespace)}")
    done = sorted(int(i) for i in await repo.session.scalars(fq.restore_notes(ns, ids)))
    await repo.append_lineages(
        namespace,
        [
            {
                "operation": "restore",
                "note_id": i,
                "before": {"status": fq.ARCHIVED},
                "after": {"status": "active"},
            }
            for i in done
        ],
    )
    return done


async def archived_note_ids(
    repo: Repository, namespace: Sequence[str], vector: Sequence[float], k: int
) -> list[int]:
    """Archived notes nearest to ``vector`` (cosine), best first."""
    stmt = channels.nearest_notes(encode_namespace(namespace), vector, k, statuses=(fq.ARCHIVED,))
    return [int(i) for i, _d in await repo.session.execute(*stmt)]
