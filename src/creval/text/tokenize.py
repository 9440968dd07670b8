"""Tokenizers shared by every text measure.

- ``"word"`` (default for spaced scripts): Unicode word tokens, apostrophes kept inside words (``don't``,
  ``runnin'``), lower-cased unless ``lower=False``. Punctuation is dropped.
- ``"char"``: one token per character other than spaces and punctuation (Chinese and other unspaced scripts).
- ``"whitespace"``: ``text.split()`` as-is (what the original lyrics evaluation scripts did).
- ``"auto"``: word tokens, except that each CJK / Thai / Lao / Khmer / Myanmar character is a token of its own.

Units (DESIGN.md): words for English, characters for Chinese and other unspaced scripts; the tokenizer is a
parameter of every measure and is recorded in its signature.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

TOKENIZERS = ("word", "char", "whitespace", "auto")

_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK ext A
    "\u4e00-\u9fff"  # CJK unified
    "\uf900-\ufaff"  # CJK compatibility
    "\U00020000-\U0002fa1f"
)
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*['’]?", re.UNICODE)
_AUTO_RE = re.compile(rf"[{_UNSPACED}]|[^\W_{_UNSPACED}]+(?:['’][^\W_{_UNSPACED}]+)*['’]?", re.UNICODE)
_UNSPACED_RE = re.compile(rf"[{_UNSPACED}]")


def has_unspaced_script(text: str) -> bool:
    """True when the text contains characters of a script written without spaces (CJK, Thai, …)."""
    return _UNSPACED_RE.search(text) is not None


def word_tokens(text: str, lower: bool = True) -> list[str]:
    text = text.replace("’", "'")
    toks = _WORD_RE.findall(text.lower() if lower else text)
    return toks


def char_tokens(text: str, lower: bool = True) -> list[str]:
    """One token per character, leaving out spaces and punctuation (，。、！ are not units of a poem)."""
    return [
        c for c in (text.lower() if lower else text) if not c.isspace() and unicodedata.category(c)[0] not in "PZ"
    ]


def whitespace_tokens(text: str, lower: bool = False) -> list[str]:
    return (text.lower() if lower else text).split()


def auto_tokens(text: str, lower: bool = True) -> list[str]:
    text = text.replace("’", "'")
    return _AUTO_RE.findall(text.lower() if lower else text)


def get_tokenizer(name: str = "word", lower: bool = True) -> Callable[[str], list[str]]:
    """Return ``text -> tokens`` for a tokenizer name (see module docstring)."""
    funcs = {"word": word_tokens, "char": char_tokens, "whitespace": whitespace_tokens, "auto": auto_tokens}
    try:
        fn = funcs[name]
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}") from None
    return lambda text: fn(text, lower)


def tokenize(text: str, tokenizer: str = "word", lower: bool = True) -> list[str]:
    return get_tokenizer(tokenizer, lower)(text)
