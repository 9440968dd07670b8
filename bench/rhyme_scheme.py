"""Speed of rhyme-scheme HMM training (forward-backward EM) on 10,000 verses, beside naive code.

Verses: real poetry lines — the deepspeare Gutenberg sonnets cut into 8-line verses, then the Chicago gold stanzas'
end words — 10,000 verses in all. creval: :class:`creval.rhyme.scheme.RhymeSchemeHMM` (numpy, log space, all
verses of a length bucket at once), timed cold (pronunciations looked up inside) and warm; then labelling all
verses with :meth:`~creval.rhyme.scheme.RhymeSchemeHMM.label_units` (scheme prior fitted by EM) is timed too.

Naive: the textbook way with the ``pronouncing`` package — per verse, per position, per state pure-Python loops,
emissions from ``pronouncing.rhyming_part`` equality (ρ = 20 for a rhyme, 0.2 otherwise), same states, same
number of EM iterations. It is timed on a subset (``--naive N`` verses, default 500) and the verses/second of
both are compared.

Usage: python bench/rhyme_scheme.py [--verses 10000] [--iters 10] [--naive 500]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from creval.rhyme.scheme import ADDANKI_WU_SCHEMES, RhymeSchemeHMM, end_word, parse_scheme, read_pgold

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load_verses(n: int) -> list[list[str]]:
    verses: list[list[str]] = []
    for name in ("sonnet_train.txt", "sonnet_valid.txt"):
        for row in (DATA / "deepspeare" / name).read_text(encoding="utf-8").splitlines():
            lines = [ln.strip() for ln in row.split("<eos>") if ln.strip()]
            ends = [end_word(ln) for ln in lines]
            for i in range(0, len(ends) - 3, 8):
                verses.append(ends[i : i + 8])
    for f in sorted((DATA / "chicago-rhyme" / "english_gold").glob("*.pgold")):
        verses.extend(list(st.words) for st in read_pgold(f)[0])
    if len(verses) < n:
        raise SystemExit(f"only {len(verses)} verses available")
    return verses[:n]


def naive_train(verses: list[list[str]], n_iter: int) -> list[float]:
    """Pure-Python forward-backward over the Addanki & Wu states with pronouncing-based emissions."""
    import pronouncing

    states = [parse_scheme(s) for s in ADDANKI_WU_SCHEMES]
    S = len(states)
    start = [1.0 / S] * S
    trans = [[1.0 / S] * S for _ in range(S)]

    def part(w: str) -> str | None:
        phones = pronouncing.phones_for_word(w)
        return pronouncing.rhyming_part(phones[0]) if phones else None

    def emission(words: list[str], t: int, s: int) -> float:
        scheme = states[s]
        if t + len(scheme) > len(words):
            return 0.0
        p = 1.0
        for k, g in enumerate(scheme):
            ante = [j for j in range(k) if scheme[j] == g]
            if not ante:
                continue
            logs = []
            for j in ante:
                a, b = part(words[t + j]), part(words[t + k])
                logs.append(math.log(20.0 if a is not None and a == b else 0.2))
            p *= math.exp(sum(logs) / len(logs))
        return p

    history = []
    for _ in range(n_iter):
        sc = [0.0] * S
        tc = [[0.0] * S for _ in range(S)]
        total = 0.0
        for words in verses:
            n = len(words)
            E = [[emission(words, t, s) for s in range(S)] for t in range(n)]
            # scaled forward: f[t][s] = P(segment of state s ends at t, lines < t)
            f = [[0.0] * S for _ in range(n + 1)]
            b_start = [start[:]] + [[0.0] * S for _ in range(n)]
            for t in range(1, n + 1):
                for s in range(S):
                    L = len(states[s])
                    if t - L >= 0:
                        f[t][s] = b_start[t - L][s] * E[t - L][s]
                if t < n:
                    for s in range(S):
                        b_start[t][s] = sum(f[t][q] * trans[q][s] for q in range(S))
            z = sum(f[n])
            g = [[0.0] * S for _ in range(n + 2 + 4)]
            beta = [[0.0] * S for _ in range(n + 5)]
            beta[n] = [1.0] * S
            for t in range(n - 1, -1, -1):
                for s in range(S):
                    L = len(states[s])
                    g[t][s] = E[t][s] * beta[t + L][s] if t + L <= n else 0.0
                for q in range(S):
                    beta[t][q] = sum(trans[q][s] * g[t][s] for s in range(S))
            total += math.log(z) if z > 0 else -1e9
            for s in range(S):
                sc[s] += start[s] * g[0][s] / z
            for t in range(1, n):
                for q in range(S):
                    for s in range(S):
                        tc[q][s] += f[t][q] * trans[q][s] * g[t][s] / z
        start = [(c + 0.1) / (sum(sc) + 0.1 * S) for c in sc]
        trans = [[(c + 0.1) / (sum(row) + 0.1 * S) for c in row] for row in tc]
        history.append(total)
    return history


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verses", type=int, default=10_000)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--naive", type=int, default=500)
    args = ap.parse_args()
    verses = load_verses(args.verses)
    lines = sum(len(v) for v in verses)
    print(f"{len(verses)} verses, {lines} lines, {args.iters} EM iterations, Addanki & Wu states")

    t0, c0 = time.perf_counter(), time.process_time()
    hmm = RhymeSchemeHMM(n_iter=args.iters, tol=0.0, pair_warmup=args.iters // 2, progress=True).fit(verses)
    cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    RhymeSchemeHMM(n_iter=args.iters, tol=0.0, pair_warmup=args.iters // 2).fit(verses)
    warm, warm_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"creval  cold (pronunciations looked up): {cold:7.2f} s wall, {cold_cpu:7.2f} s CPU")
    print(
        f"creval  warm pronunciation cache       : {warm:7.2f} s wall, {warm_cpu:7.2f} s CPU "
        f"({len(verses) / warm_cpu:8.0f} verses per CPU-second)"
    )
    print(f"        final log-likelihood per line  : {hmm.history[-1]:.4f}")
    t0, c0 = time.perf_counter(), time.process_time()
    hmm.label_units(verses)
    lab, lab_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"creval  label_units (scheme prior, EM) : {lab:7.2f} s wall, {lab_cpu:7.2f} s CPU (all verses)")

    sub = verses[: args.naive]
    t0, c0 = time.perf_counter(), time.process_time()
    naive_train(sub, args.iters)
    naive, naive_cpu = time.perf_counter() - t0, time.process_time() - c0
    naive_rate = len(sub) / naive_cpu
    print(
        f"naive   pure Python + pronouncing, {len(sub)} verses: {naive:7.2f} s wall, {naive_cpu:7.2f} s CPU "
        f"({naive_rate:8.0f} verses per CPU-second); {len(verses)} verses would take ~{len(verses) / naive_rate:.0f} CPU-s"
    )
    print(f"ratio (verses per CPU-second, warm creval / naive): {len(verses) / warm_cpu / naive_rate:.1f}x")


if __name__ == "__main__":
    main()
