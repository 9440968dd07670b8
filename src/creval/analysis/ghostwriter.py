"""The "unique yet similar" ghostwriting analysis of Potash, Romanov & Rumshisky (2016), section 6.

A ghostwriter should write verses that rhyme like the target artist (similar style) while not copying the
artist's verses (unique content). For each artist and system, outputs are grouped by checkpoint (a training
iteration, or ``n`` for the n-gram baseline). At each checkpoint :math:`x_j` the analysis takes the mean
entropy-weighted rhyme density :math:`\\bar d_j` and the mean maximum similarity to the artist's verses
:math:`\\bar s_j` (optionally averaging every output within :math:`\\pm w` of :math:`x_j`) and fits two
least-squares lines

.. math::

    d(x) = a_d x + b_d, \\qquad s(x) = a_s x + b_s .

The checkpoint where the rhyme-density line reaches the artist's own average rhyme density :math:`D_A` is

.. math::

    x^* = \\frac{D_A - b_d}{a_d},

and the system's score is the similarity line's value there, :math:`s(x^*) = a_s x^* + b_s` — the similarity a
system must accept to rhyme like the artist. **Lower is better** (Potash et al., Table 3).

What can go wrong is reported, never hidden behind a NaN (the ``status`` and ``message`` columns):

- ``no-outputs``: the artist has no outputs of this system (or none with a checkpoint);
- ``one-point``: all outputs sit at one checkpoint, so no line can be fitted;
- ``zero-slope``: the rhyme-density line is flat: it never reaches :math:`D_A` (or equals it everywhere);
- ``no-similarity``: the similarity values are missing, so :math:`s(x^*)` cannot be read;
- ``negative`` / ``before-data`` / ``beyond-data``: :math:`x^*` lies below zero, below the first checkpoint or
  after the last one; the value is an extrapolation and is reported with that flag;
- ``ok``: :math:`x^*` lies within the checkpoints of the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.corpus.model import Corpus

DENSITY = "rhyme_density_weighted"
SIMILARITY = "max_similarity"
NO_SYSTEM = "(none)"

STATUS_TEXT = {
    "ok": "crossing within the data",
    "negative": "crossing at a negative checkpoint (extrapolated)",
    "before-data": "crossing before the first checkpoint (extrapolated)",
    "beyond-data": "crossing after the last checkpoint (extrapolated)",
    "no-outputs": "no outputs",
    "one-point": "one checkpoint only: no line",
    "zero-slope": "rhyme density does not change with the checkpoint",
    "no-similarity": "no similarity values",
    "no-artist-density": "artist's rhyme density unknown",
}


@dataclass
class LineFit:
    """A least-squares line ``y = slope * x + intercept`` over ``n`` points (``r``: Pearson's r)."""

    slope: float
    intercept: float
    r: float
    n: int

    def __call__(self, x: float) -> float:
        return self.slope * x + self.intercept


def fit_line(x: Iterable[float], y: Iterable[float]) -> LineFit | None:
    """Ordinary least squares (``scipy.stats.linregress``) over the defined points; None when fewer than two
    points with distinct x remain."""
    from scipy import stats

    x = np.asarray(list(x), dtype=float)
    y = np.asarray(list(y), dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 2 or np.ptp(x) == 0:
        return None
    if np.ptp(y) == 0:  # linregress warns on constant y; the line is exact
        return LineFit(0.0, float(y[0]), float("nan"), len(x))
    res = stats.linregress(x, y)
    return LineFit(float(res.slope), float(res.intercept), float(res.rvalue), len(x))


@dataclass
class GhostwriterFit:
    """One artist × system result of the "unique yet similar" analysis (see the module docstring)."""

    artist: str
    system: str
    artist_density: float
    points: int
    first_checkpoint: float
    last_checkpoint: float
    density_slope: float
    density_intercept: float
    similarity_slope: float
    similarity_intercept: float
    crossing: float
    similarity: float
    status: str
    message: str

    def as_row(self) -> dict[str, Any]:
        return asdict(self)


_NAN = float("nan")


def fit_unique_similar(checkpoints: Iterable[float], density: Iterable[float], similarity: Iterable[float],
                       artist_density: float, *, artist: str = "", system: str = "",
                       tol: float = 1e-12) -> GhostwriterFit:
    """Fit both lines over one series of checkpoint means and find the crossing (module docstring).

    ``checkpoints``, ``density`` and ``similarity`` are aligned arrays of per-checkpoint means (NaN where a
    measure is missing). ``artist_density`` is :math:`D_A`.
    """
    x = np.asarray(list(checkpoints), dtype=float)
    d = np.asarray(list(density), dtype=float)
    s = np.asarray(list(similarity), dtype=float)
    if not (len(x) == len(d) == len(s)):
        raise ValueError("checkpoints, density and similarity must have the same length")
    defined = np.isfinite(x) & np.isfinite(d)
    first = float(x[defined].min()) if defined.any() else _NAN
    last = float(x[defined].max()) if defined.any() else _NAN
    base = dict(artist=artist, system=system, artist_density=float(artist_density),
                points=int(defined.sum()), first_checkpoint=first, last_checkpoint=last)

    def result(status: str, message: str, dline: LineFit | None = None, sline: LineFit | None = None,
               crossing: float = _NAN, sim: float = _NAN) -> GhostwriterFit:
        return GhostwriterFit(
            **base,
            density_slope=dline.slope if dline else _NAN,
            density_intercept=dline.intercept if dline else _NAN,
            similarity_slope=sline.slope if sline else _NAN,
            similarity_intercept=sline.intercept if sline else _NAN,
            crossing=crossing, similarity=sim, status=status, message=message,
        )

    if not defined.any():
        return result("no-outputs", "no outputs with a checkpoint and a rhyme density")
    dline = fit_line(x, d)
    sline = fit_line(x, s)
    if dline is None:
        return result("one-point", f"all outputs are at checkpoint {first:g}: a line needs two or more "
                                   "checkpoints", sline=sline)
    if not math.isfinite(artist_density):
        return result("no-artist-density", "the artist's own average rhyme density is unknown", dline, sline)
    if abs(dline.slope) <= tol:
        same = abs(dline.intercept - artist_density) <= 1e-9 * max(1.0, abs(artist_density))
        why = ("equals the artist's density at every checkpoint, so no single crossing exists" if same
               else f"stays at {dline.intercept:.4g} and never reaches the artist's {artist_density:.4g}")
        return result("zero-slope", f"rhyme density line is flat: it {why}", dline, sline)
    crossing = (artist_density - dline.intercept) / dline.slope
    if sline is None:
        n_sim = int(np.isfinite(np.asarray(s, dtype=float)).sum())
        why = ("no output has a similarity value (compute the uniqueness measure: max_similarity)" if n_sim == 0
               else "only one checkpoint has a similarity value; a line needs two")
        return result("no-similarity", f"rhyme density reaches the artist's at checkpoint {crossing:.4g}, but "
                                       f"{why}", dline, None, crossing)
    sim = sline(crossing)
    if crossing < 0:
        status = "negative"
    elif crossing < first:
        status = "before-data"
    elif crossing > last:
        status = "beyond-data"
    else:
        status = "ok"
    message = f"{STATUS_TEXT[status]}: checkpoint {crossing:.4g} (data {first:g}..{last:g})"
    if not 0.0 <= sim <= 1.0:
        message += f"; the similarity line gives {sim:.4g} there, outside [0, 1]"
    return result(status, message, dline, sline, crossing, sim)


# ------------------------------------------------------------------------------------------- from results
def checkpoint_series(results: pd.DataFrame, *, density: str = DENSITY, similarity: str = SIMILARITY,
                      window: float = 0.0) -> pd.DataFrame:
    """Per artist × system × checkpoint: the mean rhyme density and the mean maximum similarity of the
    outputs, and how many outputs each mean covers.

    With ``window = w > 0`` the point at checkpoint :math:`x_j` averages every output with
    :math:`|x - x_j| \\le w` (Potash et al. average ±x iterations around each point). Rows without an artist or
    a checkpoint are left out. Columns: ``artist, system, checkpoint, density, similarity, n_density,
    n_similarity``.
    """
    import pandas as pd

    if window < 0:
        raise ValueError(f"window must be >= 0, got {window}")
    cols = ["artist", "system", "checkpoint", "density", "similarity", "n_density", "n_similarity"]
    res = results[results["measure"].isin([density, similarity]) & results["artist"].notna()
                  & results["checkpoint"].notna() & results["output_id"].notna()]
    if res.empty:
        return pd.DataFrame(columns=cols)
    wide = res.pivot_table(index=["artist", "system", "output_id", "checkpoint"], columns="measure",
                           values="value", aggfunc="mean", observed=True, dropna=False).reset_index()
    for name in (density, similarity):
        if name not in wide:
            wide[name] = np.nan
    rows = []
    for (artist, system), group in wide.groupby(["artist", "system"], sort=True, observed=True):
        x = group["checkpoint"].to_numpy(float)
        points = np.unique(x)
        member = np.abs(x[None, :] - points[:, None]) <= window  # points × outputs
        dmean, dn = _window_means(group[density].to_numpy(float), member)
        smean, sn = _window_means(group[similarity].to_numpy(float), member)
        for j, point in enumerate(points):
            rows.append({"artist": artist, "system": system, "checkpoint": float(point), "density": dmean[j],
                         "similarity": smean[j], "n_density": int(dn[j]), "n_similarity": int(sn[j])})
    return pd.DataFrame(rows, columns=cols)


def _window_means(values: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the finite ``values`` in each row of the membership matrix, and how many there were."""
    ok = np.isfinite(values)[None, :] & member
    count = ok.sum(axis=1)
    total = np.where(ok, np.nan_to_num(values)[None, :], 0.0).sum(axis=1)
    means = np.full(len(count), np.nan)
    np.divide(total, count, out=means, where=count > 0)
    return means, count


def unique_yet_similar(results: pd.DataFrame, artist_density: Mapping[str, float], *,
                       artists: Iterable[str] | None = None, systems: Iterable[str] | None = None,
                       density: str = DENSITY, similarity: str = SIMILARITY, window: float = 0.0) -> pd.DataFrame:
    """The analysis for every artist × system: one row per pair with the fitted lines, the crossing
    checkpoint, the similarity there, a ``status`` and a human-readable ``message``.

    Artists are those of ``artist_density`` (plus any in ``artists``); systems those with a checkpoint in the
    results (plus any in ``systems``). A pair with no outputs gets a ``no-outputs`` row rather than vanishing.
    """
    import pandas as pd

    series = checkpoint_series(results, density=density, similarity=similarity, window=window)
    artist_list = list(dict.fromkeys([*artist_density, *(artists or [])]))
    with_ckpt = results[results["checkpoint"].notna()]["system"].dropna().unique().tolist()
    system_list = list(dict.fromkeys([*sorted(map(str, with_ckpt)), *(systems or [])]))
    rows = []
    if not system_list:
        for artist in artist_list:
            fit = fit_unique_similar([], [], [], float(artist_density.get(artist, _NAN)), artist=artist,
                                     system=NO_SYSTEM)
            fit.message = "no system has outputs with a checkpoint"
            rows.append(fit.as_row())
    for artist in artist_list:
        dens = float(artist_density.get(artist, _NAN))
        for system in system_list:
            part = series[(series["artist"] == artist) & (series["system"] == system)]
            fit = fit_unique_similar(part["checkpoint"], part["density"], part["similarity"], dens,
                                     artist=artist, system=system)
            if fit.status == "no-outputs" and not part.empty:
                fit.message = "outputs have no rhyme density values"
            rows.append(fit.as_row())
    columns = list(GhostwriterFit.__dataclass_fields__)
    return pd.DataFrame(rows, columns=columns)


def ghostwriter_table(fits: pd.DataFrame) -> pd.DataFrame:
    """The per-artist table of Potash et al. (Table 3): artist, the artist's average rhyme density, then per
    system the similarity at the crossing and the crossing checkpoint (with its status when it is not
    ``ok``), and ``best`` = the system with the lowest similarity among the defined ones."""
    import pandas as pd

    if fits.empty:
        return pd.DataFrame(columns=["artist", "artist_density", "best"])
    rows = []
    for artist, group in fits.groupby("artist", sort=False):
        row: dict[str, Any] = {"artist": artist, "artist_density": group["artist_density"].iloc[0]}
        best, best_sim = "", math.inf
        for fit in group.itertuples(index=False):
            if fit.system == NO_SYSTEM:
                row["note"] = fit.message
                continue
            row[f"{fit.system} similarity"] = fit.similarity
            row[f"{fit.system} checkpoint"] = fit.crossing
            clean = fit.status == "ok" and "outside [0, 1]" not in fit.message
            row[f"{fit.system} note"] = "" if clean else f"{fit.status}: {fit.message}"
            if math.isfinite(fit.similarity) and fit.similarity < best_sim:
                best, best_sim = fit.system, fit.similarity
        row["best"] = best or "— (no system has a defined similarity)"
        rows.append(row)
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------------- artist's density
def _density_value(result: Any) -> float:
    """The entropy-weighted density out of whatever :func:`creval.rhyme.density.rhyme_density` returns."""
    if isinstance(result, (int, float, np.floating, np.integer)):
        return float(result)
    for attr in ("weighted", "weighted_density", "density_weighted", "rhyme_density_weighted", "entropy_weighted"):
        value = getattr(result, attr, None)
        if value is not None:
            return float(value)
    if isinstance(result, Mapping):
        for key in ("weighted", "rhyme_density_weighted", "weighted_density"):
            if key in result:
                return float(result[key])
    raise TypeError(f"cannot read a weighted rhyme density from {type(result).__name__}")


def default_density_function() -> Callable[[str], float] | None:
    """``text -> entropy-weighted rhyme density`` from :mod:`creval.rhyme.density`, or None when that module
    is not installed."""
    try:
        from creval.rhyme.density import rhyme_density
    except ImportError:
        return None
    return lambda text: _density_value(rhyme_density(text))


def artist_rhyme_density(corpus: Corpus, density_fn: Callable[[str], float] | None = None) -> dict[str, float]:
    """The artist's own average rhyme density: the mean of the same density function over the artist's
    corpus verses (NaN values left out). Raises RuntimeError when no density function is available."""
    fn = density_fn or default_density_function()
    if fn is None:
        raise RuntimeError("creval.rhyme.density is not available: pass density_fn")
    out: dict[str, float] = {}
    for artist, verses in corpus.by_artist().items():
        values = np.array([fn(v.text) for v in verses], dtype=float)
        values = values[np.isfinite(values)]
        out[artist] = float(values.mean()) if len(values) else _NAN
    return out


# ------------------------------------------------------------------------------------------------- plots
def regression_figure(series: pd.DataFrame, fit: Mapping[str, Any] | GhostwriterFit, *, density_label: str =
                      "entropy-weighted rhyme density", similarity_label: str = "max similarity") -> Any:
    """One figure for one artist × system: the rhyme-density points and line with the artist's density
    (left), the similarity points and line (right), the crossing marked in both."""
    from creval.report.plots import PALETTE, pyplot

    if isinstance(fit, GhostwriterFit):
        fit = fit.as_row()
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.2, 3.0))
    x = series["checkpoint"].to_numpy(float)
    lo, hi = (float(np.nanmin(x)), float(np.nanmax(x))) if len(x) else (0.0, 1.0)
    cross = fit["crossing"]
    span = [lo, hi]
    if math.isfinite(cross):
        span = [min(lo, cross), max(hi, cross)]
    grid = np.linspace(span[0], span[1], 50)
    panels = ((ax1, "density", density_label, "density_slope", "density_intercept", PALETTE[0]),
              (ax2, "similarity", similarity_label, "similarity_slope", "similarity_intercept", PALETTE[1]))
    for ax, col, label, slope, icpt, colour in panels:
        ax.scatter(x, series[col].to_numpy(float), color=colour, s=18, label="checkpoint means", zorder=3)
        if math.isfinite(fit[slope]):
            ax.plot(grid, fit[slope] * grid + fit[icpt], color=colour, lw=1.5, label="fitted line")
        if math.isfinite(cross):
            ax.axvline(cross, color="#888", ls=":", lw=1, label=f"crossing x*={cross:.3g}")
        ax.set_xlabel("checkpoint")
        ax.set_ylabel(label)
    if math.isfinite(fit["artist_density"]):
        ax1.axhline(fit["artist_density"], color=PALETTE[3], ls="--", lw=1,
                    label=f"artist density {fit['artist_density']:.3g}")
    if math.isfinite(fit["similarity"]):
        ax2.scatter([cross], [fit["similarity"]], marker="x", color=PALETTE[3], s=40, zorder=4,
                    label=f"s(x*)={fit['similarity']:.3g}")
    ax1.legend(fontsize=7, frameon=False)
    ax2.legend(fontsize=7, frameon=False)
    fig.suptitle(f"{fit['artist']} — {fit['system']} ({fit['status']})", fontsize=10)
    fig.tight_layout()
    return fig
