"""Arbitrary text (any Unicode, mixed scripts, punctuation only, empty) through novelty, copying, uniqueness,
lexical diversity and grammar: every value is in its range or NaN, never an exception."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creval.metrics import lexical as L
from creval.metrics.copying import CopyIndex
from creval.metrics.grammar import grammar_error_rate
from creval.metrics.novelty import NoveltyIndex
from creval.metrics.similarity import UniquenessIndex

CORPUS = [
    "the moon is bright tonight",
    "床前明月光 疑是地上霜",
    "la la la la la la la la la",
    "O wild West Wind!",
]
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80) | st.sampled_from(
    ["", "   ", "?!.,;", "the moon 明月 is bright", "la la la la la la la la la la", "ʻŌlelo Hawaiʻi"]
)


@pytest.fixture(scope="module")
def indexes():
    return NoveltyIndex().fit(CORPUS), CopyIndex().fit(CORPUS), UniquenessIndex().fit(CORPUS)


def in_range(v: float, lo: float, hi: float) -> bool:
    return math.isnan(v) or lo - 1e-12 <= v <= hi + 1e-12


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(texts, min_size=1, max_size=4))
def test_any_text(indexes, batch):
    nov, cop, uni = indexes
    for v in nov.score(batch):
        assert in_range(v, 0, 1)
    res = cop.score(batch)
    for name in ("exact_copy", "copied_lines", "ngram8_coverage"):
        assert all(in_range(v, 0, 1) for v in res[name])
    assert all(math.isnan(v) or v >= 0 for v in res["longest_common_run"])
    sims, best = uni.score(batch)
    assert all(in_range(v, 0, 1) for v in sims)
    for text in batch:
        toks = text.split()
        vals = L.lexical_diversity(toks)
        assert all(math.isnan(v) or v >= 0 for v in vals.values())
        if not toks:
            assert all(math.isnan(v) for v in vals.values())


@settings(max_examples=40, deadline=None)
@given(texts)
def test_grammar_any_text(text):
    v = grammar_error_rate(text)
    assert math.isnan(v) or v >= 0
    if not text.strip():
        assert math.isnan(v)
