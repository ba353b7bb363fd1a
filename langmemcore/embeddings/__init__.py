"""Embedders: any LangChain ``Embeddings``, a ``"provider:model"`` string, or the local
all-MiniLM-L6-v2 default (no hub access).
"""

from __future__ import annotations

from langmemcore.embeddings._local import LOCAL_MODEL_NAME, LocalEmbeddings
from langmemcore.embeddings._resolve import EmbeddingsLike, embedding_dims, resolve_embeddings

__all__ = [
    "LOCAL_MODEL_NAME",
    "EmbeddingsLike",
    "LocalEmbeddings",
    "embedding_dims",
    "resolve_embeddings",
]
