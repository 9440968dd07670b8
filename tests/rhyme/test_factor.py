"""Rhyme factor (Malmi et al. 2016) on worked examples and against a direct loop over the definition."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.rhyme.factor import factor_from_vowels, rhyme_factor


def test_worked_examples():
    # money / honey: vowels AH IY | AH IY -> the two-vowel run matches
    assert rhyme_factor("money honey").rhyme_factor == 2.0
    # cat / hat: one matching vowel is not a rhyme (length 1 counts 0)
    assert rhyme_factor("cat hat").rhyme_factor == 0.0
    # money in the honey: AH IY | IH | AH | AH IY; honey matches money with length 2, the others 0 -> 2/3
    r = rhyme_factor("money in the honey")
    assert r.rhyme_factor == pytest.approx(2 / 3)
    assert r.lengths.tolist() == [0, 0, 2] and r.partner.tolist() == [-1, -1, 0]
    # with a look-back of one word honey only sees "the"
    assert rhyme_factor("money in the honey", lookback=1).rhyme_factor == 0.0
    # identical words count 0
    assert rhyme_factor("money money").rhyme_factor == 0.0


def test_repeated_phrase_is_not_a_long_rhyme():
    # AY AA AH IY | AY AA AH IY: honey/money match back 4 vowels, but "got"/"got" and "I"/"I" are the same
    # words, so the rhyme stops after 2; the repeated words themselves score 0 -> (0 + 0 + 0 + 0 + 2) / 5
    r = rhyme_factor("I got money\nI got honey")
    assert r.lengths.tolist() == [0, 0, 0, 0, 2]
    assert r.rhyme_factor == pytest.approx(0.4)


def test_rhyme_across_word_boundary():
    # "fly guy" / "sky high": the run goes back across words (AY AY against AY AY)
    assert rhyme_factor("fly guy sky high").lengths.tolist()[-1] >= 2


def _loop_definition(words, vowels, lookback):
    stream = [v for vs in vowels for v in vs]
    owner = [w for w, vs in enumerate(vowels) for _ in vs]
    ends = []
    total = 0
    for vs in vowels:
        total += len(vs)
        ends.append(total - 1)
    scores = []
    for i in range(1, len(words)):
        best = 0
        for m in range(max(0, i - lookback), i):
            if words[m] == words[i]:
                continue
            p1, p2 = ends[m], ends[i]
            length = 0
            while length <= p1 and length < p2 - p1 and stream[p1 - length] == stream[p2 - length]:
                a, b = owner[p1 - length], owner[p2 - length]
                if a < m and b < i and words[a] == words[b]:
                    break  # both sides reached identical earlier words
                length += 1
            best = max(best, 0 if length == 1 else length)
        scores.append(best)
    return sum(scores) / len(scores)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcd"), st.lists(st.sampled_from("xyz"), min_size=1, max_size=3)),
             min_size=2, max_size=30),
    st.integers(1, 16),
)  # fmt: skip
def test_vectorised_equals_definition(items, lookback):
    words = [w for w, _ in items]
    vowels = [v for _, v in items]
    got = factor_from_vowels(words, vowels, lookback=lookback).rhyme_factor
    assert got == pytest.approx(_loop_definition(words, vowels, lookback))


@pytest.mark.parametrize("text", ["", "!!!", "你好", "dog"])
def test_undefined(text):
    r = rhyme_factor(text)
    assert math.isnan(r.rhyme_factor) and r.reason


def test_espeak_compat_mode():
    r = rhyme_factor("my money keeps coming like honey\nmy money keeps coming like honey", mode="espeak")
    plain = rhyme_factor("my money keeps coming like honey", mode="espeak")
    assert r.rhyme_factor == plain.rhyme_factor  # the original tool drops repeated lines
    assert r.words[0] == "maI"  # espeak ASCII phonemes, cut after the last vowel
    assert rhyme_factor("money honey", mode="espeak").rhyme_factor >= 2
    with pytest.raises(ValueError):
        rhyme_factor("x y", mode="ipa")


def test_espeak_vowel_extraction_worked_example():
    from creval.rhyme.factor import _espeak_stream

    kept, vowels, _full = _espeak_stream(["faster dog", "my eye boat", "faster dog"])
    # espeak -x: f'aast3 d'0g maI; 'aI b'oUt -> the repeated line is dropped, "aa" counts once, 0 -> o,
    # I -> i, diphthongs give two vowels, words are cut after their last vowel
    assert kept == ["faast3", "d0", "maI", "aI", "boU"]
    assert vowels == [["a", "3"], ["o"], ["a", "i"], ["a", "i"], ["o", "U"]]
