"""Edit distance and HER against NLTK's reference Levenshtein implementation and worked examples."""

from __future__ import annotations

import nltk
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.editrate import edit_rate, her, levenshtein, wer


def test_worked_examples():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("abc", "") == 3
    assert levenshtein(["a", "b"], ["a", "b"]) == 0
    # WER: one substitution in a four-word reference
    assert wer("the cat sat down".split(), "the cat sat up".split()) == 0.25
    assert edit_rate([], []) == 0.0
    assert edit_rate(["a", "b"], [], "levenshtein") == 1.0
    assert edit_rate(["a", "b"], [], "wer") == 2.0
    assert edit_rate("ab", "abcd", "none") == 2.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=25), st.lists(st.integers(0, 4), max_size=25))
def test_levenshtein_matches_nltk(a, b):
    assert levenshtein(a, b) == nltk.edit_distance(a, b)


def test_her_whole_and_per_line():
    h = her("the cat sat\non the mat", "the cat sat down\non a mat")
    # whole: insert "down", substitute "the"->"a": 2 edits / 7 words of the edit
    assert h.edits == 2 and h.length == 7 and h.value == 2 / 7
    assert h.lines == (1 / 4, 1 / 3)
    # an added line costs its words; normalised Levenshtein stays in [0, 1]
    h2 = her("one line", "one line\nextra words here", normalise="levenshtein")
    assert h2.lines == (0.0, 1.0) and 0 <= h2.value <= 1
    assert her("你好世界", "你好地球", tokenizer="char").value == 0.5
