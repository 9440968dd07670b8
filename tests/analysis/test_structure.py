"""Verse structure: lengths of outputs vs the artist's corpus, where the longest verse appears, correlation."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from creval.analysis.structure import (
    length_correlation,
    lengths_from_results,
    output_lengths,
    verse_structure,
)
from creval.corpus.model import Corpus, Output, Verse
from creval.corpus.stats import corpus_stats
from creval.metrics.base import results_frame


def _lengths(rows):
    return pd.DataFrame(rows, columns=["system", "output_id", "artist", "checkpoint", "length"])


STATS = pd.DataFrame({"artist": ["A", "B", "C", "(all)"], "mean_len": [10.0, 20.0, 30.0, 20.0],
                      "max_len": [15, 40, 50, 50]})


def test_structure_table_known_values():
    lengths = _lengths([
        ("s", "o1", "A", 1, 4.0), ("s", "o2", "A", 2, 12.0), ("s", "o3", "A", 3, 12.0), ("s", "o4", "A", 4, 8.0),
        ("s", "o5", "B", 1, 10.0), ("s", "o6", "B", 2, 30.0),
    ])
    table = verse_structure(lengths, STATS)
    a = table[table["artist"] == "A"].iloc[0]
    assert a["outputs"] == 4
    assert a["gen_mean_len"] == pytest.approx(9.0) and a["gen_max_len"] == 12
    assert a["artist_mean_len"] == 10 and a["artist_max_len"] == 15
    assert a["mean_ratio"] == pytest.approx(0.9)
    assert a["longest_checkpoint"] == 2  # the earliest of the tied longest verses
    assert a["longest_share"] == pytest.approx(0.5)  # 2 / last checkpoint 4
    b = table[table["artist"] == "B"].iloc[0]
    assert b["longest_share"] == pytest.approx(1.0)
    c = table[table["artist"] == "C"].iloc[0]
    assert c["outputs"] == 0 and c["note"] == "no outputs" and math.isnan(c["gen_mean_len"])
    assert "(all)" not in set(table["artist"])


def test_length_correlation_across_artists():
    lengths = _lengths([("s", f"o{i}", a, 1, v) for i, (a, v) in enumerate([("A", 5), ("B", 9), ("C", 20)])]
                       + [("t", f"p{i}", a, None, v) for i, (a, v) in enumerate([("A", 9), ("B", 7), ("C", 5)])])
    table = verse_structure(lengths, STATS)
    t = table[table["system"] == "t"].iloc[0]
    assert "no checkpoint" in t["note"] and math.isnan(t["longest_share"])
    corr = length_correlation(table).set_index("system")
    assert corr.loc["s", "n"] == 3 and corr.loc["s", "spearman_rho"] == pytest.approx(1.0)
    assert corr.loc["t", "spearman_rho"] == pytest.approx(-1.0)
    # Pearson by hand for s: x = 10,20,30; y = 5,9,20 (mean 34/3) → Sxy = 150, Sxx = 200, Syy = 362/3
    assert corr.loc["s", "pearson_r"] == pytest.approx(150 / math.sqrt(200 * 362 / 3))


def test_lengths_from_outputs_and_results_agree():
    outs = [Output("a", "s", "one two three\nfour", artist="A", checkpoint=1.0),
            Output("b", "s", "Don't stop, now!", artist="A", checkpoint=2.0)]
    direct = output_lengths(outs)
    assert direct["length"].tolist() == [4.0, 3.0]
    res = results_frame([{"system": "s", "output_id": o, "input_id": None, "sample": None, "checkpoint": c,
                          "artist": "A", "measure": "length_tokens", "value": v}
                         for o, c, v in (("a", 1.0, 4.0), ("b", 2.0, 3.0))])
    from_res = lengths_from_results(res)
    assert from_res["length"].tolist() == [4.0, 3.0]
    corpus = Corpus([Verse("A", ("x y", "z")), Verse("A", ("x y z w v",))])
    table = verse_structure(direct, corpus_stats(corpus))
    assert table.iloc[0]["artist_mean_len"] == pytest.approx(4.0) and table.iloc[0]["artist_max_len"] == 5


def test_artist_only_in_outputs_is_noted():
    lengths = _lengths([("s", "o1", "Z", 1, 3.0)])
    table = verse_structure(lengths, STATS)
    z = table[table["artist"] == "Z"].iloc[0]
    assert "not in the corpus" in z["note"] and z["gen_mean_len"] == 3
