"""Rank statistics for studies: Kendall's tau-b per page (Wu et al.), Friedman with post-hoc comparisons."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from creval.agreement._result import StatResult, as_array, as_frame, plain
from creval.errors import InputError

__all__ = [
    "FriedmanResult",
    "friedman",
    "holm",
    "kendall_tau_b",
    "kendall_tau_pages",
    "nemenyi",
    "wilcoxon_holm",
]


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    r"""Kendall's tau-b (Kendall 1945, "The treatment of ties in ranking problems", Biometrika 33(3):239-251).

    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    over the :math:`n_0 = n(n-1)/2` item pairs, with :math:`n_1, n_2` the pairs tied in *x* and in *y*. NaN when
    either list is constant (the denominator is 0). All pairs at once with numpy: meant for the handful of items
    on one page; use ``scipy.stats.kendalltau`` for long lists.
    """
    a = as_array(x, "x", float)
    b = as_array(y, "y", float)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"tau-b needs two equally long lists, got {a.shape} and {b.shape}")
    iu = np.triu_indices(len(a), 1)
    sx = np.sign(a[:, None] - a[None, :])[iu]
    sy = np.sign(b[:, None] - b[None, :])[iu]
    denom = math.sqrt(float(np.count_nonzero(sx)) * float(np.count_nonzero(sy)))
    if denom == 0:
        return math.nan
    return float((sx * sy).sum()) / denom


def kendall_tau_pages(
    judgements: Any,
    *,
    page: str = "page",
    assessor: str = "assessor",
    item: str = "item",
    score: str = "score",
    exclude: str = "page",
) -> StatResult:
    r"""Mean Kendall tau-b between assessors' scores of the items on one page, as Wu et al. report agreement.

    Each page shows several items; each assessor scores them. For every page and every pair of assessors who
    both scored at least two common items on it, tau-b (:func:`kendall_tau_b`) compares their scores of those
    items; the result is the mean over all (page, pair) values (equal to the mean over pages of the mean over
    pairs when every page has the same assessors).

    tau-b is undefined when an assessor gave every item on the page the same score. With ``exclude="page"``
    (default) such a page is left out entirely; with ``exclude="pair"`` only the pairs involving that assessor
    are. ``detail`` reports ``pages``, ``pages_used``, ``pages_excluded`` (pages with a constant assessor),
    ``pairs_used`` and ``pairs_excluded``; ``n`` is the number of (page, pair) values averaged.

    Columns of ``judgements`` (a DataFrame, list of dicts or dict of lists): ``page``, ``assessor``, ``item``,
    ``score`` (numeric; missing scores are ignored). An assessor scoring an item twice on a page is an error.
    """
    if exclude not in ("page", "pair"):
        raise InputError(f"exclude must be 'page' or 'pair', got {exclude!r}")
    frame = as_frame(judgements, [page, assessor, item, score], what="judgements")
    frame = frame[[page, assessor, item, score]].copy()
    frame[score] = _numeric(frame[score], score)
    frame = frame.dropna(subset=[score])
    dup = frame.duplicated(subset=[page, assessor, item])
    if dup.any():
        r = frame[dup].iloc[0]
        raise InputError(
            f"judgements: assessor {plain(r[assessor])!r} scored item {plain(r[item])!r} on page {plain(r[page])!r} twice"
        )
    taus: list[float] = []
    per_page: list[dict[str, Any]] = []
    pages_excluded = pairs_excluded = 0
    for key, sub in frame.groupby(page, sort=True):
        wide = sub.pivot(index=item, columns=assessor, values=score)
        mat = wide.to_numpy(dtype=float)
        cols = list(wide.columns)
        const = {}
        for j, name in enumerate(cols):
            col = mat[:, j][~np.isnan(mat[:, j])]
            const[name] = len(col) >= 1 and bool((col == col[0]).all())
        if any(const.values()):
            pages_excluded += 1
        values = []
        for i, j in combinations(range(len(cols)), 2):
            ok = ~np.isnan(mat[:, i]) & ~np.isnan(mat[:, j])
            if ok.sum() < 2:
                continue
            if exclude == "page" and any(const.values()):
                pairs_excluded += 1
                continue
            tau = kendall_tau_b(mat[ok, i], mat[ok, j])
            if math.isnan(tau):
                pairs_excluded += 1
                continue
            values.append(tau)
        taus.extend(values)
        per_page.append(
            {"page": key, "tau_b": float(np.mean(values)) if values else math.nan, "pairs": len(values)}
        )
    n_pages = len(per_page)
    pages_used = sum(1 for p in per_page if p["pairs"] > 0)
    detail = {
        "pages": n_pages,
        "pages_used": pages_used,
        "pages_excluded": pages_excluded,
        "pairs_used": len(taus),
        "pairs_excluded": pairs_excluded,
        "exclude": exclude,
        "per_page": per_page,
    }
    if not taus:
        reason = (
            "every page has an assessor who gave all items the same score"
            if pages_excluded
            else "no page has two assessors scoring two or more common items"
        )
        return StatResult("kendall_tau_b_pages", math.nan, 0, defined=False, reason=reason, detail=detail)
    arr = np.asarray(taus)
    sd = float(arr.std(ddof=1)) if len(arr) > 1 else math.nan
    detail["std"] = sd
    return StatResult("kendall_tau_b_pages", float(arr.mean()), len(arr), detail=detail)


def _numeric(series: Any, name: str) -> Any:
    import pandas as pd

    out = pd.to_numeric(series, errors="coerce")
    bad = out.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"row {row + 1}: column {name!r} must be numeric, got {plain(series.iloc[row])!r}")
    return out


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's chi-square with its p-value, Kendall's W, mean ranks per system and the post-hoc table."""

    statistic: float
    p_value: float
    df: int
    n_blocks: int
    k: int
    kendall_w: float
    mean_ranks: dict[Any, float]
    posthoc: Any = None
    posthoc_method: str | None = None
    critical_difference: float | None = None
    dropped_blocks: int = 0
    defined: bool = True
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def value(self) -> float:
        return self.statistic

    def __str__(self) -> str:
        if not self.defined:
            return f"Friedman: undefined ({self.reason}; blocks={self.n_blocks}, systems={self.k})"
        ranks = ", ".join(f"{s}: {r:.2f}" for s, r in self.mean_ranks.items())
        return (
            f"Friedman chi2({self.df}) = {self.statistic:.3f}, p = {self.p_value:.3g}, "
            f"Kendall's W = {self.kendall_w:.3f}, N = {self.n_blocks} blocks; mean ranks {ranks}"
        )


