r"""Uniqueness (Potash et al. 2015, "GhostWriter", §5): the maximum tf-idf cosine similarity of an output to any
training verse, and which verse that is.

.. math:: \mathrm{max\_similarity}(o) = \max_{d \in C} \frac{\mathbf{w}_o \cdot \mathbf{w}_d}{\|\mathbf{w}_o\|\,\|\mathbf{w}_d\|},
          \qquad w_{x,t} = \frac{c_{x,t}}{|x|}\,\mathrm{idf}_t

with :math:`c_{x,t}` the count of term t in document x and |x| its length in tokens (DESIGN.md: tf = count /
verse length, idf from the training documents). ``idf="smooth"`` (default):
:math:`\ln\frac{1+N}{1+\mathrm{df}_t} + 1`, defined for terms the corpus never saw (they still lengthen the
output's vector); ``idf="plain"``: :math:`\ln(N/\mathrm{df}_t)`, unseen terms dropped. ``unit`` chooses the
documents: training verses (default) or lines. Outputs are whole texts.

Exact top-1 search (no approximation): documents are stored column-wise (one posting list per term, rows
L2-normalised) with each term's largest weight :math:`m_t`. For one output, its terms are visited in decreasing
query weight :math:`q_t`, adding :math:`q_t d_t` into a score accumulator for the documents on its posting list,
until a document holding only unvisited terms U provably cannot beat the best partial score so far: its score :math:`\sum_{t\in U} q_t d_t` is at most :math:`\sum_{t\in U} q_t m_t` (the MaxScore bound of Turtle
& Flood 1995) and, since the document vector has unit length, at most :math:`\|q_U\|_2` (Cauchy–Schwarz); the
smaller of the two is used. The touched documents whose partial score plus that bound can still reach the best
are then scored exactly (sparse row · query) and the best is the answer. Memory is the
index plus one output's candidates; no output × corpus matrix is ever formed. Ties: the lowest document index
among the best-scoring documents examined.

Undefined: an output with no tokens (or, with ``idf="plain"``, only terms of weight 0: unseen, or in every
document) has no direction: NaN with a
note. An output sharing no term with the corpus has similarity 0 (a real value, not a fallback).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from creval.corpus.model import Corpus, Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.metrics.novelty import _segments_to_arrays
from creval.text.tokenize import get_tokenizer

UNITS = ("verse", "line")
IDFS = ("smooth", "plain")


def _ranges(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + l)`` for every (s, l)."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    return offsets + np.arange(total, dtype=np.int64)


class UniquenessIndex:
    """tf-idf index of training documents with exact maximum-cosine search (see module docstring).

    >>> idx = UniquenessIndex().fit(["the cat sat", "a dog ran far"])
    >>> sim, best = idx.score(["the cat sat"])
    >>> round(float(sim[0]), 6), int(best[0])
    (1.0, 0)
    """

    def __init__(
        self, unit: str = "verse", tokenizer: str = "auto", lower: bool = True, idf: str = "smooth"
    ) -> None:
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}")
        if idf not in IDFS:
            raise ValueError(f"idf must be one of {', '.join(IDFS)}")
        self.unit = unit
        self.idf_kind = idf
        self.tokenizer = tokenizer
        self.lower = lower
        self._tok = get_tokenizer(tokenizer, lower)
        self.documents: list[str] = []
        self.meta: list[dict] = []

    # ------------------------------------------------------------------------------------------------ fit
    def fit(self, corpus: Corpus | Iterable[str]) -> UniquenessIndex:
        if isinstance(corpus, Corpus):
            if self.unit == "verse":
                docs = [v.text for v in corpus]
                meta = [{"artist": v.artist, "source": v.source, "line": v.line} for v in corpus]
            else:
                docs, meta = [], []
                for v in corpus:
                    for j, ln in enumerate(v.lines):
                        docs.append(ln)
                        meta.append(
                            {"artist": v.artist, "source": v.source, "line": v.line + j if v.line else 0}
                        )
        else:
            raw = list(corpus)
            docs = raw if self.unit == "verse" else [ln for t in raw for ln in t.split("\n") if ln.strip()]
            meta = [{} for _ in docs]
        self.documents, self.meta = docs, meta
        tok = self._tok
        vocab: dict[str, int] = {}
        ids, lens = _segments_to_arrays((tok(d) for d in docs), vocab, grow=True)
        self.vocab = vocab
        n_docs, n_terms = len(docs), len(vocab)
        doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lens)
        keys, counts = np.unique(doc_of * max(n_terms, 1) + ids, return_counts=True)
        e_doc = keys // max(n_terms, 1)
        e_term = keys % max(n_terms, 1)
        df = np.bincount(e_term, minlength=n_terms).astype(float)
        self.n_docs = n_docs
        self.df = df
        if self.idf_kind == "smooth":
            self.idf = np.log((1.0 + n_docs) / (1.0 + df)) + 1.0
            self.idf_unseen = math.log(1.0 + n_docs) + 1.0
        else:
            with np.errstate(divide="ignore"):
                self.idf = np.log(n_docs / df) if n_docs else np.zeros(0)
            self.idf_unseen = 0.0
        w = counts / lens[e_doc] * self.idf[e_term]
        norms = np.sqrt(np.bincount(e_doc, weights=w * w, minlength=n_docs))
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(norms[e_doc] > 0, w / norms[e_doc], 0.0)
        # CSR (document rows) — entries are already sorted by document, then term
        self.doc_ptr = np.concatenate([[0], np.cumsum(np.bincount(e_doc, minlength=n_docs))]).astype(np.int64)
        self.row_term = e_term
        self.row_w = w
        # CSC (posting lists) — stable sort keeps documents ascending inside each term
        order = np.argsort(e_term, kind="stable")
        self.post_doc = e_doc[order]
        self.post_w = w[order]
        self.term_ptr = np.concatenate([[0], np.cumsum(np.bincount(e_term, minlength=n_terms))]).astype(
            np.int64
        )
        self.max_w = np.zeros(n_terms)
        nonempty = np.nonzero(np.diff(self.term_ptr) > 0)[0]
        if len(nonempty):
            self.max_w[nonempty] = np.maximum.reduceat(self.post_w, self.term_ptr[nonempty])
        return self

    # ---------------------------------------------------------------------------------------------- query
    def query_vector(self, text: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Known term ids and their weights in the L2-normalised query vector (None when it has no direction)."""
        toks = self._tok(text)
        if not toks:
            return None
        n = len(toks)
        counts: dict[str, int] = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        known_ids, known_w, norm2 = [], [], 0.0
        for t, c in counts.items():
            j = self.vocab.get(t)
            weight = c / n * (self.idf[j] if j is not None else self.idf_unseen)
            norm2 += weight * weight
            if j is not None:
                known_ids.append(j)
                known_w.append(weight)
        if norm2 == 0.0:
            return None
        return np.asarray(known_ids, dtype=np.int64), np.asarray(known_w) / math.sqrt(norm2)

    def _exact(self, docs: np.ndarray, terms: np.ndarray, qw: np.ndarray, qdense: np.ndarray) -> np.ndarray:
        """Exact cosine of the given documents with the query (sparse rows · dense query)."""
        qdense[terms] = qw
        starts = self.doc_ptr[docs]
        lens = self.doc_ptr[docs + 1] - starts
        idx = _ranges(starts, lens)
        contrib = self.row_w[idx] * qdense[self.row_term[idx]]
        qdense[terms] = 0.0
        return np.bincount(np.repeat(np.arange(len(docs)), lens), weights=contrib, minlength=len(docs))

    def score(self, texts: Sequence[str], progress: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(max cosine similarity, index of the most similar document) per text; NaN / −1 where undefined."""
        m = len(texts)
        sims = np.full(m, np.nan)
        best_doc = np.full(m, -1, dtype=np.int64)
        seen = np.full(self.n_docs, -1, dtype=np.int64)
        qdense = np.zeros(len(self.vocab))
        iterator: Iterable[int] = range(m)
        if progress and m > 2000:
            from rich.progress import track

            iterator = track(iterator, description="uniqueness", total=m, transient=True)
        acc = np.zeros(self.n_docs)
        for qi in iterator:
            vec = self.query_vector(texts[qi])
            if vec is None:
                continue
            terms, qw = vec
            sims[qi] = 0.0
            if len(terms) == 0:
                continue
            order = np.argsort(-qw, kind="stable")
            terms, qw = terms[order], qw[order]
            rem_sum = np.cumsum((qw * self.max_w[terms])[::-1])[::-1]
            rem_norm = np.sqrt(np.cumsum((qw**2)[::-1])[::-1])
            remaining = np.append(np.minimum(rem_sum, rem_norm), 0.0)
            # phase 1: accumulate partial scores term by term while an untouched document could still win
            touched = []
            lower = 0.0
            j = 0
            n_terms = len(terms)
            while j < n_terms and (remaining[j] > lower or not touched):
                t = int(terms[j])
                lo, hi = self.term_ptr[t], self.term_ptr[t + 1]
                docs = self.post_doc[lo:hi]
                if len(docs):
                    acc[docs] += qw[j] * self.post_w[lo:hi]
                    new = docs[seen[docs] != qi]
                    seen[new] = qi
                    touched.append(new)
                    part = acc[docs]
                    if j == 0:  # a real score is a lower bound of the answer: score the best few exactly
                        top = docs[np.argpartition(-part, 7)[:8]] if len(docs) > 8 else docs
                        lower = max(lower, float(self._exact(top, terms, qw, qdense).max()))
                    else:
                        lower = max(lower, float(part.max()))
                j += 1
            if not touched:
                continue
            cand = np.concatenate(touched)
            if j < n_terms:
                # phase 2: complete the scores of the touched documents that could still reach the best
                # raise the lower bound with the exact scores of the best partial candidates, then filter
                if len(cand) > 64:
                    head = cand[np.argpartition(-acc[cand], 63)[:64]]
                    lower = max(lower, float(self._exact(head, terms, qw, qdense).max()))
                cand = cand[acc[cand] + remaining[j] >= lower]
                scores = self._exact(cand, terms, qw, qdense)
            else:
                scores = acc[cand]
            top = scores.max()
            winners = cand[scores == top]
            sims[qi] = float(top)
            best_doc[qi] = int(winners.min())
            acc[np.concatenate(touched)] = 0.0
        return sims, best_doc


@register_measure
class UniquenessMeasure(Measure):
    """Maximum tf-idf cosine similarity of each output to a training verse (Potash et al. 2015)."""

    name = "uniqueness"
    description = "max tf-idf cosine similarity to any training verse (max_similarity) and the verse itself"
    needs_corpus = True

    def __init__(
        self, unit: str = "verse", tokenizer: str = "auto", lower: bool = True, idf: str = "smooth"
    ) -> None:
        super().__init__(unit=unit, tokenizer=tokenizer, lower=lower, idf=idf)
        self._index = UniquenessIndex(unit=unit, tokenizer=tokenizer, lower=lower, idf=idf)
        self._fitted = False

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        return Signature(
            reported_name or "max_similarity",
            params={"unit": p["unit"], "tf": "count/length", "idf": p["idf"], "lower": p["lower"]},
            tokenizer=p["tokenizer"],
        )

    def fit(self, corpus: Corpus) -> UniquenessMeasure:
        self._index.fit(corpus)
        self._fitted = True
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        if not self._fitted:
            raise RuntimeError("uniqueness: call fit(corpus) before score()")
        sims, best = self._index.score([o.text for o in outputs], progress=True)
        most_similar = {}
        notes = []
        for o, s, b in zip(outputs, sims, best):
            if math.isnan(s):
                notes.append(f"max_similarity undefined for output {o.id!r}: no tokens to compare")
                continue
            entry = {"similarity": float(s), "index": int(b), "system": o.system, "output": o.text}
            if b >= 0:
                entry["verse"] = self._index.documents[b]
                entry.update(self._index.meta[b])
            most_similar[o.id] = entry
        return MeasureResult(
            values={"max_similarity": sims},
            signatures={"max_similarity": self.signature()},
            artifacts={"most_similar": most_similar, "unit": self.params["unit"]},
            notes=notes,
        )
