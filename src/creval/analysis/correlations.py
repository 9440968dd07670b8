"""Correlations between measures, and between measures and corpus statistics.

For two aligned samples :math:`x, y` of size :math:`n` (pairs where either value is undefined are left out):

- Pearson's :math:`r = \\frac{\\sum (x_i-\\bar x)(y_i-\\bar y)}{\\sqrt{\\sum (x_i-\\bar x)^2 \\sum (y_i-\\bar y)^2}}`
  with the two-sided p-value of the t test (``scipy.stats.pearsonr``);
- Spearman's :math:`\\rho`: Pearson's r of the ranks (ties get mean ranks), two-sided p-value
  (``scipy.stats.spearmanr``).

Levels: ``"output"`` correlates the values of every output (one point per output), ``"system"`` the means
per system, ``"artist-system"`` the means per (artist, system) pair. Potash et al. (2016, section 7) relate
generated verses to the artist's corpus (verses, tokens, vocabulary richness): :func:`corpus_correlations`
correlates each measure's per-(artist, system) mean with each statistic of
:func:`creval.corpus.stats.corpus_stats`, across artists, per system.

When a coefficient is undefined (fewer than 3 pairs, or a constant sample) it is NaN and the ``note`` column
says why.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

CORR_COLUMNS = ["x", "y", "n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p", "note"]
LEVELS = ("output", "system", "artist-system")
CORPUS_STATS = ("verses", "tokens", "vocabulary", "richness", "mean_len")


def correlate(x: Iterable[float], y: Iterable[float]) -> dict[str, Any]:
    """Pearson and Spearman coefficients with p-values over the pairs where both values are finite."""
    from scipy import stats

    x = np.asarray(list(x), dtype=float)
    y = np.asarray(list(y), dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = int(len(x))
    nan = float("nan")
    out = {"n": n, "pearson_r": nan, "pearson_p": nan, "spearman_rho": nan, "spearman_p": nan, "note": ""}
    if n < 3:
        out["note"] = f"too few pairs (n = {n}; need 3)"
        return out
    constant = [name for name, v in (("x", x), ("y", y)) if np.ptp(v) == 0]
    if constant:
        out["note"] = f"{' and '.join(constant)} constant: correlation undefined"
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = stats.pearsonr(x, y)
        sr = stats.spearmanr(x, y)
    out.update(pearson_r=float(pr.statistic), pearson_p=float(pr.pvalue),
               spearman_rho=float(sr.statistic), spearman_p=float(sr.pvalue))
    if n == 3:
        out["note"] = "n = 3: p-values are very rough"
    return out


def wide_measures(results: pd.DataFrame, level: str = "output", measures: Sequence[str] | None = None
                  ) -> pd.DataFrame:
    """The tidy table as one column per measure, one row per output (``level="output"``), per system, or per
    (artist, system) (means)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    res = results[results["output_id"].notna()]
    if measures is not None:
        res = res[res["measure"].isin(list(measures))]
    keys = {"output": ["system", "output_id"], "system": ["system"], "artist-system": ["artist", "system"]}[level]
    if level == "artist-system":
        res = res[res["artist"].notna()]
    wide = res.pivot_table(index=keys, columns="measure", values="value", aggfunc="mean", observed=True)
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index()


def measure_correlations(results: pd.DataFrame, measures: Sequence[str] | None = None, *,
                         level: str = "output", by_system: bool = False) -> pd.DataFrame:
    """Every pair of measures: n, Pearson r and p, Spearman rho and p, and a note.

    ``by_system=True`` (with ``level="output"`` or ``"artist-system"``) computes the pairs within each system
    separately and adds a ``system`` column.
    """
    import pandas as pd

    wide = wide_measures(results, level, measures)
    names = [c for c in wide.columns if c not in ("system", "output_id", "artist")]
    if measures is not None:
        names = [m for m in measures if m in names]
    groups: list[tuple[str | None, Any]] = [(None, wide)]
    if by_system and level != "system":
        groups = [(str(s), g) for s, g in wide.groupby("system", sort=True, observed=True)]
    rows = []
    for system, part in groups:
        for a, b in itertools.combinations(names, 2):
            row = {"x": a, "y": b, **correlate(part[a], part[b])}
            if system is not None:
                row = {"system": system, **row}
            rows.append(row)
    cols = (["system"] if by_system and level != "system" else []) + CORR_COLUMNS
    return pd.DataFrame(rows, columns=cols)


def correlation_matrix(results: pd.DataFrame, measures: Sequence[str] | None = None, *, level: str = "output",
                       method: str = "pearson") -> pd.DataFrame:
    """Square matrix of coefficients (``method`` = ``"pearson"`` or ``"spearman"``) with 1 on the diagonal,
    for the heatmap."""
    import pandas as pd

    key = {"pearson": "pearson_r", "spearman": "spearman_rho"}.get(method)
    if key is None:
        raise ValueError(f"method must be 'pearson' or 'spearman', got {method!r}")
    pairs = measure_correlations(results, measures, level=level)
    names = list(dict.fromkeys([*pairs["x"], *pairs["y"]]))
    if not names:
        wide = wide_measures(results, level, measures)
        names = [c for c in wide.columns if c not in ("system", "output_id", "artist")]
    mat = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for row in pairs.itertuples(index=False):
        value = getattr(row, key)
        mat.loc[row.x, row.y] = value
        mat.loc[row.y, row.x] = value
    return mat


def corpus_correlations(results: pd.DataFrame, corpus_stats: pd.DataFrame, measures: Sequence[str] | None = None,
                        stats: Sequence[str] = CORPUS_STATS) -> pd.DataFrame:
    """Per system: each measure's mean over an artist's outputs against each corpus statistic of that artist,
    across artists (one point per artist). Columns ``system, measure, statistic`` then the correlation
    columns."""
    import pandas as pd

    cols = ["system", "measure", "statistic", *CORR_COLUMNS[2:]]
    stats_frame = corpus_stats[corpus_stats["artist"] != "(all)"].set_index("artist")
    wide = wide_measures(results, "artist-system", measures)
    names = [c for c in wide.columns if c not in ("system", "artist")]
    stat_names = [s for s in stats if s in stats_frame.columns]
    rows = []
    for system, part in wide.groupby("system", sort=True, observed=True):
        joined = part.set_index("artist").join(stats_frame[stat_names], how="inner")
        for measure in names:
            for stat in stat_names:
                rows.append({"system": str(system), "measure": measure, "statistic": stat,
                             **{k: v for k, v in correlate(joined[measure], joined[stat]).items()}})
    return pd.DataFrame(rows, columns=cols)


def heatmap_figure(matrix: pd.DataFrame, title: str = "Pearson r") -> Any:
    """A diverging heatmap of a correlation matrix with the coefficient printed in each cell."""
    from creval.report.plots import pyplot

    plt = pyplot()
    k = len(matrix)
    size = max(3.0, 0.55 * k + 1.5)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    values = matrix.to_numpy(float)
    im = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu_r", vmin=-1, vmax=1)
    ax.set_xticks(range(k), matrix.columns, rotation=60, ha="right")
    ax.set_yticks(range(k), matrix.index)
    for i in range(k):
        for j in range(k):
            v = values[i, j]
            text = "—" if math.isnan(v) else f"{v:.2f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if abs(v) > 0.6 else "black")
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax.set_title(title)
    fig.tight_layout()
    return fig
