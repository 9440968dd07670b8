"""MGEval's relative evaluation: intra- and inter-set distances, kernel density estimates, KL divergence and
overlapping area (Yang & Lerch 2020, Sec. 3.2 "relative measurements").

For one feature with values :math:`x_1..x_N` (generated set) and :math:`y_1..y_M` (reference set):

* intra-set distances (leave one out): :math:`\\{\\lVert x_i - x_j \\rVert_2 : i \\ne j\\}`, N·(N−1) values
  (each pair twice, as MGEval's loop gives them);
* inter-set distances: :math:`\\{\\lVert x_i - y_j \\rVert_2\\}`, N·M values;
* a Gaussian kernel density estimate of each distance set (Scott's bandwidth, as ``scipy.stats.gaussian_kde``);
* KL divergence :math:`D_{KL}(P_{intra} \\Vert P_{inter})` and overlapping area
  :math:`OA = \\int \\min(p_{intra}, p_{inter})\\,dx` between the intra-set density (of the reference set, the
  paper's reading; the generated set's is reported too) and the inter-set density.

Two numerical modes:

``compat`` reproduces the MGEval toolbox (``utils.kl_dist`` and ``utils.overlap_area``): KL is
``scipy.stats.entropy(p_A(grid_A), p_B(grid_B))`` where each density is evaluated on *its own* 1,000-point grid
from its sample's minimum to maximum (so the two vectors compare densities at different x), and the overlap is
integrated only over the observed range [min(A ∪ B), max(A ∪ B)] (``quad`` there; a 4,001-point trapezoid here,
which agrees to about 10⁻⁴).

``corrected`` evaluates both densities on one common grid spanning the union of the samples plus five
bandwidths on each side (the densities' effective support), normalises them there, and integrates
:math:`\\int p \\log(p/q)` and :math:`\\int \\min(p, q)` with the trapezoid rule. ``q`` is floored at 10⁻³⁰⁰ so
KL stays finite; values in the hundreds mean the supports hardly meet.

A feature whose intra- or inter-set distances are all equal (e.g. every piece has the same pitch range) has no
density (its covariance is singular): KL and OA are NaN and the feature's ``status`` says ``constant``. Pieces
whose feature is NaN (avg. pitch interval of a one-note piece) are left out of that feature, with a note.

KDEs of more than :data:`EXACT_LIMIT` point-evaluations use linear binning on a 2¹⁴-point grid and an FFT
convolution (relative error about 10⁻⁵) instead of the exact sum; both follow scipy's bandwidth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from creval.errors import InputError

MODES = ("compat", "corrected")
EXACT_LIMIT = 500_000
_FINE = 1 << 14


# -------------------------------------------------------------------------------------------------- distances
def _flat(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return values.reshape(len(values), -1)


def intra_set_distances(values: np.ndarray) -> np.ndarray:
    """Leave-one-out Euclidean distances within one set: for each sample, its distance to every other sample,
    N·(N−1) values (Yang & Lerch 2020, Sec. 3.2; MGEval's ``c_dist`` with ``mode='None'``)."""
    from scipy.spatial.distance import cdist

    x = _flat(values)
    n = len(x)
    if n < 2:
        return np.zeros(0)
    d = cdist(x, x)
    return d[~np.eye(n, dtype=bool)]


def inter_set_distances(values_a: np.ndarray, values_b: np.ndarray) -> np.ndarray:
    """Euclidean distance of every sample of set A to every sample of set B, N·M values (Yang & Lerch 2020,
    Sec. 3.2)."""
    from scipy.spatial.distance import cdist

    a, b = _flat(values_a), _flat(values_b)
    if a.shape[1] != b.shape[1]:
        raise InputError(f"the two sets' features have different sizes ({a.shape[1]} and {b.shape[1]}); "
                         "extract per-bar features with the same num_bars")
    if not len(a) or not len(b):
        return np.zeros(0)
    return cdist(a, b).ravel()


# --------------------------------------------------------------------------------------------------------- KDE
def is_constant(sample: np.ndarray) -> bool:
    """True when a sample has fewer than two values or no spread (its KDE is undefined)."""
    sample = np.asarray(sample, dtype=float)
    if len(sample) < 2:
        return True
    spread = float(np.ptp(sample))
    return spread <= 1e-12 * max(1.0, float(np.max(np.abs(sample))))


def scott_bandwidth(sample: np.ndarray) -> float:
    r"""Scott's rule as ``scipy.stats.gaussian_kde``: :math:`h = \hat\sigma \, n^{-1/5}` (σ̂ with ddof = 1)."""
    sample = np.asarray(sample, dtype=float)
    return float(np.std(sample, ddof=1) * len(sample) ** (-0.2))


def kde(sample: np.ndarray, points: np.ndarray, *, method: str = "auto") -> np.ndarray:
    r"""Gaussian kernel density estimate of ``sample`` at ``points``:
    :math:`\hat p(x) = \frac{1}{n h \sqrt{2\pi}} \sum_i e^{-(x - x_i)^2 / 2h^2}`, Scott's bandwidth.

    ``method``: ``"exact"`` (the full sum, equal to ``scipy.stats.gaussian_kde``), ``"binned"`` (linear binning + FFT) or ``"auto"``
    (exact while n × len(points) ≤ :data:`EXACT_LIMIT`). Raises :class:`~creval.errors.UndefinedValue` for a
    constant sample."""
    from creval.errors import UndefinedValue

    sample = np.asarray(sample, dtype=float)
    points = np.asarray(points, dtype=float)
    if is_constant(sample):
        raise UndefinedValue("the sample is constant: its kernel density is undefined")
    if method == "auto":
        method = "exact" if len(sample) * len(points) <= EXACT_LIMIT else "binned"
    if method == "exact":
        return _exact_kde(sample, points)
    if method != "binned":
        raise InputError(f"unknown KDE method {method!r}; use auto, exact or binned")
    return _binned_kde(sample, points)


def _exact_kde(sample: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The exact Gaussian KDE sum (what ``scipy.stats.gaussian_kde`` computes in 1-D), in blocks of points."""
    h = scott_bandwidth(sample)
    norm = 1.0 / (len(sample) * h * math.sqrt(2 * math.pi))
    out = np.empty(len(points))
    block = max(1, 2_000_000 // max(len(sample), 1))
    for start in range(0, len(points), block):
        z = (points[start:start + block, None] - sample[None, :]) / h
        out[start:start + block] = np.exp(-0.5 * z * z).sum(axis=1) * norm
    return out


def _binned_kde(sample: np.ndarray, points: np.ndarray) -> np.ndarray:
    from scipy.signal import fftconvolve

    h = scott_bandwidth(sample)
    lo = min(sample.min(), points.min()) - 6 * h
    hi = max(sample.max(), points.max()) + 6 * h
    m = _FINE
    delta = (hi - lo) / (m - 1)
    if h / delta < 2.0:  # bandwidth too narrow for the grid: fall back to exact
        return _exact_kde(sample, points)
    pos = (sample - lo) / delta
    left = np.floor(pos).astype(np.int64)
    frac = pos - left
    counts = np.bincount(left, weights=1 - frac, minlength=m + 1) + np.bincount(left + 1, weights=frac,
                                                                                 minlength=m + 1)
    counts = counts[:m]
    half = int(min(m - 1, math.ceil(8 * h / delta)))
    offsets = np.arange(-half, half + 1) * delta
    kernel = np.exp(-0.5 * (offsets / h) ** 2) / (h * math.sqrt(2 * math.pi))
    dens = fftconvolve(counts, kernel, mode="same") / len(sample)
    dens = np.maximum(dens, 0.0)
    grid = lo + delta * np.arange(m)
    return np.interp(points, grid, dens)


# ------------------------------------------------------------------------------------------------- KL and OA
def kl_divergence(a: np.ndarray, b: np.ndarray, *, mode: str = "compat", num_sample: int = 1000,
                  method: str = "auto") -> float:
    r"""Kullback–Leibler divergence :math:`D_{KL}(P_A \Vert P_B)` of the KDEs of two samples (Yang & Lerch 2020,
    Sec. 3.2). ``compat``: MGEval's ``kl_dist`` (each density on its own ``num_sample``-point grid, then
    ``scipy.stats.entropy``, which normalises both vectors); ``corrected``: on a common grid (module docstring).
    NaN when either sample is constant."""
    _check_mode(mode)
    if is_constant(a) or is_constant(b):
        return float("nan")
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if mode == "compat":
        pa = kde(a, np.linspace(a.min(), a.max(), num_sample), method=method)
        pb = kde(b, np.linspace(b.min(), b.max(), num_sample), method=method)
        pa = pa / pa.sum()
        pb = pb / pb.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(pa > 0, pa * np.log(pa / pb), 0.0)
        return float(np.sum(terms))
    grid, pa, pb = _common(a, b, method)
    pa = pa / np.trapezoid(pa, grid)
    pb = pb / np.trapezoid(pb, grid)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pa > 0, pa * np.log(pa / np.maximum(pb, 1e-300)), 0.0)
    return float(np.trapezoid(terms, grid))


def overlap_area(a: np.ndarray, b: np.ndarray, *, mode: str = "compat", method: str = "auto") -> float:
    r"""Overlapping area :math:`\int \min(p_A(x), p_B(x))\,dx` of the KDEs of two samples (Yang & Lerch 2020,
    Sec. 3.2). ``compat``: over [min(A ∪ B), max(A ∪ B)] as MGEval's ``overlap_area`` (which uses ``quad``;
    4,001-point trapezoid here); ``corrected``: over the densities' full support. NaN when either sample is
    constant."""
    _check_mode(mode)
    if is_constant(a) or is_constant(b):
        return float("nan")
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if mode == "compat":
        grid = np.linspace(min(a.min(), b.min()), max(a.max(), b.max()), 4001)
        return float(np.trapezoid(np.minimum(kde(a, grid, method=method), kde(b, grid, method=method)), grid))
    grid, pa, pb = _common(a, b, method)
    return float(np.trapezoid(np.minimum(pa, pb), grid))


def _common(a: np.ndarray, b: np.ndarray, method: str, n: int = 4001) -> tuple[np.ndarray, ...]:
    h = max(scott_bandwidth(a), scott_bandwidth(b))
    grid = np.linspace(min(a.min(), b.min()) - 5 * h, max(a.max(), b.max()) + 5 * h, n)
    return grid, kde(a, grid, method=method), kde(b, grid, method=method)


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")


# ----------------------------------------------------------------------------------------------- comparison
@dataclass
class FeatureComparison:
    """One feature's relative evaluation of a generated set against a reference set."""

    feature: str
    intra_generated: np.ndarray
    intra_reference: np.ndarray
    inter: np.ndarray
    kl: float  # KL(intra_reference || inter)
    oa: float  # OA(intra_reference, inter)
    kl_generated: float  # KL(intra_generated || inter)
    oa_generated: float
    status: str = "ok"  # ok | constant | too few
    notes: list[str] = field(default_factory=list)

    def row(self) -> dict[str, object]:
        def ms(x: np.ndarray) -> tuple[float, float]:
            return (float(np.mean(x)), float(np.std(x))) if len(x) else (float("nan"), float("nan"))

        ig, ir, it = ms(self.intra_generated), ms(self.intra_reference), ms(self.inter)
        return {"feature": self.feature, "status": self.status,
                "intra_generated_mean": ig[0], "intra_generated_std": ig[1],
                "intra_reference_mean": ir[0], "intra_reference_std": ir[1],
                "inter_mean": it[0], "inter_std": it[1],
                "kl": self.kl, "oa": self.oa, "kl_generated": self.kl_generated, "oa_generated": self.oa_generated}

    def densities(self, n: int = 200) -> dict[str, np.ndarray] | None:
        """The three KDE curves on one grid (for plots); None when the feature is constant."""
        samples = {"intra (generated)": self.intra_generated, "intra (reference)": self.intra_reference,
                   "inter": self.inter}
        usable = {k: v for k, v in samples.items() if not is_constant(v)}
        if not usable:
            return None
        lo = min(v.min() for v in usable.values())
        hi = max(v.max() for v in usable.values())
        pad = 0.05 * (hi - lo) if hi > lo else 1.0
        grid = np.linspace(lo - pad, hi + pad, n)
        out = {"x": grid}
        for k, v in usable.items():
            out[k] = kde(_thin(v), grid)
        return out


