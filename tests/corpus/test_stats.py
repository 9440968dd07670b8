from __future__ import annotations

import math

import numpy as np

from creval.corpus.model import Corpus, Verse
from creval.corpus.stats import corpus_stats


def test_stats_by_hand() -> None:
    corpus = Corpus([
        Verse("A", ("the cat the dog",)),          # 4 tokens
        Verse("A", ("the cat", "sat down now")),   # 5 tokens
        Verse("B", ("one",)),
    ])
    stats = corpus_stats(corpus).set_index("artist")
    a = stats.loc["A"]
    assert a.verses == 2 and a.tokens == 9 and a.vocabulary == 6
    assert math.isclose(a.richness, 9 / 6)
    assert math.isclose(a.mean_len, 4.5) and math.isclose(a.std_len, np.std([4, 5], ddof=1)) and a.max_len == 5
    b = stats.loc["B"]
    assert b.verses == 1 and math.isnan(b.std_len)
    total = stats.loc["(all)"]
    assert total.verses == 3 and total.tokens == 10 and total.vocabulary == 7


def test_stats_on_chinese_characters(shared_data) -> None:
    from creval.corpus.io import read_corpus

    corpus = read_corpus(shared_data / "chinese-poetry" / "tang300.json")
    stats = corpus_stats(corpus, tokenizer="char")
    first = corpus.verses[0]
    expected = sum(1 for line in first.lines for ch in line if ch.isalnum())
    row = stats[stats.artist == first.artist].iloc[0]
    assert row.max_len >= expected