def _wide(
    data: Any, block: Sequence[str] | str | None, system: str, score: str
) -> tuple[np.ndarray, list[Any], int]:
    """Blocks x systems scores (complete blocks only), system names and the number of blocks dropped."""
    if block is None:
        if hasattr(data, "columns") and hasattr(data, "apply"):
            import pandas as pd

            names = list(data.columns)
            arr = data.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        else:
            arr = as_array(data, "scores", float)
            if arr.ndim != 2:
                raise InputError(f"Friedman needs a blocks x systems table, got {arr.ndim} dimension(s)")
            names = list(range(arr.shape[1]))
    else:
        keys = [block] if isinstance(block, str) else list(block)
        frame = as_frame(data, [*keys, system, score], what="scores")
        frame = frame[[*keys, system, score]].copy()
        frame[score] = _numeric(frame[score], score)
        dup = frame.duplicated(subset=[*keys, system])
        if dup.any():
            r = frame[dup].iloc[0]
            raise InputError(
                f"scores: system {plain(r[system])!r} has two scores in block {tuple(plain(r[k]) for k in keys)!r}; "
                "average them first or make the block finer (e.g. block=['annotator', 'item'])"
            )
        wide = frame.pivot_table(index=keys, columns=system, values=score, aggfunc="first", dropna=False)
        names = list(wide.columns)
        arr = wide.to_numpy(dtype=float)
    complete = ~np.isnan(arr).any(axis=1) if arr.size else np.ones(arr.shape[0], dtype=bool)
    return arr[complete], names, int((~complete).sum())


