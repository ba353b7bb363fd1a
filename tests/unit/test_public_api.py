"""The public API, pinned: the ``__all__`` of the package and of each public subpackage.

A change to a list here is a change to the public API, made on purpose. Each ``__all__`` is
sorted the way ruff's RUF022 sorts (constants, then classes, then the rest, each in natural
order), has no duplicates, and every name in it resolves.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "langmemcore"

PUBLIC_API: dict[str, list[str]] = {
    "langmemcore": [
        "ConfigurationError",
        "ConstructionConfig",
        "Database",
        "DatabaseUnavailableError",
        "FormalConfig",
        "IngestReport",
        "InvalidInputError",
        "InvalidNamespaceError",
        "LLMConfig",
        "LLMOutputError",
        "LLMSkippedError",
        "LLMUnavailableError",
        "LangMemCoreError",
        "LocalEmbeddings",
        "Memory",
        "MemoryMiddleware",
        "MemoryRetriever",
        "MemoryStore",
        "MigrationRequiredError",
        "NotFoundError",
        "ObservationConflictError",
        "ObservationIn",
        "Profile",
        "Repository",
        "RetrievalConfig",
        "RetrievedNote",
        "SearchResults",
        "__version__",
        "create_manage_memory_tool",
        "create_memory_tools",
        "create_profile_tool",
        "create_search_memory_tool",
        "create_timeline_tool",
        "create_traversal_tools",
        "resolve_embeddings",
    ],
    "langmemcore.agents": [
        "DEFAULT_NAMESPACE",
        "MemoryMiddleware",
        "NamespaceLike",
        "NamespaceTemplate",
        "create_manage_memory_tool",
        "create_memory_tools",
        "create_profile_tool",
        "create_search_memory_tool",
        "create_timeline_tool",
        "create_traversal_tools",
    ],
    "langmemcore.cli": [
        "build_parser",
        "main",
        "positive_int",
    ],
    "langmemcore.construction": [
        "ApplyResult",
        "Candidate",
        "ConstructionContext",
        "ConstructionState",
        "Decision",
        "GateResult",
        "NoteDraft",
        "ObservationIn",
        "TopicSummary",
        "build_construction_graph",
        "calibrated_strength",
        "decide",
        "merge_contexts",
        "partition_keywords",
    ],
    "langmemcore.demo": [
        "DemoConversation",
        "DemoResult",
        "load_demo_conversation",
        "run_demo",
    ],
    "langmemcore.embeddings": [
        "LOCAL_MODEL_NAME",
        "EmbeddingsLike",
        "LocalEmbeddings",
        "embedding_dims",
        "resolve_embeddings",
    ],
    "langmemcore.eval": [
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
    ],
    "langmemcore.formal": [
        "BetaBelief",
        "Budget",
        "CoverageInstance",
        "CoverageQuery",
        "FormalConfig",
        "Frontier",
        "FrontierPoint",
        "GreedyResult",
        "coverage",
        "edge_evidence",
        "efficiency_loss",
        "exact_max_coverage",
        "frontier",
        "full_memory_value",
        "greedy_max_coverage",
        "precision",
        "prior_belief",
        "settle",
        "water_inflation",
    ],
    "langmemcore.profiles": [
        "ASPECTS",
        "SINGLE_VALUED",
        "AspectStatement",
        "AspectValues",
        "Profile",
        "ProfileLayer",
        "ProfileSource",
        "ProfileValue",
        "SubjectSummary",
        "is_single_valued",
    ],
    "langmemcore.prompts": [
        "CircuitBreaker",
        "LLMUsage",
        "StepUsage",
        "call_model",
        "call_structured",
        "configure_model",
        "current_usage",
        "extract_json",
        "grounded_context",
        "guard_for",
        "reject",
        "supported",
        "track_usage",
    ],
    "langmemcore.retrieval": [
        "ChannelRanking",
        "Fused",
        "QueryPlan",
        "RetrievalContext",
        "RetrievalState",
        "RetrievedNote",
        "SourceRef",
        "build_retrieval_graph",
        "fuse",
    ],
    "langmemcore.storage": [
        "Database",
        "ObservationRecord",
        "Repository",
        "Scored",
        "downgrade",
        "head_revision",
        "resolve_database_url",
        "upgrade",
    ],
    "langmemcore.store": [
        "MemorySearchItem",
        "MemoryStore",
    ],
    "langmemcore.text": [
        "STOPWORDS",
        "NoteDraftText",
        "QueryAnalysis",
        "TimeMention",
        "analyze_observation",
        "analyze_query",
        "content_stem_set",
        "content_term_set",
        "content_terms",
        "extract_entities",
        "extract_keywords",
        "format_time_mention",
        "normalize_keyword",
        "parse_event_time",
        "resolve_first_person",
        "resolve_time_mentions",
        "singularize",
        "stem",
        "tokenize",
    ],
}
"""Every public package and its exported names."""


def _natural(name: str) -> tuple[tuple[int, int, str], ...]:
    """Runs of digits compare as numbers, the rest as text."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", name)
        if part
    )


def export_order(name: str) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    """RUF022's order: SCREAMING_CASE constants, then CamelCase classes, then the rest."""
    if len(name) > 1 and name.isupper():
        group = 0
    elif name[0].isupper():
        group = 1
    else:
        group = 2
    return group, _natural(name)


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


def test_export_order_sorts_like_ruff() -> None:
    """Constants first, then classes, then functions and variables; digits by value."""
    names = ["run", "Memory", "TOP_K", "__version__", "BM25Index", "BM3Index", "LLMError"]
    assert sorted(names, key=export_order) == [
        "TOP_K",
        "BM3Index",
        "BM25Index",
        "LLMError",
        "Memory",
        "__version__",
        "run",
    ]


@pytest.mark.parametrize("package", sorted(PUBLIC_API))
def test_public_api_pinned(package: str) -> None:
    """The package exports exactly the pinned names."""
    assert list(_module(package).__all__) == PUBLIC_API[package]


@pytest.mark.parametrize("package", sorted(PUBLIC_API))
def test_all_sorted_unique_and_resolving(package: str) -> None:
    """``__all__`` is sorted, has no duplicates, and every name is an attribute."""
    module = _module(package)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=export_order), f"{package}.__all__ is not sorted"
    assert len(set(exported)) == len(exported), f"{package}.__all__ has duplicates"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names what it does not define: {missing}"


def test_every_public_subpackage_is_pinned() -> None:
    """A subpackage without a leading underscore is public, so it is pinned here."""
    subpackages = {
        "langmemcore." + path.parent.name
        for path in PACKAGE_ROOT.glob("*/__init__.py")
        if not path.parent.name.startswith("_")
    }
    assert subpackages | {"langmemcore"} == set(PUBLIC_API)
