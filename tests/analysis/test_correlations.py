"""Correlations: hand-computed coefficients, p-values against pingouin, levels, corpus statistics, heatmap."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from creval.analysis.correlations import (
    corpus_correlations,
    correlate,
    correlation_matrix,
    heatmap_figure,
    measure_correlations,
    wide_measures,
)
from creval.metrics.base import results_frame

X = [1, 2, 3, 4, 5]
Y = [2, 4, 5, 4, 5]


def test_hand_computed_coefficients():
    out = correlate(X, Y)
    assert out["n"] == 5
    assert out["pearson_r"] == pytest.approx(6 / math.sqrt(60))  # Sxy = 6, Sxx = 10, Syy = 6
    assert out["spearman_rho"] == pytest.approx(7 / math.sqrt(90))  # ranks of y: 1, 2.5, 4.5, 2.5, 4.5
    assert out["note"] == ""


def test_p_values_match_pingouin():
    import pingouin

    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = 0.4 * x + rng.normal(size=30)
    out = correlate(x, y)
    ref_p = pingouin.corr(x, y, method="pearson")
    ref_s = pingouin.corr(x, y, method="spearman")
    assert out["pearson_r"] == pytest.approx(float(ref_p["r"].iloc[0]))
    assert out["pearson_p"] == pytest.approx(float(ref_p["p_val"].iloc[0]))
    assert out["spearman_rho"] == pytest.approx(float(ref_s["r"].iloc[0]))
    assert out["spearman_p"] == pytest.approx(float(ref_s["p_val"].iloc[0]))


def test_undefined_cases_say_why():
    few = correlate([1, 2], [3, 4])
    assert math.isnan(few["pearson_r"]) and "too few" in few["note"]
    const = correlate([1, 2, 3, 4], [2, 2, 2, 2])
    assert math.isnan(const["spearman_rho"]) and "y constant" in const["note"]
    nan_pairs = correlate([1, np.nan, 3, 4, 5], [2, 3, np.nan, 4, 6])
    assert nan_pairs["n"] == 3


def _results():
    rows = []
    for i, (sys, art, a, b, c) in enumerate([
        ("s1", "A", 1, 2, 5), ("s1", "A", 2, 4, 4), ("s1", "B", 3, 5, 3), ("s1", "B", 4, 4, 2),
        ("s2", "A", 5, 5, 1), ("s2", "B", 6, 7, 0),
    ]):
        for m, v in (("m_a", a), ("m_b", b), ("m_c", c)):
            rows.append({"system": sys, "output_id": f"o{i}", "input_id": None, "sample": None, "checkpoint": None,
                         "artist": art, "measure": m, "value": v})
    # a set-level row (no output id) must not enter per-output correlations
    rows.append({"system": "s1", "output_id": None, "input_id": None, "sample": None, "checkpoint": None,
                 "artist": None, "measure": "m_a", "value": 100.0})
    return results_frame(rows)


def test_output_level_pairs():
    res = _results()
    table = measure_correlations(res)
    row = table[(table["x"] == "m_a") & (table["y"] == "m_c")].iloc[0]
    assert row["n"] == 6
    assert row["pearson_r"] == pytest.approx(-1.0)
    assert row["spearman_rho"] == pytest.approx(-1.0)
    assert len(table) == 3


def test_aggregate_levels():
    res = _results()
    wide = wide_measures(res, "artist-system")
    assert len(wide) == 4
    a = wide[(wide["artist"] == "A") & (wide["system"] == "s1")].iloc[0]
    assert a["m_a"] == pytest.approx(1.5) and a["m_b"] == pytest.approx(3.0)
    sys_level = measure_correlations(res, level="system")
    assert (sys_level["n"] == 2).all() and sys_level["note"].str.contains("too few").all()
    per_sys = measure_correlations(res, by_system=True)
    assert set(per_sys["system"]) == {"s1", "s2"}
    assert per_sys[per_sys["system"] == "s1"]["n"].tolist() == [4, 4, 4]


def test_matrix_and_heatmap():
    mat = correlation_matrix(_results())
    assert list(mat.index) == ["m_a", "m_b", "m_c"]
    assert np.allclose(np.diag(mat.to_numpy()), 1.0)
    assert mat.loc["m_a", "m_c"] == pytest.approx(-1.0) == mat.loc["m_c", "m_a"]
    from creval.report.plots import fig_to_svg

    assert fig_to_svg(heatmap_figure(mat)).startswith("<svg")


def test_corpus_correlations():
    rows = []
    for i, (art, v) in enumerate([("A", 1.0), ("B", 2.0), ("C", 3.0), ("D", 5.0)]):
        rows.append({"system": "s", "output_id": f"o{i}", "input_id": None, "sample": None, "checkpoint": None,
                     "artist": art, "measure": "m", "value": v})
    stats = pd.DataFrame({"artist": ["A", "B", "C", "D", "(all)"], "verses": [10, 20, 30, 50, 110],
                          "tokens": [4, 3, 2, 1, 10], "vocabulary": [1, 1, 1, 1, 1], "richness": [1, 2, 3, 4, 2.5],
                          "mean_len": [1, 1, 2, 2, 1.5]})
    table = corpus_correlations(results_frame(rows), stats)
    by = table.set_index("statistic")
    assert by.loc["verses", "pearson_r"] == pytest.approx(1.0)
    assert by.loc["tokens", "spearman_rho"] == pytest.approx(-1.0)
    assert by.loc["verses", "n"] == 4  # the (all) row is not an artist
    assert "constant" in by.loc["vocabulary", "note"]
