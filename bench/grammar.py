"""Benchmark: creval's grammar measure (Harper backend) beside calling harper-py directly on the same texts.

Run: ``.venv/bin/python bench/grammar.py [--outputs 1500]``. Outputs are 4-line stanzas of the deepspeare
sonnets in ../shared/data, capitalised line by line. Prints lines per second for raw Harper (one linter) and for
creval's measure (error categories, rates, notes; one linter per CPU thread when there are enough outputs),
wall and CPU, and the ratio. Target: ≥ 500 lines/s. LanguageTool is not timed: it
cannot be installed on this machine (no network), and its speed depends on the server the user points it at.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from creval.corpus.model import Output
from creval.metrics.grammar import GrammarMeasure

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
        if len(stanzas) >= args.outputs + 200:
            break
    stanzas_all = stanzas
    stanzas = stanzas[: args.outputs]
    n_lines = sum(s.count("\n") + 1 for s in stanzas)
    # each side gets its own Linter, built and warmed up on other stanzas outside the timers (Harper caches
    # the lints of a text it has seen, and its first calls are slower)
    from harper import Linter

    warm = stanzas_all[args.outputs : args.outputs + 200]
    linter = Linter()
    for s in warm:
        linter.lint(s, language="plaintext")
    GrammarMeasure(exclude=()).score([Output(id=str(i), system="s", text=s) for i, s in enumerate(warm)])
    t, c = time.perf_counter(), time.process_time()
    raw = sum(len(linter.lint(s, language="plaintext")) for s in stanzas)
    t_raw, c_raw = time.perf_counter() - t, time.process_time() - c
    outs = [Output(id=str(i), system="s", text=s) for i, s in enumerate(stanzas)]
    t, c = time.perf_counter(), time.process_time()
    res = GrammarMeasure(exclude=()).score(outs)
    t_our, c_our = time.perf_counter() - t, time.process_time() - c
    same = int(res.values["grammar_error_count"].sum()) == raw
    print(
        f"{len(stanzas)} outputs, {n_lines} lines: harper-py {n_lines / t_raw:6.0f} lines/s wall, "
        f"{n_lines / c_raw:6.0f} lines/s CPU   creval {n_lines / t_our:6.0f} lines/s wall, {n_lines / c_our:6.0f} "
        f"lines/s CPU   ratio {t_raw / t_our:.2f}x (CPU {c_raw / c_our:.2f}x)   same counts: {same}"
    )


if __name__ == "__main__":
    main()
