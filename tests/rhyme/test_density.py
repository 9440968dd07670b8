"""Rhyme density (Hirjee & Brown 2010) and entropy weighting (Potash et al. 2016)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.corpus.io import read_chicago_raw
from creval.rhyme.density import entropy_weight, rhyme_density, rhyme_density_batch, token_entropy


def test_worked_single_rhyme():
    r = rhyme_density("the cat\nthe hat")
    # syllables: the, cat, the, hat; cat/hat rhyme (stressed, same vowel and coda); the/the unstressed only
    assert r.n_syllables == 4 and r.n_rhymed == 2
    assert r.rhyme_density == pytest.approx(0.5)
    assert r.end_rhymes_per_line == pytest.approx(0.5)  # line 2 rhymes with line 1; line 1 has no line before
    assert r.multisyllable_share == 0.0


def test_worked_multisyllable_rhyme():
    r = rhyme_density("money\nhoney")
    assert r.rhyme_density == 1.0
    assert r.n_rhymes == 1 and r.run_lengths.tolist() == [2]
    assert r.multisyllable_share == 1.0


def test_no_rhyme_and_window():
    assert (
        rhyme_density("the cat\nbig tree\nthe hat").n_rhymed == 0
    )  # cat/hat two lines apart: outside window
    assert rhyme_density("a dog barked").rhyme_density == 0.0


def test_internal_rhyme_within_line():
    r = rhyme_density("the master was faster")
    assert r.n_rhymed == 4 and r.multisyllable_share == 1.0


def test_unstressed_matches_alone_are_not_rhymes():
    assert rhyme_density("the a").n_rhymed == 0


def test_entropy_weighting_penalises_repetition():
    line = "I keep it moving never losing what I got"
    rep = rhyme_density("\n".join([line] * 4))
    assert rep.rhyme_density > 0.8  # every syllable matches its copy in the line before
    assert rep.rhyme_density_weighted < 0.2 * rep.rhyme_density
    norm = rhyme_density("\n".join([line] * 4), weighting="normalised")
    h, n = token_entropy(("\n".join([line] * 4)).split())
    assert norm.rhyme_density_weighted == pytest.approx(norm.rhyme_density * h / math.log2(n))
    assert rep.rhyme_density_weighted == pytest.approx(rep.rhyme_density * h / n)


def test_entropy_definitions():
    h, n = token_entropy(["a", "b", "a", "b"])
    assert (h, n) == (1.0, 4)
    assert entropy_weight(1.0, 4) == 0.25
    assert entropy_weight(1.0, 4, "normalised") == 0.5
    with pytest.raises(ValueError):
        entropy_weight(1.0, 4, "other")


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "no words"), ("   \n\n", "no words"), ("!!! ??? ...", "no words"), ("😀 🎤 🔥", "no words"),
     ("你好 世界\n再见", "no pronounceable")],
)  # fmt: skip
def test_bad_input_gives_nan_with_reason(text, reason):
    r = rhyme_density(text)
    assert math.isnan(r.rhyme_density) and math.isnan(r.rhyme_density_weighted)
    assert reason in r.reason


def test_huge_verse_is_defined():
    words = ["money", "honey", "street", "beat", "never", "forever", "a", "the"]
    text = " ".join(words[i % len(words)] for i in range(50_000))
    r = rhyme_density(text)
    assert 0 <= r.rhyme_density <= 1 and r.n_tokens == 50_000


VOCAB = ["dog", "fog", "money", "honey", "street", "beat", "I", "the", "a", "forever", "never", "holla",
         "skrrt", "21", "rhymin'", "time", "mind", "😀", "!", "night", "light", "tree", "love", "above"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(VOCAB), max_size=12), max_size=8))
def test_density_in_unit_interval(lines):
    r = rhyme_density([" ".join(ws) for ws in lines])
    for name, value in r.values().items():
        assert math.isnan(value) or 0.0 <= value <= 1.0, name
    if not r.reason:
        assert r.n_rhymed <= r.n_syllables


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_safe(text):
    r = rhyme_density(text)
    assert math.isnan(r.rhyme_density) == bool(r.reason)


def test_end_rhymes_follow_chicago_gold(shared_data):
    """Real data: per stanza, end rhymes per line should track the gold share of lines that rhyme with the
    line before (from the RHYME annotation). Measured r = 0.86 (Coleridge), 0.89 (Crosland)."""
    for poet in ("coleridge", "crosland"):
        corpus = read_chicago_raw(shared_data / "chicago-rhyme" / "english_raw" / f"{poet}.txt")
        gold, ours = [], []
        for verse in list(corpus)[:150]:
            s = verse.scheme
            if not s or len(verse.lines) < 2:
                continue
            r = rhyme_density(list(verse.lines))
            gold.append(sum(s[i] == s[i - 1] for i in range(1, len(s))) / len(s))
            ours.append(r.end_rhymes_per_line)
        assert len(gold) > 50
        assert np.corrcoef(gold, ours)[0, 1] > 0.75, poet


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.lists(st.sampled_from(VOCAB), max_size=9), max_size=5), min_size=1, max_size=12),
    st.sampled_from(["paper", "normalised"]),
    st.integers(5, 400),
)
def test_batch_equals_one_by_one(verses, weighting, chunk):
    texts = ["\n".join(" ".join(ws) for ws in lines) for lines in verses]
    values, reasons = rhyme_density_batch(texts, weighting=weighting, chunk_syllables=chunk)
    for i, text in enumerate(texts):
        one = rhyme_density(text, weighting=weighting)
        assert reasons[i] == one.reason
        for name, value in one.values().items():
            assert values[name][i] == pytest.approx(value, nan_ok=True), (name, text)