def _thin(sample: np.ndarray, limit: int = 20_000) -> np.ndarray:
    """For plot curves only: an evenly spaced subset of a large sample (deterministic)."""
    if len(sample) <= limit:
        return sample
    return np.sort(sample)[np.linspace(0, len(sample) - 1, limit).astype(np.int64)]


def compare_feature(name: str, generated: np.ndarray, reference: np.ndarray, *, mode: str = "compat",
                    method: str = "auto") -> FeatureComparison:
    """Intra/inter distances, KL and OA for one feature (arrays of shape (n_pieces, …))."""
    _check_mode(mode)
    notes: list[str] = []
    gen = _flat(generated)
    ref = _flat(reference)
    keep_g = ~np.isnan(gen).any(axis=1)
    keep_r = ~np.isnan(ref).any(axis=1)
    if not keep_g.all() or not keep_r.all():
        notes.append(f"{name}: left out {int((~keep_g).sum())} generated and {int((~keep_r).sum())} reference "
                     "piece(s) whose value is undefined")
    gen, ref = gen[keep_g], ref[keep_r]
    intra_g = intra_set_distances(gen)
    intra_r = intra_set_distances(ref)
    inter = inter_set_distances(gen, ref)
    nan = float("nan")
    if len(gen) < 2 or len(ref) < 2:
        notes.append(f"{name}: fewer than two pieces in a set; no densities")
        return FeatureComparison(name, intra_g, intra_r, inter, nan, nan, nan, nan, "too few", notes)
    status = "ok"
    if is_constant(intra_r) or is_constant(inter) or is_constant(intra_g):
        status = "constant"
        which = [lbl for lbl, s in (("intra-set (reference)", intra_r), ("intra-set (generated)", intra_g),
                                   ("inter-set", inter)) if is_constant(s)]
        notes.append(f"{name}: constant {', '.join(which)} distances (value {_const_value(intra_r, inter)}); "
                     "KL and OA undefined")
    kl = kl_divergence(intra_r, inter, mode=mode, method=method)
    oa = overlap_area(intra_r, inter, mode=mode, method=method)
    klg = kl_divergence(intra_g, inter, mode=mode, method=method)
    oag = overlap_area(intra_g, inter, mode=mode, method=method)
    return FeatureComparison(name, intra_g, intra_r, inter, kl, oa, klg, oag, status, notes)


