"""Krippendorff's alpha against the krippendorff package and Krippendorff's (2011) worked examples."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.agreement import krippendorff_alpha
from creval.errors import InputError

nan = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units, missing
# values; the paper gives alpha = .743 (nominal), .815 (ordinal), .849 (interval), .797 (ratio).
PAPER = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)
# Section A: binary data, two observers, ten units; alpha = .095.
BINARY = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]])


@pytest.mark.parametrize(
    ("level", "paper"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)]
)
def test_krippendorff_2011_worked_example(level, paper):
    res = krippendorff_alpha(PAPER, level)
    assert round(res.value, 3) == paper
    assert res.value == pytest.approx(krippendorff.alpha(PAPER, level_of_measurement=level), abs=1e-12)
    assert res.n == 11  # unit 12 has a single value and is not pairable


def test_krippendorff_binary_example():
    assert round(krippendorff_alpha(BINARY).value, 3) == 0.095


def test_string_labels_nominal_and_ordinal_domain():
    words = np.where(np.isnan(PAPER), None, PAPER.astype(object))
    labels = np.vectorize(lambda v: None if v is None else "abcde"[int(v) - 1], otypes=[object])(words)
    assert krippendorff_alpha(labels).value == pytest.approx(0.743421052631579)
    ordinal = krippendorff_alpha(labels, "ordinal", value_domain=list("abcde"))
    assert ordinal.value == pytest.approx(krippendorff.alpha(PAPER, level_of_measurement="ordinal"))


def test_value_counts_input():
    vc = np.array([[2, 0, 1], [0, 3, 0], [1, 1, 1], [0, 0, 2]])
    res = krippendorff_alpha(value_counts=vc, level="ordinal")
    assert res.value == pytest.approx(krippendorff.alpha(value_counts=vc, level_of_measurement="ordinal"))
    res = krippendorff_alpha(value_counts=vc, level="interval", value_domain=[1.0, 2.0, 5.0])
    ref = krippendorff.alpha(value_counts=vc, value_domain=[1.0, 2.0, 5.0], level_of_measurement="interval")
    assert res.value == pytest.approx(ref)


@st.composite
def reliability(draw):
    raters = draw(st.integers(2, 6))
    units = draw(st.integers(2, 25))
    values = draw(st.integers(2, 6))
    cells = draw(
        st.lists(
            st.one_of(st.none(), st.integers(1, values)), min_size=raters * units, max_size=raters * units
        )
    )
    return np.array([nan if c is None else float(c) for c in cells]).reshape(raters, units)


@settings(max_examples=80, deadline=None)
@given(reliability(), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_matches_krippendorff_package_on_random_data(data, level):
    res = krippendorff_alpha(data, level)
    counts = (~np.isnan(data)).sum(axis=0)
    pairable = data[:, counts >= 2]
    values = pairable[~np.isnan(pairable)]
    if len(values) == 0 or len(np.unique(values)) == 1:
        assert not res.defined and math.isnan(res.value)
        return
    ref = krippendorff.alpha(data, level_of_measurement=level)
    assert res.value == pytest.approx(ref, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(3, 30), st.integers(0, 2**32 - 1))
def test_interval_closed_form_with_continuous_values(raters, units, seed):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(raters, units)) + rng.normal(size=units)
    data[rng.random(data.shape) < 0.2] = nan
    res = krippendorff_alpha(data, "interval")
    if ((~np.isnan(data)).sum(axis=0) < 2).all():  # the package raises here; we report undefined
        assert not res.defined and "no unit has two or more values" in res.reason
        return
    ref = krippendorff.alpha(data, level_of_measurement="interval")
    assert res.value == pytest.approx(ref, abs=1e-9)


def test_all_identical_is_undefined():
    res = krippendorff_alpha(np.ones((3, 5)))
    assert not res.defined and math.isnan(res.value)
    assert "every pairable value is the same" in res.reason
    assert not krippendorff_alpha(np.ones((3, 5)), "interval").defined


def test_single_rater_and_no_overlap_are_undefined():
    assert "no unit has two or more values" in krippendorff_alpha([[1, 2, 3, 1]]).reason
    disjoint = np.array([[1, 2, nan, nan], [nan, nan, 1, 2]])
    res = krippendorff_alpha(disjoint)
    assert not res.defined and res.n == 0


def test_raters_with_different_item_sets():
    data = np.array([[1, 2, 3, nan, nan, 1], [1, 2, nan, 3, 2, nan], [nan, 2, 3, 3, 2, 2]])
    for level in ("nominal", "ordinal", "interval", "ratio"):
        res = krippendorff_alpha(data, level)
        assert res.value == pytest.approx(krippendorff.alpha(data, level_of_measurement=level))


def test_category_never_used_in_domain_does_not_change_nominal():
    data = np.array([[1, 2, 2, 1], [1, 2, 1, 1]])
    assert krippendorff_alpha(data, value_domain=[1, 2, 3]).value == pytest.approx(
        krippendorff_alpha(data).value
    )


def test_too_many_distinct_values_for_ordinal_is_refused_but_interval_is_fine():
    data = np.random.default_rng(0).normal(size=(2, 4500))
    with pytest.raises(InputError, match="distinct values"):
        krippendorff_alpha(data, "ordinal")
    assert krippendorff_alpha(data, "interval").defined


def test_bad_input():
    with pytest.raises(InputError, match="level"):
        krippendorff_alpha(PAPER, "cardinal")
    with pytest.raises(InputError, match="numeric"):
        krippendorff_alpha([["a", "b"], ["a", "c"]], "interval")
    with pytest.raises(InputError, match="exactly one"):
        krippendorff_alpha()
    with pytest.raises(InputError, match=">= 0"):
        krippendorff_alpha([[-1.0, 2.0], [1.0, 2.0]], "ratio")
