"""The local embedder's time per forward pass in fp32 and under bf16 autocast, side by
side in one process: LoCoMo questions and turns in passes of 1 to 16 texts, the two
precisions alternating (``--rounds`` each), median milliseconds per pass and their ratio.

Run from the repository root: ``python benchmarks/embedder_precision.py
../shared/data/locomo-dev.json [--rounds 3] [--passes 20]``. Prints whether the CPU
computes bf16 natively (the embedder's own test), the CPU's bf16 capabilities, then one
row per text kind and pass size.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from langmemcore.embeddings import LocalEmbeddings
from langmemcore.embeddings._local import _native_bf16
from langmemcore.locomo import load_locomo


def _pass_ms(model: Any, texts: list[str], size: int, passes: int, bf16: bool) -> float:
    """Mean milliseconds per pass of ``size`` texts."""
    started = time.perf_counter()
    for start in range(0, size * passes, size):
        batch = texts[start : start + size]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            model.encode(batch, batch_size=size, convert_to_tensor=True, show_progress_bar=False)
    return (time.perf_counter() - started) / passes * 1000


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="LoCoMo JSON file")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=20)
    args = parser.parse_args()
    conversations = load_locomo(args.path)
    kinds = {
        "question": [q.question for c in conversations for q in c.questions],
        "turn": [t.text for c in conversations for t in c.turns],
    }
    model = LocalEmbeddings().load()
    capabilities = torch.cpu.get_capabilities()
    print(
        f"native bf16: {_native_bf16()}",
        {k: capabilities.get(k) for k in ("avx512_bf16", "amx_bf16")},
    )
    print("| texts | per pass | fp32 ms | bf16 ms | bf16 / fp32 |")
    print("|---|---|---|---|---|")
    for kind, texts in kinds.items():
        for size in (1, 2, 4, 8, 16):
            spent: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(args.rounds):
                for bf16 in (False, True):
                    spent[bf16].append(_pass_ms(model, texts, size, args.passes, bf16))
            fp32, bf16 = statistics.median(spent[False]), statistics.median(spent[True])
            print(f"| {kind} | {size} | {fp32:.1f} | {bf16:.1f} | {bf16 / fp32:.2f} |")


if __name__ == "__main__":
    main()
