"""Fleiss' kappa (many raters) and Cohen's kappa (two raters, optionally weighted)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from creval.agreement._result import StatResult, as_array, as_frame, encode_labels, plain
from creval.agreement.labels import interpret_kappa
from creval.errors import InputError

__all__ = [
    "ACCEPTABLE_VS_BAD",
    "cohen_kappa",
    "fleiss_kappa",
    "fleiss_kappa_by",
    "fleiss_table",
]

#: Addanki & Wu's collapse of the three-point scale to two categories: good/acceptable vs bad.
ACCEPTABLE_VS_BAD: Mapping[str, str] = {"good": "acceptable+", "acceptable": "acceptable+", "bad": "bad"}


def _collapse_map(collapse: Mapping[Any, Any] | str | None) -> Mapping[Any, Any] | None:
    if collapse is None:
        return None
    if isinstance(collapse, str):
        if collapse in ("acceptable", "acceptable-vs-bad", "good+acceptable|bad"):
            return ACCEPTABLE_VS_BAD
        raise InputError(
            f"unknown collapse preset {collapse!r}; use 'acceptable' or a mapping label -> group"
        )
    return collapse


def fleiss_table(
    data: Any,
    *,
    categories: Sequence[Any] | None = None,
    collapse: Mapping[Any, Any] | str | None = None,
) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Items x categories count table from raw items x raters labels (missing cells: None/NaN).

    With ``collapse`` (a mapping label -> group, or ``"acceptable"`` for :data:`ACCEPTABLE_VS_BAD`), labels are
    mapped to their group first; a label the mapping lacks is an :class:`InputError`.
    """
    mapping = _collapse_map(collapse)
    arr = _labels_1d(data)  # numeric stays numeric (fast path); anything else becomes object
    if arr.ndim != 2:
        raise InputError(f"ratings must be a 2-D items x raters table, got {arr.ndim} dimension(s)")
    if mapping is not None:
        codes, cats = encode_labels(arr, categories)
        groups = _group_categories(cats, mapping)
        gcats = tuple(dict.fromkeys(groups))
        lookup = np.array([gcats.index(g) for g in groups] + [-1], dtype=np.int64)
        codes = lookup[codes]  # -1 indexes the trailing -1
        cats = gcats
    else:
        codes, cats = encode_labels(arr, categories)
    n_items, m = codes.shape[0], max(len(cats), 1)
    ok = codes >= 0
    rows = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)[ok]
    table = np.bincount(rows * m + codes[ok], minlength=n_items * m).reshape(n_items, m)
    return table, cats


def _group_categories(cats: Sequence[Any], mapping: Mapping[Any, Any]) -> list[Any]:
    out = []
    for c in cats:
        if c not in mapping:
            raise InputError(
                f"collapse mapping has no group for label {c!r} (it maps {sorted(map(str, mapping))})"
            )
        out.append(mapping[c])
    return out


def fleiss_kappa(
    data: Any,
    *,
    counts: bool = False,
    collapse: Mapping[Any, Any] | str | None = None,
    categories: Sequence[Any] | None = None,
) -> StatResult:
    r"""Fleiss' kappa for any number of raters (Fleiss 1971, "Measuring nominal scale agreement among many
    raters", Psychological Bulletin 76(5):378-382, eqs. 2-9).

    With :math:`n_{ij}` raters putting item *i* in category *j* and :math:`n_i = \sum_j n_{ij}`:

    .. math::

        P_i = \frac{\sum_j n_{ij}^2 - n_i}{n_i (n_i - 1)},\quad
        \bar P = \frac{1}{N}\sum_i P_i,\quad
        p_j = \frac{\sum_i n_{ij}}{\sum_i n_i},\quad
        \bar P_e = \sum_j p_j^2,\quad
        \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}.

    Fleiss assumes every item has the same number of ratings; then this is exactly his formula (and
    statsmodels'). Items rated by different numbers of raters are allowed (missing cells): each item's
    :math:`P_i` uses its own :math:`n_i` and the items are weighted equally, and :math:`p_j` pools all ratings;
    ``detail["equal_raters"]`` says which case applied. Items with fewer than two ratings carry no agreement
    information and are dropped (``detail["dropped_items"]``).

    ``data`` is an items x raters table of labels (None/NaN = missing) or, with ``counts=True``, an items x
    categories table of counts (a DataFrame's columns name the categories). ``collapse`` maps labels to groups
    before counting (``"acceptable"``: good/acceptable vs bad, as Addanki & Wu report). Undefined (NaN with a
    reason, never 1.0) when every rating falls in one category (:math:`\bar P_e = 1`) or no item has two ratings.

    With equal raters per item, ``se`` is the standard error under the null of chance agreement (Fleiss, Nee &
    Landis 1979, Psychological Bulletin 86(5):974-977, eq. 12), ``detail["z"] = kappa / se`` and ``p_value`` the
    two-sided z test (as R's ``irr::kappam.fleiss``). For a confidence interval use :func:`bootstrap_ci` over
    items.
    """
    mapping = _collapse_map(collapse)
    if counts:
        table, cats = _count_table(data, categories)
        if mapping is not None:
            groups = _group_categories(cats, mapping)
            gcats = tuple(dict.fromkeys(groups))
            agg = np.zeros((table.shape[0], len(gcats)), dtype=table.dtype)
            for j, g in enumerate(groups):
                agg[:, gcats.index(g)] += table[:, j]
            table, cats = agg, gcats
    else:
        table, cats = fleiss_table(data, categories=categories, collapse=mapping)
    return _fleiss_from_counts(table, cats)


