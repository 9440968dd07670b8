"""Intraclass correlation: the six Shrout & Fleiss forms, named in both conventions, with F tests and CIs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from creval.agreement.labels import interpret_icc
from creval.errors import InputError

__all__ = ["ICCForm", "ICCResult", "icc"]


@dataclass(frozen=True)
class ICCForm:
    """One ICC form. ``shrout_fleiss`` is e.g. ``"ICC(2,1)"`` (``"ICC(2,k)"`` for averages), ``mcgraw_wong`` e.g.
    ``"ICC(A,1)"``; ``pingouin`` is the name in pingouin's ``Type`` column order (``"ICC2"``, ``"ICC2k"``)."""

    shrout_fleiss: str
    mcgraw_wong: str
    pingouin: str
    model: str
    kind: str
    unit: str
    value: float
    f: float
    df1: float
    df2: float
    p_value: float
    ci: tuple[float, float]
    confidence: float
    n: int
    k: int
    defined: bool = True
    reason: str | None = None
    interpretation: str | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __str__(self) -> str:
        name = f"{self.shrout_fleiss} = {self.mcgraw_wong}"
        if not self.defined:
            return f"{name}: undefined ({self.reason})"
        return (
            f"{name} = {self.value:.3f} ({self.interpretation}), {round(self.confidence * 100)}% CI "
            f"[{self.ci[0]:.3f}, {self.ci[1]:.3f}], F({self.df1:g}, {self.df2:g}) = {self.f:.3f}, "
            f"p = {self.p_value:.3g}"
        )


@dataclass(frozen=True)
class ICCResult:
    """All six forms. Index by either name: ``res["ICC(2,1)"]``, ``res["ICC(A,1)"]``, ``res["ICC(2,k)"]``,
    ``res["ICC(2,4)"]`` (with k = 4 raters) or pingouin's ``res["ICC2"]``."""

    forms: tuple[ICCForm, ...]
    n: int
    k: int
    dropped_targets: int = 0
    anova: dict[str, float] = field(default_factory=dict)

    def __iter__(self) -> Iterator[ICCForm]:
        return iter(self.forms)

    def __getitem__(self, name: str) -> ICCForm:
        key = name.replace(" ", "").upper()
        for f in self.forms:
            names = {
                f.shrout_fleiss.upper(),
                f.mcgraw_wong.upper(),
                f.pingouin.upper(),
                f.shrout_fleiss.replace(",k)", f",{self.k})").upper(),
            }
            if key in names:
                return f
        raise KeyError(f"no ICC form named {name!r}; try 'ICC(2,1)', 'ICC(A,1)' or 'ICC2'")

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "shrout_fleiss": f.shrout_fleiss,
                    "mcgraw_wong": f.mcgraw_wong,
                    "model": f.model,
                    "type": f.kind,
                    "unit": f.unit,
                    "icc": f.value,
                    "interpretation": f.interpretation,
                    "F": f.f,
                    "df1": f.df1,
                    "df2": f.df2,
                    "p_value": f.p_value,
                    "ci_low": f.ci[0],
                    "ci_high": f.ci[1],
                    "defined": f.defined,
                    "reason": f.reason,
                }
                for f in self.forms
            ]
        )

    def __str__(self) -> str:
        head = f"ICC over n={self.n} targets x k={self.k} raters"
        if self.dropped_targets:
            head += f" ({self.dropped_targets} targets with missing ratings dropped)"
        return "\n".join([head, *(str(f) for f in self.forms)])


def _matrix(data: Any, targets: str | None, raters: str | None, ratings: str | None) -> np.ndarray:
    if targets is not None or raters is not None or ratings is not None:
        if None in (targets, raters, ratings):
            raise InputError("a long table needs all three of targets=, raters= and ratings= column names")
        from creval.agreement._result import as_frame, plain

        frame = as_frame(data, [targets, raters, ratings], what="ratings")
        if frame.duplicated(subset=[targets, raters]).any():
            row = int(np.flatnonzero(frame.duplicated(subset=[targets, raters]).to_numpy())[0])
            raise InputError(
                f"ratings row {row + 1}: rater {plain(frame[raters].iloc[row])!r} rated target "
                f"{plain(frame[targets].iloc[row])!r} twice"
            )
        wide = frame.pivot(index=targets, columns=raters, values=ratings)
        return wide.to_numpy(dtype=float)
    from creval.agreement._result import as_array

    x = as_array(data, "ICC ratings (numeric, NaN for missing)", float)
    if x.ndim != 2:
        raise InputError(f"ICC needs a 2-D targets x raters table, got {x.ndim} dimension(s)")
    return x


