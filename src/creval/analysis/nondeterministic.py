"""Evaluating nondeterministic systems (Wu et al.): one-best output, a random sample, or the average of samples?

A sampling system gives several outputs per input. Which one should be scored? Wu et al. compare three
choices per input :math:`i` with samples :math:`v_{i,1..M_i}` of a measure (or of a human rating) and an
optional one-best output :math:`b_i` (rows with ``sample = "best"``):

- the average over samples :math:`a_i = \\frac{1}{M_i} \\sum_j v_{i,j}`;
- one random sample :math:`r_i = v_{i,J_i}`, :math:`J_i` uniform on :math:`1..M_i`;
- the one-best score :math:`b_i`.

and report the correlations across inputs of the pairs (best, average), (best, random) and (random, average).
A high correlation means the cheaper choice ranks inputs like the other. Because :math:`r` depends on the draw,
its correlations are the **mean over** ``draws`` seeded random choices (``numpy.random.default_rng(seed)``),
with their standard deviation; the p-value given for a random pair is the median over the draws. Pearson's
p-value uses the t distribution with :math:`n-2` degrees of freedom
(:math:`t = r\\sqrt{(n-2)/(1-r^2)}`), as ``scipy.stats.pearsonr`` and ``spearmanr`` do.

Human ratings enter as a tidy table ``artist, system, output_id, rating`` (one row per judgement; several
annotators are averaged per output) joined to the outputs' ``input_id`` and ``sample``
(:func:`ratings_as_results`). Diversity across the samples of an input is a set-level measure: its rows in the
results table (no ``output_id``) are summarised per system by :func:`sample_diversity`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

BEST = "best"
PAIRS = (("best", "average"), ("best", "random"), ("random", "average"))
ND_COLUMNS = ["system", "measure", "pair", "n_inputs", "pearson_r", "pearson_p", "spearman_rho", "spearman_p",
              "pearson_sd", "spearman_sd", "draws", "note"]


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` with each row of ``y`` (broadcast, same shape); NaN for a constant row."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    num = (xc * yc).sum(axis=-1)
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum(axis=-1))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return np.clip(out, -1.0, 1.0)


def _p_value(r: np.ndarray, n: int) -> np.ndarray:
    """Two-sided p-value of a correlation coefficient with ``n`` pairs (t test, ``n - 2`` d.o.f.)."""
    from scipy import stats

    r = np.asarray(r, dtype=float)
    if n < 3:
        return np.full(r.shape, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = r * np.sqrt((n - 2) / np.maximum(1.0 - r**2, 0.0))
    p = 2 * stats.t.sf(np.abs(t), n - 2)
    return np.where(np.isfinite(r), p, np.nan)


def _ranks(x: np.ndarray) -> np.ndarray:
    from scipy import stats

    return stats.rankdata(x, axis=-1)


def sample_matrix(values: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """From rows ``input_id, sample, value``: the input ids, the samples packed left in an
    inputs × max-samples matrix (NaN padding), and each input's one-best value (NaN when absent)."""
    defined = values[values["value"].notna() & values["input_id"].notna()]
    samples = defined[defined["sample"].astype("string") != BEST]
    best = defined[defined["sample"].astype("string") == BEST].groupby("input_id", observed=True)["value"].mean()
    inputs = sorted(set(samples["input_id"].astype(str)) | set(best.index.astype(str)))
    index = {k: i for i, k in enumerate(inputs)}
    counts = samples.groupby("input_id", observed=True).size()
    width = int(counts.max()) if len(counts) else 0
    mat = np.full((len(inputs), width), np.nan)
    fill = np.zeros(len(inputs), dtype=int)
    for inp, val in zip(samples["input_id"].astype(str), samples["value"].to_numpy(float)):
        i = index[inp]
        mat[i, fill[i]] = val
        fill[i] += 1
    best_vec = np.full(len(inputs), np.nan)
    for inp, val in best.items():
        best_vec[index[str(inp)]] = float(val)
    return inputs, mat, best_vec


def choice_correlations(mat: np.ndarray, best: np.ndarray, *, draws: int = 100, seed: int = 0
                        ) -> list[dict[str, object]]:
    """The three pairs of the module docstring for one measure (``mat``: inputs × samples, NaN-padded)."""
    counts = np.isfinite(mat).sum(axis=1)
    has_samples = counts > 0
    avg = np.full(len(mat), np.nan)
    np.divide(np.nansum(np.where(np.isfinite(mat), mat, 0.0), axis=1), counts, out=avg, where=has_samples)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    nan = float("nan")
    for a, b in PAIRS:
        uses_random = "random" in (a, b)
        uses_best = "best" in (a, b)
        keep = has_samples & (np.isfinite(best) if uses_best else True)
        n = int(keep.sum())
        row: dict[str, object] = {"pair": f"{a} vs {b}", "n_inputs": n, "pearson_r": nan, "pearson_p": nan,
                                  "spearman_rho": nan, "spearman_p": nan, "pearson_sd": nan, "spearman_sd": nan,
                                  "draws": draws if uses_random else 1, "note": ""}
        if uses_best and not np.isfinite(best).any():
            continue  # no one-best outputs (sample = "best"): only random vs average applies
        if n < 3:
            row["note"] = f"too few inputs (n = {n}; need 3)"
            rows.append(row)
            continue
        sub = mat[keep]
        vecs = {"average": avg[keep][None, :], "best": best[keep][None, :]}
        if uses_random:
            k = counts[keep]
            pick = np.floor(rng.random((draws, n)) * k[None, :]).astype(int)  # draws × inputs
            vecs["random"] = sub[np.arange(n)[None, :], pick]
        x, y = np.broadcast_arrays(vecs[a], vecs[b])
        pr = _pearson_rows(x, y)
        sr = _pearson_rows(_ranks(x), _ranks(y))
        if not np.isfinite(pr).any():
            row["note"] = "constant values: correlation undefined"
            rows.append(row)
            continue
        if not np.isfinite(pr).all():
            row["note"] = f"{int((~np.isfinite(pr)).sum())} of {len(pr)} draws constant (left out)"
        row.update(
            pearson_r=float(np.nanmean(pr)), spearman_rho=float(np.nanmean(sr)),
            pearson_p=float(np.nanmedian(_p_value(pr, n))), spearman_p=float(np.nanmedian(_p_value(sr, n))),
            pearson_sd=float(np.nanstd(pr)) if uses_random else nan,
            spearman_sd=float(np.nanstd(sr)) if uses_random else nan,
        )
        if np.all(counts[keep] == 1) and uses_random:
            row["note"] = "one sample per input: random = average"
        rows.append(row)
    return rows


