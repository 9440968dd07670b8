"""Result types shared by every agreement statistic, and the input helpers they use.

A statistic never returns a bare float: it returns a small frozen dataclass carrying the value, the number of
units it rests on and, when the statistic is undefined for the data (every rating identical, a single rater, no
unit with two ratings), ``value = nan``, ``defined = False`` and a ``reason`` saying why. Undefined is never
reported as 1.0 and never raises.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from creval.errors import InputError

__all__ = ["StatResult", "as_array", "as_frame", "encode_labels", "plain"]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value (so messages print ``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class StatResult:
    """One statistic: value, sample size and (when it has them) CI, standard error, p-value and a label.

    ``detail`` holds statistic-specific extras (observed and expected agreement, dropped items, ...).
    ``float(result)`` gives the value (NaN when undefined).
    """

    statistic: str
    value: float
    n: int
    defined: bool = True
    reason: str | None = None
    ci: tuple[float, float] | None = None
    confidence: float | None = None
    se: float | None = None
    p_value: float | None = None
    interpretation: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def undefined(cls, statistic: str, reason: str, n: int = 0, **detail: Any) -> StatResult:
        return cls(statistic=statistic, value=math.nan, n=int(n), defined=False, reason=reason, detail=detail)

    def __float__(self) -> float:
        return float(self.value)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["detail"] = dict(self.detail)
        return out

    def __str__(self) -> str:
        if not self.defined:
            return f"{self.statistic} = undefined ({self.reason}; n={self.n})"
        text = f"{self.statistic} = {self.value:.3f}"
        if self.interpretation:
            text += f" ({self.interpretation})"
        if self.ci is not None:
            level = f"{round((self.confidence or 0.95) * 100):d}% CI" if self.confidence else "CI"
            text += f", {level} [{self.ci[0]:.3f}, {self.ci[1]:.3f}]"
        if self.p_value is not None and not math.isnan(self.p_value):
            text += f", p = {self.p_value:.3g}"
        return text + f", n={self.n}"


def as_array(data: Any, what: str, dtype: Any = None) -> np.ndarray:
    """``data`` (array, nested lists, DataFrame) as a numpy array; a table numpy cannot shape is an InputError.

    With ``dtype=None`` numbers stay numeric and anything else becomes an object array (a cell that is itself a
    list is refused later, when the labels are coded).
    """
    raw = data.to_numpy() if hasattr(data, "to_numpy") and not isinstance(data, np.ndarray) else data
    try:
        arr = np.asarray(raw, dtype=dtype)
    except (ValueError, TypeError) as exc:
        if dtype is not None:
            raise InputError(f"{what} must hold numbers (NaN for missing): {exc}") from None
        try:
            arr = np.asarray(raw, dtype=object)
        except (ValueError, TypeError) as exc2:
            raise InputError(f"{what} is not a rectangular table: {exc2}") from None
    if dtype is not None and arr.dtype.kind == "f" and np.isinf(arr).any():
        raise InputError(f"{what}: infinite value (use NaN for a missing rating)")
    if arr.dtype.kind not in "fiub":
        if dtype is None and arr.dtype.kind != "O":
            arr = arr.astype(object)
    return arr


def _is_missing_array(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind in "iub":
        return np.zeros(values.shape, dtype=bool)
    import pandas as pd

    return np.asarray(pd.isna(values), dtype=bool)


def encode_labels(values: Any, categories: Sequence[Any] | None = None) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Integer codes (``-1`` for a missing cell: None, NaN, pd.NA) and the category list.

    Categories are the given ``categories`` in that order (a label outside them is an :class:`InputError`), else
    the sorted distinct labels (first-appearance order when labels of mixed types cannot be sorted). The order
    matters for weighted kappa and ordinal alpha only.
    """
    arr = np.asarray(values, dtype=object if _needs_object(values) else None)
    if arr.dtype.kind not in "fiub":
        return _encode_objects(arr, categories)
    missing = _is_missing_array(arr)
    codes = np.full(arr.shape, -1, dtype=np.int64)
    present = arr[~missing]
    if categories is not None:
        cats = tuple(categories)
        if len(set(cats)) != len(cats):
            raise InputError("categories contain a duplicate label")
        if present.dtype.kind in "fiub" and all(isinstance(c, int | float | np.number) for c in cats):
            cat_arr = np.asarray(cats, dtype=float)
            order = np.argsort(cat_arr, kind="stable")
            pos = np.searchsorted(cat_arr[order], present.astype(float))
            pos = np.clip(pos, 0, len(cats) - 1)
            ok = cat_arr[order][pos] == present.astype(float)
            if not ok.all():
                raise InputError(f"label {present[~ok][0]!r} is not one of the categories {list(cats)}")
            codes[~missing] = order[pos]
        else:
            index = {c: i for i, c in enumerate(cats)}
            try:
                mapped = [index[v] for v in present.tolist()]
            except KeyError as exc:
                raise InputError(f"label {exc.args[0]!r} is not one of the categories {list(cats)}") from None
            codes[~missing] = np.asarray(mapped, dtype=np.int64)
        return codes, cats
    if present.dtype.kind in "fiub":
        fast = _small_int_codes(present)
        if fast is not None:
            inv, uniq = fast
        else:
            uniq, inv = np.unique(present, return_inverse=True)
        codes[~missing] = inv.reshape(-1)
        return codes, tuple(uniq.tolist())
    uniq, inv = np.unique(present, return_inverse=True)
    codes[~missing] = inv.reshape(-1)
    return codes, tuple(uniq.tolist())


