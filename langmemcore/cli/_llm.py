"""The chat model of a command (``--llm provider:model``), as the embedder's ``--embeddings``."""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from langmemcore._errors import ConfigurationError

__all__ = ["ACTIVE_NEEDS_LLM", "chat_model"]

ACTIVE_NEEDS_LLM = (
    "search --active needs a tool-calling chat model: pass --llm openai:<model> "
    "(an OpenAI-compatible endpoint via OPENAI_BASE_URL and OPENAI_API_KEY)"
)
"""The error of ``search --active`` without ``--llm``."""


def _openai(model: str) -> BaseChatModel:
    """``ChatOpenAI``; a server named by ``OPENAI_BASE_URL`` needs no API key."""
    from langchain_openai import ChatOpenAI

    key = os.environ.get("OPENAI_API_KEY") or ("none" if os.environ.get("OPENAI_BASE_URL") else "")
    if not key:
        raise ConfigurationError(
            "--llm openai:<model> needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local "
            "OpenAI-compatible server)"
        )
    return ChatOpenAI(model=model, api_key=SecretStr(key))


def chat_model(spec: str) -> BaseChatModel:
    """Resolve ``--llm``.

    Args:
        spec: ``"openai:<model>"`` for ``langchain_openai.ChatOpenAI`` (OpenAI-compatible
            endpoints via ``OPENAI_BASE_URL``); any other ``"provider:model"`` through
            ``langchain.chat_models.init_chat_model`` when the ``langchain`` package is
            installed.

    Raises:
        ConfigurationError: If the specification cannot be resolved.
    """
    provider, _, model = spec.partition(":")
    if not provider or not model:
        raise ConfigurationError(f"--llm expects 'provider:model' (openai:gpt-4o), not {spec!r}")
    if provider == "openai":
        return _openai(model)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:
        raise ConfigurationError(
            f"unknown model provider {provider!r}: use openai:<model>, or install 'langchain' "
            "for init_chat_model()"
        ) from exc
    try:
        return init_chat_model(model, model_provider=provider)
    except (ImportError, ValueError) as exc:
        raise ConfigurationError(f"--llm {spec}: {exc}") from exc
