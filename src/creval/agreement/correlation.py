"""Pearson, Spearman and Kendall correlation with confidence intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from creval.agreement._result import StatResult, as_array
from creval.errors import InputError

__all__ = ["correlation"]

METHODS = ("pearson", "spearman", "kendall")


def correlation(
    x: Sequence[float],
    y: Sequence[float],
    method: str = "pearson",
    *,
    confidence: float = 0.95,
    ci_method: str = "auto",
) -> StatResult:
    r"""Correlation coefficient with p-value (from scipy.stats) and a Fisher-z confidence interval.

    The interval is :math:`\tanh(\operatorname{artanh}(r) \pm z_{1-\alpha/2}\,\sigma)` with
    :math:`\sigma = 1/\sqrt{n-3}` for Pearson (Fisher 1921), :math:`\sqrt{(1 + r^2/2)/(n-3)}` for Spearman
    (Bonett & Wright 2000, Psychometrika 65(1):23-28) and :math:`\sqrt{0.437/(n-4)}` for Kendall's tau-b
    (Fieller, Hartley & Pearson 1957, Biometrika 44:470-481). ``ci_method="fisher"`` uses :math:`1/\sqrt{n-3}`
    for every method (what pingouin does). Pairs with a missing value are dropped.

    Undefined (NaN with a reason) with fewer than three pairs or when either variable is constant (ties
    everywhere). The CI is NaN when *n* is too small for its variance formula.
    """
    from scipy import stats

    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if ci_method not in ("auto", "fisher"):
        raise InputError(f"ci_method must be 'auto' or 'fisher', got {ci_method!r}")
    a = as_array(x, "x", float)
    b = as_array(y, "y", float)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError(f"correlation needs two equally long lists, got {a.shape} and {b.shape}")
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    n = len(a)
    name = f"{method}_r" if method != "kendall" else "kendall_tau_b"
    dropped = int((~ok).sum())
    if n < 3:
        return StatResult.undefined(name, f"fewer than three complete pairs ({n})", n, dropped_pairs=dropped)
    for label, v in (("x", a), ("y", b)):
        if np.all(v == v[0]):
            return StatResult.undefined(
                name, f"{label} is constant: the correlation is 0/0", n, dropped_pairs=dropped
            )
    if method == "pearson":
        res = stats.pearsonr(a, b)
        r, p = float(res.statistic), float(res.pvalue)
        var = 1.0 / (n - 3) if n > 3 else math.nan
    elif method == "spearman":
        res = stats.spearmanr(a, b)
        r, p = float(res.statistic), float(res.pvalue)
        var = (1.0 + r * r / 2.0) / (n - 3) if n > 3 else math.nan
    else:
        res = stats.kendalltau(a, b)
        r, p = float(res.statistic), float(res.pvalue)
        var = 0.437 / (n - 4) if n > 4 else math.nan
    if ci_method == "fisher":
        var = 1.0 / (n - 3) if n > 3 else math.nan
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    if math.isnan(var):
        ci = (math.nan, math.nan)
    elif abs(r) >= 1.0:
        ci = (r, r)
    else:
        zr = math.atanh(r)
        half = z * math.sqrt(var)
        ci = (math.tanh(zr - half), math.tanh(zr + half))
    return StatResult(
        name,
        r,
        n,
        ci=ci,
        confidence=confidence,
        p_value=p,
        detail={"dropped_pairs": dropped, "method": method},
    )
