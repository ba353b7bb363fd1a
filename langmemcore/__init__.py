"""langmemcore: long-term memory for LLM agents, as a LangGraph / LangChain plugin.

MemCoRe's compression hierarchy (notes -> keywords -> topics), MRAgent's active
traversal and the formal capacity / coverage / precision view of memory, persisted in
Postgres + pgvector.
"""

from __future__ import annotations

from langmemcore._errors import (
    ConfigurationError,
    DatabaseUnavailableError,
    InvalidInputError,
    InvalidNamespaceError,
    LangMemCoreError,
    LLMOutputError,
    LLMSkippedError,
    LLMUnavailableError,
    MigrationRequiredError,
    NotFoundError,
    ObservationConflictError,
)
from langmemcore.agents import (
    MemoryMiddleware,
    create_manage_memory_tool,
    create_memory_tools,
    create_profile_tool,
    create_search_memory_tool,
    create_timeline_tool,
    create_traversal_tools,
)
from langmemcore.config import ConstructionConfig, LLMConfig, RetrievalConfig
from langmemcore.construction.bulk import IngestReport
from langmemcore.construction.ingest import ObservationIn
from langmemcore.embeddings import LocalEmbeddings, resolve_embeddings
from langmemcore.formal.config import FormalConfig
from langmemcore.formal.layer import SearchResults
from langmemcore.memory import Memory
from langmemcore.profiles.profile import Profile
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.retriever import MemoryRetriever
from langmemcore.storage import Database, Repository
from langmemcore.store import MemoryStore

__version__ = "0.1.0"

__all__ = [
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
]