def _const_value(*samples: np.ndarray) -> str:
    for s in samples:
        if len(s) and is_constant(s):
            return f"{float(s[0]):g}"
    return "?"


@dataclass
class SetComparison:
    """Every feature's :class:`FeatureComparison` for one generated set against one reference set."""

    mode: str
    features: list[FeatureComparison]
    n_generated: int
    n_reference: int

    @property
    def notes(self) -> list[str]:
        return [n for f in self.features for n in f.notes]

    def table(self):
        """A DataFrame, one row per feature (distance means/stds, KL, OA, status)."""
        import pandas as pd

        return pd.DataFrame([f.row() for f in self.features])

    def __getitem__(self, name: str) -> FeatureComparison:
        for f in self.features:
            if f.feature == name:
                return f
        raise KeyError(name)


def compare_sets(generated: dict[str, np.ndarray], reference: dict[str, np.ndarray], *,
                 features: Sequence[str] | None = None, mode: str = "compat", method: str = "auto",
                 progress: bool = False) -> SetComparison:
    """Relative evaluation of a generated set against a reference set, feature by feature (feature tables as
    :func:`creval.music.features.feature_table` returns)."""
    _check_mode(mode)
    names = list(features or [n for n in generated if n in reference])
    missing = [n for n in names if n not in generated or n not in reference]
    if missing:
        raise InputError(f"feature(s) missing from a set: {', '.join(missing)}")
    out = []
    bar = None
    if progress:
        from rich.progress import Progress

        bar = Progress(transient=True)
        bar.__enter__()
        task = bar.add_task("intra/inter distances, KDE, KL, OA", total=len(names))
    try:
        for name in names:
            out.append(compare_feature(name, generated[name], reference[name], mode=mode, method=method))
            if bar is not None:
                bar.advance(task)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    n_gen = len(next(iter(generated.values()))) if generated else 0
    n_ref = len(next(iter(reference.values()))) if reference else 0
    return SetComparison(mode, out, n_gen, n_ref)
