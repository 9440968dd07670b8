"""Krippendorff's alpha for nominal, ordinal, interval and ratio data, with missing values."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from creval.agreement._result import StatResult, as_array, encode_labels
from creval.agreement.labels import interpret_alpha
from creval.errors import InputError

__all__ = ["krippendorff_alpha", "LEVELS"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: Ordinal and ratio alpha build a values x values coincidence matrix; above this many values that is refused.
MAX_VALUES = 4000


def krippendorff_alpha(
    reliability_data: Any = None,
    level: str = "nominal",
    *,
    value_counts: Any = None,
    value_domain: Sequence[Any] | None = None,
) -> StatResult:
    r"""Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", Annenberg School
    for Communication; Content Analysis, 2004, ch. 11).

    ``reliability_data`` is raters x units (the layout of the ``krippendorff`` package): one row per rater, one
    column per unit, NaN/None where a rater did not code a unit. Alternatively ``value_counts`` is units x
    values: how many raters gave each value to each unit. Units with fewer than two values are not pairable and
    are left out. With :math:`n_{uc}` the number of values *c* in unit *u*, :math:`m_u = \sum_c n_{uc}`, the
    coincidences and their marginals are

    .. math::

        o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k] n_{uc}}{m_u - 1},\quad n_c = \sum_k o_{ck},\quad
        n = \sum_c n_c,

    and

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1)\frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
              {\sum_{c,k} n_c n_k\,\delta^2_{ck}}

    with the metric :math:`\delta^2` of the level: nominal :math:`[c \ne k]`; ordinal
    :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` over the ordered values; interval :math:`(c - k)^2`; ratio
    :math:`((c - k)/(c + k))^2`. Nominal and interval are computed in closed form per unit (no values x values
    matrix, so any number of distinct values is fine); ordinal and ratio build the coincidence matrix with one
    matrix product (at most :data:`MAX_VALUES` = 4000 distinct values). ``value_domain`` gives the ordered
    values for ordinal data (values nobody used still count in no sum, as in the paper). Undefined when no unit is pairable or every pairable value is the same
    (:math:`D_e = 0`): NaN with the reason, never 1.0.
    """
    if level not in LEVELS:
        raise InputError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    name = f"krippendorff_alpha_{level}"
    if (reliability_data is None) == (value_counts is None):
        raise InputError(
            "give exactly one of reliability_data (raters x units) or value_counts (units x values)"
        )
    labels: Sequence[Any] | None = None
    if value_counts is not None:
        vc = as_array(value_counts, "value_counts", float)
        if vc.ndim != 2:
            raise InputError(f"value_counts must be 2-D (units x values), got {vc.ndim} dimension(s)")
        vc = np.nan_to_num(vc)
        if (vc < 0).any():
            raise InputError("value_counts must be >= 0")
        if value_domain is None:
            if level in ("interval", "ratio"):
                raise InputError(f"{level} alpha from value_counts needs value_domain (the numeric values)")
            values = np.arange(vc.shape[1], dtype=float)
        else:
            values = as_array(value_domain, "value_domain", float)
            if len(values) != vc.shape[1]:
                raise InputError(
                    f"value_domain has {len(values)} values for {vc.shape[1]} value_counts columns"
                )
    else:
        arr = as_array(reliability_data, "reliability_data")
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2:
            raise InputError(f"reliability_data must be 2-D (raters x units), got {arr.ndim} dimension(s)")
        if level in ("interval", "ratio") or level == "ordinal" and value_domain is None:
            try:
                arr = arr.astype(float)
            except (TypeError, ValueError):
                if level != "ordinal":
                    raise InputError(f"{level} alpha needs numeric values (NaN for missing)") from None
                arr = arr.astype(object)
        if arr.dtype.kind == "f" and np.isinf(arr).any():
            raise InputError("reliability_data: infinite value (use NaN for a missing value)")
        if level == "ratio" and arr.dtype.kind == "f" and (arr[~np.isnan(arr)] < 0).any():
            raise InputError("ratio alpha needs values >= 0")
        if arr.dtype.kind == "f" and level in ("interval", "ratio") and value_domain is None:
            return _alpha_numeric(arr, level, name)
        codes, cats = encode_labels(arr, value_domain)
        labels = cats
        vc = _value_counts(codes, len(cats))
        try:
            values = np.asarray(cats, dtype=float)
        except (TypeError, ValueError):
            values = np.arange(len(cats), dtype=float)
    if level == "ratio" and (values < 0).any():
        raise InputError("ratio alpha needs values >= 0")
    return _alpha_from_counts(vc, values, level, name, labels)


def _value_counts(codes: np.ndarray, n_values: int) -> np.ndarray:
    """Units x values counts from raters x units integer codes (-1 = missing), via one bincount."""
    n_units = codes.shape[1]
    m = max(n_values, 1)
    ok = codes >= 0
    units = np.broadcast_to(np.arange(n_units)[None, :], codes.shape)[ok]
    return np.bincount(units * m + codes[ok], minlength=n_units * m).reshape(n_units, m).astype(float)


def _undefined(name: str, reason: str, n: float, **detail: Any) -> StatResult:
    return StatResult(
        name, math.nan, int(round(n)), defined=False, reason=reason, interpretation="undefined", detail=detail
    )


def _alpha_from_counts(
    vc: np.ndarray, values: np.ndarray, level: str, name: str, labels: Sequence[Any] | None = None
) -> StatResult:
    m_u = vc.sum(axis=1)
    pairable = m_u >= 2
    vc = vc[pairable]
    m_u = m_u[pairable]
    n_units = int(pairable.sum())
    if n_units == 0:
        return _undefined(
            name, "no unit has two or more values (a single rater, or no overlap)", 0, pairable_units=0
        )
    n_c = vc.sum(axis=0)  # marginals of the coincidence matrix equal the pairable value totals
    n = float(n_c.sum())
    detail = {"pairable_units": n_units, "pairable_values": int(n)}
    if level == "nominal":
        # D_o * n = sum_u (m_u^2 - sum_c n_uc^2) / (m_u - 1);  D_e * n (n - 1) = n^2 - sum_c n_c^2
        obs = float(((m_u * m_u - (vc * vc).sum(axis=1)) / (m_u - 1.0)).sum())
        exp = float(n * n - (n_c * n_c).sum())
    else:
        if vc.shape[1] > MAX_VALUES:
            raise InputError(
                f"{level} alpha over {vc.shape[1]} distinct values needs a {vc.shape[1]}^2 coincidence matrix; "
                f"round the values (at most {MAX_VALUES} distinct) or use level='interval'"
            )
        w = 1.0 / (m_u - 1.0)
        o = (vc * w[:, None]).T @ vc
        o[np.diag_indices_from(o)] -= (vc * w[:, None]).sum(axis=0)
        if level == "ordinal":
            cs = np.cumsum(n_c)
            d = cs[None, :] - cs[:, None] + (n_c[:, None] - n_c[None, :]) / 2.0
            d2 = d * d
        elif level == "interval":
            d2 = (values[:, None] - values[None, :]) ** 2
        else:  # ratio
            s = values[:, None] + values[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                d2 = np.where(s == 0, 0.0, ((values[:, None] - values[None, :]) / s) ** 2)
        obs = float((o * d2).sum())
        exp = float((np.outer(n_c, n_c) * d2).sum())
    if exp <= 0:
        used = np.flatnonzero(n_c > 0)
        return _undefined(
            name,
            f"every pairable value is the same ({_label(values, labels, used[0])}): expected disagreement "
            "is 0, so alpha is 0/0"
            if len(used)
            else "no pairable values",
            n_units,
            **detail,
        )
    alpha = 1.0 - (n - 1.0) * obs / exp
    detail["observed_disagreement"] = obs / n
    detail["expected_disagreement"] = exp / (n * (n - 1.0))
    return StatResult(name, alpha, n_units, interpretation=interpret_alpha(alpha), detail=detail)


def _label(values: np.ndarray, labels: Sequence[Any] | None, index: int) -> str:
    if labels is not None and index < len(labels):
        return repr(labels[index]) if isinstance(labels[index], str) else f"{labels[index]:g}"
    return f"{values[index]:g}"


def _alpha_numeric(arr: np.ndarray, level: str, name: str) -> StatResult:
    """Interval alpha in closed form (and ratio through the coincidence route) straight from numeric data.

    Interval: the within-unit pair sums are :math:`\\sum_{i \\ne j} (v_i - v_j)^2 = 2 m_u SS_u`, so
    :math:`\\alpha = 1 - (n - 1) \\sum_u \\frac{m_u SS_u}{m_u - 1} / (n\\, SS)` with :math:`SS` over all
    pairable values: O(raters x units), with no values x values matrix.
    """
    ok = ~np.isnan(arr)
    m_u = ok.sum(axis=0)
    pairable = m_u >= 2
    if not pairable.any():
        return _undefined(
            name, "no unit has two or more values (a single rater, or no overlap)", 0, pairable_units=0
        )
    if level == "ratio":
        codes, cats = encode_labels(arr[:, pairable])
        vc = _value_counts(codes, len(cats))
        return _alpha_from_counts(vc, np.asarray(cats, dtype=float), level, name)
    x = arr[:, pairable]
    okp = ok[:, pairable]
    m = m_u[pairable].astype(float)
    xz = np.where(okp, x, 0.0)
    sums = xz.sum(axis=0)
    means = sums / m
    ss_u = (np.where(okp, x - means, 0.0) ** 2).sum(axis=0)
    n = float(m.sum())
    grand = sums.sum() / n
    ss = float((np.where(okp, x - grand, 0.0) ** 2).sum())
    detail = {"pairable_units": int(pairable.sum()), "pairable_values": int(n)}
    if ss <= 0:
        return _undefined(
            name,
            f"every pairable value is the same ({grand:g}): expected disagreement is 0, so alpha is 0/0",
            int(pairable.sum()),
            **detail,
        )
    obs = float((m * ss_u / (m - 1.0)).sum())
    alpha = 1.0 - (n - 1.0) * obs / (n * ss)
    detail["observed_disagreement"] = 2.0 * obs / n
    detail["expected_disagreement"] = 2.0 * ss / (n - 1.0)
    return StatResult(name, alpha, int(pairable.sum()), interpretation=interpret_alpha(alpha), detail=detail)