def _labels_1d(values: Any, what: str = "ratings") -> np.ndarray:
    return as_array(values, what)


def _count_table(data: Any, categories: Sequence[Any] | None) -> tuple[np.ndarray, tuple[Any, ...]]:
    cats: tuple[Any, ...] | None = None
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):
        cats = tuple(data.columns)
        data = data.to_numpy()
    table = as_array(data, "count table")
    if table.ndim != 2:
        raise InputError(f"a count table must be 2-D (items x categories), got {table.ndim} dimension(s)")
    if table.dtype.kind in "iu":
        if table.dtype.kind == "u" or table.min(initial=0) >= 0:
            cats = cats if categories is None else None
            if categories is not None:
                cats = tuple(categories)
                if len(cats) != table.shape[1]:
                    raise InputError(
                        f"{len(cats)} categories given for a table with {table.shape[1]} columns"
                    )
            return table, cats if cats is not None else tuple(range(table.shape[1]))
    try:
        table = table.astype(float)
    except (TypeError, ValueError):
        raise InputError("a count table must hold numbers") from None
    if np.isnan(table).any() or (table < 0).any() or (table != np.round(table)).any():
        bad = np.argwhere(np.isnan(table) | (table < 0) | (table != np.round(table)))[0]
        raise InputError(
            f"count table row {bad[0] + 1}, column {bad[1] + 1}: counts must be whole numbers >= 0, "
            f"got {table[bad[0], bad[1]]!r}"
        )
    if categories is not None:
        cats = tuple(categories)
        if len(cats) != table.shape[1]:
            raise InputError(f"{len(cats)} categories given for a table with {table.shape[1]} columns")
    if cats is None:
        cats = tuple(range(table.shape[1]))
    return table.astype(np.int64), cats


