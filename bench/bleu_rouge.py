"""Benchmark: creval BLEU / ROUGE beside nltk, rouge-score and sacrebleu on 10k sentence pairs (same numbers).

Run: ``.venv/bin/python bench/bleu_rouge.py [--pairs 10000]``. Sentences are lines of the deepspeare sonnet
corpus in ../shared/data (hypothesis: line i, reference: line i+1), so the word statistics are real.
Prints each library's time, creval's time and the ratio, and checks that the numbers are identical.
"""

from __future__ import annotations

import argparse
import gc
import time
import warnings
from pathlib import Path

import numpy as np

from creval.metrics.overlap import bleu_sentences, corpus_bleu, rouge, sacrebleu_corpus

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "deepspeare"


def load_lines(n: int) -> list[str]:
    lines: list[str] = []
    for f in sorted(DATA.glob("*.txt")):
        for row in f.read_text("utf-8").splitlines():
            lines.extend(x.strip() for x in row.split("<eos>") if x.strip())
            if len(lines) > n + 1:
                return lines[: n + 1]
    if len(lines) < n + 1:
        raise SystemExit(f"only {len(lines)} lines in {DATA}")
    return lines


REPEAT = 3


CLOCK = time.process_time


def both(anchor, ours):
    """The clock is this process's CPU time by default (``--clock cpu``; both sides are single-threaded
    Python/numpy, and CPU time is not inflated when the machine is shared); ``--clock wall`` for wall time.
    Run anchor and creval alternately REPEAT times (so drift in machine load hits both alike); best times."""
    t_a = t_o = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        t = CLOCK()
        a = anchor()
        t_a = min(t_a, CLOCK() - t)
        gc.collect()
        t = CLOCK()
        o = ours()
        t_o = min(t_o, CLOCK() - t)
    return a, t_a, o, t_o


def row(name: str, ref_t: float, our_t: float, same: bool) -> None:
    print(f"{name:<34} anchor {ref_t:8.3f}s   creval {our_t:7.3f}s   ratio {ref_t / our_t:6.1f}x   identical: {same}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = ap.parse_args()
    global REPEAT, CLOCK
    REPEAT = args.repeat
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    import pandas  # noqa: F401  - creval's n-gram counting uses pandas' hash factorize; import it outside the timer
    lines = load_lines(args.pairs)
    hyps_s, refs_s = lines[:-1], lines[1:]
    hyps = [h.lower().split() for h in hyps_s]
    refs = [[r.lower().split()] for r in refs_s]
    print(f"{len(hyps)} sentence pairs, {sum(map(len, hyps))} hypothesis tokens; {args.clock} time, best of "
          f"{REPEAT}")

    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import corpus_bleu as n_corpus
    from nltk.translate.bleu_score import sentence_bleu as n_sentence

    warnings.simplefilter("ignore")
    sf = SmoothingFunction()
    for m in (4, 1, 0):
        fn = getattr(sf, f"method{m}")
        exp, t_ref, got, t_our = both(lambda fn=fn: [n_sentence(r, h, smoothing_function=fn)
                                                     for h, r in zip(hyps, refs)],
                                      lambda m=m: bleu_sentences(hyps, refs, smoothing=m))
        row(f"sentence BLEU-4 method{m} (nltk)", t_ref, t_our, bool(np.array_equal(np.array(exp), got)))
    exp, t_ref, got, t_our = both(lambda: n_corpus(refs, hyps, smoothing_function=sf.method4),
                                  lambda: corpus_bleu(refs, hyps, smoothing=4))
    row("corpus BLEU-4 method4 (nltk)", t_ref, t_our, exp == got)

    import sacrebleu

    refs_1 = [[r] for r in refs_s]
    exp, t_ref, got, t_our = both(lambda: sacrebleu.corpus_bleu(hyps_s, [refs_s]),
                                  lambda: sacrebleu_corpus(hyps_s, refs_1))
    row("corpus BLEU 13a (sacrebleu)", t_ref, t_our, exp.score == got.score)

    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    exp, t_ref, got, t_our = both(lambda: [scorer.score(r, h) for h, r in zip(hyps_s, refs_s)],
                                  lambda: rouge(hyps_s, refs_1, mode="rouge-score"))
    same = all(
        np.array_equal(np.array([e[k].fmeasure for e in exp]), got.scores[k]["f"])
        for k in ("rouge1", "rouge2", "rougeL")
    )
    row("ROUGE-1/2/L (rouge-score)", t_ref, t_our, same)

    from rouge import Rouge

    rp = Rouge()
    n = min(len(hyps_s), 2000)
    exp, t_ref, got, t_our = both(lambda: rp.get_scores(hyps_s[:n], refs_s[:n]),
                                  lambda: rouge(hyps_s[:n], refs_1[:n], mode="rouge"))
    same = all(
        np.array_equal(np.array([e[k2]["f"] for e in exp]), got.scores[k]["f"])
        for k, k2 in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l"))
    )
    row(f"ROUGE-1/2/L (rouge pkg, {n} pairs)", t_ref, t_our, same)

    from creval.metrics.overlap import self_bleu

    k = min(len(hyps), 300)
    outs = hyps[:k]
    fn1 = sf.method1
    exp, t_ref, got, t_our = both(
        lambda: [n_sentence(outs[:i] + outs[i + 1:], o, smoothing_function=fn1) for i, o in enumerate(outs)],
        lambda: self_bleu(outs, smoothing=1))
    row(f"self-BLEU ({k} outputs, nltk loop)", t_ref, t_our, bool(np.array_equal(np.array(exp), got)))


if __name__ == "__main__":
    main()
