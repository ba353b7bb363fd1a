"""Turn what the user passed as ``embeddings=`` into a LangChain ``Embeddings``."""

from __future__ import annotations

from typing import Union

from langchain_core.embeddings import Embeddings

from langmemcore._errors import ConfigurationError
from langmemcore.embeddings._local import LOCAL_DIMS, LOCAL_MODEL_NAME, LocalEmbeddings

__all__ = ["EmbeddingsLike", "embedding_dims", "resolve_embeddings"]

EmbeddingsLike = Union[Embeddings, str, None]
"""An ``Embeddings`` instance, a ``"provider:model"`` string, or ``None`` (local default)."""

_LOCAL_NAMES = {
    "local",
    LOCAL_MODEL_NAME.lower(),
    f"sentence-transformers/{LOCAL_MODEL_NAME}".lower(),
}


def resolve_embeddings(spec: EmbeddingsLike) -> Embeddings:
    """Resolve an embeddings specification.

    Args:
        spec: ``None`` or ``"local"`` for the bundled all-MiniLM-L6-v2; an ``Embeddings``
            instance as is; ``"openai:<model>"`` for ``langchain_openai.OpenAIEmbeddings``
            (OpenAI-compatible endpoints via ``OPENAI_BASE_URL``); any other
            ``"provider:model"`` through ``langchain.embeddings.init_embeddings`` when the
            ``langchain`` package is installed.

    Returns:
        A LangChain ``Embeddings``.

    Raises:
        ConfigurationError: If the specification cannot be resolved.
    """
    if spec is None:
        return LocalEmbeddings()
    if isinstance(spec, Embeddings):
        return spec
    if not isinstance(spec, str):
        raise ConfigurationError(f"embeddings must be Embeddings, a string or None, got {spec!r}")
    provider, _, model = spec.partition(":")
    if spec.lower() in _LOCAL_NAMES or (provider == "local" and model.lower() in _LOCAL_NAMES):
        return LocalEmbeddings()
    if not model:
        raise ConfigurationError(f"expected 'provider:model', got {spec!r}")
    if provider == "openai":
        from langchain_openai import OpenAIEmbeddings

        return OpenAIEmbeddings(model=model)
    try:
        from langchain.embeddings import init_embeddings
    except ImportError as exc:
        raise ConfigurationError(
            f"unknown embeddings provider {provider!r}: pass an Embeddings instance, "
            "or install 'langchain' for init_embeddings()"
        ) from exc
    return init_embeddings(spec)


def embedding_dims(embeddings: Embeddings) -> int:
    """The dimensions of an embedder's vectors (known for the local model, else probed)."""
    if isinstance(embeddings, LocalEmbeddings):
        return LOCAL_DIMS
    return len(embeddings.embed_query("dimension probe"))
