"""Bootstrap confidence intervals for any study score."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from creval.agreement._result import StatResult
from creval.errors import InputError

__all__ = ["bootstrap_ci"]


def bootstrap_ci(
    data: Any,
    statistic: Callable[[Any], float],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    method: str = "percentile",
    seed: int | np.random.Generator | None = 0,
    cluster: str | None = None,
    vectorized: bool = False,
    name: str = "bootstrap",
    progress: bool | None = None,
) -> StatResult:
    r"""Nonparametric bootstrap CI of ``statistic(data)`` (Efron & Tibshirani 1993, *An Introduction to the
    Bootstrap*, ch. 13-14).

    ``data`` is a numpy array or sequence (rows are resampled), or a pandas DataFrame (rows are resampled; with
    ``cluster="output_id"`` whole clusters are, so all annotations of a verse stay together, which is what a
    per-verse study score needs). Each of ``n_resamples`` replicates draws as many rows (clusters) as there are,
    with replacement, and applies ``statistic``. With ``vectorized=True`` (numpy input, no cluster) ``statistic``
    is called once with all resamples stacked, an array of shape ``(n_resamples, n, ...)``, and must return the
    ``n_resamples`` values (e.g. ``lambda s: s.mean(axis=-1)`` for a 1-D sample); it is also called on the
    original data, so it must accept that shape too.

    Methods: ``"percentile"`` :math:`[\hat\theta^*_{(\alpha/2)}, \hat\theta^*_{(1-\alpha/2)}]`; ``"basic"``
    :math:`[2\hat\theta - \hat\theta^*_{(1-\alpha/2)}, 2\hat\theta - \hat\theta^*_{(\alpha/2)}]`; ``"bca"``
    (bias-corrected and accelerated, eq. 14.10), with the acceleration from the jackknife over rows (clusters).
    Replicates where the statistic is undefined (NaN) are dropped and counted in ``detail["undefined"]``.
    ``seed`` makes the result reproducible (default 0). Undefined when the statistic is undefined on the data.
    A progress bar (rich, on stderr, removed when done) appears when the resamples look like taking more than
    about two seconds (judged from the time of the statistic on the data); ``progress=True/False`` forces it.
    """
    from scipy.stats import norm

    if method not in ("percentile", "basic", "bca"):
        raise InputError(f"method must be 'percentile', 'basic' or 'bca', got {method!r}")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be between 0 and 1, got {confidence!r}")
    if n_resamples < 1:
        raise InputError(f"n_resamples must be >= 1, got {n_resamples!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    take, n_units = _sampler(data, cluster)
    started = time.perf_counter()
    theta = float(statistic(data))
    per_call = time.perf_counter() - started
    if n_units == 0:
        return StatResult.undefined(name, "no data to resample", 0)
    if math.isnan(theta):
        return StatResult.undefined(name, "the statistic is undefined on the data", n_units)
    idx = rng.integers(0, n_units, size=(n_resamples, n_units))
    if vectorized:
        if cluster is not None or not isinstance(data, np.ndarray):
            raise InputError("vectorized=True needs a numpy array and no cluster")
        reps = np.asarray(statistic(data[idx]), dtype=float)
    else:
        rows: Any = idx
        show = progress if progress is not None else per_call * n_resamples > 2.0
        if show:
            from rich.progress import track

            rows = track(idx, description=f"bootstrap {name}", total=n_resamples, transient=True)
        reps = np.fromiter((statistic(take(row)) for row in rows), dtype=float, count=n_resamples)
    good = ~np.isnan(reps)
    undefined = int((~good).sum())
    reps = reps[good]
    if len(reps) == 0:
        return StatResult.undefined(name, "the statistic is undefined on every resample", n_units)
    a = 1.0 - confidence
    if method == "percentile":
        lo, hi = np.quantile(reps, [a / 2, 1 - a / 2])
    elif method == "basic":
        qlo, qhi = np.quantile(reps, [a / 2, 1 - a / 2])
        lo, hi = 2 * theta - qhi, 2 * theta - qlo
    else:
        prop = (np.count_nonzero(reps < theta) + 0.5 * np.count_nonzero(reps == theta)) / len(reps)
        z0 = float(norm.ppf(prop))
        jack = np.fromiter(
            (statistic(take(np.delete(np.arange(n_units), i))) for i in range(n_units)),
            dtype=float,
            count=n_units,
        )
        jack = jack[~np.isnan(jack)]
        d = jack.mean() - jack
        denom = 6.0 * float((d**2).sum()) ** 1.5
        acc = float((d**3).sum()) / denom if denom > 0 else 0.0
        zl, zh = norm.ppf(a / 2), norm.ppf(1 - a / 2)
        p_lo = norm.cdf(z0 + (z0 + zl) / (1 - acc * (z0 + zl)))
        p_hi = norm.cdf(z0 + (z0 + zh) / (1 - acc * (z0 + zh)))
        lo, hi = np.quantile(reps, [p_lo, p_hi])
    return StatResult(
        name,
        theta,
        n_units,
        ci=(float(lo), float(hi)),
        confidence=confidence,
        se=float(reps.std(ddof=1)) if len(reps) > 1 else math.nan,
        detail={"method": method, "n_resamples": n_resamples, "undefined": undefined, "cluster": cluster},
    )


def _sampler(data: Any, cluster: str | None) -> tuple[Callable[[np.ndarray], Any], int]:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        if cluster is None:
            return (lambda rows: data.iloc[rows]), len(data)
        if cluster not in data.columns:
            raise InputError(f"cluster column {cluster!r} is not in the table")
        codes, uniques = pd.factorize(data[cluster], sort=False)
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
        members = [order[bounds[i] : bounds[i + 1]] for i in range(len(uniques))]

        def take(rows: np.ndarray) -> Any:
            return data.iloc[np.concatenate([members[r] for r in rows])] if len(rows) else data.iloc[[]]

        return take, len(uniques)
    if cluster is not None:
        raise InputError("cluster= needs a DataFrame")
    arr = np.asarray(data)
    return (lambda rows: arr[rows]), (arr.shape[0] if arr.ndim else 0)
