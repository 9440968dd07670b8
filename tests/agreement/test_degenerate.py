"""The degenerate cases real studies produce, for every statistic: never 1.0 silently, never a crash."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.agreement import (
    StatResult,
    cohen_kappa,
    correlation,
    fleiss_kappa,
    friedman,
    icc,
    kendall_tau_pages,
    krippendorff_alpha,
)
from creval.errors import InputError

nan = np.nan


def _undefined(res) -> bool:
    return (not res.defined) and math.isnan(res.value) and bool(res.reason)


def test_all_ratings_identical():
    same = np.full((6, 3), 2.0)  # items x raters
    assert _undefined(fleiss_kappa(same))
    assert _undefined(cohen_kappa(same[:, 0], same[:, 1]))
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert _undefined(krippendorff_alpha(same.T, level))
    assert all(not f.defined and math.isnan(f.value) for f in icc(same))
    assert not friedman(same).defined
    assert _undefined(correlation(same[:, 0], same[:, 1]))
    pages = pd.DataFrame({"page": 1, "assessor": np.repeat(["a", "b"], 3), "item": [1, 2, 3] * 2, "score": 2})
    assert _undefined(kendall_tau_pages(pages))
    for res in (fleiss_kappa(same), krippendorff_alpha(same.T)):
        assert "undefined" in str(res) and "1.000" not in str(res)


def test_single_rater():
    one = np.array([[1.0], [2.0], [3.0], [1.0]])
    assert "single rating" in fleiss_kappa(one).reason
    assert _undefined(krippendorff_alpha(one.T))
    assert "single rater" in icc(one)["ICC(1,1)"].reason
    pages = pd.DataFrame({"page": 1, "assessor": "a", "item": [1, 2, 3], "score": [1, 2, 3]})
    assert _undefined(kendall_tau_pages(pages))


def test_raters_with_different_item_sets_and_missing_cells():
    # rater 0 did items 0-3, rater 1 items 2-5, rater 2 items 0-1 and 4-5: every item has two ratings
    data = np.array([[1, 2, 3, 1, nan, nan], [nan, nan, 3, 2, 1, 2], [1, 1, nan, nan, 1, 2]]).T
    assert fleiss_kappa(data).defined and fleiss_kappa(data).detail["equal_raters"]
    assert krippendorff_alpha(data.T).defined
    res = cohen_kappa(data[:, 0], data[:, 1])
    assert res.n == 2  # the two items both rated
    assert icc(data).n == 0 and not icc(data)["ICC2"].defined  # no target rated by all three
    assert icc(data[:, :2]).dropped_targets == 4


def test_one_category_never_used():
    data = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [0, 0, 0]])
    base = fleiss_kappa(data)
    assert fleiss_kappa(data, categories=[0, 1, 2]).value == pytest.approx(base.value)
    assert krippendorff_alpha(data.T, value_domain=[0, 1, 2]).value == pytest.approx(
        krippendorff_alpha(data.T).value
    )
    assert cohen_kappa(data[:, 0], data[:, 1], categories=[0, 1, 2]).value == pytest.approx(
        cohen_kappa(data[:, 0], data[:, 1]).value
    )


def test_ties_everywhere():
    tied = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])  # blocks x systems
    assert "ties" in friedman(tied).reason
    assert _undefined(correlation([1, 1, 1, 1], [1, 2, 2, 3], "kendall"))
    # perfectly agreeing raters with ties across items are defined (and 1), not undefined
    assert fleiss_kappa(tied).value == pytest.approx(1.0)
    assert krippendorff_alpha(tied.T).value == pytest.approx(1.0)


def test_empty_input():
    assert _undefined(fleiss_kappa(np.empty((0, 3))))
    assert _undefined(cohen_kappa([], []))
    assert _undefined(krippendorff_alpha(np.empty((2, 0))))


garbage = st.recursive(
    st.one_of(st.none(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()),
    lambda children: st.lists(children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(garbage)
def test_bad_input_is_an_input_error_or_a_result_never_a_crash(data):
    for call in (
        lambda: fleiss_kappa(data),
        lambda: fleiss_kappa(data, counts=True),
        lambda: krippendorff_alpha(data),
        lambda: krippendorff_alpha(data, "interval"),
    ):
        try:
            res = call()
        except InputError:
            continue
        assert isinstance(res, StatResult)
        assert res.defined or res.reason


@settings(max_examples=100, deadline=None)
@given(garbage, garbage)
def test_bad_pairs_are_input_errors_or_results(a, b):
    for call in (
        lambda: cohen_kappa(a, b),
        lambda: cohen_kappa(a, b, "quadratic"),
        lambda: correlation(a, b),
        lambda: icc(a),
        lambda: friedman(a),
    ):
        try:
            res = call()
        except InputError:
            continue
        assert res is not None
