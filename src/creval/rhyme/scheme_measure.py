"""``rhyme_scheme`` measure for the ``creval evaluate`` pipeline: stanza rhyme schemes found by the
rhyme-scheme HMM (Addanki & Wu 2013; emission after Reddy & Knight 2011), see :mod:`creval.rhyme.scheme`.

Reported per output:

- ``rhyme_scheme_rhymed_share``: lines that rhyme with another line of their Viterbi stanza / lines with a word
  (Addanki & Wu's criterion for a rhyming response: it is linked to a line of its stanza);
- ``rhyme_scheme_stanzas``: number of stanzas in the Viterbi segmentation;
- ``rhyme_scheme_pairs_per_line``: rhyming line pairs inside stanzas / lines.

The HMM is trained unsupervised: on the training corpus's end words when the pipeline calls :meth:`fit` with a
corpus, else on the outputs' own end words (all outputs together). An output with no line that has a word is
NaN (with a note). The scheme strings (``"ABAB CDCD"``) are kept in ``artifacts["schemes"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from creval.corpus.model import Corpus, Output
from creval.errors import InputError
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure

NAMES = ("rhyme_scheme_rhymed_share", "rhyme_scheme_stanzas", "rhyme_scheme_pairs_per_line")


def rhymed_share(n_lines: int, pairs: Sequence[tuple[int, int]]) -> float:
    """Share of lines in at least one rhyming pair: |{i : ∃ (i, j) or (j, i) in pairs}| / n_lines."""
    if n_lines <= 0:
        return float("nan")
    rhymed = {i for pair in pairs for i in pair}
    return len(rhymed) / n_lines


@register_measure
class RhymeSchemeMeasure(Measure):
    """Rhymed-line share, stanza count and rhyming pairs per line from the rhyme-scheme HMM."""

    name = "rhyme_scheme"
    description = (
        "share of lines rhyming inside their stanza, stanzas and rhyme pairs per line from a rhyme-scheme HMM "
        "(Addanki & Wu 2013, Reddy & Knight 2011)"
    )
    needs_corpus = False

    def __init__(self, schemes: str = "addanki-wu", n_iter: int = 10, pair_prior: float | None = 5.0) -> None:
        from creval.rhyme.scheme import INVENTORIES

        if schemes not in INVENTORIES:
            raise InputError(
                f"rhyme_scheme: schemes must be one of {', '.join(INVENTORIES)}, not {schemes!r}"
            )
        if int(n_iter) < 0:
            raise InputError("rhyme_scheme: n_iter must be ≥ 0")
        super().__init__(schemes=schemes, n_iter=int(n_iter), pair_prior=pair_prior)
        self._model: Any = None

    def _new_model(self) -> Any:
        from creval.rhyme.scheme import RhymeSchemeHMM

        p = self.params
        return RhymeSchemeHMM(p["schemes"], n_iter=p["n_iter"], pair_prior=p["pair_prior"])

    def fit(self, corpus: Corpus | None) -> RhymeSchemeMeasure:
        from creval.rhyme.scheme import end_word

        if corpus is None or not len(corpus):
            return self
        verses = [[end_word(line) for line in v.lines] for v in corpus if v.lines]
        if any(any(v) for v in verses):
            self._model = self._new_model().fit(verses)
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        from creval.rhyme.scheme import end_word, verse_scheme

        ends = [[end_word(line) for line in out.lines] for out in outputs]
        values = {name: np.full(len(outputs), np.nan) for name in NAMES}
        notes: list[str] = []
        schemes: dict[str, str] = {}
        model = self._model
        if model is None:
            usable = [e for e in ends if any(e)]
            if usable:
                model = self._new_model().fit(usable)
        for i, (out, words) in enumerate(zip(outputs, ends)):
            n_words = sum(1 for w in words if w)
            if not n_words or model is None:
                notes.append(f"rhyme_scheme undefined for output {out.id!r}: no line with a word")
                continue
            stanzas = model.viterbi(words)
            pairs = [p for st in stanzas for p in st.pairs if words[p[0]] and words[p[1]]]
            values["rhyme_scheme_rhymed_share"][i] = rhymed_share(n_words, pairs)
            values["rhyme_scheme_stanzas"][i] = len(stanzas)
            values["rhyme_scheme_pairs_per_line"][i] = len(pairs) / n_words
            schemes[out.id] = verse_scheme(out.lines, model)
        params = {k: v for k, v in self.params.items() if v is not None}
        params["trained_on"] = "corpus" if self._model is not None else "outputs"
        sigs = {name: Signature(name, params, "end-words", "cmudict+espeak-ng") for name in NAMES}
        return MeasureResult(values=values, signatures=sigs, notes=notes, artifacts={"schemes": schemes})
