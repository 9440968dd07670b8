"""Benchmark: the ghostwriting analyses on the bundled demo corpus (10 poets, 1146 verses).

Run: ``.venv/bin/python bench/analysis.py [--anchor-artists 2]`` (nltk needs about 35 s per artist).

1. N-gram baselines: train and generate n = 1..9, five verses per n, for every artist — creval's
   :func:`generate_baselines` beside nltk's ``nltk.lm.MLE`` (same token streams: words as written, ``<nl>`` between
   lines, ``</v>`` at the end; nltk generates word by word until ``</v>``). Target: creval under 60 s.
2. Full analysis (:func:`run_analysis`, including the artists' own rhyme density over the corpus) and the
   report sections, on a results table from ``creval.evaluate`` over the demo systems' outputs. Target:
   under 60 s.
3. Anchors for the analysis arithmetic, on that same table: Pearson/Spearman tables beside
   ``pingouin.pairwise_corr`` and the regression lines beside ``statsmodels`` OLS; the numbers must agree.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def nltk_baselines(corpus, artists, orders, per_order, seed):
    from nltk.lm import MLE
    from nltk.lm.preprocessing import pad_both_ends
    from nltk.util import everygrams

    rng_seed = seed
    texts = []
    for artist in artists:
        streams = []
        for verse in corpus.for_artist(artist):
            toks: list[str] = []
            for line in verse.lines:
                words = line.split()
                if words:
                    if toks:
                        toks.append("<nl>")
                    toks.extend(words)
            if toks:
                streams.append(toks)
        for n in orders:
            lm = MLE(n)
            padded = [list(pad_both_ends(s, n=n, left_pad_symbol="<s>", right_pad_symbol="</v>")) for s in streams]
            lm.fit((everygrams(p, max_len=n) for p in padded), vocabulary_text=[t for p in padded for t in p])
            longest = max(len(s) for s in streams) * 2 + 10
            for _ in range(per_order):
                history = ["<s>"] * (n - 1)
                out = []
                for _ in range(longest):
                    rng_seed += 1
                    tok = lm.generate(1, text_seed=history, random_seed=rng_seed) if n > 1 else \
                        lm.generate(1, random_seed=rng_seed)
                    if tok == "</v>" or tok is None:
                        break
                    if tok == "<s>":
                        continue
                    out.append(tok)
                    history.append(tok)
                texts.append(" ".join(out))
    return texts


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchor-artists", type=int, default=2,
                    help="artists for the nltk anchor (it takes about 35 s per artist)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from creval.analysis.ngram import generate_baselines
    from creval.demo import demo_outputs, load_demo_corpus

    corpus = load_demo_corpus()
    artists = corpus.artists
    orders = range(1, 10)
    print(f"demo corpus: {len(corpus)} verses, {len(artists)} artists")

    outs, t_ours = timed(lambda: generate_baselines(corpus, orders=orders, per_order=5, seed=args.seed))
    print(f"1. n-gram baselines (10 artists x n=1..9 x 5 verses = {len(outs)} verses)")
    print(f"   creval generate_baselines      {t_ours:8.2f}s   (target < 60 s: {'PASS' if t_ours < 60 else 'FAIL'})")
    sub = artists[: args.anchor_artists]
    ours_sub, t_ours_sub = timed(lambda: generate_baselines(corpus, artists=sub, orders=orders, per_order=5,
                                                            seed=args.seed))
    _, t_nltk = timed(lambda: nltk_baselines(corpus, sub, orders, 5, args.seed))
    print(f"   on {len(sub)} artist(s): nltk.lm.MLE {t_nltk:8.2f}s   creval {t_ours_sub:6.2f}s   "
          f"ratio {t_nltk / t_ours_sub:6.1f}x")

    # 2. full analysis
    from creval.api import evaluate_full
    from creval.metrics.base import measure_registry

    wanted = [m for m in ("rhyme_density", "uniqueness", "length", "lexical_diversity", "novelty", "diversity")
              if m in measure_registry()]
    missing = {"rhyme_density", "uniqueness"} - set(wanted)
    outputs = demo_outputs(corpus, seed=args.seed)
    evaluation, t_eval = timed(lambda: evaluate_full(corpus, outputs, wanted))
    print(f"2. evaluate ({', '.join(wanted)}) on {len(outputs)} outputs: {t_eval:.2f}s (not part of the target)")
    if missing:
        print(f"   note: measure(s) {', '.join(sorted(missing))} not registered in this tree")

    from creval.analysis.pipeline import run_analysis
    from creval.analysis.sections import (
        correlations_section,
        ghostwriter_section,
        nondeterministic_section,
        structure_section,
    )
    from creval.report.registry import ReportContext

    result, t_an = timed(lambda: run_analysis(evaluation.results, corpus=corpus, corpus_stats=evaluation.corpus_stats,
                                              outputs=outputs, signatures=evaluation.signatures))
    ctx = ReportContext(results=evaluation.results, corpus=corpus, corpus_stats=evaluation.corpus_stats,
                        outputs=outputs, artifacts={"analysis": {"result": result}})

    def render():
        return [f(ctx) for f in (ghostwriter_section, structure_section, correlations_section,
                                 nondeterministic_section)]

    html, t_rep = timed(render)
    total = t_an + t_rep
    print(f"   run_analysis {t_an:.2f}s + report sections {t_rep:.2f}s = {total:.2f}s "
          f"(target < 60 s: {'PASS' if total < 60 else 'FAIL'}); "
          f"{sum(h.count('<svg') for h in html if h)} figures")
    print(f"   unique yet similar: {(result.fits['status'] == 'ok').sum()} of {len(result.fits)} artist x system "
          f"crossings inside the data; statuses: {dict(result.fits['status'].value_counts())}")

    # 3. anchors for the arithmetic
    import pingouin
    import statsmodels.api as sm

    from creval.analysis.correlations import measure_correlations, wide_measures
    from creval.analysis.ghostwriter import fit_line

    wide = wide_measures(evaluation.results)
    names = [c for c in wide.columns if c not in ("system", "output_id", "artist")]
    ours, t_c = timed(lambda: measure_correlations(evaluation.results))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_p, t_pg1 = timed(lambda: pingouin.pairwise_corr(wide[names], method="pearson"))
        ref_s, t_pg2 = timed(lambda: pingouin.pairwise_corr(wide[names], method="spearman"))
    merged = ours.merge(ref_p[["X", "Y", "r", "p_unc"]], left_on=["x", "y"], right_on=["X", "Y"])
    merged = merged.merge(ref_s[["X", "Y", "r"]].rename(columns={"r": "rs"}), on=["X", "Y"])
    ok = merged["pearson_r"].notna()
    same = (np.allclose(merged.loc[ok, "pearson_r"], merged.loc[ok, "r"])
            and np.allclose(merged.loc[ok, "pearson_p"], merged.loc[ok, "p_unc"])
            and np.allclose(merged.loc[ok, "spearman_rho"], merged.loc[ok, "rs"]))
    print(f"3. correlations ({len(ours)} pairs): pingouin.pairwise_corr {t_pg1 + t_pg2:.2f}s   creval {t_c:.2f}s   "
          f"ratio {(t_pg1 + t_pg2) / t_c:.1f}x   identical on {int(ok.sum())} defined pairs: {same}")
    series = result.series.dropna(subset=["density"])
    diffs = []
    for (_, _), part in series.groupby(["artist", "system"]):
        if part["checkpoint"].nunique() < 2:
            continue
        line = fit_line(part["checkpoint"], part["density"])
        ols = sm.OLS(part["density"].to_numpy(), sm.add_constant(part["checkpoint"].to_numpy())).fit()
        diffs.append(max(abs(line.slope - ols.params[1]), abs(line.intercept - ols.params[0])))
    if diffs:
        print(f"   regression lines vs statsmodels OLS on {len(diffs)} series: max |difference| {max(diffs):.2e}")


if __name__ == "__main__":
    main()
