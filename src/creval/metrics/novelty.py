"""Novelty of outputs against a training corpus (Wu et al.), on an exact k-gram index built once.

The index (:class:`KGramIndex`)
-------------------------------
Tokens get dense integer ids (a vocabulary built at ``fit``). A k-gram gets an id by *composition*: the key of
the k-gram starting at position p is the 64-bit integer ``id_{k-1}(p) · V + token(p + k − 1)`` (V the
vocabulary size), i.e. the pair (id of its (k−1)-gram prefix, id of its last token); the sorted distinct keys
of level k are stored in a numpy array and a k-gram's id is the rank of its key in that array. Two different
k-grams have different (prefix, last token) pairs, and ``a · V + b`` with ``b < V`` is a bijection on such pairs
that fits in 63 bits while both ids stay below 2^31, so the scheme is **collision-free** (no hashing, nothing
to verify): a query k-gram is in the corpus exactly when its key is
found by binary search. Memory: one int64 per distinct k-gram per level (about 8 · k_max bytes per corpus
token), nothing per token is kept after ``fit`` (unless positions are asked for, see :mod:`creval.metrics.copying`).
k-grams never cross a segment boundary (a line for novelty).

Novelty (DESIGN.md, after Wu et al.)
------------------------------------
For line i of an output with :math:`L_i` tokens and :math:`n = \\min(k_{max}, L_i)`:

.. math:: V_{k,i} = \\frac{|\\{\\text{k-gram occurrences of line } i \\text{ not in the corpus}\\}|}
          {L_i - k + 1}, \\qquad
          \\mathrm{novelty}_i = \\frac{1}{n-2}\\sum_{k=3}^{n} V_{k,i}

and an output's novelty is the mean over its lines. k-grams are counted as occurrences (a repeated novel k-gram
counts twice). Lines with fewer than 3 tokens have no term (n − 2 ≤ 0) and are left out of the mean; an output
with no line of 3 tokens or more is NaN with that reason in the notes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

import numpy as np

from creval.corpus.model import Corpus, Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer

_LIMIT = 2**31 - 1


def _unique_inverse(keys: np.ndarray, key_bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for non-negative int64 keys below ``key_bound``, faster: when the
    key and the position fit together in 63 bits, one plain ``np.sort`` of ``key << b | position`` replaces the
    argsort."""
    n = len(keys)
    if n == 0:
        return keys.copy(), np.zeros(0, dtype=np.int64)
    pos_bits = max(int(n - 1).bit_length(), 1)
    if max(int(key_bound - 1), 1).bit_length() + pos_bits <= 63:
        packed = np.sort((keys << np.int64(pos_bits)) | np.arange(n, dtype=np.int64))
        skeys = packed >> np.int64(pos_bits)
        order = packed & np.int64((1 << pos_bits) - 1)
    else:
        order = np.argsort(keys)
        skeys = keys[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(skeys[1:], skeys[:-1], out=new[1:])
    rank = np.cumsum(new) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = rank
    return skeys[new], inverse


def _segments_to_arrays(
    segments: Iterable[Sequence[str]], vocab: dict[str, int], grow: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Flatten token segments into token ids (``-1`` for unknown when ``grow`` is False) and segment lengths."""
    flat: list[str] = []
    lengths: list[int] = []
    for toks in segments:
        flat.extend(toks)
        lengths.append(len(toks))
    if grow:
        for t in dict.fromkeys(flat):  # new types in first-seen order (C-speed dedup)
            if t not in vocab:
                vocab[t] = len(vocab)
        ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
    else:
        get = vocab.get
        ids = np.fromiter(map(get, flat, itertools.repeat(-1)), dtype=np.int64, count=len(flat))
    return ids, np.asarray(lengths, dtype=np.int64)


def _segment_ends(lengths: np.ndarray) -> np.ndarray:
    """For every token position, the exclusive end of its segment."""
    return np.repeat(np.cumsum(lengths), lengths)


class KGramIndex:
    """Exact set of the k-grams (k = 1 … ``k_max``) of a corpus, segments kept apart (see module docstring).

    ``fit(segments)`` takes token lists; :meth:`lookup` returns, per level, the k-gram id at each query
    position (−1: not in the corpus, or the k-gram would cross the end of its segment).
    With ``keep_positions=True`` the index also keeps, for level ``k_max``, the corpus positions of each id
    (used for longest-common-run search).
    """

    def __init__(self, k_max: int = 8, keep_positions: bool = False) -> None:
        if k_max < 1:
            raise ValueError("k_max must be at least 1")
        self.k_max = k_max
        self.keep_positions = keep_positions
        self.vocab: dict[str, int] = {}
        self.keys: dict[int, np.ndarray] = {}
        self.vocab_size = 0
        self.n_tokens = 0
        self.n_segments = 0
        self.positions_by_id: np.ndarray | None = None
        self.ids_sorted: np.ndarray | None = None

    def fit(self, segments: Iterable[Sequence[str]]) -> KGramIndex:
        self.vocab = {}
        ids, lengths = _segments_to_arrays(segments, self.vocab, grow=True)
        if len(self.vocab) > _LIMIT:
            raise ValueError("vocabulary too large for the 32-bit k-gram composition")
        self.n_tokens = int(len(ids))
        self.n_segments = int(len(lengths))
        ends = _segment_ends(lengths)
        pos = np.arange(len(ids), dtype=np.int64)
        cur = ids
        n_prev = len(self.vocab)
        self.vocab_size = len(self.vocab)
        self.keys = {}
        for k in range(2, self.k_max + 1):
            idx = np.nonzero(pos + k <= ends)[0]
            key = cur[idx] * np.int64(self.vocab_size) + ids[idx + k - 1]
            last = k == self.k_max and not self.keep_positions
            if last:
                self.keys[k] = np.unique(key)
                break
            uniq, inv = _unique_inverse(key, n_prev * self.vocab_size)
            self.keys[k] = uniq
            n_prev = len(uniq)
            nxt = np.full(len(ids), -1, dtype=np.int64)
            nxt[idx] = inv
            cur = nxt
        if self.keep_positions:
            valid = np.nonzero(cur >= 0)[0]
            order = np.argsort(cur[valid], kind="stable")
            self.positions_by_id = valid[order]
            self.ids_sorted = cur[valid][order]
        return self

    def lookup(
        self, segments: Iterable[Sequence[str]], levels: Iterable[int] | None = None
    ) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """Level → id per query position (−1 = absent/invalid), and the query segment lengths."""
        ids, lengths = _segments_to_arrays(segments, self.vocab, grow=False)
        ends = _segment_ends(lengths)
        pos = np.arange(len(ids), dtype=np.int64)
        out = {1: ids}
        wanted = set(levels) if levels is not None else set(range(1, self.k_max + 1))
        cur = ids
        for k in range(2, self.k_max + 1):
            nxt = np.full(len(ids), -1, dtype=np.int64)
            idx = np.nonzero((pos + k <= ends) & (cur >= 0))[0]
            if len(idx):
                last = ids[idx + k - 1]
                ok = last >= 0
                idx, last = idx[ok], last[ok]
                key = cur[idx] * np.int64(self.vocab_size) + last
                table = self.keys[k]
                at = np.searchsorted(table, key)
                at_c = np.minimum(at, len(table) - 1) if len(table) else at
                found = (at < len(table)) & (table[at_c] == key) if len(table) else np.zeros(len(key), bool)
                nxt[idx[found]] = at[found]
            cur = nxt
            if k in wanted:
                out[k] = nxt
        return out, lengths

    def memory_bytes(self) -> int:
        total = sum(a.nbytes for a in self.keys.values())
        if self.positions_by_id is not None and self.ids_sorted is not None:
            total += self.positions_by_id.nbytes + self.ids_sorted.nbytes
        return total


def _corpus_lines(corpus: Corpus | Iterable[str]) -> list[str]:
    if isinstance(corpus, Corpus):
        return corpus.lines()
    if isinstance(corpus, str):
        raise TypeError("fit() takes a Corpus or an iterable of lines, not a single string")
    return list(corpus)


class NoveltyIndex:
    """Novelty of texts against training lines (module docstring has the formula).

    >>> idx = NoveltyIndex(k_max=8).fit(["the cat sat on the mat"])
    >>> round(float(idx.score(["the cat sat on a hat"])[0]), 4)  # (2/4 + 2/3 + 2/2 + 1/1) / 4
    0.7917
    """

    def __init__(self, k_max: int = 8, k_min: int = 3, tokenizer: str = "auto", lower: bool = True) -> None:
        if k_min < 1 or k_max < k_min:
            raise ValueError("need 1 <= k_min <= k_max")
        self.k_min = k_min
        self.k_max = k_max
        self.tokenizer = tokenizer
        self.lower = lower
        self._tok = get_tokenizer(tokenizer, lower)
        self.index = KGramIndex(k_max=k_max)

    def fit(self, corpus: Corpus | Iterable[str]) -> NoveltyIndex:
        """Index every k-gram of every corpus line (k-grams never cross a line)."""
        tok = self._tok
        self.index.fit(tok(line) for line in _corpus_lines(corpus))
        return self

    def line_novelty(self, lines: Sequence[str]) -> np.ndarray:
        """novelty_i of each line (NaN for a line with fewer than ``k_min`` tokens)."""
        tok = self._tok
        levels, lengths = self.index.lookup((tok(line) for line in lines), range(self.k_min, self.k_max + 1))
        n_lines = len(lengths)
        line_of = np.repeat(np.arange(n_lines), lengths)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if n_lines else np.zeros(0, np.int64)
        offset = np.arange(len(line_of)) - starts[line_of] if n_lines else np.zeros(0, np.int64)
        n_top = np.minimum(self.k_max, lengths)
        total = np.zeros(n_lines)
        for k in range(self.k_min, self.k_max + 1):
            has_k = lengths >= k
            if not has_k.any():
                break
            valid = offset <= (lengths[line_of] - k)
            novel = np.bincount(line_of[valid], weights=(levels[k][valid] < 0), minlength=n_lines)
            n_grams = np.maximum(lengths - k + 1, 1)
            total += np.where(has_k, novel / n_grams, 0.0)
        denom = n_top - (self.k_min - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denom > 0, total / np.where(denom > 0, denom, 1), np.nan)

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Novelty of each text: the mean line novelty over its lines with at least ``k_min`` tokens (NaN if
        none)."""
        lines: list[str] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            for line in text.split("\n"):
                if line.strip():
                    lines.append(line)
                    owner.append(i)
        per_line = self.line_novelty(lines)
        owner_a = np.asarray(owner, dtype=np.int64)
        ok = ~np.isnan(per_line)
        sums = np.bincount(owner_a[ok], weights=per_line[ok], minlength=len(texts))
        counts = np.bincount(owner_a[ok], minlength=len(texts))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def novelty(text: str, corpus_lines: Iterable[str], k_max: int = 8, tokenizer: str = "auto") -> float:
    """Novelty of one text against corpus lines (builds a throw-away index; use :class:`NoveltyIndex` for
    many texts)."""
    return float(NoveltyIndex(k_max=k_max, tokenizer=tokenizer).fit(corpus_lines).score([text])[0])


@register_measure
class NoveltyMeasure(Measure):
    """Novelty of each output against the training corpus lines (Wu et al.; DESIGN.md)."""

    name = "novelty"
    description = (
        "share of an output's line k-grams (k=3..min(8,L)) absent from the training corpus, averaged"
    )
    needs_corpus = True

    def __init__(self, k_max: int = 8, k_min: int = 3, tokenizer: str = "auto", lower: bool = True) -> None:
        super().__init__(k_max=k_max, k_min=k_min, tokenizer=tokenizer, lower=lower)
        self._index = NoveltyIndex(k_max=k_max, k_min=k_min, tokenizer=tokenizer, lower=lower)
        self._fitted = False

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        return Signature(
            reported_name or self.name,
            params={
                "k": f"{p['k_min']}-{p['k_max']}",
                "lower": p["lower"],
                "count": "occurrences",
                "unit": "line",
            },
            tokenizer=p["tokenizer"],
        )

    def fit(self, corpus: Corpus) -> NoveltyMeasure:
        self._index.fit(corpus)
        self._fitted = True
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        if not self._fitted:
            raise RuntimeError("novelty: call fit(corpus) before score()")
        values = self._index.score([o.text for o in outputs])
        notes = [
            f"novelty undefined for output {o.id!r}: no line of {self.params['k_min']} tokens or more"
            for o, v in zip(outputs, values)
            if math.isnan(v)
        ]
        return MeasureResult(
            values={"novelty": values}, signatures={"novelty": self.signature()}, notes=notes
        )
