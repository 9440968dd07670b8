"""Benchmark: the novelty index (exact composed k-grams in sorted numpy arrays) beside a plain Python set of
k-gram tuples (what evaluation scripts usually do).

Run: ``.venv/bin/python bench/novelty.py [--lines 1000000] [--queries 100000] [--anchor-lines 100000]``.
Training lines are synthesised from the deepspeare sonnets in ../shared/data (first half of one real line +
second half of another), so word statistics are real and most lines are distinct. Targets: index of 1M lines
under 15 s, 100k query lines under 2 s. The set-of-tuples anchor is timed on ``--anchor-lines`` lines (it needs
several GB at 1M) against creval on the same lines, and both must give identical novelty values.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from creval.metrics.novelty import NoveltyIndex
from creval.text.tokenize import get_tokenizer

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "deepspeare"


def real_lines() -> list[list[str]]:
    text = (DATA / "sonnet_train.txt").read_text("utf-8")
    return [ln.split() for row in text.split("\n") for ln in row.split("<eos>") if ln.strip()]


def synth_lines(n: int, seed: int = 0, base: list[list[str]] | None = None) -> list[str]:
    base = base or real_lines()
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(base), n).tolist()
    b = rng.integers(0, len(base), n).tolist()
    return [" ".join(base[i][: len(base[i]) // 2] + base[j][len(base[j]) // 2 :]) for i, j in zip(a, b)]


def anchor_novelty(train: list[str], queries: list[str], k_max: int = 8) -> np.ndarray:
    tok = get_tokenizer("auto")
    grams: set[tuple[str, ...]] = set()
    for line in train:
        t = tok(line)
        for k in range(3, k_max + 1):
            grams.update(tuple(t[i : i + k]) for i in range(len(t) - k + 1))
    out = []
    for line in queries:
        t = tok(line)
        n = min(k_max, len(t))
        if n < 3:
            out.append(np.nan)
            continue
        v = [
            sum(tuple(t[i : i + k]) not in grams for i in range(len(t) - k + 1)) / (len(t) - k + 1)
            for k in range(3, n + 1)
        ]
        out.append(sum(v) / (n - 2))
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--anchor-lines", type=int, default=100_000)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (timings scale with it)")
    base = real_lines()
    train = synth_lines(args.lines, 0, base)
    queries = synth_lines(args.queries, 1, base)

    sub_train, sub_q = train[: args.anchor_lines], queries[: min(args.queries, 20_000)]
    t, c = time.perf_counter(), time.process_time()
    ref = anchor_novelty(sub_train, sub_q)
    t_ref, c_ref = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    got = NoveltyIndex().fit(sub_train).line_novelty(sub_q)
    t_our, c_our = time.perf_counter() - t, time.process_time() - c
    same = bool(np.allclose(got, ref, rtol=0, atol=1e-12, equal_nan=True))
    print(
        f"fit {len(sub_train)} lines + {len(sub_q)} queries: set-of-tuples {t_ref:7.2f}s   creval {t_our:6.2f}s   "
        f"ratio {t_ref / t_our:5.1f}x (CPU {c_ref:.2f}s vs {c_our:.2f}s: {c_ref / c_our:.1f}x)   identical: {same}"
    )

    t, c = time.perf_counter(), time.process_time()
    idx = NoveltyIndex().fit(train)
    t_fit, c_fit = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    vals = idx.line_novelty(queries)
    t_q, c_q = time.perf_counter() - t, time.process_time() - c
    print(
        f"creval index of {len(train)} lines ({idx.index.n_tokens} tokens): {t_fit:.2f}s wall, {c_fit:.2f}s CPU "
        f"(target < 15 s), {idx.index.memory_bytes() / 1e6:.0f} MB of k-gram keys"
    )
    print(
        f"creval {len(queries)} query lines: {t_q:.2f}s wall, {c_q:.2f}s CPU (target < 2 s), "
        f"mean novelty {np.nanmean(vals):.4f}"
    )


if __name__ == "__main__":
    main()
