"""Pronunciations for rhyme analysis: CMUdict, lyric spelling normalisation, numerals, espeak-ng fallback,
syllabification with stress.

    >>> from creval.phonetics import pronounce
    >>> pronounce("thuggin'").source, pronounce("thuggin'").spelling
    ('normalised', 'thugging')
"""

from creval.phonetics.lexicon import Pronunciation, cache_info, clear_cache, cmu, pronounce, pronounce_many
from creval.phonetics.syllables import Syllable, syllabify

__all__ = [
    "Pronunciation",
    "Syllable",
    "cache_info",
    "clear_cache",
    "cmu",
    "pronounce",
    "pronounce_many",
    "syllabify",
]
