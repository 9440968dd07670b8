"""Benchmark: creval's grammar measure (Harper backend) beside calling harper-py directly on the same texts.

Run: ``.venv/bin/python bench/grammar.py [--outputs 1500]``. Outputs are 4-line stanzas of the deepspeare
sonnets in ../shared/data, capitalised line by line. Prints lines per second for raw Harper and for creval's
measure (error categories, rates, notes), and the ratio. Target: ≥ 500 lines/s. LanguageTool is not timed: it
cannot be installed on this machine (no network), and its speed depends on the server the user points it at.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from creval.corpus.model import Output
from creval.metrics.grammar import GrammarMeasure, _harper_linter

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "deepspeare"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--outputs", type=int, default=1500)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (timings scale with it)")
    rows = [r for r in (DATA / "sonnet_train.txt").read_text("utf-8").split("\n") if r.strip()]
    stanzas = []
    for r in rows:
        lines = [ln.strip().capitalize() for ln in r.split("<eos>") if ln.strip()]
        stanzas.extend("\n".join(lines[i : i + 4]) for i in range(0, len(lines) - 3, 4))
        if len(stanzas) >= args.outputs:
            break
    stanzas = stanzas[: args.outputs]
    n_lines = sum(s.count("\n") + 1 for s in stanzas)
    linter = _harper_linter()  # build the dictionary outside the timers (once per process for both)
    t = time.perf_counter()
    raw = sum(len(linter.lint(s, language="plaintext")) for s in stanzas)
    t_raw = time.perf_counter() - t
    outs = [Output(id=str(i), system="s", text=s) for i, s in enumerate(stanzas)]
    t = time.perf_counter()
    res = GrammarMeasure(exclude=()).score(outs)
    t_our = time.perf_counter() - t
    same = int(res.values["grammar_error_count"].sum()) == raw
    print(
        f"{len(stanzas)} outputs, {n_lines} lines: harper-py {n_lines / t_raw:7.0f} lines/s ({t_raw:.2f}s)   "
        f"creval {n_lines / t_our:7.0f} lines/s ({t_our:.2f}s)   ratio {t_raw / t_our:.2f}x   same counts: {same}"
    )


if __name__ == "__main__":
    main()
