"""ICC against pingouin and Shrout & Fleiss (1979), Table 2."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.agreement import icc
from creval.errors import InputError

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges. Their Table 4 gives
# ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71, ICC(1,4) .44, ICC(2,4) .62, ICC(3,4) .91.
SF_TABLE2 = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float
)
SF_VALUES = {
    "ICC(1,1)": 0.17,
    "ICC(2,1)": 0.29,
    "ICC(3,1)": 0.71,
    "ICC(1,4)": 0.44,
    "ICC(2,4)": 0.62,
    "ICC(3,4)": 0.91,
}


@pytest.fixture(autouse=True)
def _pingouin_unrounded():
    old = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None
    yield
    pg.options["round.column.CI95"] = old


def _long(x):
    n, k = x.shape
    return pd.DataFrame(
        [(i, j, x[i, j]) for i in range(n) for j in range(k)], columns=["target", "rater", "rating"]
    )


def _compare(res, x):
    ref = pg.intraclass_corr(_long(x), "target", "rater", "rating").set_index("Type")
    for form in res:
        row = ref.loc[form.shrout_fleiss if form.shrout_fleiss.startswith("ICC(1") else form.mcgraw_wong]
        ours = [form.value, form.f, form.df1, form.df2, form.p_value]
        theirs = [row["ICC"], row["F"], row["df1"], row["df2"], row["pval"]]
        if np.isfinite(form.f) and res.anova["EMS"] > 0:  # pingouin's CI is NaN at infinite F; ours the limit
            ours += list(form.ci)
            theirs += list(row["CI95"])
        np.testing.assert_allclose(
            ours, theirs, rtol=1e-9, atol=1e-9, equal_nan=True, err_msg=form.shrout_fleiss
        )


def test_shrout_fleiss_table2():
    res = icc(SF_TABLE2)
    for name, value in SF_VALUES.items():
        assert round(res[name].value, 2) == value, name
    _compare(res, SF_TABLE2)
    assert res.n == 6 and res.k == 4


def test_both_naming_conventions():
    res = icc(SF_TABLE2)
    assert res["ICC(2,1)"] is res["ICC(A,1)"] is res["ICC2"]
    assert res["ICC(3,k)"] is res["ICC(C,k)"] is res["ICC(3,4)"]
    assert res["ICC(1,1)"].mcgraw_wong == "ICC(1)"
    frame = res.to_frame()
    assert list(frame.shrout_fleiss) == [
        "ICC(1,1)",
        "ICC(2,1)",
        "ICC(3,1)",
        "ICC(1,k)",
        "ICC(2,k)",
        "ICC(3,k)",
    ]
    assert list(frame.mcgraw_wong) == ["ICC(1)", "ICC(A,1)", "ICC(C,1)", "ICC(k)", "ICC(A,k)", "ICC(C,k)"]
    assert "ICC(2,1) = ICC(A,1) = 0.290" in str(res)
    with pytest.raises(KeyError):
        res["ICC(4,1)"]


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 20), st.integers(2, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_matches_pingouin_on_random_data(n, k, seed, discrete):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1)) + rng.normal(size=(n, k)) + rng.normal(size=(1, k))
    if discrete:
        x = np.round(x)
    res = icc(x)
    if np.ptp(x) == 0:
        assert not res["ICC2"].defined
        return
    _compare(res, x)


def test_long_table_and_missing_targets_dropped():
    x = SF_TABLE2.copy()
    extra = np.vstack([x, [[1, np.nan, 3, 4]]])
    res = icc(extra)
    assert res.dropped_targets == 1 and res.n == 6
    long = _long(extra).dropna()
    res_long = icc(long, targets="target", raters="rater", ratings="rating")
    assert res_long["ICC(2,1)"].value == pytest.approx(res["ICC(2,1)"].value)
    assert res_long.dropped_targets == 1


def test_degenerate_cases():
    same = icc(np.full((5, 3), 4.0))
    assert all(not f.defined and math.isnan(f.value) for f in same)
    assert "every rating is the same" in same["ICC(1,1)"].reason
    single = icc(np.array([[1.0], [2.0], [3.0]]))
    assert "single rater" in single["ICC(3,1)"].reason
    few = icc(np.array([[1.0, np.nan], [2.0, 2.0]]))
    assert not few["ICC1"].defined and few.dropped_targets == 1
    with pytest.raises(InputError, match="numeric"):
        icc([["a", "b"], ["c", "d"]])
    with pytest.raises(InputError, match="all three"):
        icc(_long(SF_TABLE2), targets="target")
    dup = pd.concat([_long(SF_TABLE2), _long(SF_TABLE2).iloc[:1]])
    with pytest.raises(InputError, match="rated target 0 twice"):
        icc(dup, targets="target", raters="rater", ratings="rating")


def test_perfect_agreement_has_a_closed_interval():
    x = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]])
    res = icc(x)
    assert res["ICC(1,1)"].value == 1.0 and res["ICC(1,1)"].ci == (1.0, 1.0)
    assert res["ICC(2,1)"].ci == pytest.approx((1.0, 1.0))
    offset = icc(x + np.array([0.0, 1.0]))  # rater 2 always one point higher
    assert offset["ICC(3,1)"].value == 1.0 and offset["ICC(3,1)"].ci == (1.0, 1.0)
    lo, hi = offset["ICC(2,1)"].ci
    assert lo < offset["ICC(2,1)"].value < hi <= 1.0


def test_confidence_level_widens_interval():
    narrow = icc(SF_TABLE2, confidence=0.8)["ICC(2,1)"].ci
    wide = icc(SF_TABLE2, confidence=0.99)["ICC(2,1)"].ci
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


def test_hanna_real_ratings(shared_data):
    """Real study data: HANNA's three annotators' coherence ratings (1-5) of 96 stories from each of 11 systems."""
    import json

    frame = pd.read_csv(shared_data / "hanna" / "hanna_metric_scores_llm.csv")
    cols = ["Human 1 CH", "Human 2 CH", "Human 3 CH"]
    x = np.vstack(
        [np.array([json.loads(row[c]) for c in cols], dtype=float).T for _, row in frame.iterrows()]
    )
    assert x.shape == (11 * 96, 3)
    res = icc(x)
    _compare(res, x)
    assert res["ICC(2,1)"].defined and -1 < res["ICC(2,1)"].value < 1
