"""Kendall tau-b pages (Wu et al.), Friedman and post-hoc tests against scipy / statsmodels / Demšar (2006)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from creval.agreement import friedman, holm, kendall_tau_b, kendall_tau_pages, nemenyi, wilcoxon_holm
from creval.errors import InputError


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 5)), min_size=2, max_size=15))
def test_tau_b_matches_scipy(pairs):
    x = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    ours = kendall_tau_b(x, y)
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)


def _pages():
    rows = []
    scores = {
        # page: {assessor: scores of items 0..3}
        "p1": {"a": [1, 2, 3, 4], "b": [1, 3, 2, 4], "c": [2, 2, 3, 4]},
        "p2": {"a": [4, 3, 2, 1], "b": [1, 2, 3, 4], "c": [3, 3, 3, 3]},  # c constant
        "p3": {"a": [1, 1, 2, 2], "b": [1, 2, 2, 2]},
    }
    for page, by in scores.items():
        for assessor, vals in by.items():
            for item, v in enumerate(vals):
                rows.append({"page": page, "assessor": assessor, "item": f"{page}-{item}", "score": v})
    return pd.DataFrame(rows), scores


def test_tau_pages_by_hand_against_scipy():
    frame, scores = _pages()
    tau = lambda u, v: stats.kendalltau(u, v, variant="b").statistic  # noqa: E731
    p1 = [tau(scores["p1"]["a"], scores["p1"]["b"]), tau(scores["p1"]["a"], scores["p1"]["c"]),
          tau(scores["p1"]["b"], scores["p1"]["c"])]  # fmt: skip
    p3 = [tau(scores["p3"]["a"], scores["p3"]["b"])]
    res = kendall_tau_pages(frame)
    assert res.value == pytest.approx(np.mean(p1 + p3))
    assert res.n == 4
    assert res.detail["pages"] == 3 and res.detail["pages_excluded"] == 1 and res.detail["pages_used"] == 2
    # excluding pairs only keeps p2's a-b pair
    pair = kendall_tau_pages(frame, exclude="pair")
    p2 = [tau(scores["p2"]["a"], scores["p2"]["b"])]
    assert pair.value == pytest.approx(np.mean(p1 + p2 + p3))
    assert pair.detail["pairs_excluded"] == 2


def test_tau_pages_all_constant_is_undefined():
    frame = pd.DataFrame(
        {"page": [1] * 4, "assessor": ["a", "a", "b", "b"], "item": [1, 2, 1, 2], "score": [3, 3, 1, 2]}
    )
    res = kendall_tau_pages(frame)
    assert not res.defined and math.isnan(res.value) and "same score" in res.reason


def test_tau_pages_bad_input():
    with pytest.raises(InputError, match="missing column"):
        kendall_tau_pages([{"page": 1, "assessor": "a", "item": 1}])
    with pytest.raises(InputError, match="numeric"):
        kendall_tau_pages([{"page": 1, "assessor": "a", "item": 1, "score": "high"}])
    dup = [{"page": 1, "assessor": "a", "item": 1, "score": 1}] * 2
    with pytest.raises(InputError, match="twice"):
        kendall_tau_pages(dup)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(2, 20), st.integers(0, 2**32 - 1), st.booleans())
def test_friedman_matches_scipy(k, n, seed, ties):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 4, size=(n, k)).astype(float) if ties else rng.normal(size=(n, k))
    res = friedman(x, posthoc=None)
    if all(len(set(row)) == 1 for row in x):
        assert not res.defined and "ties" in res.reason
        return
    ref = stats.friedmanchisquare(*x.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert res.kendall_w == pytest.approx(ref.statistic / (n * (k - 1)))


def test_friedman_long_table_with_annotator_item_blocks():
    rng = np.random.default_rng(1)
    rows = []
    for ann in ("x", "y"):
        for item in range(8):
            for system in ("A", "B", "C"):
                rows.append({"annotator": ann, "item": item, "system": system,
                             "score": rng.integers(1, 6) + (system == "C") * 2})  # fmt: skip
    frame = pd.DataFrame(rows)
    res = friedman(frame, block=["annotator", "item"])
    wide = frame.pivot_table(index=["annotator", "item"], columns="system", values="score")
    ref = stats.friedmanchisquare(*wide.to_numpy().T)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.n_blocks == 16 and set(res.mean_ranks) == {"A", "B", "C"}
    with pytest.raises(InputError, match="two scores in block"):
        friedman(frame, block="item")
    # a block missing a system is dropped
    res2 = friedman(frame.iloc[1:], block=["annotator", "item"])
    assert res2.dropped_blocks == 1 and res2.n_blocks == 15


def test_friedman_degenerate():
    assert not friedman(np.ones((5, 3))).defined
    assert "fewer than two systems" in friedman(np.ones((5, 1))).reason
    assert "fewer than two complete blocks" in friedman(np.array([[1.0, 2.0, 3.0]])).reason


def test_nemenyi_critical_difference_from_demsar():
    # Demšar (2006), section 3.2.2: k = 4 classifiers, N = 14 data sets, q_0.05 = 2.569, CD = 1.25
    x = np.random.default_rng(0).normal(size=(14, 4))
    table, cd = nemenyi(x)
    assert cd == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * 14)), abs=1e-3)
    assert round(cd, 2) == 1.25
    assert len(table) == 6
    # p-value of each pair is below alpha exactly when the rank difference reaches CD
    for _, r in table.iterrows():
        assert (r.p_value < 0.05) == (abs(r.difference) >= cd)


def test_nemenyi_detects_a_clear_winner():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(30, 3))
    x[:, 2] += 3
    res = friedman(x, posthoc="nemenyi")
    assert res.p_value < 1e-6
    sig = res.posthoc.set_index(["a", "b"])["significant"]
    assert sig[(0, 2)] and sig[(1, 2)]
    assert res.critical_difference > 0


@settings(max_examples=12, deadline=None)  # statsmodels' multipletests takes ~0.15 s a call
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12))
def test_holm_matches_statsmodels(p):
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)


def test_wilcoxon_holm_matches_scipy_and_statsmodels():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(20, 3))
    x[:, 1] += 1.0
    res = friedman(x, posthoc="wilcoxon-holm")
    table = res.posthoc
    raw = [stats.wilcoxon(x[:, i], x[:, j]).pvalue for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert table.p_value.to_numpy() == pytest.approx(raw)
    assert table.p_adjusted.to_numpy() == pytest.approx(multipletests(raw, method="holm")[1])
    same = wilcoxon_holm(np.column_stack([x[:, 0], x[:, 0]]))
    assert same.p_value.iloc[0] == 1.0
    with pytest.raises(InputError, match="posthoc"):
        friedman(x, posthoc="tukey")


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(2, 15), st.integers(0, 2**32 - 1))
def test_mean_ranks_match_scipy_rankdata_with_ties(k, n, seed):
    x = np.random.default_rng(seed).integers(0, 3, size=(n, k)).astype(float)
    res = friedman(x, posthoc="nemenyi")
    expected = stats.rankdata(x, axis=1).mean(axis=0)
    assert list(res.mean_ranks.values()) == pytest.approx(expected.tolist())
    if res.posthoc is not None:
        assert res.posthoc.mean_rank_a.iloc[0] == pytest.approx(expected[0])
