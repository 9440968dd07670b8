from __future__ import annotations

import pytest

from creval.text.tokenize import has_unspaced_script, tokenize


def test_word_tokens_keep_apostrophes() -> None:
    assert tokenize("Don't stop, runnin' — y'all!") == ["don't", "stop", "runnin'", "y'all"]
    assert tokenize("Où est la fête?") == ["où", "est", "la", "fête"]


def test_char_and_auto_tokens() -> None:
    assert tokenize("西陸蟬聲唱，南冠", "char") == list("西陸蟬聲唱南冠")
    assert tokenize("I love 北京 so", "auto") == ["i", "love", "北", "京", "so"]
    assert has_unspaced_script("abc 京") and not has_unspaced_script("abc")


def test_unknown_tokenizer() -> None:
    with pytest.raises(ValueError, match="unknown tokenizer"):
        tokenize("x", "nope")
