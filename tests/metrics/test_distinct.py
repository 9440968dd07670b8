"""distinct-n, duplicate-line rate and duplicate n-gram character fraction against plain-Python definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.errors import InputError
from creval.metrics.distinct import distinct_n, duplicate_line_rate, duplicate_ngram_char_fraction

WORD = st.sampled_from(["a", "b", "c", "dd", "eee"])
LINE = st.lists(WORD, min_size=0, max_size=8)
TEXT = st.lists(LINE, min_size=1, max_size=4)


def _ngrams(line, n):
    return [tuple(line[i:i + n]) for i in range(len(line) - n + 1)]


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=5), n=st.integers(1, 3))
def test_distinct_n_matches_definition(texts, n):
    per, pooled = distinct_n(texts, n)
    all_grams = []
    for text, value in zip(texts, per):
        grams = [g for line in text for g in _ngrams(line, n)]  # never across a line break
        all_grams += grams
        if grams:
            assert value == pytest.approx(len(set(grams)) / len(grams))
        else:
            assert math.isnan(value)
    if all_grams:
        assert pooled == pytest.approx(len(set(all_grams)) / len(all_grams))
    else:
        assert math.isnan(pooled)


def test_distinct_worked_example():
    per, pooled = distinct_n([[["the", "cat", "the", "dog"]], [["the", "cat"]]], 1)
    assert per.tolist() == [0.75, 1.0]
    assert pooled == 3 / 6
    with pytest.raises(InputError):
        distinct_n([[["a"]]], 0)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.lists(WORD, max_size=14), min_size=1, max_size=5), n=st.integers(1, 4))
def test_duplicate_ngram_char_fraction_matches_definition(texts, n):
    got = duplicate_ngram_char_fraction(texts, n)
    for toks, value in zip(texts, got):
        if not toks:
            assert math.isnan(value)
            continue
        grams = _ngrams(toks, n)
        covered = [False] * len(toks)
        for i, g in enumerate(grams):
            if grams.count(g) >= 2:
                for j in range(i, i + n):
                    covered[j] = True
        expected = sum(len(t) for t, c in zip(toks, covered) if c) / sum(len(t) for t in toks)
        assert value == pytest.approx(expected)


def test_repetition_worked_examples():
    assert duplicate_line_rate("I walk\ni  WALK\n\nyou run") == pytest.approx(1 / 3)
    assert duplicate_line_rate("a\nb") == 0.0
    assert math.isnan(duplicate_line_rate("  \n"))
    # "the cat sat" repeated: every token covered
    assert duplicate_ngram_char_fraction([["the", "cat", "sat", "the", "cat", "sat"]], 3)[0] == 1.0
    # 100k tokens: vectorised, no quadratic blow-up
    big = [f"w{i % 1000}" for i in range(100_000)]
    assert duplicate_ngram_char_fraction([big], 5)[0] == 1.0


def test_measures_registered_with_signatures():
    from creval.api import evaluate_full
    from creval.corpus.model import Output

    outs = [Output(id="1", system="s", text="a b a\na b a"), Output(id="2", system="s", text="c d"),
            Output(id="3", system="t", text="")]
    ev = evaluate_full(None, outs, ["distinct", "repetition", "self_bleu"])
    res = ev.results
    d1 = res[(res["measure"] == "distinct_1") & res["output_id"].notna()]["value"].to_numpy()
    assert d1[0] == pytest.approx(2 / 6) and d1[1] == 1.0 and np.isnan(d1[2])
    pooled = res[(res["measure"] == "distinct_1_system") & (res["system"] == "s")]["value"].iloc[0]
    assert pooled == pytest.approx(4 / 8)
    dup = res[res["measure"] == "dup_line_rate"]["value"].to_numpy()
    assert dup[0] == 0.5 and dup[1] == 0.0 and np.isnan(dup[2])
    for name in ("distinct_1", "distinct_2_system", "dup_ngram_char_frac", "self_bleu", "self_bleu_mean"):
        assert name in ev.signatures
    sb = res[res["measure"] == "self_bleu"]["value"].to_numpy()
    assert np.isnan(sb[2])  # alone in its system: undefined
