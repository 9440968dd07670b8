"""Line-to-line end-rhyme check."""

from __future__ import annotations

from creval.rhyme.pairs import rhyme_types
from creval.rhyme.text import last_word

#: Types that count as a rhyme for :func:`check_rhyme` (all but consonant rhymes).
END_RHYME_TYPES: frozenset[str] = frozenset(
    {"perfect", "family", "partner", "additive", "subtractive", "substitution", "assonance"}
)


def check_rhyme(previous_line: str, line: str) -> bool:
    """True when the last word of ``line`` rhymes with the last word of ``previous_line`` under any rhyme type
    of :mod:`creval.rhyme.pairs` except consonant rhyme.

    Punctuation except apostrophes is stripped; numerals are spelled out (``"21"`` → twenty-one) and lyric
    spellings normalised (``rhymin'`` → rhyming) before lookup, by :func:`creval.phonetics.pronounce`. A line
    without any word never rhymes.
    """
    a, b = last_word(previous_line), last_word(line)
    if a is None or b is None:
        return False
    return bool(rhyme_types(a, b) & END_RHYME_TYPES)