def nondeterministic_correlations(results: pd.DataFrame, measures: Sequence[str] | None = None, *,
                                  draws: int = 100, seed: int = 0) -> pd.DataFrame:
    """Per system × measure, the three choice correlations (module docstring). Systems whose outputs have no
    ``input_id`` or only one sample per input are listed with a note rather than left out."""
    import pandas as pd

    res = results[results["output_id"].notna()]
    if measures is not None:
        res = res[res["measure"].isin(list(measures))]
    rows = []
    for system, by_system in res.groupby("system", sort=True, observed=True):
        if by_system["input_id"].isna().all():
            rows.append({"system": system, "measure": "—", "pair": "—", "n_inputs": 0, "draws": 0,
                         "note": "outputs have no input_id: samples cannot be grouped"})
            continue
        samples = by_system[by_system["sample"].astype("string") != BEST]
        per_input = samples.groupby(["measure", "input_id"], observed=True).size()
        has_best = (by_system["sample"].astype("string") == BEST).any()
        if (per_input.empty or per_input.max() < 2) and not has_best:
            rows.append({"system": system, "measure": "—", "pair": "—",
                         "n_inputs": int(by_system["input_id"].nunique()), "draws": 0,
                         "note": "one sample per input and no one-best output: nothing to compare"})
            continue
        for measure, part in by_system.groupby("measure", sort=True, observed=True):
            _, mat, best = sample_matrix(part[["input_id", "sample", "value"]])
            for row in choice_correlations(mat, best, draws=draws, seed=seed):
                rows.append({"system": system, "measure": measure, **row})
    return pd.DataFrame(rows, columns=ND_COLUMNS)


def ratings_as_results(ratings: pd.DataFrame, meta: pd.DataFrame, measure: str = "human_rating") -> pd.DataFrame:
    """Human ratings (``artist, system, output_id, rating``; several rows per output are averaged) as tidy
    result rows, with ``input_id``, ``sample`` and ``checkpoint`` taken from ``meta`` (any frame with
    ``output_id, input_id, sample``, e.g. the results table). Unknown output ids raise a clear error."""
    from creval.errors import InputError
    from creval.metrics.base import results_frame

    missing_cols = {"system", "output_id", "rating"} - set(ratings.columns)
    if missing_cols:
        raise InputError(f"ratings table lacks column(s) {', '.join(sorted(missing_cols))}")
    rated = ratings.assign(rating=pd_numeric(ratings["rating"]))
    mean = rated.groupby(["system", "output_id"], observed=True)["rating"].mean().reset_index()
    cols = [c for c in ("output_id", "input_id", "sample", "checkpoint", "artist") if c in meta.columns]
    info = meta[cols].drop_duplicates("output_id")
    joined = mean.merge(info, on="output_id", how="left", indicator=True)
    unknown = joined.loc[joined["_merge"] == "left_only", "output_id"].astype(str).tolist()
    if unknown:
        raise InputError(f"ratings name output id(s) not among the outputs: {', '.join(unknown[:5])}"
                         + (" …" if len(unknown) > 5 else ""))
    if "artist" in ratings.columns and "artist" not in cols:
        joined = joined.merge(ratings[["output_id", "artist"]].drop_duplicates("output_id"), on="output_id")
    joined["measure"] = measure
    joined = joined.rename(columns={"rating": "value"})
    return results_frame(joined.to_dict("records"))


def pd_numeric(series: pd.Series) -> pd.Series:
    import pandas as pd

    from creval.errors import InputError

    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna()
    if bad.any():
        first = series[bad].iloc[0]
        raise InputError(f"rating {first!r} is not a number (row {int(bad.to_numpy().argmax()) + 1} of the ratings)")
    return values


def sample_diversity(results: pd.DataFrame, prefix: str = "diversity") -> pd.DataFrame:
    """Diversity across samples: the set-level rows (no ``output_id``) of measures whose name starts with
    ``prefix``, summarised per system × measure (sets, mean, std, min, max)."""
    import pandas as pd

    res = results[results["output_id"].isna() & results["measure"].astype(str).str.startswith(prefix)]
    cols = ["system", "measure", "sets", "mean", "std", "min", "max"]
    if res.empty:
        return pd.DataFrame(columns=cols)
    g = res.groupby(["system", "measure"], observed=True, sort=True)["value"]
    out = g.agg(["count", "mean", "std", "min", "max"]).reset_index().rename(columns={"count": "sets"})
    return out[cols]
