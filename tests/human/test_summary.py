"""Results of a study: matrices and agreement on the results page match reference libraries on the same data."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from creval.human.export import matrix, tidy_rows
from creval.human.store import Store
from creval.human.summary import study_results
from tests.human._support import make_study

# fluency / rhyming answers of three annotators on six items (k = 3: everyone rates everything)
ANSWERS = {
    "a1": [(2, 2), (1, 0), (0, 0), (2, 1), (1, 1), (0, 2)],
    "a2": [(2, 1), (1, 0), (0, 1), (2, 2), (0, 1), (0, 2)],
    "a3": [(1, 2), (1, 0), (0, 0), (2, 2), (1, 0), (1, 2)],
}


def test_matrix_and_agreement_match_statsmodels(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    cr = make_study(store, n=6, k=3, annotators=3)
    for name, answers in ANSWERS.items():
        a = store.annotator_by_token(cr.invites[name])["id"]
        while (asg := store.claim(a)) is not None:
            i = int(asg["key"][1:])
            f, r = answers[i]
            assert store.submit(a, asg["id"], {"fluency": f, "rhyming": r}, {}) == "accepted"
    rows = tidy_rows(store, cr.name)
    units, raters, cells = matrix(rows, "fluency")
    assert units == [f"r{i}" for i in range(6)] and raters == ["a1", "a2", "a3"]
    assert cells == [[ANSWERS[a][i][0] for a in raters] for i in range(6)]
    res = study_results(store, cr.name)
    agreement = next(t for t in res["tables"] if t["title"] == "Agreement")
    for crit, col in (("fluency", 0), ("rhyming", 1)):
        data = np.array([[ANSWERS[a][i][col] for a in raters] for i in range(6)])
        expected = fleiss_kappa(aggregate_raters(data)[0])
        got = next(r for r in agreement["rows"] if r[0] == crit and r[1] == "Fleiss' kappa")[2]
        assert got == pytest.approx(expected, abs=1e-12)
    means = next(t for t in res["tables"] if t["title"] == "Mean judgement per system")
    sys0_flu = [ANSWERS[a][i][0] for a in raters for i in range(0, 6, 2)]
    row = next(r for r in means["rows"] if r[0] == "secret-sys-0" and r[1] == "fluency")
    assert row[2] == pytest.approx(np.mean(sys0_flu)) and row[4] == 9
    share = next(t for t in res["tables"] if t["title"].startswith("Acceptable"))
    assert share["rows"]
    store.close()


def test_icc_one_way_when_each_page_has_its_own_raters(tmp_path):
    """Pair-balanced side-by-side (3 assessors, k = 2): ICC(1,1) on the slot layout, checked with pingouin."""
    import pandas as pd
    import pingouin

    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    cr = make_study(store, "side_by_side", n=6, k=2, annotators=3)
    for i, name in enumerate(("a1", "a2", "a3")):
        a = store.annotator_by_token(cr.invites[name])
        while (asg := store.claim(a)) is not None:
            page = int(asg["key"][1:])
            ratings = [1 + (page + j + i * (j == 1)) % 5 for j in range(3)]
            assert store.submit(a, asg["id"], {"ratings": ratings}, {}) == "accepted"
    rows = tidy_rows(store, cr.name)
    units, raters, cells = matrix(rows, "rating")
    slots = [[v for v in row if v is not None] for row in cells]
    assert all(len(s) == 2 for s in slots)
    long = pd.DataFrame([{"t": u, "r": j, "y": s[j]} for u, s in zip(units, slots) for j in range(2)])
    expected = pingouin.intraclass_corr(long, targets="t", raters="r", ratings="y").set_index("Type").loc["ICC(1,1)", "ICC"]
    agreement = next(t for t in study_results(store, cr.name)["tables"] if t["title"] == "Agreement")
    got = next(r for r in agreement["rows"] if r[1].startswith("ICC(1,1)"))[2]
    assert got == pytest.approx(expected, abs=1e-9)
    store.close()