def _rank_sums(x: np.ndarray) -> tuple[np.ndarray, float]:
    """Per-system rank sums (ranks within each block, ties averaged) and the tie term sum(t^3 - t), from one
    row-wise argsort: equal neighbours in a sorted row form a tie group sharing the mean of its positions."""
    n, k = x.shape
    order = np.argsort(x, axis=1, kind="stable")
    srt = np.take_along_axis(x, order, axis=1)
    new = np.ones((n, k), dtype=bool)
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]
    flat = new.ravel()
    starts = np.flatnonzero(flat)
    lengths = np.diff(np.append(starts, n * k))
    first_rank = starts % k + 1.0
    mean_rank = first_rank + (lengths - 1) / 2.0
    ranks_sorted = mean_rank[np.cumsum(flat) - 1]
    sums = np.bincount(order.ravel(), weights=ranks_sorted, minlength=k)
    lf = lengths.astype(float)
    return sums, float((lf**3 - lf).sum())


def friedman(
    data: Any,
    *,
    block: Sequence[str] | str | None = None,
    system: str = "system",
    score: str = "score",
    posthoc: str | None = "nemenyi",
    alpha: float = 0.05,
) -> FriedmanResult:
    r"""Friedman's test that *k* systems score alike across *N* blocks (Friedman 1937, JASA 32(200):675-701),
    with the tie correction (as ``scipy.stats.friedmanchisquare``):

    .. math:: \chi^2_F = \frac{\frac{12}{N k (k+1)} \sum_j R_j^2 - 3 N (k+1)}
              {1 - \frac{\sum_{b} \sum_{t} (t^3 - t)}{N k (k^2 - 1)}}

    on :math:`k - 1` df, :math:`R_j` the rank sum of system *j* (ranks within each block, ties averaged, higher
    score = higher rank) and *t* the sizes of tie groups. Kendall's :math:`W = \chi^2_F / (N (k - 1))`.

    ``data`` is a blocks x systems table (array or wide DataFrame), or a long table with ``block`` column(s),
    ``system`` and ``score``: ``block="item"`` or ``block=["annotator", "item"]``. Blocks missing a system are
    dropped (``dropped_blocks``). ``posthoc``: ``"nemenyi"`` (Demšar 2006, JMLR 7:1-30, section 3.2.2),
    ``"wilcoxon-holm"`` (pairwise Wilcoxon signed-rank tests with Holm's correction, Benavoli et al. 2016) or
    None. Undefined when every block ties all systems or there are fewer than two blocks or systems.
    """
    from scipy.stats import chi2

    if posthoc not in (None, "nemenyi", "wilcoxon-holm"):
        raise InputError(f"posthoc must be 'nemenyi', 'wilcoxon-holm' or None, got {posthoc!r}")
    x, names, dropped = _wide(data, block, system, score)
    n, k = x.shape
    if k < 2 or n < 2:
        reason = "fewer than two systems" if k < 2 else "fewer than two complete blocks"
        return FriedmanResult(
            math.nan,
            math.nan,
            max(k - 1, 0),
            n,
            k,
            math.nan,
            {},
            dropped_blocks=dropped,
            defined=False,
            reason=reason,
        )
    r_sum, ties = _rank_sums(x)
    mean_ranks = dict(zip(names, (r_sum / n).tolist()))
    correction = 1.0 - ties / (n * k * (k * k - 1))
    if correction <= 1e-12:
        return FriedmanResult(
            math.nan,
            math.nan,
            k - 1,
            n,
            k,
            math.nan,
            mean_ranks,
            dropped_blocks=dropped,
            defined=False,
            reason="every block ties all systems",
        )
    stat = (12.0 / (n * k * (k + 1)) * float((r_sum**2).sum()) - 3.0 * n * (k + 1)) / correction
    p = float(chi2.sf(stat, k - 1))
    w = stat / (n * (k - 1))
    table = cd = None
    if posthoc == "nemenyi":
        table, cd = nemenyi(x, names=names, alpha=alpha)
    elif posthoc == "wilcoxon-holm":
        table = wilcoxon_holm(x, names=names, alpha=alpha)
    return FriedmanResult(
        stat,
        p,
        k - 1,
        n,
        k,
        w,
        mean_ranks,
        table,
        posthoc,
        cd,
        dropped,
        detail={"significant": p < alpha, "alpha": alpha},
    )


