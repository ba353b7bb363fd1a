"""Evaluation on LoCoMo, what ``langmemcore eval`` runs: turn-budget evidence recall and
raw-turn baselines, with the LoCoMo format of :mod:`langmemcore.locomo` (re-exported here).
"""

from __future__ import annotations

from langmemcore.eval.baselines import (
    ENGLISH_STOPWORDS,
    BM25Index,
    Embedder,
    dense_rank,
    rrf_fuse,
    run_turn_baselines,
    tokenize,
    turn_document,
)
from langmemcore.eval.metrics import (
    DEFAULT_KS,
    RecallRow,
    RecallTable,
    hit_at_k,
    recall_at_k,
    turns_within_budget,
)
from langmemcore.locomo import (
    ADVERSARIAL,
    CATEGORY_NAMES,
    MULTI_HOP,
    OPEN_DOMAIN,
    RETRIEVAL_CATEGORIES,
    SINGLE_HOP,
    TEMPORAL,
    Conversation,
    EvidenceReport,
    Question,
    Turn,
    evidence_report,
    load_locomo,
    parse_locomo,
    parse_session_datetime,
    repair_evidence_ids,
)

__all__ = [
    "ADVERSARIAL",
    "CATEGORY_NAMES",
    "DEFAULT_KS",
    "ENGLISH_STOPWORDS",
    "MULTI_HOP",
    "OPEN_DOMAIN",
    "RETRIEVAL_CATEGORIES",
    "SINGLE_HOP",
    "TEMPORAL",
    "BM25Index",
    "Conversation",
    "Embedder",
    "EvidenceReport",
    "Question",
    "RecallRow",
    "RecallTable",
    "Turn",
    "dense_rank",
    "evidence_report",
    "hit_at_k",
    "load_locomo",
    "parse_locomo",
    "parse_session_datetime",
    "recall_at_k",
    "repair_evidence_ids",
    "rrf_fuse",
    "run_turn_baselines",
    "tokenize",
    "turn_document",
    "turns_within_budget",
]
