"""Benchmark: creval BLEU / ROUGE beside nltk, rouge-score and sacrebleu on 10k sentence pairs (same numbers).

Run: ``.venv/bin/python bench/bleu_rouge.py [--pairs 10000]``. Sentences are lines of the deepspeare sonnet
corpus in ../shared/data (hypothesis: line i, reference: line i+1), so the word statistics are real.
Prints each library's time, creval's time and the ratio, and checks that the numbers are identical.
"""

from __future__ import annotations

import argparse
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


def timed(fn):
    """Result and best wall time of REPEAT runs (the machine may be shared; the minimum is the fair figure)."""
    best = float("inf")
    for _ in range(REPEAT):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def row(name: str, ref_t: float, our_t: float, same: bool) -> None:
    print(f"{name:<34} anchor {ref_t:8.3f}s   creval {our_t:7.3f}s   ratio {ref_t / our_t:6.1f}x   identical: {same}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    global REPEAT
    REPEAT = args.repeat
    import pandas  # noqa: F401  - creval's n-gram counting uses pandas' hash factorize; import it outside the timer
    lines = load_lines(args.pairs)
    hyps_s, refs_s = lines[:-1], lines[1:]
    hyps = [h.lower().split() for h in hyps_s]
    refs = [[r.lower().split()] for r in refs_s]
    print(f"{len(hyps)} sentence pairs, {sum(map(len, hyps))} hypothesis tokens")

    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import corpus_bleu as n_corpus
    from nltk.translate.bleu_score import sentence_bleu as n_sentence

    warnings.simplefilter("ignore")
    sf = SmoothingFunction()
    for m in (4, 1, 0):
        fn = getattr(sf, f"method{m}")
        exp, t_ref = timed(lambda fn=fn: [n_sentence(r, h, smoothing_function=fn) for h, r in zip(hyps, refs)])
        got, t_our = timed(lambda m=m: bleu_sentences(hyps, refs, smoothing=m))
        row(f"sentence BLEU-4 method{m} (nltk)", t_ref, t_our, bool(np.array_equal(np.array(exp), got)))
    exp, t_ref = timed(lambda: n_corpus(refs, hyps, smoothing_function=sf.method4))
    got, t_our = timed(lambda: corpus_bleu(refs, hyps, smoothing=4))
    row("corpus BLEU-4 method4 (nltk)", t_ref, t_our, exp == got)

    import sacrebleu

    exp, t_ref = timed(lambda: sacrebleu.corpus_bleu(hyps_s, [refs_s]))
    got, t_our = timed(lambda: sacrebleu_corpus(hyps_s, [[r] for r in refs_s]))
    row("corpus BLEU 13a (sacrebleu)", t_ref, t_our, exp.score == got.score)

    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    exp, t_ref = timed(lambda: [scorer.score(r, h) for h, r in zip(hyps_s, refs_s)])
    got, t_our = timed(lambda: rouge(hyps_s, [[r] for r in refs_s], mode="rouge-score"))
    same = all(
        np.array_equal(np.array([e[k].fmeasure for e in exp]), got.scores[k]["f"])
        for k in ("rouge1", "rouge2", "rougeL")
    )
    row("ROUGE-1/2/L (rouge-score)", t_ref, t_our, same)

    from rouge import Rouge

    rp = Rouge()
    n = min(len(hyps_s), 2000)
    exp, t_ref = timed(lambda: rp.get_scores(hyps_s[:n], refs_s[:n]))
    got, t_our = timed(lambda: rouge(hyps_s[:n], [[r] for r in refs_s[:n]], mode="rouge"))
    same = all(
        np.array_equal(np.array([e[k2]["f"] for e in exp]), got.scores[k]["f"])
        for k, k2 in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l"))
    )
    row(f"ROUGE-1/2/L (rouge pkg, {n} pairs)", t_ref, t_our, same)


if __name__ == "__main__":
    main()