def _fleiss_from_counts(table: np.ndarray, cats: Sequence[Any]) -> StatResult:
    n_i = table.sum(axis=1)
    keep = n_i >= 2
    dropped = int(keep.size - np.count_nonzero(keep))
    t = table[keep] if dropped else table
    n_i = (n_i[keep] if dropped else n_i).astype(float)
    n_items = int(t.shape[0])
    if n_items == 0:
        reason = (
            "a single rating per item (one rater): agreement needs two ratings of an item"
            if table.size and table.sum(axis=1).max() == 1
            else "no item has two or more ratings"
        )
        return StatResult.undefined("fleiss_kappa", reason, 0, dropped_items=dropped)
    p_i = (np.einsum("ij,ij->i", t, t) - n_i) / (n_i * (n_i - 1.0))
    p_bar = float(p_i.mean())
    p_j = t.sum(axis=0) / n_i.sum()
    p_e = float((p_j * p_j).sum())
    equal = bool((n_i == n_i[0]).all())
    detail = {
        "observed_agreement": p_bar,
        "expected_agreement": p_e,
        "category_proportions": dict(zip(cats, p_j.tolist())),
        "dropped_items": dropped,
        "equal_raters": equal,
        "raters_per_item": float(n_i[0]) if equal else float(n_i.mean()),
        "n_ratings": int(n_i.sum()),
    }
    if p_e >= 1.0 - 1e-12:
        used = [c for c, p in zip(cats, p_j) if p > 0]
        return StatResult(
            "fleiss_kappa",
            math.nan,
            n_items,
            defined=False,
            reason=f"every rating is {used[0]!r}: expected agreement is 1, so kappa is 0/0",
            interpretation="undefined",
            detail=detail,
        )
    kappa = (p_bar - p_e) / (1.0 - p_e)
    se0 = p_value = None
    if equal:
        # Fleiss, Nee & Landis (1979), eq. 12: variance of kappa under the null of chance agreement.
        m = float(n_i[0])
        pq = p_j * (1.0 - p_j)
        s = float(pq.sum())
        var0 = 2.0 / (n_items * m * (m - 1.0)) * (s * s - float((pq * (1.0 - 2.0 * p_j)).sum())) / (s * s)
        if var0 > 0:
            se0 = math.sqrt(var0)
            detail["z"] = kappa / se0
            p_value = math.erfc(abs(kappa) / se0 / math.sqrt(2.0))
    return StatResult(
        "fleiss_kappa",
        kappa,
        n_items,
        se=se0,
        p_value=p_value,
        interpretation=interpret_kappa(kappa),
        detail=detail,
    )


def fleiss_kappa_by(
    judgements: Any,
    *,
    by: Sequence[str] | str = ("system", "criterion"),
    item: str = "item",
    rater: str = "annotator",
    label: str = "label",
    collapse: Mapping[Any, Any] | str | None = None,
    categories: Sequence[Any] | None = None,
) -> Any:
    """Fleiss' kappa per group (per system and per criterion) from a tidy judgement table.

    Columns: ``item`` (what was rated), ``rater`` (who), ``label`` (the rating; None/NaN = skipped) and the
    ``by`` columns (those absent from the table are ignored, so ``by=("system", "criterion")`` works on a table
    without a criterion column). An annotator rating the same item twice in a group is an :class:`InputError`.
    Returns a DataFrame with the group keys, ``kappa``, ``interpretation``, ``n_items``, ``n_ratings``,
    ``defined`` and ``reason``; add a row for all groups pooled by calling :func:`fleiss_kappa` yourself.
    """
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    frame = as_frame(judgements, [item, rater, label], what="judgements")
    keys = [k for k in keys if k in frame.columns]
    dup = frame.duplicated(subset=[*keys, item, rater], keep="first")
    if dup.any():
        row = int(np.flatnonzero(dup.to_numpy())[0])
        r = frame.iloc[row]
        raise InputError(
            f"judgements row {row + 1}: annotator {plain(r[rater])!r} rated item {plain(r[item])!r} twice"
            + (f" in group {tuple(plain(r[k]) for k in keys)!r}" if keys else "")
        )
    if categories is None:
        _, categories = encode_labels(frame[label].to_numpy(dtype=object))
    rows = []
    groups = frame.groupby(keys, sort=True, dropna=False) if keys else [((), frame)]
    for key, sub in groups:
        wide = sub.pivot(index=item, columns=rater, values=label)
        res = fleiss_kappa(wide.to_numpy(dtype=object), collapse=collapse, categories=categories)
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, key)),
                "kappa": res.value,
                "interpretation": res.interpretation or ("undefined" if not res.defined else None),
                "n_items": res.n,
                "n_ratings": res.detail.get("n_ratings", 0),
                "defined": res.defined,
                "reason": res.reason,
            }
        )
    return pd.DataFrame(rows)


