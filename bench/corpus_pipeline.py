"""Benchmark: read and clean 100k verses (synthesised from the shared poetry) with creval, beside the same
work done the obvious way (pandas.read_json on JSONL + per-line regex cleaning in Python).

Target (issue 2): creval reads and cleans 100k verses in under 10 s on the 2-core machine.
Run: .venv/bin/python bench/corpus_pipeline.py [N_VERSES]
"""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def synthesise(n_verses: int, root: Path) -> tuple[Path, Path]:
    """Write n verses as a folder corpus (20 artists × files of 500 verses) and as JSONL."""
    lines = _deepspeare_lines()
    rng = random.Random(0)
    headers = ["[Chorus]", "[Verse 2: Someone]", "Produced by Nobody"]
    folder = root / "corpus"
    jsonl = root / "corpus.jsonl"
    with open(jsonl, "w", encoding="utf-8") as jf:
        for a in range(20):
            artist = f"artist{a:02d}"
            (folder / artist).mkdir(parents=True)
            per_artist = n_verses // 20
            for f in range(0, per_artist, 500):
                verses = []
                for _ in range(min(500, per_artist - f)):
                    body = [rng.choice(lines) for _ in range(rng.randint(2, 8))]
                    if rng.random() < 0.1:
                        body.insert(0, rng.choice(headers))
                    if rng.random() < 0.1:
                        body[-1] += " [x2]"
                    verses.append("\n".join(body))
                    jf.write(json.dumps({"artist": artist, "title": "", "text": verses[-1]}) + "\n")
                (folder / artist / f"{f:05d}.txt").write_text("\n\n".join(verses) + "\n", "utf-8")
    return folder, jsonl


def _deepspeare_lines() -> list[str]:
    text = (SHARED / "deepspeare" / "sonnet_train.txt").read_text("utf-8")
    return [ln.strip() for row in text.splitlines() for ln in row.split("<eos>") if ln.strip()]


def naive(jsonl: Path) -> int:
    import pandas as pd

    frame = pd.read_json(jsonl, lines=True)
    header = re.compile(r"^\s*\[[^\]]*\]\s*$|^produced by", re.I)
    repeat = re.compile(r"\s*\[x\d+\]\s*$")
    kept = 0
    for text in frame["text"]:
        lines = [repeat.sub("", ln) for ln in text.split("\n") if not header.match(ln)]
        if sum(len(re.findall(r"\w+", ln)) for ln in lines) >= 20:
            kept += 1
    return kept


def main() -> None:
    from creval.corpus.clean import clean_corpus
    from creval.corpus.io import read_corpus

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        folder, jsonl = synthesise(n, Path(tmp))
        t0 = time.perf_counter()
        corpus = read_corpus(folder)
        t1 = time.perf_counter()
        cleaned, report = clean_corpus(corpus)
        t2 = time.perf_counter()
        kept_naive = naive(jsonl)
        t3 = time.perf_counter()
    ours = t2 - t0
    anchor = t3 - t2
    print(f"verses: {len(corpus)}  kept: {len(cleaned)} (naive kept {kept_naive})")
    print(f"creval read {t1 - t0:.2f} s + clean {t2 - t1:.2f} s = {ours:.2f} s  (target < 10 s)")
    print(f"naive pandas.read_json + regex cleaning: {anchor:.2f} s")
    print(f"ratio naive/creval: {anchor / ours:.2f}x  ({'faster' if ours < anchor else 'slower'}; creval does "
          f"more: section/chorus/metadata/markup rules, per-item drop report)")


if __name__ == "__main__":
    main()
