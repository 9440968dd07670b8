"""Rhyme analysis: rhyme types between words, end-rhyme checks, rhyme density, rhyme factor and rhyme schemes."""

from creval.rhyme.check import check_rhyme

__all__ = ["check_rhyme"]
