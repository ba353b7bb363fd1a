"""The retrieval graph's state, input and runtime context (its dependencies)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, ClassVar, Required

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langgraph.runtime import Runtime
from pydantic import ConfigDict
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from langmemcore.config import RetrievalConfig
from langmemcore.retrieval.channels import QueryPlan
from langmemcore.retrieval.fusion import ChannelRanking, Fused
from langmemcore.retrieval.pack import RetrievedNote
from langmemcore.storage.database import Database

__all__ = ["Ctx", "RetrievalContext", "RetrievalInput", "RetrievalState"]


@dataclass
class RetrievalContext:
    """Dependencies of the retrieval graph's nodes (LangGraph runtime context).

    Its JSON schema (``get_context_jsonschema()``, the Agent Server's context form)
    describes the settings; the in-process dependencies are left out of it.

    Attributes:
        database: Where memory lives.
        embeddings: Embedder of queries.
        config: Retrieval settings (without their ``llm_only`` mechanisms when there is no
            ``llm``).
        llm: Optional chat model for decomposition and the sufficiency loop.
    """

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(arbitrary_types_allowed=True)

    database: SkipJsonSchema[Database]
    embeddings: SkipJsonSchema[Embeddings]
    config: RetrievalConfig
    llm: SkipJsonSchema[BaseChatModel | None] = None

    def __post_init__(self) -> None:
        """Without a chat model, the settings' ``llm_only`` mechanisms are skipped."""
        if self.llm is None:
            self.config = self.config.offline()


class RetrievalState(TypedDict, total=False):
    """State flowing through the retrieval graph."""

    namespace: tuple[str, ...]
    query: str
    k: int
    token_budget: int | None
    min_confidence: float | None
    as_of: datetime | None
    channels: tuple[str, ...]
    group: tuple[str, ...]
    plan: QueryPlan
    current: QueryPlan
    asked: list[str]
    rankings: Annotated[list[ChannelRanking], operator.add]
    fused: list[Fused]
    sufficient: bool
    missing: str
    subquery: str | None
    subquery_keywords: tuple[str, ...]
    refinable: bool
    results: list[RetrievedNote]


class RetrievalInput(TypedDict, total=False):
    """What one search takes (the output is the whole state; its ``results`` are the
    evidence). ``as_of`` (timezone-aware) is the reference time: memory as it stood then,
    relative dates in the query read against it; absent or ``None``, it is now.
    """

    namespace: Required[tuple[str, ...]]
    query: Required[str]
    k: int
    token_budget: int | None
    min_confidence: float | None
    as_of: datetime | None


Ctx = Runtime[RetrievalContext]
