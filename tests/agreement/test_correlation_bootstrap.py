"""Correlation CIs against pingouin / scipy, bootstrap CIs against scipy.stats.bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from creval.agreement import bootstrap_ci, correlation, fleiss_kappa
from creval.errors import InputError


@pytest.fixture(autouse=True)
def _pingouin_unrounded():
    old = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None
    yield
    pg.options["round.column.CI95"] = old


@settings(max_examples=30, deadline=None)
@given(st.integers(5, 60), st.integers(0, 2**32 - 1), st.sampled_from(["pearson", "spearman"]))
def test_correlation_matches_pingouin(n, seed, method):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = 0.5 * x + rng.normal(size=n)
    ours = correlation(x, y, method, ci_method="fisher")
    ref = pg.corr(x, y, method=method)
    assert ours.value == pytest.approx(ref["r"].iloc[0], abs=1e-12)
    assert ours.p_value == pytest.approx(ref["p_val"].iloc[0] if "p_val" in ref else ref["p-val"].iloc[0])
    ci = ref["CI95"].iloc[0] if "CI95" in ref else ref["CI95%"].iloc[0]
    assert ours.ci == pytest.approx(tuple(ci), abs=1e-6)  # pingouin rounds its CI to 6 decimals


def test_correlation_default_cis():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    r = stats.spearmanr(x, y).statistic
    res = correlation(x, y, "spearman")
    half = 1.959963984540054 * math.sqrt((1 + r * r / 2) / 37)
    assert res.ci == pytest.approx((math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)))
    tau = correlation(x, y, "kendall")
    assert tau.value == pytest.approx(stats.kendalltau(x, y).statistic)
    assert tau.ci[0] < tau.value < tau.ci[1]


def test_correlation_degenerate():
    assert "constant" in correlation([1, 1, 1, 1], [1, 2, 3, 4]).reason
    assert "fewer than three" in correlation([1, 2], [2, 1]).reason
    res = correlation([1, 2, np.nan, 4, 5], [2, 1, 3, np.nan, 5])
    assert res.n == 3 and res.detail["dropped_pairs"] == 2 and math.isnan(res.ci[0])
    assert correlation([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]).ci == (pytest.approx(1.0), pytest.approx(1.0))
    with pytest.raises(InputError, match="method"):
        correlation([1, 2, 3], [1, 2, 3], "cosine")
    with pytest.raises(InputError, match="equally long"):
        correlation([1, 2, 3], [1, 2])


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_matches_scipy(method):
    rng = np.random.default_rng(5)
    data = rng.exponential(size=80)
    ours = bootstrap_ci(data, np.mean, n_resamples=20000, method=method, seed=1)
    ref = stats.bootstrap((data,), np.mean, n_resamples=20000, method=method, rng=2)
    assert ours.value == pytest.approx(data.mean())
    sd = ref.standard_error
    assert ours.ci[0] == pytest.approx(ref.confidence_interval.low, abs=0.1 * sd)
    assert ours.ci[1] == pytest.approx(ref.confidence_interval.high, abs=0.1 * sd)
    assert ours.se == pytest.approx(sd, rel=0.05)


def test_bootstrap_vectorized_equals_loop():
    data = np.random.default_rng(1).normal(size=30)
    a = bootstrap_ci(data, np.mean, n_resamples=500, seed=7)
    b = bootstrap_ci(data, lambda s: s.mean(axis=-1), n_resamples=500, seed=7, vectorized=True)
    assert a.ci == pytest.approx(b.ci)


def test_bootstrap_clusters_keep_annotations_together():
    # two verses with many annotations each: resampling verses gives a much wider CI than resampling rows
    frame = pd.DataFrame({"item": [0] * 50 + [1] * 50, "score": [0.0] * 50 + [1.0] * 50})
    by_row = bootstrap_ci(frame, lambda f: f.score.mean(), n_resamples=300, seed=3)
    by_item = bootstrap_ci(frame, lambda f: f.score.mean(), n_resamples=300, seed=3, cluster="item")
    assert by_item.n == 2 and by_row.n == 100
    assert by_item.ci[1] - by_item.ci[0] > 3 * (by_row.ci[1] - by_row.ci[0])


def test_bootstrap_of_an_agreement_statistic_skips_undefined_resamples():
    ratings = np.array([[1, 1, 1], [1, 1, 2], [2, 2, 2], [1, 1, 1], [2, 1, 2], [1, 1, 1]])
    res = bootstrap_ci(ratings, lambda r: fleiss_kappa(r).value, n_resamples=300, seed=0)
    assert res.defined and res.ci[0] <= res.value <= res.ci[1]
    assert res.detail["undefined"] >= 0
    undefined = bootstrap_ci(np.ones((4, 3)), lambda r: fleiss_kappa(r).value, n_resamples=10)
    assert not undefined.defined


def test_bootstrap_bad_input():
    with pytest.raises(InputError, match="method"):
        bootstrap_ci([1, 2, 3], np.mean, method="studentized")
    with pytest.raises(InputError, match="cluster"):
        bootstrap_ci([1, 2, 3], np.mean, cluster="item")
    with pytest.raises(InputError, match="confidence"):
        bootstrap_ci([1, 2, 3], np.mean, confidence=95)


def test_bootstrap_progress_bar_does_not_change_the_result():
    data = np.random.default_rng(2).normal(size=25)
    quiet = bootstrap_ci(data, np.mean, n_resamples=200, seed=4, progress=False)
    shown = bootstrap_ci(data, np.mean, n_resamples=200, seed=4, progress=True)
    assert quiet.ci == shown.ci
