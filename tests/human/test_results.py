"""Study scores of creval.human.results, computed by hand on small tables laid out like the web app's export."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from creval.errors import InputError
from creval.human.results import (
    acceptable_share,
    agreement_vs_length,
    artist_confusion,
    fluency_coherence_scores,
    fluency_coherence_summary,
    her_normalised,
    her_per_line,
    her_summary,
    item_agreement,
    raw_agreement,
    style_matching,
)


def _fc_rows():
    rows = []
    # verse v1 (system A, 3 lines), two annotators; coherence is judged from line 2 on
    flu = {"x": [2, 1, 0], "y": [2, 2, 1]}
    coh = {"x": [None, 2, 2], "y": [None, 1, 2]}
    for ann in ("x", "y"):
        for i in range(3):
            rows.append({"item": "v1", "system": "A", "annotator": ann, "criterion": "fluency", "line": i + 1,
                         "value": flu[ann][i]})  # fmt: skip
            rows.append({"item": "v1", "system": "A", "annotator": ann, "criterion": "coherence", "line": i + 1,
                         "value": coh[ann][i]})  # fmt: skip
    # verse v2 (system B, 2 lines), one annotator, string labels
    rows += [
        {"item": "v2", "system": "B", "annotator": "x", "criterion": "fluency", "line": 1, "value": "strong"},
        {"item": "v2", "system": "B", "annotator": "x", "criterion": "fluency", "line": 2, "value": "weak"},
        {"item": "v2", "system": "B", "annotator": "x", "criterion": "coherence", "line": 2,
         "value": "strongly coherent"},
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_potash_eq1_scores_by_hand():
    out = fluency_coherence_scores(_fc_rows()).set_index(["item", "criterion"])
    # v1 fluency: strong 3 (2,2,2), weak 2, not 1 -> (3 + 0.5*2) / 6
    assert out.loc[("v1", "fluency"), "score"] == pytest.approx(4 / 6)
    assert out.loc[("v1", "fluency"), "n_annotations"] == 6
    assert out.loc[("v1", "fluency"), ["n_strong", "n_weak", "n_not"]].tolist() == [3, 2, 1]
    # v1 coherence: missing first-line values ignored; 2,2,1,2 -> (3 + 0.5) / 4
    assert out.loc[("v1", "coherence"), "score"] == pytest.approx(3.5 / 4)
    assert out.loc[("v2", "fluency"), "score"] == pytest.approx(0.75)
    assert out.loc[("v2", "coherence"), "score"] == 1.0
    summary = fluency_coherence_summary(out.reset_index()).set_index(["system", "criterion"])
    assert summary.loc[("A", "fluency"), "mean"] == pytest.approx(4 / 6)
    assert summary.loc[("A", "fluency"), "n_items"] == 1


def test_consecutive_repeated_lines_forced_not_coherent():
    texts = {"v1": "I spit fire\ni spit  FIRE\nthen I leave", "v2": ["a b", "c d"]}
    out = fluency_coherence_scores(_fc_rows(), texts=texts).set_index(["item", "criterion"])
    # line 2 of v1 repeats line 1: both annotators' coherence of line 2 (2 and 1) become "not"
    assert out.loc[("v1", "coherence"), "n_forced"] == 2
    assert out.loc[("v1", "coherence"), "score"] == pytest.approx((1 + 1) / 4)
    # fluency is untouched
    assert out.loc[("v1", "fluency"), "score"] == pytest.approx(4 / 6)
    assert out.loc[("v2", "coherence"), "n_forced"] == 0


def test_verse_level_coherence_forced_without_line_column():
    rows = pd.DataFrame(
        {"item": ["v", "v"], "system": ["S", "S"], "annotator": ["x", "y"], "criterion": ["coherence"] * 2,
         "value": [2, 1]}
    )  # fmt: skip
    out = fluency_coherence_scores(rows, texts={"v": "same line\nsame line\nother"})
    assert out.score.iloc[0] == 0.0 and out.n_forced.iloc[0] == 2


def test_fluency_bad_label_names_the_row():
    rows = _fc_rows()
    rows.loc[3, "value"] = "excellent"
    with pytest.raises(InputError, match="row 4: value 'excellent' is not on the scale"):
        fluency_coherence_scores(rows)


def _style_rows():
    # (item, annotator, target artist, pick)
    data = [
        ("s1", "x", "Eminem", "Eminem"), ("s1", "y", "Eminem", "Eminem"),    # agreed, correct
        ("s2", "x", "Eminem", "Nas"), ("s2", "y", "Eminem", "Nas"),          # agreed, wrong
        ("s3", "x", "Nas", "Nas"), ("s3", "y", "Nas", "Jay-Z"),              # disagree
        ("s4", "x", "Jay-Z", "Jay-Z"),                                       # single response
    ]  # fmt: skip
    rows = []
    for item, ann, target, pick in data:
        rows.append({"item": item, "annotator": ann, "artist": target, "criterion": "choice", "value": pick,
                     "system": "A" if item in ("s1", "s2") else "B"})  # fmt: skip
        rows.append({"item": item, "annotator": ann, "artist": target, "criterion": "correct",
                     "value": int(target == pick), "system": "A" if item in ("s1", "s2") else "B"})  # fmt: skip
    return pd.DataFrame(rows)


def test_style_matching_scores():
    res = style_matching(_style_rows()).iloc[0]
    assert res.match == pytest.approx(4 / 7)  # correct picks / responses
    assert res.raw_agreement == pytest.approx(2 / 3)  # s1, s2 agreed among s1..s3
    assert res.match_agreed == pytest.approx(1 / 2)  # s1 of the agreed s1, s2
    assert (res.n_responses, res.n_items, res.n_multi, res.n_agreed) == (7, 4, 3, 2)
    per = style_matching(_style_rows(), by="system").set_index("system")
    assert per.loc["A", "match"] == pytest.approx(0.5) and per.loc["B", "match"] == pytest.approx(2 / 3)
    assert math.isnan(per.loc["B", "match_agreed"])


def test_artist_confusion_formula():
    conf = artist_confusion(_style_rows())
    # every artist offered each time: p(E, N) = 4 (Eminem targets), p(N, E) = 2 (Nas targets)
    # c(E, N) = 2, c(N, E) = 0 -> 2 / 6
    assert conf.loc["Eminem", "Nas"] == pytest.approx(2 / 6)
    assert conf.loc["Nas", "Eminem"] == conf.loc["Eminem", "Nas"]
    # c(N, J) = 1, c(J, N) = 0; p(N, J) = 2, p(J, N) = 1 -> 1 / 3
    assert conf.loc["Nas", "Jay-Z"] == pytest.approx(1 / 3)
    assert np.isnan(np.diag(conf.to_numpy())).all()


def test_artist_confusion_with_candidate_lists():
    rows = pd.DataFrame(
        {"artist": ["A", "A", "B"], "value": ["B", "A", "A"], "options": [["A", "B"], ["A", "C"], ["B", "A"]]}
    )
    conf = artist_confusion(rows, options="options")
    assert conf.loc["A", "B"] == pytest.approx((1 + 1) / (1 + 1))
    assert conf.loc["A", "C"] == 0.0  # offered once, never confused
    assert np.isnan(conf.loc["B", "C"])  # never offered together
    as_json = rows.assign(options=['["A", "B"]', '["A", "C"]', None])
    conf2 = artist_confusion(as_json, options="options")
    assert conf2.loc["A", "C"] == 0.0 and conf2.loc["A", "B"] == pytest.approx(1.0)
    with pytest.raises(InputError, match="not a JSON list"):
        artist_confusion(rows.assign(options=["A|B", "A", "B"]), options="options")


def test_raw_agreement_and_item_agreement():
    rows = pd.DataFrame(
        {"item": [1, 1, 1, 2, 2, 2, 3], "annotator": list("xyzxyzx"), "value": [2, 2, 2, 2, 1, 1, 0]}
    )
    per = item_agreement(rows).set_index("item")
    assert per.loc[1, "agreement"] == 1.0 and per.loc[2, "agreement"] == pytest.approx(1 / 3)
    assert 3 not in per.index
    assert raw_agreement(rows).value == 0.5
    assert raw_agreement(rows, kind="pairwise").value == pytest.approx((1 + 1 / 3) / 2)
    assert not raw_agreement(rows[rows.item == 3]).defined


def test_acceptable_share():
    rows = pd.DataFrame(
        {"system": ["A", "A", "A", "B", "B"], "criterion": ["fluency"] * 5, "value": [2, 1, 0, "bad", "good"]}
    )
    out = acceptable_share(rows).set_index("system")
    assert out.loc["A", "share"] == pytest.approx(2 / 3) and out.loc["B", "share"] == 0.5
    assert acceptable_share(rows, by=None).share.iloc[0] == pytest.approx(3 / 5)


def test_agreement_vs_challenge_length():
    rows, lengths = [], {}
    rng = np.random.default_rng(0)
    for item in range(12):
        lengths[item] = " ".join(["word"] * (item + 3))
        for ann in "xyz":
            rows.append({"item": item, "annotator": ann, "value": int(rng.integers(0, 3))})
    frame = pd.DataFrame(rows)
    res = agreement_vs_length(frame, lengths)
    per = item_agreement(frame)
    ref = stats.spearmanr([i + 3 for i in per["item"]], per["agreement"])
    assert res.value == pytest.approx(ref.statistic)
    assert res.n == 12 and res.detail["per_item"][0]["length"] == 3
    numeric = agreement_vs_length(frame, {i: i + 3 for i in range(12)}, method="pearson")
    assert numeric.value == pytest.approx(stats.pearsonr(per["item"] + 3, per["agreement"]).statistic)


def _her_rows():
    return pd.DataFrame(
        {
            "system": ["A", "A", "B", "B", "A", "B"],
            "annotator": ["x", "x", "x", "x", "y", "y"],
            "criterion": ["her"] * 6,
            "value": [0.1, 0.3, 0.5, 0.7, 0.2, 0.6],
            "line_her": [[0.0, 0.2], [0.3, 0.3], [0.5], [0.6, 0.8], [0.2, 0.2], [0.6, 0.6]],
        }
    )


def test_her_summary_and_normalised():
    rows = _her_rows()
    s = her_summary(rows).set_index("system")
    assert s.loc["A", "mean"] == pytest.approx(0.2) and s.loc["A", "std"] == pytest.approx(0.1)
    assert s.loc["B", "n"] == 3
    z = her_normalised(rows).set_index("system")
    x = np.array([0.1, 0.3, 0.5, 0.7])
    zx = (x - x.mean()) / x.std(ddof=1)
    zy = np.array([-1, 1]) * (0.2 / np.std([0.2, 0.6], ddof=1))
    assert z.loc["A", "mean"] == pytest.approx(np.mean([zx[0], zx[1], zy[0]]))
    r = her_normalised(rows, method="ratio").set_index("system")
    assert r.loc["B", "mean"] == pytest.approx(np.mean([0.5 / 0.4, 0.7 / 0.4, 0.6 / 0.4]))
    with pytest.raises(InputError, match="not a number"):
        her_summary(rows.assign(value=["a"] * 6))


def test_her_per_line():
    out = her_per_line(_her_rows())
    a = out[out.system == "A"].set_index("line")
    assert a.loc[1, "mean"] == pytest.approx(np.mean([0.0, 0.3, 0.2]))
    assert a.loc["all", "n"] == 6
    b = out[out.system == "B"].set_index("line")
    assert b.loc[2, "n"] == 2


_cell = st.one_of(st.none(), st.integers(-1, 3), st.sampled_from(["strong", "weak", "not", "good", "x", ""]),
                  st.floats(allow_nan=True, allow_infinity=False))  # fmt: skip
_rows = st.lists(
    st.fixed_dictionaries(
        {
            "item": st.sampled_from(["v1", "v2", "v3"]),
            "annotator": st.sampled_from(["x", "y", "z"]),
            "system": st.sampled_from(["A", "B"]),
            "criterion": st.sampled_from(["fluency", "coherence", "choice", "her"]),
            "line": st.one_of(st.none(), st.integers(1, 4)),
            "artist": st.sampled_from(["P", "Q"]),
            "value": _cell,
        }
    ),
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(_rows)
def test_study_scores_never_crash_on_odd_tables(rows):
    texts = {"v1": "a\na\nb", "v2": ["c", "d"]}
    calls = (
        lambda: fluency_coherence_scores(rows, texts=texts),
        lambda: style_matching(rows),
        lambda: artist_confusion(rows),
        lambda: acceptable_share(rows),
        lambda: raw_agreement(rows),
        lambda: her_summary(rows),
        lambda: her_normalised(rows),
        lambda: agreement_vs_length(rows, {"v1": 3, "v2": 5, "v3": 4}),
    )
    for call in calls:
        try:
            call()
        except InputError:
            pass


def test_bootstrap_ci_of_a_study_score_resamples_whole_verses():
    from creval.agreement import bootstrap_ci

    rows = pd.concat(
        [_fc_rows().assign(item=f"v{i}-" + _fc_rows()["item"]) for i in range(6)], ignore_index=True
    )
    rng = np.random.default_rng(0)
    rows["value"] = [rng.integers(0, 3) if v is not None and v == v else v for v in rows["value"]]
    rows.loc[rows["value"].isin(["strong", "weak", "strongly coherent"]), "value"] = 2

    def fluency(frame):
        scores = fluency_coherence_scores(frame)
        return scores[scores.criterion == "fluency"].score.mean()

    res = bootstrap_ci(rows, fluency, n_resamples=30, cluster="item", seed=1)
    assert res.n == rows["item"].nunique() == 12
    assert res.value == pytest.approx(fluency(rows))
    assert res.ci[0] <= res.value <= res.ci[1]
