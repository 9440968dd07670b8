"""Benchmark: creval's lexical diversity (kyle mode) beside Kristopher Kyle's ``lexical_diversity`` 0.1.1.

Run: ``.venv/bin/python bench/lexical.py [--texts 3] [--tokens 5000]``. Texts are consecutive runs of real
tokens from the deepspeare sonnet corpus in ../shared/data. Prints each measure's time for both libraries, the
ratio, and whether the numbers are identical. Target: MTLD-MA ≥ 100× faster on 5k-token texts.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import time
import types
from pathlib import Path

from creval.metrics import lexical as L

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "deepspeare"


def import_kyle():
    """His module imports ``pkg_resources`` (gone from setuptools >= 81): give it a one-function stand-in."""
    try:
        import pkg_resources  # noqa: F401
    except ImportError:
        shim = types.ModuleType("pkg_resources")
        shim.resource_filename = lambda package, name: os.path.join(
            os.path.dirname(importlib.util.find_spec(package).origin), name
        )
        sys.modules["pkg_resources"] = shim
    from lexical_diversity import lex_div

    return lex_div


PAIRS = [
    ("ttr", "ttr"),
    ("mattr", "mattr"),
    ("msttr", "msttr"),
    ("hdd", "hdd"),
    ("mtld", "mtld"),
    ("mtld_ma_bid", "mtld_ma_bid"),
    ("mtld_ma_wrap", "mtld_ma_wrap"),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=5000)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (timings scale with it)")
    ld = import_kyle()
    words = [
        w for w in (DATA / "sonnet_train.txt").read_text("utf-8").replace("<eos>", " ").split() if w.isalpha()
    ]
    texts = [words[i * args.tokens : (i + 1) * args.tokens] for i in range(args.texts)]
    print(f"{args.texts} texts of {args.tokens} tokens (deepspeare sonnets)")
    for ours, his in PAIRS:
        t = time.perf_counter()
        ref = [getattr(ld, his)(list(x)) for x in texts]
        t_ref = time.perf_counter() - t
        t = time.perf_counter()
        got = [getattr(L, ours)(x, mode="kyle") for x in texts]
        t_our = time.perf_counter() - t
        same = all(
            a == b or abs(a - b) <= 1e-12 * abs(b) or (math.isnan(a) and math.isnan(b))
            for a, b in zip(got, ref)
        )
        print(
            f"{ours:<14} lexical_diversity {t_ref:9.3f}s   creval {t_our:8.4f}s   ratio {t_ref / t_our:8.1f}x   identical: {same}"
        )


if __name__ == "__main__":
    main()