def cohen_kappa(
    a: Sequence[Any],
    b: Sequence[Any],
    weights: str | None = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
) -> StatResult:
    r"""Cohen's kappa for two raters (Cohen 1960, Educational and Psychological Measurement 20:37-46), and the
    weighted kappa (Cohen 1968, Psychological Bulletin 70(4):213-220).

    With observed cell proportions :math:`p_{ij}`, marginals :math:`p_{i\cdot}, p_{\cdot j}` and disagreement
    weights :math:`w_{ij}` (0 on the diagonal: nominal :math:`w_{ij} = [i \ne j]`; ``"linear"``
    :math:`|i-j|/(k-1)`; ``"quadratic"`` :math:`(i-j)^2/(k-1)^2`, with *i, j* the positions in the ordered
    category list),

    .. math:: \kappa_w = 1 - \frac{\sum_{ij} w_{ij} p_{ij}}{\sum_{ij} w_{ij} p_{i\cdot} p_{\cdot j}},

    which for nominal weights is :math:`(p_o - p_e)/(1 - p_e)`. The standard error is the large-sample one of
    Fleiss, Cohen & Everitt (1969, Psychological Bulletin 72(5):323-327); the CI is the Wald interval
    ``kappa +- z * se`` and the p-value the two-sided z test of kappa = 0 using the null variance.

    Pairs where either label is missing are dropped. ``categories`` fixes the category order (it matters for the
    weighted forms, and categories nobody used still widen the scale); by default the sorted distinct labels.
    Undefined when the raters used one and the same category only (expected disagreement 0) or no pair is left.
    """
    if weights not in (None, "linear", "quadratic"):
        raise InputError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    a_arr = _labels_1d(a, "rater a's labels")
    b_arr = _labels_1d(b, "rater b's labels")
    if a_arr.shape != b_arr.shape or a_arr.ndim != 1:
        raise InputError(f"the two raters' label lists differ in length ({a_arr.shape} vs {b_arr.shape})")
    if a_arr.dtype.kind in "fiub" and b_arr.dtype.kind in "fiub":
        both = np.stack([a_arr, b_arr])
    else:
        both = np.stack([a_arr.astype(object), b_arr.astype(object)])
    codes, cats = encode_labels(both, categories)
    ok = (codes >= 0).all(axis=0)
    ca, cb = codes[0, ok], codes[1, ok]
    n = int(ok.sum())
    name = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
    if n == 0:
        return StatResult.undefined(name, "no item was labelled by both raters", 0)
    k = len(cats)
    table = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k).astype(float)
    idx = np.arange(k, dtype=float)
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        span = max(k - 1, 1)
        d = np.abs(idx[:, None] - idx[None, :]) / span
        w = d if weights == "linear" else d * d
    p = table / n
    row = p.sum(axis=1)
    col = p.sum(axis=0)
    expected = np.outer(row, col)
    d_obs = float((w * p).sum())
    d_exp = float((w * expected).sum())
    detail = {
        "observed_agreement": 1.0 - d_obs,
        "expected_agreement": 1.0 - d_exp,
        "table": table.astype(int).tolist(),
        "categories": list(cats),
        "dropped_pairs": int((~ok).sum()),
    }
    if d_exp <= 1e-15:
        used = [c for c, r in zip(cats, row) if r > 0]
        return StatResult(
            name,
            math.nan,
            n,
            defined=False,
            interpretation="undefined",
            reason=f"both raters used only {used[0]!r}: expected disagreement is 0, so kappa is 0/0",
            detail=detail,
        )
    kappa = 1.0 - d_obs / d_exp
    # Fleiss, Cohen & Everitt (1969) with agreement weights v = 1 - w.
    v = 1.0 - w
    pe = 1.0 - d_exp
    v_row = v @ col  # \bar v_{i.} = sum_j p_.j v_ij
    v_col = row @ v  # \bar v_{.j} = sum_i p_i. v_ij
    term = (p * (v - (v_row[:, None] + v_col[None, :]) * (1.0 - kappa)) ** 2).sum()
    var = (term - (kappa - pe * (1.0 - kappa)) ** 2) / (n * (1.0 - pe) ** 2)
    term0 = (expected * (v - (v_row[:, None] + v_col[None, :])) ** 2).sum()
    var0 = (term0 - pe**2) / (n * (1.0 - pe) ** 2)
    se = math.sqrt(max(var, 0.0))
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    se0 = math.sqrt(max(var0, 0.0))
    p_value = math.erfc(abs(kappa) / se0 / math.sqrt(2.0)) if se0 > 0 else math.nan  # two-sided z test
    detail["se_null"] = se0
    return StatResult(
        name,
        kappa,
        n,
        ci=(kappa - z * se, kappa + z * se),
        confidence=confidence,
        se=se,
        p_value=p_value,
        interpretation=interpret_kappa(kappa),
        detail=detail,
    )
