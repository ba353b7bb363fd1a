from __future__ import annotations

import pytest

from langmemcore.embeddings._local import (
    MAX_PASS,
    TURN_TOKENS,
    _native_bf16,
    _pass_tokens,
    _threads,
    token_batches,
)


def test_turn_length_texts_go_batch_size_at_a_time() -> None:
    turn_chars = (TURN_TOKENS - 3) * 4
    passes = token_batches([turn_chars] * 40, 16)
    assert [len(p) for p in passes] == [16, 16, 8]


def test_short_texts_share_larger_passes_within_the_token_budget() -> None:
    lengths = [12] * 600
    passes = token_batches(lengths, 16)
    per_pass = 16 * TURN_TOKENS // (12 // 4 + 3)
    assert len(passes[0]) == min(per_pass, MAX_PASS) > 16
    assert sum(len(p) for p in passes) == 600


def test_passes_cover_every_index_once_in_order() -> None:
    lengths = sorted([900, 400, 180, 180, 60, 30, 12, 12, 5, 1] * 7, reverse=True)
    passes = token_batches(lengths, 4)
    flat = [i for p in passes for i in p]
    assert flat == list(range(len(lengths)))
    for p in passes:
        longest = lengths[p[0]] // 4 + 3
        assert len(p) == 1 or len(p) * longest <= 4 * TURN_TOKENS


def test_a_very_long_text_gets_its_own_pass() -> None:
    assert [len(p) for p in token_batches([50_000, 10], 16)] == [1, 1]


def test_bulk_ingest_batches_double_up_to_the_batch_size_and_cover_everything() -> None:
    from langmemcore.construction.bulk import bulk_batches

    batches = bulk_batches(300, 64)
    assert [len(b) for b in batches] == [8, 16, 32, 64, 64, 64, 52]
    assert [i for b in batches for i in b] == list(range(300))
    assert bulk_batches(5, 64) == [range(0, 5)]
    assert bulk_batches(0, 64) == []
    assert [len(b) for b in bulk_batches(10, 4)] == [4, 4, 2]


@pytest.mark.parametrize(
    ("capabilities", "native"),
    [
        ({"avx512_f": True, "avx512_bw": True, "avx512_vl": True, "avx512_dq": True}, False),
        ({"avx2": True}, False),
        ({"avx512_f": True, "avx512_bf16": True}, True),
        ({"amx_tile": True, "amx_bf16": True}, True),
    ],
)
def test_bf16_autocast_only_where_the_cpu_computes_bf16_natively(
    monkeypatch: pytest.MonkeyPatch, capabilities: dict[str, bool], native: bool
) -> None:
    import torch

    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: capabilities)
    _native_bf16.cache_clear()
    try:
        assert _native_bf16() is native
    finally:
        _native_bf16.cache_clear()


def test_a_torch_that_cannot_tell_its_cpu_capabilities_gets_fp32(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    monkeypatch.delattr(torch.cpu, "get_capabilities")
    _native_bf16.cache_clear()
    try:
        assert _native_bf16() is False
    finally:
        _native_bf16.cache_clear()


def test_a_pass_of_at_most_a_turn_runs_on_one_thread_and_restores_the_setting() -> None:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        query = [len("What did Melanie paint last summer?")] * 2
        assert _pass_tokens(query) <= TURN_TOKENS
        with _threads(_pass_tokens(query)):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        turns = [(TURN_TOKENS - 3) * 4] * 2
        with _threads(_pass_tokens(turns)):
            assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError), _threads(_pass_tokens(query)):
            raise RuntimeError("a pass that fails")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