def icc(
    data: Any,
    *,
    targets: str | None = None,
    raters: str | None = None,
    ratings: str | None = None,
    confidence: float = 0.95,
) -> ICCResult:
    r"""Intraclass correlations (Shrout & Fleiss 1979, "Intraclass correlations: uses in assessing rater
    reliability", Psychological Bulletin 86(2):420-428, Table 1 and eqs. 2-8; McGraw & Wong 1996, "Forming
    inferences about some intraclass correlation coefficients", Psychological Methods 1(1):30-46, Tables 4-8).

    ``data`` is a targets x raters table (n x k, NaN = missing) or a long table with ``targets``, ``raters`` and
    ``ratings`` column names (pingouin's layout). The ANOVA needs complete data, so targets with a missing
    rating are dropped (``dropped_targets``). With between-targets, within-targets, between-raters and residual
    mean squares BMS, WMS, JMS, EMS:

    ============  ===========  ==============================================================
    Shrout-Fleiss McGraw-Wong  formula
    ============  ===========  ==============================================================
    ICC(1,1)      ICC(1)       (BMS - WMS) / (BMS + (k-1) WMS)              one-way random
    ICC(2,1)      ICC(A,1)     (BMS - EMS) / (BMS + (k-1) EMS + k (JMS - EMS)/n)   absolute
    ICC(3,1)      ICC(C,1)     (BMS - EMS) / (BMS + (k-1) EMS)              consistency
    ICC(1,k)      ICC(k)       (BMS - WMS) / BMS
    ICC(2,k)      ICC(A,k)     (BMS - EMS) / (BMS + (JMS - EMS)/n)
    ICC(3,k)      ICC(C,k)     (BMS - EMS) / BMS
    ============  ===========  ==============================================================

    F tests: BMS/WMS on (n-1, n(k-1)) df for the one-way forms, BMS/EMS on (n-1, (n-1)(k-1)) otherwise.
    Confidence intervals are the exact F-based ones for cases 1 and 3 and the Satterthwaite approximation for
    case 2 (Shrout & Fleiss eqs. 6-8; McGraw & Wong Table 7); the k-forms' intervals follow by Spearman-Brown.
    Undefined (NaN with a reason) with fewer than two complete targets or two raters, or when every rating is
    the same (0/0). When a residual mean square is 0 (raters agree perfectly, or differ by constant offsets)
    F is infinite and the intervals are their limits ([1, 1] for cases 1 and 3; Satterthwaite df = k - 1 for
    case 2), where pingouin gives NaN.
    """
    x = _matrix(data, targets, raters, ratings)
    complete = ~np.isnan(x).any(axis=1)
    dropped = int((~complete).sum())
    x = x[complete]
    n, k = x.shape
    reason = None
    if k < 2:
        reason = "a single rater: ICC needs two or more raters per target"
    elif n < 2:
        reason = "fewer than two targets rated by every rater" if dropped else "fewer than two targets"
    if reason is None:
        grand = x.mean()
        row_m = x.mean(axis=1)
        col_m = x.mean(axis=0)
        ss_t = float(((x - grand) ** 2).sum())
        ss_r = float(k * ((row_m - grand) ** 2).sum())
        ss_c = float(n * ((col_m - grand) ** 2).sum())
        ss_e = max(ss_t - ss_r - ss_c, 0.0)
        ss_w = max(ss_t - ss_r, 0.0)
        bms = ss_r / (n - 1)
        wms = ss_w / (n * (k - 1))
        jms = ss_c / (k - 1)
        ems = ss_e / ((n - 1) * (k - 1))
        if ss_t <= 1e-12 * max(1.0, float(np.abs(x).max()) ** 2) * x.size:
            reason = "every rating is the same: all mean squares are 0, so the ICC is 0/0"
    if reason is not None:
        forms = tuple(_undefined_form(spec, n, k, confidence, reason) for spec in _SPECS)
        return ICCResult(forms, n, k, dropped)
    from scipy.stats import f as fdist

    a = 1.0 - confidence
    df1, df_w, df_e = n - 1, n * (k - 1), (n - 1) * (k - 1)
    values = {
        "1": (bms - wms) / (bms + (k - 1) * wms),
        "2": (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n),
        "3": (bms - ems) / (bms + (k - 1) * ems),
        "1k": (bms - wms) / bms if bms > 0 else math.nan,
        "2k": (bms - ems) / (bms + (jms - ems) / n),
        "3k": (bms - ems) / bms if bms > 0 else math.nan,
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = bms / wms if wms > 0 else math.inf
        f3 = bms / ems if ems > 0 else math.inf
        p1 = float(fdist.sf(f1, df1, df_w))
        p3 = float(fdist.sf(f3, df1, df_e))
        # cases 1 and 3: exact intervals
        f1l = f1 / fdist.ppf(1 - a / 2, df1, df_w)
        f1u = f1 * fdist.ppf(1 - a / 2, df_w, df1)
        f3l = f3 / fdist.ppf(1 - a / 2, df1, df_e)
        f3u = f3 * fdist.ppf(1 - a / 2, df_e, df1)
        ci1 = ((f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1))
        ci3 = ((f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1))
        ci1k = (1 - 1 / f1l, 1 - 1 / f1u)
        ci3k = (1 - 1 / f3l, 1 - 1 / f3u)
        # case 2: Satterthwaite degrees of freedom (Shrout & Fleiss eq. 7; McGraw & Wong Table 7)
        r2 = values["2"]
        if ems > 0:
            fj = jms / ems
            vn = df_e * (k * r2 * fj + n * (1 + (k - 1) * r2) - k * r2) ** 2
            vd = df1 * k**2 * r2**2 * fj**2 + (n * (1 + (k - 1) * r2) - k * r2) ** 2
            v = vn / vd
        else:  # no residual variance: the limit of v as F_J grows is df_e / df1 = k - 1
            v = float(k - 1)
        fu = fdist.ppf(1 - a / 2, df1, v)
        fl = fdist.ppf(1 - a / 2, v, df1)
        lo2 = n * (bms - fu * ems) / (fu * (k * jms + (k * n - k - n) * ems) + n * bms)
        hi2 = n * (fl * bms - ems) / (k * jms + (k * n - k - n) * ems + n * fl * bms)
        ci2 = (lo2, hi2)
        ci2k = (lo2 * k / (1 + lo2 * (k - 1)), hi2 * k / (1 + hi2 * (k - 1)))
    if math.isinf(f1):  # no within-target variance: the interval closes on 1 (its limit as F grows)
        ci1 = ci1k = (1.0, 1.0)
    if math.isinf(f3):
        ci3 = ci3k = (1.0, 1.0)
    cis = {"1": ci1, "2": ci2, "3": ci3, "1k": ci1k, "2k": ci2k, "3k": ci3k}
    tests = {"1": (f1, df1, df_w, p1), "1k": (f1, df1, df_w, p1)}
    for key in ("2", "3", "2k", "3k"):
        tests[key] = (f3, df1, df_e, p3)
    forms = []
    for spec in _SPECS:
        key = spec[0]
        val = float(values[key])
        f, d1, d2, p = tests[key]
        forms.append(
            ICCForm(
                shrout_fleiss=spec[1],
                mcgraw_wong=spec[2],
                pingouin=spec[3],
                model=spec[4],
                kind=spec[5],
                unit=spec[6],
                value=val,
                f=float(f),
                df1=float(d1),
                df2=float(d2),
                p_value=p,
                ci=(float(cis[key][0]), float(cis[key][1])),
                confidence=confidence,
                n=n,
                k=k,
                interpretation=interpret_icc(val),
            )
        )
    anova = {"BMS": bms, "WMS": wms, "JMS": jms, "EMS": ems}
    return ICCResult(tuple(forms), n, k, dropped, anova)


#: key, Shrout-Fleiss, McGraw-Wong, pingouin, model, type, unit
_SPECS = (
    ("1", "ICC(1,1)", "ICC(1)", "ICC1", "one-way random", "absolute agreement", "single"),
    ("2", "ICC(2,1)", "ICC(A,1)", "ICC2", "two-way random", "absolute agreement", "single"),
    ("3", "ICC(3,1)", "ICC(C,1)", "ICC3", "two-way mixed", "consistency", "single"),
    ("1k", "ICC(1,k)", "ICC(k)", "ICC1k", "one-way random", "absolute agreement", "average"),
    ("2k", "ICC(2,k)", "ICC(A,k)", "ICC2k", "two-way random", "absolute agreement", "average"),
    ("3k", "ICC(3,k)", "ICC(C,k)", "ICC3k", "two-way mixed", "consistency", "average"),
)


def _undefined_form(spec: tuple[str, ...], n: int, k: int, confidence: float, reason: str) -> ICCForm:
    nan = math.nan
    return ICCForm(
        shrout_fleiss=spec[1],
        mcgraw_wong=spec[2],
        pingouin=spec[3],
        model=spec[4],
        kind=spec[5],
        unit=spec[6],
        value=nan,
        f=nan,
        df1=nan,
        df2=nan,
        p_value=nan,
        ci=(nan, nan),
        confidence=confidence,
        n=n,
        k=k,
        defined=False,
        reason=reason,
        interpretation="undefined",
    )
