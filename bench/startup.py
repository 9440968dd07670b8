"""Benchmark: `creval evaluate` start-up — from launching the process to the first progress tick.

The child process is the real CLI (`creval evaluate ...`); the only instrumentation is a wrapper around the
progress bar's start that prints the elapsed time and exits. Target (issue 2): under 1.5 s. The anchor is the
cost of a bare `python -c "import pandas"` (the heaviest library the pipeline needs before its first tick).
Run: .venv/bin/python bench/startup.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import os, sys, time
t0 = float(sys.argv[1])
import creval.api as api
orig = api._Progress.__enter__
def probe(self):
    print(f"{time.time() - t0:.4f}", flush=True)
    os._exit(0)
api._Progress.__enter__ = probe
from creval.cli import main
sys.argv = ["creval"] + sys.argv[2:]
main()
"""


def first_tick(args: list[str]) -> float:
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, repr(t0), *args], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bare(code: str) -> float:
    t0 = time.time()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.time() - t0


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gens = Path(tmp) / "g.jsonl"
        gens.write_text(json.dumps({"id": 1, "system": "s", "text": "hello world"}) + "\n")
        corpus = Path(tmp) / "c.jsonl"
        corpus.write_text(json.dumps({"artist": "a", "text": "hello there"}) + "\n")
        args = ["evaluate", "--corpus", str(corpus), "--generations", str(gens), "--out", str(Path(tmp) / "o")]
        ticks = [first_tick(args) for _ in range(5)]
        pandas = [bare("import pandas") for _ in range(5)]
    ours = statistics.median(ticks)
    anchor = statistics.median(pandas)
    print(f"creval evaluate: launch to first progress tick, median of 5: {ours:.3f} s (target < 1.5 s)")
    print(f"python -c 'import pandas', median of 5: {anchor:.3f} s")
    print(f"ratio creval/import-pandas: {ours / anchor:.2f}x")


if __name__ == "__main__":
    main()
