"""The local embedder's model thread: one thread for every pass, whoever asks."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.embeddings._local import _model_thread

TEXTS = [
    "I adopted a grey cat called Miso from the shelter last spring.",
    "We moved to Porto in June and I started at the bakery.",
    "Caroline went to the LGBTQ support group on Tuesday.",
    "My sister is training for the Lisbon marathon.",
]


def _embedder_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("langmemcore-embedder")}


def test_passes_from_many_threads_and_a_loop_run_on_one_model_thread() -> None:
    embeddings = LocalEmbeddings()
    alone = [embeddings.embed_query(text) for text in TEXTS]
    with ThreadPoolExecutor(4) as callers:
        from_threads = list(callers.map(embeddings.embed_query, TEXTS))

    async def from_loop() -> list[list[float]]:
        return list(await asyncio.gather(*(embeddings.aembed_query(t) for t in TEXTS)))

    looped = asyncio.run(from_loop())
    assert len(_embedder_threads()) == 1
    assert np.allclose(from_threads, alone, atol=1e-6)
    assert np.allclose(looped, alone, atol=1e-6)


def test_a_small_pass_leaves_torchs_thread_count_as_it_was() -> None:
    embeddings = LocalEmbeddings()
    before = _model_thread.submit(torch.get_num_threads).result()
    embeddings.embed_query("Where does Tomas work now?")
    assert _model_thread.submit(torch.get_num_threads).result() == before


def test_a_query_alone_and_the_same_text_in_a_bulk_pass_agree() -> None:
    embeddings = LocalEmbeddings()
    bulk = embeddings.embed_documents(TEXTS * 8)
    for text, row in zip(TEXTS, bulk, strict=False):
        assert float(np.dot(embeddings.embed_query(text), row)) > 0.9999