def nemenyi(x: Any, *, names: Sequence[Any] | None = None, alpha: float = 0.05) -> tuple[Any, float]:
    r"""Nemenyi's all-pairs test after Friedman (Demšar 2006, JMLR 7:1-30, eq. on p. 11).

    Mean ranks :math:`\bar R_i` of *k* systems over *N* blocks differ significantly when
    :math:`|\bar R_i - \bar R_j| \ge CD = q_\alpha \sqrt{k(k+1)/(6N)}`, with :math:`q_\alpha` the studentized
    range quantile for *k* groups and infinite df divided by :math:`\sqrt 2`. The p-value of a pair is
    :math:`P(Q_{k,\infty} \ge \sqrt 2\,|\bar R_i - \bar R_j| / \sqrt{k(k+1)/(6N)})`. Returns the pairwise table
    (``a, b, mean_rank_a, mean_rank_b, difference, statistic, p_value, significant``) and CD.
    """
    import pandas as pd
    from scipy.stats import studentized_range

    arr = np.asarray(x, dtype=float)
    n, k = arr.shape
    names = list(names) if names is not None else list(range(k))
    mr = _rank_sums(arr)[0] / n
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    q_crit = float(studentized_range.ppf(1 - alpha, k, np.inf)) / math.sqrt(2)
    rows = []
    for i, j in combinations(range(k), 2):
        diff = float(mr[i] - mr[j])
        z = abs(diff) / se
        p = float(studentized_range.sf(z * math.sqrt(2), k, np.inf))
        rows.append(
            {
                "a": names[i],
                "b": names[j],
                "mean_rank_a": float(mr[i]),
                "mean_rank_b": float(mr[j]),
                "difference": diff,
                "statistic": z,
                "p_value": min(p, 1.0),
                "significant": p < alpha,
            }
        )
    return pd.DataFrame(rows), q_crit * se


def holm(p_values: Sequence[float]) -> np.ndarray:
    r"""Holm's step-down adjusted p-values (Holm 1979, Scand. J. Statistics 6(2):65-70):
    :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})` for the sorted p-values."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def wilcoxon_holm(
    x: Any, *, names: Sequence[Any] | None = None, alpha: float = 0.05, zero_method: str = "wilcox"
) -> Any:
    """Pairwise Wilcoxon signed-rank tests between systems (``scipy.stats.wilcoxon``, two-sided) with Holm's
    correction (Benavoli, Corani & Mangili 2016, JMLR 17:1-10, recommend it over mean-rank tests). A pair whose
    differences are all zero gets p = 1. Returns ``a, b, statistic, p_value, p_adjusted, significant``."""
    import pandas as pd
    from scipy.stats import wilcoxon

    arr = np.asarray(x, dtype=float)
    k = arr.shape[1]
    names = list(names) if names is not None else list(range(k))
    rows = []
    for i, j in combinations(range(k), 2):
        d = arr[:, i] - arr[:, j]
        if not np.any(d != 0):
            stat, p = math.nan, 1.0
        else:
            res = wilcoxon(arr[:, i], arr[:, j], zero_method=zero_method)
            stat, p = float(res.statistic), float(res.pvalue)
        rows.append({"a": names[i], "b": names[j], "statistic": stat, "p_value": p})
    table = pd.DataFrame(rows)
    if len(table):
        table["p_adjusted"] = holm(table["p_value"].to_numpy())
        table["significant"] = table["p_adjusted"] < alpha
    return table
