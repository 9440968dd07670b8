"""Cheap measures that make the pipeline real end to end: verse length and whole-verse copies.

(The type-token ratio is reported by :mod:`creval.metrics.lexical`; line-level and n-gram copying by
:mod:`creval.metrics.copying`.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from creval.corpus.model import Corpus, Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer


def verse_length_tokens(tokens: Sequence[str]) -> int:
    """Verse length in tokens, :math:`|w|` (Potash et al. 2016 compare average verse length with the artist's)."""
    return len(tokens)


def verse_length_lines(text: str) -> int:
    """Number of non-blank lines of a verse."""
    return sum(1 for line in text.split("\n") if line.strip())


_SPACE = re.compile(r"\s+")


def normalise_for_copy(text: str) -> str:
    """Case-folded, NFKC, punctuation-free, whitespace-collapsed text used to decide whether two verses are the
    same verse (so a copy with different capitalisation or punctuation still counts)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(ch if (ch.isalnum() or ch.isspace() or ch == "'") else " " for ch in text)
    return _SPACE.sub(" ", text).strip()


@register_measure
class LengthMeasure(Measure):
    """Verse length in tokens and in lines."""

    name = "length"
    description = "verse length in tokens (length_tokens) and non-blank lines (length_lines)"

    def __init__(self, tokenizer: str = "word") -> None:
        super().__init__(tokenizer=tokenizer)
        self._tok = get_tokenizer(tokenizer)

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        tokens = np.array([verse_length_tokens(self._tok(o.text)) for o in outputs], dtype=float)
        lines = np.array([verse_length_lines(o.text) for o in outputs], dtype=float)
        tok = self.params["tokenizer"]
        return MeasureResult(
            values={"length_tokens": tokens, "length_lines": lines},
            signatures={
                "length_tokens": Signature("length_tokens", tokenizer=tok),
                "length_lines": Signature("length_lines"),
            },
        )


@register_measure
class VerseCopyMeasure(Measure):
    """Whether an output is a whole verse of the training corpus (after :func:`normalise_for_copy`)."""

    name = "verse_copy"
    description = "1 when the whole output equals a corpus verse (case/punctuation-insensitive), else 0"
    needs_corpus = True

    def __init__(self) -> None:
        super().__init__()
        self._index: set[str] = set()

    def fit(self, corpus: Corpus) -> VerseCopyMeasure:
        self._index = {normalise_for_copy(v.text) for v in corpus}
        self._index.discard("")
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        values = np.array(
            [float(normalise_for_copy(o.text) in self._index) for o in outputs], dtype=float
        )
        sig = Signature("verse_copy", params={"normalise": "nfkc-casefold-nopunct"})
        return MeasureResult(values={"verse_copy": values}, signatures={"verse_copy": sig})
