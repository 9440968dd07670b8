"""Novelty (Wu et al., DESIGN.md) on the exact k-gram index, checked against a brute-force set of tuples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.corpus.model import Corpus, Output, Verse
from creval.metrics.base import measure_registry
from creval.metrics.novelty import KGramIndex, NoveltyIndex, novelty
from creval.text.tokenize import tokenize


def brute_novelty(text: str, corpus_lines: list[str], k_max: int = 8) -> float:
    grams: set[tuple[str, ...]] = set()
    for line in corpus_lines:
        t = tokenize(line, "auto")
        for k in range(3, k_max + 1):
            grams.update(tuple(t[i : i + k]) for i in range(len(t) - k + 1))
    vals = []
    for line in text.split("\n"):
        t = tokenize(line, "auto")
        n = min(k_max, len(t))
        if n < 3:
            continue
        v = [
            sum(tuple(t[i : i + k]) not in grams for i in range(len(t) - k + 1)) / (len(t) - k + 1)
            for k in range(3, n + 1)
        ]
        vals.append(sum(v) / (n - 2))
    return sum(vals) / len(vals) if vals else math.nan


@pytest.fixture(scope="module")
def sonnet_lines(shared_data) -> list[str]:
    text = (shared_data / "deepspeare" / "sonnet_valid.txt").read_text(encoding="utf-8")
    return [ln.strip() for row in text.split("\n") for ln in row.split("<eos>") if ln.strip()][:1500]


def test_worked_example():
    # 3-grams: 2 of 4 novel; 4-grams 2/3; 5-grams 2/2; 6-grams 1/1  -> (1/2 + 2/3 + 1 + 1) / 4
    assert novelty("the cat sat on a hat", ["the cat sat on the mat"]) == pytest.approx((0.5 + 2 / 3 + 2) / 4)
    assert novelty("The cat, sat on the mat!", ["the cat sat on the mat"]) == 0.0


def test_matches_brute_force_on_real_lines(sonnet_lines):
    train, test = sonnet_lines[:1200], sonnet_lines[1200:]
    # recombined lines: halves of two real lines, so that novelty is strictly between 0 and 1
    queries = ["\n".join(test[i : i + 3]) for i in range(0, 240, 3)]
    queries += [train[i].split(" ", 3)[-1] + " " + train[i + 1] for i in range(0, 60, 2)]
    idx = NoveltyIndex().fit(train)
    got = idx.score(queries)
    want = np.array([brute_novelty(q, train) for q in queries])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert 0 < np.nanmean(got) < 1


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 4), max_size=12), min_size=1, max_size=6),
    st.lists(st.lists(st.integers(0, 4), max_size=12), min_size=1, max_size=4),
)
def test_random_small_alphabet(corpus_ids, query_ids):
    corpus = [" ".join(f"w{i}" for i in line) for line in corpus_ids]
    query = "\n".join(" ".join(f"w{i}" for i in line) for line in query_ids)
    got = NoveltyIndex().fit(corpus).score([query])[0]
    want = brute_novelty(query, corpus)
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_kgrams_do_not_cross_lines():
    idx = KGramIndex(k_max=3).fit([["a", "b"], ["c", "d"]])
    levels, _ = idx.lookup([["b", "c", "d"], ["a", "b"]])
    assert levels[2].tolist() == [-1, levels[2][1], -1, levels[2][3], -1]
    assert levels[2][1] >= 0 and levels[2][3] >= 0
    assert (levels[3] < 0).all()


def test_undefined_and_unknown():
    idx = NoveltyIndex().fit(["one two three four"])
    vals = idx.score(["", "?!", "one two", "zzz yyy xxx", "床前明月光"])
    assert math.isnan(vals[0]) and math.isnan(vals[1]) and math.isnan(vals[2])
    assert vals[3] == 1.0
    assert vals[4] == 1.0  # five CJK characters are five tokens under "auto", all novel


def test_char_tokenizer_for_chinese():
    idx = NoveltyIndex(tokenizer="char").fit(["床前明月光", "疑是地上霜"])
    assert idx.score(["床前明月光"])[0] == 0.0
    assert 0 < idx.score(["床前明月霜"])[0] < 1


def test_measure(sonnet_lines):
    cls = measure_registry()["novelty"]
    m = cls().fit(Corpus([Verse("a", tuple(sonnet_lines[:100]))]))
    outs = [Output(id="1", system="s", text=sonnet_lines[0]), Output(id="2", system="s", text="hi")]
    res = m.score(outs)
    assert res.values["novelty"][0] == 0.0
    assert math.isnan(res.values["novelty"][1])
    assert any("'2'" in n for n in res.notes)
    assert "k:3-8" in str(res.signatures["novelty"])
