"""Splitting lyric lines into words for rhyme analysis (punctuation except apostrophes and inner hyphens is
dropped, so ``rhymin'``, ``'em`` and ``mother-in-law`` stay whole)."""

from __future__ import annotations

import re

_WORD = re.compile(r"['\u2019]?[^\W_]+(?:['\u2019\-][^\W_]+)*['\u2019]?")


def words(line: str) -> list[str]:
    """The words of a line, in order (``"Yo, I'm rhymin' -- 'til 2am!"`` →
    ``["Yo", "I'm", "rhymin'", "'til", "2am"]``)."""
    return _WORD.findall(line)


def last_word(line: str) -> str | None:
    """The last word of a line, or None when it has none."""
    found = words(line)
    return found[-1] if found else None
