"""The chat model of a command (``--llm provider:model``, ``--llm-url``), as the embedder's
``--embeddings``.

``--llm-url`` names an OpenAI-compatible server (llama.cpp's ``llama-server``, vLLM,
Ollama's ``/v1``); then ``--llm`` is the model's name there, with or without ``openai:``.
Both default to ``LANGMEMCORE_LLM`` and ``LANGMEMCORE_LLM_URL``. A model built here
answers at most :data:`MAX_TOKENS` tokens a call; a server that says how many requests it
serves at once (llama.cpp's ``/props``) gets that many calls in flight
(:func:`llm_config`), so that no call waits in its queue on the clock.
"""

from __future__ import annotations

import os

import httpx
from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from langmemcore._errors import ConfigurationError
from langmemcore.config import LLMConfig

__all__ = ["ACTIVE_NEEDS_LLM", "MAX_TOKENS", "chat_model", "llm_config", "server_slots"]

MAX_TOKENS = 1024
"""Tokens a chat model built from the command line answers at most per call (every prompt's
answer is a short JSON object or a tool call)."""

ACTIVE_NEEDS_LLM = (
    "search --active needs a tool-calling chat model: pass --llm openai:<model> "
    "(an OpenAI-compatible endpoint via OPENAI_BASE_URL and OPENAI_API_KEY)"
)
"""The error of ``search --active`` without ``--llm``."""


def _openai(model: str, base_url: str | None = None) -> BaseChatModel:
    """``ChatOpenAI``; a server named by ``base_url`` or ``OPENAI_BASE_URL`` needs no API
    key.
    """
    from langchain_openai import ChatOpenAI

    local = base_url or os.environ.get("OPENAI_BASE_URL")
    key = os.environ.get("OPENAI_API_KEY") or ("none" if local else "")
    if not key:
        raise ConfigurationError(
            "--llm openai:<model> needs OPENAI_API_KEY (or --llm-url / OPENAI_BASE_URL for a "
            "local OpenAI-compatible server)"
        )
    return ChatOpenAI(
        model=model, api_key=SecretStr(key), base_url=base_url, max_completion_tokens=MAX_TOKENS
    )


def chat_model(spec: str, base_url: str | None = None) -> BaseChatModel:
    """Resolve ``--llm`` (and ``--llm-url``).

    Args:
        spec: ``"openai:<model>"`` for ``langchain_openai.ChatOpenAI`` (OpenAI-compatible
            endpoints via ``base_url`` or ``OPENAI_BASE_URL``); any other
            ``"provider:model"`` through ``langchain.chat_models.init_chat_model`` when the
            ``langchain`` package is installed; with ``base_url``, the model's name alone.
        base_url: An OpenAI-compatible server's base URL (``http://127.0.0.1:8080/v1``).

    Raises:
        ConfigurationError: If the specification cannot be resolved.
    """
    if base_url:
        name = spec.removeprefix("openai:")
        if not name:
            raise ConfigurationError("--llm-url needs --llm <model name on that server>")
        return _openai(name, base_url)
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


def server_slots(base_url: str) -> int | None:
    """The requests an OpenAI-compatible server serves at once, where it says so
    (llama.cpp's ``GET /props``, ``total_slots``); ``None`` for any other answer.
    """
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        answer = httpx.get(f"{root}/props", timeout=2.0)
        slots = answer.json().get("total_slots") if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return slots if isinstance(slots, int) and slots > 0 else None


def llm_config(base_url: str | None) -> LLMConfig:
    """The call settings of a command's model: as many calls in flight as the server at
    ``base_url`` serves at once, where it says so; the defaults otherwise.
    """
    slots = server_slots(base_url) if base_url else None
    return LLMConfig(concurrency=slots) if slots else LLMConfig()