def _encode_objects(arr: np.ndarray, categories: Sequence[Any] | None) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Object labels: one hash pass (pandas.factorize), which also marks None/NaN/pd.NA as missing (-1)."""
    import pandas as pd

    flat = arr.astype(object).reshape(-1)
    try:
        inv, uniq = pd.factorize(flat, sort=True)
    except TypeError:  # labels of mixed types: first-appearance order
        try:
            inv, uniq = pd.factorize(flat, sort=False)
        except TypeError:
            raise InputError(
                "a label is a list or other unhashable value (rows of different lengths?)"
            ) from None
    found = list(uniq.tolist()) if hasattr(uniq, "tolist") else list(uniq)
    if categories is None:
        return inv.reshape(arr.shape).astype(np.int64), tuple(found)
    cats = tuple(categories)
    if len(set(cats)) != len(cats):
        raise InputError("categories contain a duplicate label")
    index = {c: i for i, c in enumerate(cats)}
    lookup = np.empty(len(found) + 1, dtype=np.int64)
    for j, label in enumerate(found):
        if label not in index:
            raise InputError(f"label {label!r} is not one of the categories {list(cats)}")
        lookup[j] = index[label]
    lookup[-1] = -1  # inv == -1 (missing) picks this
    return lookup[inv].reshape(arr.shape), cats


def _small_int_codes(present: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes of whole-number labels in a small range with one bincount (O(n), no sort); None otherwise."""
    if present.size == 0:
        return None
    if present.dtype.kind == "b":
        present = present.astype(np.int64)
    lo, hi = present.min(), present.max()
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo > 65536:
        return None
    if present.dtype.kind == "f" and not np.array_equal(present, np.floor(present)):
        return None
    offset = (present - lo).astype(np.int64)
    used = np.bincount(offset.reshape(-1), minlength=int(hi - lo) + 1) > 0
    remap = np.cumsum(used) - 1
    values = (np.flatnonzero(used) + lo).astype(present.dtype)
    return remap[offset], values


def _needs_object(values: Any) -> bool:
    if isinstance(values, np.ndarray):
        return False
    try:
        import pandas as pd

        if isinstance(values, pd.DataFrame | pd.Series):
            return values.to_numpy().dtype.kind not in "fiub"
    except ImportError:  # pragma: no cover
        pass
    try:
        arr = np.asarray(values)
    except ValueError:
        return True
    return arr.dtype.kind not in "fiub"


def as_frame(data: Any, required: Sequence[str], *, what: str = "table") -> Any:
    """A pandas DataFrame from a DataFrame, a list of row dicts or a dict of columns; checks required columns."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        frame = data
    else:
        try:
            frame = pd.DataFrame(data)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{what}: cannot read as a table ({exc})") from None
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(
            f"{what}: missing column(s) {', '.join(map(repr, missing))}; has {', '.join(map(repr, frame.columns))}"
        )
    return frame
