"""Nondeterministic systems: one-best vs random sample vs average, for measures and human ratings."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from creval.analysis.nondeterministic import (
    choice_correlations,
    nondeterministic_correlations,
    ratings_as_results,
    sample_diversity,
    sample_matrix,
)
from creval.errors import InputError
from creval.metrics.base import results_frame

SAMPLES = {"i1": [0.1, 0.3], "i2": [0.5, 0.4], "i3": [0.9, 0.6], "i4": [0.2, 0.8], "i5": [0.7, 0.75]}
BESTS = {"i1": 0.2, "i2": 0.45, "i3": 0.95, "i4": 0.3, "i5": 0.6}


def _results(samples=SAMPLES, bests=BESTS, system="s", measure="m"):
    rows = []
    for inp, vals in samples.items():
        for j, v in enumerate(vals):
            rows.append({"system": system, "output_id": f"{inp}-{j}", "input_id": inp, "sample": str(j),
                         "checkpoint": None, "artist": "A", "measure": measure, "value": v})
        if inp in bests:
            rows.append({"system": system, "output_id": f"{inp}-best", "input_id": inp, "sample": "best",
                         "checkpoint": None, "artist": "A", "measure": measure, "value": bests[inp]})
    return results_frame(rows)


def test_sample_matrix():
    inputs, mat, best = sample_matrix(_results()[["input_id", "sample", "value"]])
    assert inputs == ["i1", "i2", "i3", "i4", "i5"]
    assert mat.shape == (5, 2) and mat[3].tolist() == [0.2, 0.8]
    assert best.tolist() == [BESTS[k] for k in inputs]


def test_best_vs_average_matches_scipy():
    table = nondeterministic_correlations(_results())
    row = table[table["pair"] == "best vs average"].iloc[0]
    avg = [np.mean(v) for v in SAMPLES.values()]
    best = list(BESTS.values())
    ref = stats.pearsonr(best, avg)
    ref_s = stats.spearmanr(best, avg)
    assert row["n_inputs"] == 5
    assert row["pearson_r"] == pytest.approx(ref.statistic)
    assert row["pearson_p"] == pytest.approx(ref.pvalue)
    assert row["spearman_rho"] == pytest.approx(ref_s.statistic)
    assert row["spearman_p"] == pytest.approx(ref_s.pvalue)


def test_random_pairs_average_over_draws():
    # the exact expectation over all 2^5 equally likely choices, against the mean over many seeded draws
    avg = np.array([np.mean(v) for v in SAMPLES.values()])
    best = np.array(list(BESTS.values()))
    exact_ra, exact_br = [], []
    for picks in itertools.product([0, 1], repeat=5):
        rnd = np.array([v[p] for v, p in zip(SAMPLES.values(), picks)])
        exact_ra.append(stats.pearsonr(rnd, avg).statistic)
        exact_br.append(stats.spearmanr(best, rnd).statistic)
    table = nondeterministic_correlations(_results(), draws=4000, seed=3)
    ra = table[table["pair"] == "random vs average"].iloc[0]
    br = table[table["pair"] == "best vs random"].iloc[0]
    assert ra["pearson_r"] == pytest.approx(np.mean(exact_ra), abs=0.01)
    assert ra["pearson_sd"] == pytest.approx(np.std(exact_ra), abs=0.01)
    assert br["spearman_rho"] == pytest.approx(np.mean(exact_br), abs=0.02)
    assert ra["draws"] == 4000
    again = nondeterministic_correlations(_results(), draws=4000, seed=3)
    pd.testing.assert_frame_equal(table, again)


def test_identical_samples_make_random_equal_average():
    same = {k: [v[0]] * 3 for k, v in SAMPLES.items()}
    table = nondeterministic_correlations(_results(same, {}))
    ra = table[table["pair"] == "random vs average"].iloc[0]
    assert ra["pearson_r"] == pytest.approx(1.0) and ra["pearson_sd"] == pytest.approx(0.0)
    assert table["pair"].tolist() == ["random vs average"]  # no one-best outputs: the best pairs are left out


def test_uneven_sample_counts():
    samples = {"a": [1.0], "b": [2.0, 4.0, 6.0], "c": [3.0, 3.5], "d": [0.0, 10.0]}
    rows = choice_correlations(*sample_matrix(_results(samples, {})[["input_id", "sample", "value"]])[1:],
                               draws=500, seed=0)
    ra = [r for r in rows if r["pair"] == "random vs average"][0]
    assert ra["n_inputs"] == 4 and -1 <= ra["pearson_r"] <= 1


def test_systems_without_inputs_or_samples_get_notes():
    res = results_frame([{"system": "x", "output_id": f"o{i}", "input_id": None, "sample": None,
                          "checkpoint": None, "artist": "A", "measure": "m", "value": float(i)} for i in range(4)])
    table = nondeterministic_correlations(res)
    assert "no input_id" in table.iloc[0]["note"]
    one = results_frame([{"system": "y", "output_id": f"o{i}", "input_id": f"i{i}", "sample": "0",
                          "checkpoint": None, "artist": "A", "measure": "m", "value": float(i)} for i in range(4)])
    assert "nothing to compare" in nondeterministic_correlations(one).iloc[0]["note"]
    few = _results({"i1": [0.1, 0.2], "i2": [0.3, 0.1]}, {})
    assert nondeterministic_correlations(few)["note"].str.contains("too few").any()


def test_human_ratings():
    res = _results()
    ratings_rows = []
    for inp, vals in SAMPLES.items():
        for j, v in enumerate(vals):
            # two annotators: their mean is 10 * v, a linear map of the measure
            ratings_rows += [{"artist": "A", "system": "s", "output_id": f"{inp}-{j}", "rating": 10 * v + 1},
                             {"artist": "A", "system": "s", "output_id": f"{inp}-{j}", "rating": 10 * v - 1}]
        ratings_rows.append({"artist": "A", "system": "s", "output_id": f"{inp}-best", "rating": 10 * BESTS[inp]})
    human = ratings_as_results(pd.DataFrame(ratings_rows), res)
    assert set(human["measure"]) == {"human_rating"}
    assert human.set_index("output_id").loc["i4-1", "value"] == pytest.approx(8.0)
    both = nondeterministic_correlations(pd.concat([res, human], ignore_index=True), draws=50)
    m = both[both["measure"] == "m"].set_index("pair")["pearson_r"]
    h = both[both["measure"] == "human_rating"].set_index("pair")["pearson_r"]
    assert h.to_numpy() == pytest.approx(m.to_numpy())  # Pearson is invariant to a positive linear map
    with pytest.raises(InputError, match="not among the outputs: nope"):
        ratings_as_results(pd.DataFrame([{"system": "s", "output_id": "nope", "rating": 3}]), res)
    with pytest.raises(InputError, match="not a number"):
        ratings_as_results(pd.DataFrame([{"system": "s", "output_id": "i1-0", "rating": "good"}]), res)
    with pytest.raises(InputError, match="lacks column"):
        ratings_as_results(pd.DataFrame([{"system": "s", "rating": 1}]), res)


def test_sample_diversity_summary():
    rows = [{"system": "s", "output_id": None, "input_id": f"i{i}", "sample": None, "checkpoint": None,
             "artist": "A", "measure": "diversity", "value": v} for i, v in enumerate([0.2, 0.4, 0.6])]
    table = sample_diversity(results_frame(rows))
    assert table.iloc[0]["sets"] == 3 and table.iloc[0]["mean"] == pytest.approx(0.4)
    assert sample_diversity(_results()).empty
