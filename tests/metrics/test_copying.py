"""Copying: exact copies, longest common token run and n-gram coverage, against brute force."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from creval.corpus.model import Corpus, Output, Verse
from creval.metrics.base import measure_registry
from creval.metrics.copying import CopyIndex, is_copy, longest_common_run
from creval.text.tokenize import tokenize


def brute(texts, corpus, n, unit):
    segs = (
        [tokenize(c, "auto") for c in corpus]
        if unit == "verse"
        else [tokenize(ln, "auto") for c in corpus for ln in c.split("\n") if ln.strip()]
    )
    grams = {tuple(s[i:j]) for s in segs for i in range(len(s)) for j in range(i + 1, len(s) + 1)}
    runs, covs = [], []
    for t in texts:
        q = (
            [tokenize(t, "auto")]
            if unit == "verse"
            else [tokenize(ln, "auto") for ln in t.split("\n") if ln.strip()]
        )
        total = sum(len(s) for s in q)
        best, covered, has = 0, 0, False
        for s in q:
            for i in range(len(s)):
                for j in range(i + 1, len(s) + 1):
                    if tuple(s[i:j]) in grams:
                        best = max(best, j - i)
            mark = [False] * len(s)
            for i in range(len(s) - n + 1):
                has = True
                if tuple(s[i : i + n]) in grams:
                    mark[i : i + n] = [True] * n
            covered += sum(mark)
        runs.append(best if total else math.nan)
        covs.append(covered / total if has else math.nan)
    return np.array(runs), np.array(covs)


@pytest.mark.parametrize("unit", ["verse", "line"])
@pytest.mark.parametrize("seed", range(6))
def test_random_against_brute_force(unit, seed):
    rng = random.Random(seed)
    corpus = [
        "\n".join(
            " ".join(str(rng.randint(0, 4)) for _ in range(rng.randint(0, 12)))
            for _ in range(rng.randint(1, 3))
        )
        for _ in range(rng.randint(1, 6))
    ]
    texts = [
        "\n".join(" ".join(str(rng.randint(0, 4)) for _ in range(rng.randint(0, 14))) for _ in range(2))
        for _ in range(8)
    ]
    texts.append(corpus[0])
    n = rng.randint(2, 6)
    res = CopyIndex(n=n, unit=unit).fit(corpus).score(texts)
    runs, covs = brute(texts, corpus, n, unit)
    np.testing.assert_array_equal(res["longest_common_run"], runs)
    np.testing.assert_allclose(res[f"ngram{n}_coverage"], covs, atol=1e-12)


def test_real_sonnets(shared_data):
    text = (shared_data / "deepspeare" / "sonnet_valid.txt").read_text(encoding="utf-8")
    verses = [
        "\n".join(ln.strip() for ln in row.split("<eos>") if ln.strip())
        for row in text.split("\n")
        if row.strip()
    ]
    train = verses[:60]
    lines = train[3].split("\n")
    copied_three = "\n".join(lines[2:5])
    mixed = lines[0] + "\nand then the moon fell softly into my old green boots"
    idx = CopyIndex().fit(train)
    res = idx.score([copied_three, mixed, train[5], verses[100]])
    runs, covs = brute([copied_three, mixed, train[5], verses[100]], train, 8, "verse")
    np.testing.assert_array_equal(res["longest_common_run"], runs)
    np.testing.assert_allclose(res["ngram8_coverage"], covs, atol=1e-12)
    assert res["longest_common_run"][0] == len(
        tokenize(copied_three, "auto")
    )  # runs cross the output's lines
    assert res["exact_copy"].tolist()[:3] == [0.0, 0.0, 1.0]
    assert res["copied_lines"][0] == 1.0 and res["copied_lines"][1] == 0.5
    assert res["ngram8_coverage"][2] == 1.0


def test_exact_copy_normalisation_and_references():
    idx = CopyIndex().fit(Corpus([Verse("a", ("Shall I compare thee", "to a summer's day?"))]))
    assert is_copy("shall i COMPARE thee!", idx)
    assert is_copy("Shall I compare thee\nto a summer's day", idx)
    assert not is_copy("shall i compare", idx)
    assert is_copy("He is not that fat.", ["he is not that fat"])
    res = idx.score(["my own words here", "my own words here"], references=[None, ["My own words, here."]])
    assert res["exact_copy"].tolist() == [0.0, 1.0]


def test_bad_input_is_nan_with_note():
    m = measure_registry()["copying"]().fit(
        Corpus([Verse("a", ("one two three four five six seven eight nine",))])
    )
    outs = [
        Output(id="e", system="s", text=""),
        Output(id="p", system="s", text="!!! ..."),
        Output(id="s", system="s", text="one two"),
    ]
    res = m.score(outs)
    assert np.isnan(res.values["exact_copy"][:2]).all()
    assert np.isnan(res.values["longest_common_run"][:2]).all()
    assert res.values["longest_common_run"][2] == 2.0
    assert math.isnan(res.values["ngram8_coverage"][2])
    assert len(res.notes) == 3
    assert set(res.signatures) == set(res.values)
    assert longest_common_run("x one two three", ["one two three four"]) == 3.0
