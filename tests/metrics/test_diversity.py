"""Diversity across outputs for the same input (Wu et al.; DESIGN.md modes)."""

from __future__ import annotations

import math

import pytest

from creval.corpus.model import Output
from creval.metrics.base import measure_registry
from creval.metrics.diversity import diversity, line_diversity, set_distance


def test_set_distance_modes():
    a, b, c = {1, 2, 3}, {2, 3, 4}, {3, 4, 5}
    assert set_distance([a, b]) == pytest.approx(1 - 2 / 4)
    assert set_distance([a, b], "xor-chained") == pytest.approx(2 / 4)  # equal to Jaccard for M = 2
    assert set_distance([a, b, c]) == pytest.approx(1 - 1 / 5)
    assert set_distance([a, b, c], "pairwise") == pytest.approx(((1 - 2 / 4) + (1 - 1 / 5) + (1 - 2 / 4)) / 3)
    # the literal formula's flaw: three identical sets are "maximally diverse"
    assert set_distance([a, a, a], "xor-chained") == 1.0
    assert set_distance([a, a, a]) == 0.0
    assert math.isnan(set_distance([set(), set()]))


def test_worked_example():
    x = "the cat sat on the mat"
    y = "the cat sat on a hat"
    # k=3: 4 + 4 trigrams, 2 shared -> union 6: D = 1 - 2/6; k=4: 1 shared of 5 -> 1 - 1/5; k=5: 0/4; k=6: 0/2
    want = ((1 - 2 / 6) + (1 - 1 / 5) + 1 + 1) / 4
    assert line_diversity([x.split(), y.split()]) == pytest.approx(want)
    assert diversity([x, y]) == pytest.approx(want)
    assert diversity([x, x, x]) == 0.0


def test_positions_and_short_lines():
    a = "one two three four\nshort"
    b = "one two three five\nab"
    # only the first position has two lines of >= 3 tokens
    assert diversity([a, b]) == pytest.approx(((1 - 1 / 3) + 1) / 2)
    assert math.isnan(diversity(["a b", "a c"]))
    with pytest.raises(ValueError):
        diversity([a, b], mode="nope")


def test_measure_groups_by_system_and_input():
    outs = [
        Output(id="1", system="A", text="the cat sat on the mat", input_id="p1", artist="x"),
        Output(id="2", system="A", text="the cat sat on a hat", input_id="p1", artist="x"),
        Output(id="3", system="A", text="the cat sat on the mat", input_id="p2"),
        Output(id="4", system="B", text="the cat sat on the mat", input_id="p1"),
        Output(id="5", system="B", text="the cat sat on the mat", input_id="p1"),
        Output(id="6", system="B", text="hi", input_id="p3"),
        Output(id="7", system="B", text="yo", input_id="p3"),
    ]
    res = measure_registry()["diversity"]().score(outs)
    rows = {(r["system"], r["input_id"]): r for r in res.rows}
    assert set(rows) == {("A", "p1"), ("B", "p1"), ("B", "p3")}
    assert rows[("A", "p1")]["value"] > 0 and rows[("A", "p1")]["artist"] == "x"
    assert rows[("B", "p1")]["value"] == 0.0
    assert math.isnan(rows[("B", "p3")]["value"]) and any("p3" in n for n in res.notes)
    assert all(r["output_id"] is None and r["measure"] == "diversity" for r in res.rows)
    assert "mode:jaccard" in str(res.signatures["diversity"])
