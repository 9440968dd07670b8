"""Fleiss' and Cohen's kappa against statsmodels / scikit-learn and the papers' worked examples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from creval.agreement import (
    ACCEPTABLE_VS_BAD,
    cohen_kappa,
    fleiss_kappa,
    fleiss_kappa_by,
    fleiss_table,
    interpret_kappa,
)
from creval.errors import InputError

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses; the paper reports kappa = .430.
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ]
)  # fmt: skip

# The worked example of Fleiss' kappa on Wikipedia: 10 subjects, 14 raters, 5 categories; kappa = 0.210.
WIKI_COUNTS = np.array(
    [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
     [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
)  # fmt: skip


def test_fleiss_1971_worked_example():
    res = fleiss_kappa(FLEISS_1971)
    assert res.defined
    assert round(res.value, 3) == 0.430
    assert res.value == pytest.approx(sm_fleiss(aggregate_raters(FLEISS_1971)[0]), abs=1e-12)
    assert res.n == 30
    assert res.interpretation == "moderate"
    # z test of Fleiss, Nee & Landis (1979); R irr::kappam.fleiss(diagnoses) prints z = 17.65183, p = 0
    assert res.detail["z"] == pytest.approx(17.65183, abs=1e-5)
    assert res.p_value < 1e-60


def test_fleiss_wikipedia_counts():
    res = fleiss_kappa(WIKI_COUNTS, counts=True)
    assert round(res.value, 3) == 0.210
    assert res.detail["observed_agreement"] == pytest.approx(0.378, abs=5e-4)
    assert res.detail["expected_agreement"] == pytest.approx(0.213, abs=5e-4)


def test_fleiss_counts_dataframe_keeps_category_names():
    df = pd.DataFrame(WIKI_COUNTS, columns=list("abcde"))
    res = fleiss_kappa(df, counts=True)
    assert set(res.detail["category_proportions"]) == set("abcde")
    assert res.value == pytest.approx(sm_fleiss(WIKI_COUNTS))


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int64, st.tuples(st.integers(2, 30), st.integers(2, 8)), elements=st.integers(0, 4)),
)
def test_fleiss_matches_statsmodels_on_random_data(ratings):
    table, _ = aggregate_raters(ratings)
    expected = sm_fleiss(table)
    res = fleiss_kappa(ratings)
    if len(np.unique(ratings)) == 1:
        assert not res.defined and math.isnan(res.value)
    else:
        assert res.value == pytest.approx(expected, abs=1e-10)
        assert fleiss_kappa(table, counts=True).value == pytest.approx(expected, abs=1e-10)


def test_fleiss_string_labels_and_collapse_to_two_categories():
    labels = np.array(
        [
            ["good", "good", "acceptable"],
            ["bad", "bad", "bad"],
            ["acceptable", "good", "bad"],
            ["good", "acceptable", "acceptable"],
            ["bad", "acceptable", "bad"],
        ],
        dtype=object,
    )
    three = fleiss_kappa(labels)
    codes = np.vectorize({"bad": 0, "acceptable": 1, "good": 2}.get)(labels)
    assert three.value == pytest.approx(sm_fleiss(aggregate_raters(codes)[0]))
    two = fleiss_kappa(labels, collapse="acceptable")
    binary = np.vectorize({"bad": 0, "acceptable": 1, "good": 1}.get)(labels)
    assert two.value == pytest.approx(sm_fleiss(aggregate_raters(binary)[0]))
    assert set(two.detail["category_proportions"]) == {"acceptable+", "bad"}
    # the same collapse on a count table
    table, cats = fleiss_table(labels)
    assert fleiss_kappa(pd.DataFrame(table, columns=cats), counts=True, collapse=ACCEPTABLE_VS_BAD).value == (
        pytest.approx(two.value)
    )


def test_fleiss_collapse_missing_label_is_input_error():
    with pytest.raises(InputError, match="no group for label 'great'"):
        fleiss_kappa([["great", "bad"], ["bad", "bad"]], collapse="acceptable")


def test_fleiss_all_identical_is_undefined_not_one():
    res = fleiss_kappa([["good"] * 3] * 5)
    assert not res.defined
    assert math.isnan(res.value)
    assert "every rating is 'good'" in res.reason
    assert "undefined" in str(res)


def test_fleiss_single_rater_is_undefined():
    res = fleiss_kappa([[1], [2], [1]])
    assert not res.defined and "single rating per item" in res.reason


def test_fleiss_missing_cells_use_items_with_two_ratings():
    nan = np.nan
    data = np.array([[1, 1, nan], [2, 2, 1], [nan, 3, 3], [1, nan, nan]])
    res = fleiss_kappa(data)
    assert res.defined
    assert res.detail["dropped_items"] == 1
    assert res.detail["equal_raters"] is False
    # by hand: P_i = 1, 1/3, 1 ; p = (1: 3/7, 2: 2/7, 3: 2/7)
    p_bar = (1 + 1 / 3 + 1) / 3
    p_e = (3 / 7) ** 2 + 2 * (2 / 7) ** 2
    assert res.value == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_fleiss_unused_category_changes_nothing():
    ratings = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [2, 2, 2]])
    base = fleiss_kappa(ratings)
    wider = fleiss_kappa(ratings, categories=[0, 1, 2, 3])
    assert wider.value == pytest.approx(base.value)
    assert wider.detail["category_proportions"][3] == 0


def test_fleiss_bad_count_table():
    with pytest.raises(InputError, match="row 2, column 1"):
        fleiss_kappa([[1, 2], [-1, 3]], counts=True)
    with pytest.raises(InputError, match="2-D"):
        fleiss_kappa([1, 2, 3])


def test_fleiss_kappa_by_system_and_criterion():
    rng = np.random.default_rng(3)
    rows = []
    for system in ("a", "b"):
        for crit in ("fluency", "rhyming"):
            for it in range(12):
                for ann in ("x", "y", "z"):
                    rows.append(
                        {"system": system, "criterion": crit, "item": it, "annotator": ann,
                         "label": ["bad", "acceptable", "good"][rng.integers(0, 3)]}
                    )  # fmt: skip
    df = pd.DataFrame(rows)
    out = fleiss_kappa_by(df)
    assert len(out) == 4
    for _, r in out.iterrows():
        sub = df[(df.system == r.system) & (df.criterion == r.criterion)]
        wide = sub.pivot(index="item", columns="annotator", values="label")
        codes = wide.replace({"bad": 0, "acceptable": 1, "good": 2}).to_numpy(dtype=int)
        assert r.kappa == pytest.approx(sm_fleiss(aggregate_raters(codes)[0]))
        assert r.n_items == 12 and r.n_ratings == 36
    collapsed = fleiss_kappa_by(df, collapse="acceptable")
    assert not np.allclose(collapsed.kappa, out.kappa)


def test_fleiss_kappa_by_duplicate_rating_is_input_error():
    df = pd.DataFrame({"item": [1, 1, 1], "annotator": ["x", "x", "y"], "label": [1, 2, 1]})
    with pytest.raises(InputError, match="row 2: annotator 'x' rated item 1 twice"):
        fleiss_kappa_by(df, by=())


# ------------------------------------------------------------------------------------------------ Cohen


def test_cohen_textbook_example():
    # 50 proposals: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = .7, p_e = .5, kappa = .4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    res = cohen_kappa(a, b)
    assert res.value == pytest.approx(0.4)
    assert res.detail["observed_agreement"] == pytest.approx(0.7)
    assert res.detail["expected_agreement"] == pytest.approx(0.5)
    assert res.interpretation == "fair"


def _table(a, b, k):
    t = np.zeros((k, k))
    for i, j in zip(a, b):
        t[i, j] += 1
    return t


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=2, max_size=60),
        )
    ),
    st.sampled_from([None, "linear", "quadratic"]),
)
def test_cohen_matches_statsmodels_and_sklearn(case, weights):
    k, pairs = case
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    res = cohen_kappa(a, b, weights, categories=list(range(k)))
    table = _table(a, b, k)
    row, col = table.sum(1) / len(a), table.sum(0) / len(a)
    w = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]) if weights else 1 - np.eye(k)
    if weights == "quadratic":
        w = w**2
    if (w * np.outer(row, col)).sum() == 0:
        assert not res.defined
        return
    sm = sm_cohen(table, wt=weights) if weights else sm_cohen(table)
    assert res.value == pytest.approx(sm.kappa, abs=1e-10)
    # compare variances: a standard error near 0 is sqrt of a rounding error
    if not math.isnan(sm.std_kappa):  # statsmodels gives NaN for a variance that rounds below 0; we give 0
        assert res.se**2 == pytest.approx(sm.std_kappa**2, abs=1e-12)
    if not math.isnan(sm.std_kappa0):
        assert res.detail["se_null"] ** 2 == pytest.approx(sm.std_kappa0**2, abs=1e-12)
    if sm.std_kappa0 > 1e-6:
        assert res.p_value == pytest.approx(sm.pvalue_two_sided, abs=1e-9)
    # sklearn uses the categories present in the data only
    present = sorted(set(a) | set(b))
    if present == list(range(k)):
        assert res.value == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-10)


def test_cohen_weights_use_positions_in_the_category_list():
    a = [1, 2, 4, 4, 1, 2]
    b = [1, 4, 4, 2, 2, 2]
    inferred = cohen_kappa(a, b, "linear")  # categories 1, 2, 4 at positions 0, 1, 2
    spaced = cohen_kappa(a, b, "linear", categories=[1, 2, 3, 4])  # an unused 3 widens the 2-4 step
    assert inferred.value != pytest.approx(spaced.value)
    assert spaced.value == pytest.approx(
        sm_cohen(_table([0, 1, 3, 3, 0, 1], [0, 3, 3, 1, 1, 1], 4), wt="linear").kappa
    )
    # unweighted kappa ignores unused categories
    assert cohen_kappa(a, b).value == pytest.approx(cohen_kappa(a, b, categories=[1, 2, 3, 4]).value)


def test_cohen_missing_pairs_dropped():
    res = cohen_kappa([1, 2, None, 2, 1], [1, 2, 2, float("nan"), 2])
    assert res.n == 3 and res.detail["dropped_pairs"] == 2
    assert res.value == pytest.approx(cohen_kappa_score([1, 2, 1], [1, 2, 2]))


def test_cohen_degenerate_cases():
    same = cohen_kappa(["a"] * 4, ["a"] * 4)
    assert not same.defined and math.isnan(same.value) and "used only 'a'" in same.reason
    assert not cohen_kappa([1, None], [None, 2]).defined
    # both constant but different: defined, kappa = 0
    assert cohen_kappa(["a"] * 4, ["b"] * 4).value == 0.0
    with pytest.raises(InputError, match="differ in length"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(InputError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(InputError, match="not one of the categories"):
        cohen_kappa([1, 2], [1, 7], categories=[1, 2])


@pytest.mark.parametrize(
    ("value", "label"),
    [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.21, "fair"), (0.4, "fair"), (0.5, "moderate"),
     (0.7, "substantial"), (0.8, "substantial"), (0.81, "almost perfect"), (1.0, "almost perfect"),
     (float("nan"), "undefined")],
)  # fmt: skip
def test_landis_koch_bands(value, label):
    assert interpret_kappa(value) == label


def test_label_is_printed_beside_the_value():
    text = str(cohen_kappa([1, 2, 1, 2, 1], [1, 2, 1, 2, 2]))
    assert "0.615" in text and "(substantial)" in text
