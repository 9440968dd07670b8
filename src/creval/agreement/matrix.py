"""Agreement over a unit x rater matrix file (the layout ``creval study export`` writes for each criterion)."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval.agreement._result import StatResult
from creval.errors import InputError

__all__ = ["read_matrix", "agreement_table"]


def read_matrix(path: str | Path) -> tuple[list[str], list[str], np.ndarray]:
    """Read a unit x rater CSV: a header ``unit,rater1,rater2,...``, one row per unit, an empty cell where a
    rater did not judge the unit. Returns unit ids, rater names and an object array (None = missing; numbers
    as floats when every filled cell is a number)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", path) from None
    rows = list(csv.reader(text.splitlines()))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise InputError("expected a header (unit, rater names...) and at least one unit row", path)
    header = rows[0]
    if len(header) < 2:
        raise InputError("the header needs a unit column and at least one rater column", path, 1)
    width = len(header)
    units: list[str] = []
    cells: list[list[Any]] = []
    for n, row in enumerate(rows[1:], 2):
        if len(row) > width:
            raise InputError(f"{len(row)} cells for {width} columns", path, n)
        row = row + [""] * (width - len(row))
        units.append(row[0])
        cells.append([c.strip() or None for c in row[1:]])
    arr = np.array(cells, dtype=object)
    filled = [c for c in arr.ravel() if c is not None]
    try:
        nums = [float(c) for c in filled]
    except ValueError:
        return units, header[1:], arr
    if any(not np.isfinite(x) for x in nums):
        raise InputError("infinite value in the matrix", path)
    num = np.array([[np.nan if c is None else float(c) for c in row] for row in cells], dtype=float)
    return units, header[1:], num


def agreement_table(
    matrix: Any,
    *,
    collapse: Mapping[Any, Any] | str | None = None,
    categories: Sequence[Any] | None = None,
    levels: Sequence[str] | None = None,
) -> list[StatResult]:
    """Every applicable statistic for a units x raters matrix: Fleiss' kappa (and collapsed, if asked),
    Krippendorff's alpha (nominal for labels; nominal, ordinal, interval for numbers, or the given ``levels``),
    and for numbers ICC(2,1) and ICC(3,1) over the units every rater judged, and the mean pairwise Cohen's
    kappa."""
    from itertools import combinations

    from creval.agreement.alpha import krippendorff_alpha
    from creval.agreement.icc import icc
    from creval.agreement.kappa import cohen_kappa, fleiss_kappa
    from creval.agreement.labels import interpret_kappa

    arr = np.asarray(matrix)
    numeric = arr.dtype.kind == "f"
    out = [fleiss_kappa(arr, categories=categories)]
    if collapse is not None:
        res = fleiss_kappa(arr, categories=categories, collapse=collapse)
        out.append(_renamed(res, "fleiss_kappa_collapsed"))
    chosen = list(levels) if levels else (["nominal", "ordinal", "interval"] if numeric else ["nominal"])
    for level in chosen:
        out.append(krippendorff_alpha(arr.T, level, value_domain=categories if level == "ordinal" else None))
    k = arr.shape[1] if arr.ndim == 2 else 0
    if k >= 2:
        pair = [
            cohen_kappa(arr[:, i], arr[:, j], categories=categories) for i, j in combinations(range(k), 2)
        ]
        vals = [p.value for p in pair if p.defined]
        if vals:
            out.append(
                StatResult(
                    "cohen_kappa_mean_pairwise",
                    float(np.mean(vals)),
                    len(vals),
                    interpretation=interpret_kappa(float(np.mean(vals))),
                    detail={"pairs": len(pair), "pairs_defined": len(vals)},
                )
            )
        else:
            out.append(
                StatResult.undefined("cohen_kappa_mean_pairwise", "no rater pair has a defined kappa", 0)
            )
    if numeric:
        res = icc(arr)
        for name in ("ICC(2,1)", "ICC(3,1)"):
            f = res[name]
            out.append(
                StatResult(
                    f"icc {f.shrout_fleiss} = {f.mcgraw_wong}", f.value, f.n, defined=f.defined, reason=f.reason,
                    ci=f.ci if f.defined else None, confidence=f.confidence, p_value=f.p_value if f.defined
                    else None, interpretation=f.interpretation, detail={"dropped_targets": res.dropped_targets},
                )
            )  # fmt: skip
    return out


def _renamed(res: StatResult, name: str) -> StatResult:
    from dataclasses import replace

    return replace(res, statistic=name)
