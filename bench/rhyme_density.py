"""Benchmark: rhyme density on 120-word verses, creval (vectorised, warm pronunciation cache) beside the same
work done naively with ``pronouncing`` (per-word CMUdict lookup, vowel-split syllables, a Python double loop
over syllable pairs in the same window with the same similarity).

    python bench/rhyme_density.py [--verses 2000] [--data ../shared/data/deepspeare/sonnet_train.txt]

Verses are built from the deepspeare sonnet lines (one per sonnet, lines added until 120 words).
Prints verses/second for both and the ratio. Single process, one core.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "deepspeare" / "sonnet_train.txt"


def load_verses(path: Path, n: int, words_per_verse: int = 120) -> list[list[str]]:
    verses: list[list[str]] = []
    for row in path.read_text(encoding="utf-8").splitlines():
        lines = [ln.strip() for ln in row.split("<eos>") if ln.strip()]
        if not lines:
            continue
        out: list[str] = []
        count = 0
        while count < words_per_verse:
            for ln in lines:
                out.append(ln)
                count += len(ln.split())
                if count >= words_per_verse:
                    break
        verses.append(out)
        if len(verses) == n:
            break
    return verses


# --- the naive version ---------------------------------------------------------------------------------
_NEAR = {("AA", "AH"), ("AE", "EH"), ("EH", "IH"), ("IH", "IY"), ("EH", "EY"), ("UH", "UW"), ("AH", "UH")}
_MANNER = {"P": 0, "B": 0, "T": 0, "D": 0, "K": 0, "G": 0, "F": 1, "V": 1, "TH": 1, "DH": 1, "S": 1, "Z": 1,
           "SH": 1, "ZH": 1, "CH": 2, "JH": 2, "M": 3, "N": 3, "NG": 3, "L": 4, "R": 4, "W": 5, "Y": 5, "HH": 6}  # fmt: skip


def naive_density(lines: list[str], threshold: float = 0.75) -> float:
    import re

    import pronouncing

    sylls = []  # (vowel, coda, stressed, word, line)
    word_no = 0
    for li, line in enumerate(lines):
        for word in re.findall(r"[a-z']+", line.lower()):
            phones = pronouncing.phones_for_word(word)
            word_no += 1
            if not phones:
                continue
            ph = phones[0].split()
            vi = [i for i, p in enumerate(ph) if p[-1].isdigit()]
            for n, i in enumerate(vi):
                end = vi[n + 1] if n + 1 < len(vi) else len(ph)
                coda = tuple(ph[i + 1 : end]) if n + 1 == len(vi) else tuple(ph[i + 1 : end][:1])
                v = ph[i][:-1]
                v = "AA" if v == "AO" else v
                if ph[i][-1] == "0" and v in ("IH", "UH"):
                    v = "AH"
                sylls.append((v, coda, ph[i][-1] != "0", word_no, li))
    n = len(sylls)
    if n == 0:
        return float("nan")

    def score(a, b):
        if a[0] == b[0]:
            vs = 1.0
        elif (a[0], b[0]) in _NEAR or (b[0], a[0]) in _NEAR:
            vs = 0.75
        else:
            return 0.0
        if a[1] == b[1]:
            cs = 1.0
        elif len(a[1]) == len(b[1]) and all(_MANNER[x] == _MANNER[y] for x, y in zip(a[1], b[1])):
            cs = 0.75
        elif (len(a[1]) == 0) != (len(b[1]) == 0):
            cs = 0.4
        else:
            cs = 0.2
        return vs * (0.5 + 0.5 * cs)

    rhymed = [False] * n
    for k in range(n):
        for j in range(max(0, k - 64), k):
            if sylls[k][4] - sylls[j][4] > 1 or sylls[j][3] == sylls[k][3]:
                continue
            if score(sylls[j], sylls[k]) >= threshold and sylls[j][2] and sylls[k][2]:
                rhymed[j] = rhymed[k] = True
                # extend the run forward
                a, b = j + 1, k + 1
                while b < n and a < k and sylls[a][4] == sylls[j][4] and sylls[b][4] == sylls[k][4]:
                    if sylls[a][3] == sylls[b][3] or score(sylls[a], sylls[b]) < threshold:
                        break
                    rhymed[a] = rhymed[b] = True
                    a, b = a + 1, b + 1
    return sum(rhymed) / n


def _timed(fn, items):
    """(results, wall seconds, CPU seconds of this process): CPU time is what one core spent, which stays
    meaningful on a shared, busy machine."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = [fn(x) for x in items]
    return out, time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--verses", type=int, default=2000)
    ap.add_argument("--naive-verses", type=int, default=300)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args()

    import numpy as np

    from creval.rhyme.density import rhyme_density

    verses = load_verses(args.data, args.verses)
    words = np.mean([sum(len(ln.split()) for ln in v) for v in verses])
    print(
        f"{len(verses)} verses, {words:.0f} words each on average; rates are verses/s (wall | per CPU-second)"
    )

    _, cold_w, cold_c = _timed(rhyme_density, verses)
    results, warm_w, warm_c = _timed(rhyme_density, verses)
    ours = [r.rhyme_density for r in results]
    n = len(verses)
    print(
        f"creval cold cache : {n / cold_w:7.0f} | {n / cold_c:7.0f}   (includes CMUdict load and espeak G2P)"
    )
    print(f"creval warm cache : {n / warm_w:7.0f} | {n / warm_c:7.0f}   (rhyme_density, one verse per call)")
    from creval.rhyme.density import rhyme_density_batch

    w0, c0 = time.perf_counter(), time.process_time()
    rhyme_density_batch(verses)
    batch_w, batch_c = time.perf_counter() - w0, time.process_time() - c0
    print(
        f"creval batch      : {n / batch_w:7.0f} | {n / batch_c:7.0f}   (rhyme_density_batch, what the measure uses)"
    )

    import pronouncing

    pronouncing.init_cmu()
    sub = verses[: args.naive_verses]
    naive_density(sub[0])
    theirs, naive_w, naive_c = _timed(naive_density, sub)
    m = len(sub)
    print(f"naive pronouncing : {m / naive_w:7.0f} | {m / naive_c:7.0f}   ({m} verses)")
    naive_rate_w, naive_rate_c = m / naive_w, m / naive_c
    print(
        f"ratio creval warm / naive : {n / warm_w / naive_rate_w:.1f}x wall, {n / warm_c / naive_rate_c:.1f}x CPU"
    )
    print(
        f"ratio creval batch / naive: {n / batch_w / naive_rate_w:.1f}x wall, {n / batch_c / naive_rate_c:.1f}x CPU"
    )
    print(f"mean density on the first {m}: creval {np.mean(ours[:m]):.3f}, naive {np.nanmean(theirs):.3f} "
          "(naive has no respellings, no G2P and a cruder syllable split)")  # fmt: skip


if __name__ == "__main__":
    main()
