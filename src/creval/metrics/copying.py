"""Copying: does an output reproduce its training data?

Three views, computed on one index built at ``fit`` (:class:`CopyIndex`):

- ``exact_copy`` (0/1): the whole output, normalised (NFKC, case-folded, punctuation removed, spaces collapsed:
  :func:`creval.metrics.basic.normalise_for_copy`), equals a normalised training verse, a training line, or one
  of the output's own references. ``copied_lines``: the share of the output's non-blank lines that equal a
  training line under the same normalisation.
- ``longest_common_run``: the length in tokens of the longest contiguous token sequence of the output that also
  occurs in the training corpus (runs never cross a training verse, or line with ``unit="line"``).
- ``ngram8_coverage``: the share of the output's tokens that lie inside at least one of its 8-grams (n-grams,
  ``n`` a parameter) occurring in the training corpus, :math:`|\\bigcup_{p: g_p \\in C} [p, p+n)| / L`.

Algorithm: the exact k-gram index of :mod:`creval.metrics.novelty` (k = 1 … n) with the corpus positions of
every n-gram. Runs shorter than n come from the highest level at which a query k-gram is found; longer runs are
chains of n-gram matches on one diagonal (corpus position − output position), found by one sort of all
(output position, corpus position) match pairs. Exact; no per-output scan of the corpus.

Undefined values are NaN with a note: an output with no tokens (empty or punctuation only) for every value; an
output shorter than n tokens for the coverage (it has no n-gram).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

import numpy as np

from creval.corpus.model import Corpus, Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.metrics.basic import normalise_for_copy
from creval.metrics.novelty import KGramIndex
from creval.text.tokenize import get_tokenizer

UNITS = ("verse", "line")


class CopyIndex:
    """Training lines and verses (normalised) plus an exact k-gram index with positions; see module docstring."""

    def __init__(self, n: int = 8, tokenizer: str = "auto", lower: bool = True, unit: str = "verse") -> None:
        if n < 2:
            raise ValueError("n must be at least 2")
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}")
        self.n = n
        self.unit = unit
        self.tokenizer = tokenizer
        self._tok = get_tokenizer(tokenizer, lower)
        self.index = KGramIndex(k_max=n, keep_positions=True)
        self.lines: set[str] = set()
        self.verses: set[str] = set()

    def fit(self, corpus: Corpus | Iterable[str]) -> CopyIndex:
        """Index a :class:`Corpus` (verses and their lines) or an iterable of texts (each one a verse whose lines
        are its ``\\n``-separated parts)."""
        texts = corpus.texts() if isinstance(corpus, Corpus) else list(corpus)
        lines = [ln for t in texts for ln in t.split("\n") if ln.strip()]
        self.lines = {normalise_for_copy(ln) for ln in lines}
        self.verses = {normalise_for_copy(t) for t in texts}
        self.lines.discard("")
        self.verses.discard("")
        tok = self._tok
        if self.unit == "verse":
            self.index.fit(tok(t) for t in texts)
        else:
            self.index.fit(tok(ln) for ln in lines)
        return self

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        norm = normalise_for_copy(text)
        return bool(norm) and (norm in self.verses or norm in self.lines)

    def score(
        self, texts: Sequence[str], references: Sequence[Sequence[str] | None] | None = None
    ) -> dict[str, np.ndarray]:
        """``exact_copy``, ``copied_lines``, ``longest_common_run`` and ``ngram{n}_coverage`` per text."""
        m = len(texts)
        n = self.n
        exact = np.full(m, np.nan)
        copied_lines = np.full(m, np.nan)
        for i, text in enumerate(texts):
            norm = normalise_for_copy(text)
            if not norm:
                continue
            refs = references[i] if references is not None else None
            ref_set = {normalise_for_copy(r) for r in refs} if refs else set()
            exact[i] = float(norm in self.verses or norm in self.lines or norm in ref_set)
            lines = [normalise_for_copy(ln) for ln in text.split("\n")]
            lines = [ln for ln in lines if ln]
            copied_lines[i] = sum(ln in self.lines for ln in lines) / len(lines)

        tok = self._tok
        segments: list[list[str]] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            parts = [text] if self.unit == "verse" else [ln for ln in text.split("\n") if ln.strip()]
            for part in parts:
                segments.append(tok(part))
                owner.append(i)
        levels, seg_len = self.index.lookup(segments)
        owner_a = np.asarray(owner, dtype=np.int64)
        tok_owner = np.repeat(owner_a, seg_len)
        n_tokens = np.bincount(owner_a, weights=seg_len, minlength=m) if len(owner_a) else np.zeros(m)

        # runs shorter than n: the highest level found at each position
        best = np.zeros(len(tok_owner), dtype=np.int64)
        for k in range(1, n + 1):
            best[levels[k] >= 0] = k
        longest = np.zeros(m)
        if len(best):
            np.maximum.at(longest, tok_owner, best)

        # runs of n tokens or more: chains of n-gram matches along a diagonal
        top = levels[n]
        hit = np.nonzero(top >= 0)[0]
        if len(hit):
            ids_sorted = self.index.ids_sorted
            pos_by_id = self.index.positions_by_id
            lo = np.searchsorted(ids_sorted, top[hit], side="left")
            hi = np.searchsorted(ids_sorted, top[hit], side="right")
            counts = hi - lo
            q = np.repeat(hit, counts)
            starts = np.repeat(lo - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
            c = pos_by_id[starts + np.arange(len(q))]
            diag = c - q
            order = np.lexsort((q, diag))
            q, diag = q[order], diag[order]
            brk = np.ones(len(q), dtype=bool)
            brk[1:] = (diag[1:] != diag[:-1]) | (q[1:] != q[:-1] + 1)
            run_id = np.cumsum(brk) - 1
            run_len = np.bincount(run_id)
            run_owner = tok_owner[q[brk]]
            np.maximum.at(longest, run_owner, run_len + n - 1)

            covered = np.zeros(len(tok_owner) + 1, dtype=np.int64)
            np.add.at(covered, hit, 1)
            np.add.at(covered, hit + n, -1)
            cover_mask = np.cumsum(covered[:-1]) > 0
            cov_count = np.bincount(tok_owner[cover_mask], minlength=m)
        else:
            cov_count = np.zeros(m)

        # an output has an n-gram when one of its segments has n tokens or more
        has_ngram = np.zeros(m, dtype=bool)
        if len(owner_a):
            has_ngram[owner_a[np.asarray(seg_len) >= n]] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            coverage = np.where(has_ngram, cov_count / np.maximum(n_tokens, 1), np.nan)
        longest = np.where(n_tokens > 0, longest, np.nan)
        return {
            "exact_copy": exact,
            "copied_lines": copied_lines,
            "longest_common_run": longest,
            f"ngram{n}_coverage": coverage,
        }


def is_copy(text: str, corpus_index: CopyIndex | Collection[str]) -> bool:
    """True when ``text`` (normalised) equals a training verse or line of ``corpus_index`` — a fitted
    :class:`CopyIndex`, or any collection of strings (lines, verses, references), normalised here."""
    norm = normalise_for_copy(text)
    if not norm:
        return False
    if isinstance(corpus_index, CopyIndex):
        return norm in corpus_index.verses or norm in corpus_index.lines
    return any(norm == normalise_for_copy(s) for s in corpus_index)


def longest_common_run(text: str, corpus: Corpus | Iterable[str], tokenizer: str = "auto") -> float:
    """Longest contiguous token run of ``text`` found in ``corpus`` (builds a throw-away index)."""
    return float(CopyIndex(tokenizer=tokenizer).fit(corpus).score([text])["longest_common_run"][0])


@register_measure
class CopyingMeasure(Measure):
    """Copying of training data by each output (see module docstring)."""

    name = "copying"
    description = "exact copy of a training verse/line/reference, longest common token run, 8-gram coverage"
    needs_corpus = True

    def __init__(self, n: int = 8, tokenizer: str = "auto", lower: bool = True, unit: str = "verse") -> None:
        super().__init__(n=n, tokenizer=tokenizer, lower=lower, unit=unit)
        self._index = CopyIndex(n=n, tokenizer=tokenizer, lower=lower, unit=unit)
        self._fitted = False

    @property
    def reported(self) -> tuple[str, ...]:
        return ("exact_copy", "copied_lines", "longest_common_run", f"ngram{self.params['n']}_coverage")

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        name = reported_name or self.name
        if name in ("exact_copy", "copied_lines"):
            return Signature(name, params={"normalise": "nfkc-casefold-nopunct"})
        params = {"unit": p["unit"], "lower": p["lower"]}
        if name.endswith("_coverage"):
            params["n"] = p["n"]
        return Signature(name, params=params, tokenizer=p["tokenizer"])

    def fit(self, corpus: Corpus) -> CopyingMeasure:
        self._index.fit(corpus)
        self._fitted = True
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        if not self._fitted:
            raise RuntimeError("copying: call fit(corpus) before score()")
        values = self._index.score([o.text for o in outputs], [o.references for o in outputs])
        notes = []
        cov = values[f"ngram{self.params['n']}_coverage"]
        for o, e, c in zip(outputs, values["exact_copy"], cov):
            if math.isnan(e):
                notes.append(f"copying undefined for output {o.id!r}: no words (empty or punctuation only)")
            elif math.isnan(c):
                notes.append(
                    f"ngram coverage undefined for output {o.id!r}: fewer than {self.params['n']} tokens"
                )
        return MeasureResult(
            values=values, signatures={name: self.signature(name) for name in values}, notes=notes
        )
