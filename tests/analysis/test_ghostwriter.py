"""The "unique yet similar" regression on hand-made series with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.analysis.ghostwriter import (
    STATUS_TEXT,
    checkpoint_series,
    fit_line,
    fit_unique_similar,
    ghostwriter_table,
    regression_figure,
    unique_yet_similar,
)
from creval.metrics.base import results_frame


def test_exact_lines_give_known_crossing():
    # density = 0.1 x + 0.2, similarity = -0.05 x + 0.9; artist density 0.5 → x* = 3, s(x*) = 0.75
    x = np.arange(1, 10, dtype=float)
    fit = fit_unique_similar(x, 0.1 * x + 0.2, -0.05 * x + 0.9, 0.5)
    assert fit.density_slope == pytest.approx(0.1)
    assert fit.density_intercept == pytest.approx(0.2)
    assert fit.similarity_slope == pytest.approx(-0.05)
    assert fit.similarity_intercept == pytest.approx(0.9)
    assert fit.crossing == pytest.approx(3.0)
    assert fit.similarity == pytest.approx(0.75)
    assert fit.status == "ok" and fit.points == 9


def test_least_squares_on_noisy_points_matches_hand_computation():
    # x = 1,2,3; y = 1,3,2: slope = Sxy/Sxx = (−1·−1 + 0 + 1·0)/2 = 0.5, intercept = 2 − 0.5·2 = 1
    line = fit_line([1, 2, 3], [1, 3, 2])
    assert line.slope == pytest.approx(0.5) and line.intercept == pytest.approx(1.0) and line.n == 3
    # similarity: x=1,2,3 → 0.9,0.5,0.4: slope −0.25, intercept 0.5667+0.5 = 1.0667
    fit = fit_unique_similar([1, 2, 3], [1, 3, 2], [0.9, 0.5, 0.4], 2.5)
    assert fit.crossing == pytest.approx(3.0)  # (2.5 − 1) / 0.5
    assert fit.similarity == pytest.approx(-0.25 * 3 + (0.6 + 0.25 * 2))


def test_crossing_beyond_the_data_is_flagged():
    fit = fit_unique_similar([1, 2, 3], [0.1, 0.2, 0.3], [0.5, 0.6, 0.7], 0.6)
    assert fit.crossing == pytest.approx(6.0)
    assert fit.similarity == pytest.approx(1.0)
    assert fit.status == "beyond-data" and "extrapolated" in fit.message


def test_negative_crossing_is_flagged():
    fit = fit_unique_similar([1, 2, 3], [0.3, 0.4, 0.5], [0.5, 0.6, 0.7], 0.1)
    assert fit.crossing == pytest.approx(-1.0)
    assert fit.similarity == pytest.approx(0.3)
    assert fit.status == "negative" and "negative" in fit.message


def test_crossing_before_the_first_checkpoint():
    fit = fit_unique_similar([10, 20], [1.0, 2.0], [0.0, 1.0], 0.5)
    assert fit.crossing == pytest.approx(5.0)
    assert fit.status == "before-data"


def test_decreasing_density_line():
    fit = fit_unique_similar([0, 10], [1.0, 0.0], [0.2, 0.4], 0.25)
    assert fit.crossing == pytest.approx(7.5)
    assert fit.similarity == pytest.approx(0.35)


def test_one_point_series():
    fit = fit_unique_similar([5, 5, 5], [0.2, 0.3, 0.4], [0.5, 0.5, 0.5], 0.3)
    assert fit.status == "one-point"
    assert "checkpoint 5" in fit.message
    assert math.isnan(fit.crossing) and math.isnan(fit.similarity)


def test_zero_slope():
    fit = fit_unique_similar([1, 2, 3], [0.2, 0.2, 0.2], [0.5, 0.6, 0.7], 0.4)
    assert fit.status == "zero-slope"
    assert fit.density_slope == 0.0 and fit.density_intercept == pytest.approx(0.2)
    assert "never reaches" in fit.message
    same = fit_unique_similar([1, 2, 3], [0.4, 0.4, 0.4], [0.5, 0.6, 0.7], 0.4)
    assert same.status == "zero-slope" and "every checkpoint" in same.message


def test_no_outputs_and_missing_similarity():
    empty = fit_unique_similar([], [], [], 0.4)
    assert empty.status == "no-outputs" and empty.points == 0
    nosim = fit_unique_similar([1, 2], [0.1, 0.2], [np.nan, np.nan], 0.3)
    assert nosim.status == "no-similarity"
    assert nosim.crossing == pytest.approx(3.0) and math.isnan(nosim.similarity)
    assert "no output has a similarity value" in nosim.message
    onesim = fit_unique_similar([1, 2], [0.1, 0.2], [0.5, np.nan], 0.3)
    assert onesim.status == "no-similarity" and "only one checkpoint has a similarity value" in onesim.message
    unknown = fit_unique_similar([1, 2], [0.1, 0.2], [0.1, 0.2], float("nan"))
    assert unknown.status == "no-artist-density"


def _results(rows):
    out = []
    for i, (artist, system, ckpt, dens, sim) in enumerate(rows):
        base = {"system": system, "output_id": f"o{i}", "input_id": None, "sample": None, "checkpoint": ckpt,
                "artist": artist}
        out.append({**base, "measure": "rhyme_density_weighted", "value": dens})
        out.append({**base, "measure": "max_similarity", "value": sim})
    return results_frame(out)


def test_series_means_and_window():
    res = _results([
        ("A", "s", 1, 0.1, 0.5), ("A", "s", 1, 0.3, 0.7),
        ("A", "s", 2, 0.4, 0.8),
        ("A", "s", 4, 0.8, 0.9),
    ])
    series = checkpoint_series(res)
    assert series["checkpoint"].tolist() == [1.0, 2.0, 4.0]
    assert series["density"].tolist() == pytest.approx([0.2, 0.4, 0.8])
    assert series["n_density"].tolist() == [2, 1, 1]
    windowed = checkpoint_series(res, window=1)
    # point 1 averages checkpoints 1 and 2; point 2 averages 1, 2; point 4 only itself
    assert windowed["density"].tolist() == pytest.approx([0.8 / 3, 0.8 / 3, 0.8])
    assert windowed["n_density"].tolist() == [3, 3, 1]


def test_unique_yet_similar_table_with_missing_artist():
    rows = [("A", "ngram", n, 0.1 * n, 0.1 * n) for n in range(1, 6)]
    rows += [("A", "lstm", c, 0.05 * c / 100, 0.2) for c in (100, 200, 300)]
    rows += [("B", "ngram", 1, 0.3, 0.4)]  # one point for B
    res = _results(rows)
    fits = unique_yet_similar(res, {"A": 0.3, "B": 0.2, "C": 0.5})
    by = {(r.artist, r.system): r for r in fits.itertuples()}
    assert by[("A", "ngram")].crossing == pytest.approx(3.0)
    assert by[("A", "ngram")].similarity == pytest.approx(0.3)
    assert by[("A", "lstm")].crossing == pytest.approx(600.0) and by[("A", "lstm")].status == "beyond-data"
    assert by[("A", "lstm")].similarity == pytest.approx(0.2)
    assert by[("B", "ngram")].status == "one-point"
    assert by[("C", "ngram")].status == "no-outputs" and by[("C", "lstm")].status == "no-outputs"
    table = ghostwriter_table(fits)
    a = table[table["artist"] == "A"].iloc[0]
    assert a["best"] == "lstm"  # 0.2 < 0.3: lower similarity wins
    assert a["ngram checkpoint"] == pytest.approx(3.0) and a["ngram note"] == ""
    c = table[table["artist"] == "C"].iloc[0]
    assert "no outputs" in c["ngram note"] and c["best"].startswith("—")


def test_rows_without_checkpoint_are_left_out():
    res = _results([("A", "s", None, 0.1, 0.5), ("A", "s", 1, 0.2, 0.5), ("A", "s", 2, 0.4, 0.3)])
    series = checkpoint_series(res)
    assert len(series) == 2


def test_regression_figure_renders():
    res = _results([("A", "ngram", n, 0.1 * n, 0.9 - 0.05 * n) for n in range(1, 10)])
    fits = unique_yet_similar(res, {"A": 0.5})
    series = checkpoint_series(res)
    fig = regression_figure(series, fits.iloc[0].to_dict())
    from creval.report.plots import fig_to_svg

    svg = fig_to_svg(fig)
    assert svg.startswith("<svg") and "crossing" in svg


def test_empty_results():
    empty = results_frame([])
    fits = unique_yet_similar(empty, {"A": 0.3})
    assert fits["status"].tolist() == ["no-outputs"]  # the artist stays in the table, with the reason
    table = ghostwriter_table(fits)
    assert table["note"].tolist() == ["no system has outputs with a checkpoint"]
    assert table["best"].iloc[0].startswith("—")
    assert ghostwriter_table(fits.iloc[:0]).columns.tolist() == ["artist", "artist_density", "best"]
    assert isinstance(checkpoint_series(empty), pd.DataFrame)


def test_similarity_outside_unit_interval_is_noted():
    fit = fit_unique_similar([1, 2, 3], [0.1, 0.2, 0.3], [0.6, 0.8, 1.0], 0.5)
    assert fit.crossing == pytest.approx(5.0) and fit.similarity == pytest.approx(1.4)
    assert fit.status == "beyond-data" and "outside [0, 1]" in fit.message


finite = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.one_of(finite, st.just(float("nan"))),
                          st.one_of(finite, st.just(float("nan")))), max_size=12),
       st.one_of(finite, st.just(float("nan"))))
def test_never_a_silent_nan(points, artist_density):
    x = [p[0] for p in points]
    d = [p[1] for p in points]
    s = [p[2] for p in points]
    fit = fit_unique_similar(x, d, s, artist_density)
    assert fit.status in STATUS_TEXT and fit.message
    if fit.status in ("ok", "negative", "before-data", "beyond-data"):
        assert math.isfinite(fit.crossing) and math.isfinite(fit.similarity)
        if fit.status == "ok":
            assert fit.first_checkpoint - 1e-9 <= fit.crossing <= fit.last_checkpoint + 1e-9
    else:
        assert math.isnan(fit.similarity)


def test_series_counts_ignore_undefined_values():
    res = _results([("A", "s", 1, float("nan"), 0.5), ("A", "s", 1, 0.3, float("nan")), ("A", "s", 2, 0.4, 0.8)])
    series = checkpoint_series(res)
    assert series["n_density"].tolist() == [1, 1] and series["n_similarity"].tolist() == [1, 1]
    assert series["density"].tolist() == pytest.approx([0.3, 0.4])
    assert series["similarity"].tolist() == pytest.approx([0.5, 0.8])


def test_table_notes_similarity_outside_unit_interval_inside_the_data():
    rows = [("A", "s", n, 0.1 * n, 0.3 * n) for n in range(1, 6)]
    fits = unique_yet_similar(_results(rows), {"A": 0.4})
    assert fits.iloc[0]["status"] == "ok" and fits.iloc[0]["similarity"] == pytest.approx(1.2)
    assert "outside [0, 1]" in ghostwriter_table(fits).iloc[0]["s note"]
