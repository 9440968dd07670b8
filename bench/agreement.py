"""Benchmark: agreement statistics beside the reference packages, on the same input, in one run.

Run: ``.venv/bin/python bench/agreement.py [--repeat 7]``

1. Krippendorff's alpha, 1,000 units x 10 raters (values 1..5, 10 % missing), each level of measurement:
   creval's ``krippendorff_alpha`` beside ``krippendorff.alpha`` (0.9.0). Target: ratio >= 1 (we are no slower).
2. Fleiss' kappa, 10,000 items x 5 raters, 3 categories: from raw item x rater labels (creval's one bincount
   beside statsmodels' ``aggregate_raters`` + ``fleiss_kappa``), and from a ready count table.
3. ICC (all six forms), 500 targets x 4 raters, beside ``pingouin.intraclass_corr``; Cohen's kappa on 10,000
   pairs beside ``sklearn.metrics.cohen_kappa_score``; Friedman on 10,000 blocks beside
   ``scipy.stats.friedmanchisquare``.

Each row prints the best-of-``repeat`` time of both, the ratio reference / creval (above 1: creval faster) and
the largest absolute difference between the two values (they must agree).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def best(fn, repeat: int) -> tuple[float, object]:
    out = fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def row(name: str, ours: tuple[float, float], ref: tuple[float, float], ref_name: str) -> float:
    (t_ours, v_ours), (t_ref, v_ref) = ours, ref
    ratio = t_ref / t_ours
    print(
        f"{name:<34} creval {t_ours * 1e3:9.2f} ms   {ref_name:<28} {t_ref * 1e3:9.2f} ms   "
        f"ratio {ratio:7.2f}x   |diff| {abs(v_ours - v_ref):.1e}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    import krippendorff
    import pandas as pd
    import pingouin as pg
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    from creval.agreement import cohen_kappa, fleiss_kappa, icc, krippendorff_alpha

    rng = np.random.default_rng(0)
    ratios = []
    print("Krippendorff's alpha: 1,000 units x 10 raters, values 1..5, 10% missing")
    truth = rng.integers(1, 6, size=1000)
    data = np.clip(truth[None, :] + rng.integers(-1, 2, size=(10, 1000)), 1, 5).astype(float)
    data[rng.random(data.shape) < 0.1] = np.nan
    for level in ("nominal", "ordinal", "interval", "ratio"):
        ours = best(lambda lv=level: krippendorff_alpha(data, lv).value, args.repeat)
        ref = best(lambda lv=level: krippendorff.alpha(data, level_of_measurement=lv), args.repeat)
        ratios.append(row(f"  alpha {level}", ours, ref, "krippendorff.alpha"))

    print("Fleiss' kappa: 10,000 items x 5 raters, 3 categories")
    labels = np.clip(rng.integers(0, 3, size=(10_000, 1)) + rng.integers(-1, 2, size=(10_000, 5)), 0, 2)
    ours = best(lambda: fleiss_kappa(labels).value, args.repeat)
    ref = best(lambda: sm_fleiss(aggregate_raters(labels)[0]), args.repeat)
    ratios.append(row("  from raw labels", ours, ref, "statsmodels aggregate+fleiss"))
    table = aggregate_raters(labels)[0]
    ours = best(lambda: fleiss_kappa(table, counts=True).value, args.repeat)
    ref = best(lambda: sm_fleiss(table), args.repeat)
    ratios.append(row("  from a count table", ours, ref, "statsmodels fleiss_kappa"))
    words = np.array(["bad", "acceptable", "good"], dtype=object)[labels]
    ours = best(lambda: fleiss_kappa(words).value, max(1, args.repeat // 2))
    print(f"  (string labels 'good'/'acceptable'/'bad': creval {ours[0] * 1e3:.2f} ms)")

    print("ICC, all six forms: 500 targets x 4 raters")
    x = rng.normal(size=(500, 1)) + rng.normal(size=(500, 4))
    long = pd.DataFrame({"t": np.repeat(np.arange(500), 4), "r": np.tile(np.arange(4), 500), "s": x.ravel()})
    ours = best(lambda: icc(x)["ICC2"].value, args.repeat)
    ref = best(lambda: float(pg.intraclass_corr(long, "t", "r", "s")["ICC"].iloc[1]), args.repeat)
    ratios.append(row("  ICC(2,1) with F tests and CIs", ours, ref, "pingouin.intraclass_corr"))

    print("Cohen's kappa (quadratic weights): 10,000 pairs, 5 categories")
    a = rng.integers(0, 5, size=10_000)
    b = np.clip(a + rng.integers(-1, 2, size=10_000), 0, 4)
    ours = best(lambda: cohen_kappa(a, b, "quadratic").value, args.repeat)
    ref = best(lambda: cohen_kappa_score(a, b, weights="quadratic"), args.repeat)
    ratios.append(row("  weighted kappa with SE and CI", ours, ref, "sklearn cohen_kappa_score"))

    print("Friedman test: 10,000 blocks x 5 systems, scores 1..5 (ties)")
    from scipy.stats import friedmanchisquare

    from creval.agreement import friedman

    scores = rng.integers(1, 6, size=(10_000, 5)).astype(float)
    ours = best(lambda: friedman(scores, posthoc=None).statistic, args.repeat)
    ref = best(lambda: float(friedmanchisquare(*scores.T).statistic), args.repeat)
    ratios.append(row("  chi2 with tie correction", ours, ref, "scipy friedmanchisquare"))

    print(f"slowest ratio {min(ratios):.2f}x (>= 1 means creval is at least as fast as every reference)")


if __name__ == "__main__":
    main()
