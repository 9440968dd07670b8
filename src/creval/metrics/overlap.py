"""Reference-overlap measures: BLEU (nltk- and sacrebleu-identical), ROUGE-1/2/L (rouge-score- and
rouge-identical) and self-BLEU.

All n-gram counting runs over integer-encoded tokens with numpy (:mod:`creval.metrics._ngrams`) for every
sentence at once; only the last few floating-point steps run per sentence, in exactly the order the reference
library uses, so the numbers are bit-for-bit the reference library's.

Definitions chosen where the libraries disagree with "never a silent zero" (documented, tested):

- An empty hypothesis (no tokens) scores NaN, not 0 (nltk returns 0, the original lyrics scripts returned NaN).
- An empty reference list raises :class:`~creval.errors.InputError`.
- When every reference of a hypothesis is empty after tokenisation (e.g. punctuation only), the score is NaN.
- Text in a script the chosen tokenizer cannot see (e.g. Chinese under rouge-score's ASCII tokenizer, or an
  unspaced script under the ``rouge`` package's whitespace split) raises ``InputError`` naming the text and the
  tokenizer to use instead, rather than scoring 0.
"""

from __future__ import annotations

import gc
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from creval.errors import InputError
from creval.metrics._ngrams import (
    count_keys,
    encode,
    factorize,
    grouped_ngrams,
    grouped_ngrams_from_ids,
    ngram_table,
)
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer, has_unspaced_script

Tokens = Sequence[str]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while many short-lived lists are built (they hold no cycles);
    with a large heap, collections triggered by these allocations would otherwise dominate the run time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

# --------------------------------------------------------------------------------------------------------------
# BLEU statistics
# --------------------------------------------------------------------------------------------------------------


@dataclass
class BleuStats:
    """Per hypothesis: clipped n-gram matches ``num[h, n-1]``, n-gram counts ``den[h, n-1]`` (before nltk's
    ``max(1, ·)``), hypothesis length and the closest reference length (ties: the shorter)."""

    num: np.ndarray
    den: np.ndarray
    hyp_len: np.ndarray
    ref_len: np.ndarray
    refs_empty: np.ndarray  # every reference has zero tokens


def bleu_stats(hypotheses: Sequence[Tokens], references: Sequence[Sequence[Tokens]], max_n: int) -> BleuStats:
    """Modified n-gram precision counts (Papineni et al. 2002, eq. 1) for every hypothesis at once.

    ``num[h, n] = Σ_g min(count_h(g), max_r count_r(g))`` over the n-grams g of hypothesis h and its references r.
    """
    H = len(hypotheses)
    if len(references) != H:
        raise InputError(f"{H} hypotheses but {len(references)} reference lists")
    owners: list[int] = []
    flat_refs: list[Tokens] = []
    for h, refs in enumerate(references):
        if len(refs) == 0:
            raise InputError(f"hypothesis {h + 1} has an empty reference list")
        for r in refs:
            owners.append(h)
            flat_refs.append(r)
    owner = np.asarray(owners, dtype=np.int64)
    groups = np.concatenate([np.arange(H, dtype=np.int64), owner])
    table = grouped_ngrams(list(hypotheses) + flat_refs, groups, max_n)
    hyp_len = table.lens[:H].astype(np.int64)
    ref_lens = table.lens[H:]
    num = np.zeros((H, max_n), dtype=np.int64)
    den = np.zeros((H, max_n), dtype=np.int64)
    single_ref = len(flat_refs) == H  # every hypothesis has exactly one reference, in order
    n_ref_max = max((len(r) for r in references), default=1)
    local = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum([len(r) for r in references])])
    ref_local = np.arange(len(flat_refs), dtype=np.int64) - local[owner]  # index of a ref among its group's
    for n in range(1, max_n + 1):
        ids, seqs, G = table.ids[n], table.seqs[n], table.sizes[n]
        is_hyp = seqs < H
        hc = np.bincount(ids[is_hyp], minlength=G)
        if single_ref:
            rmax = np.bincount(ids[~is_hyp], minlength=G)
        else:
            rkey = ids[~is_hyp] * n_ref_max + ref_local[seqs[~is_hyp] - H]
            codes, k = factorize(rkey)
            cnt = np.bincount(codes, minlength=k)
            first = np.zeros(k, dtype=np.int64)
            first[codes[::-1]] = np.arange(codes.size - 1, -1, -1)
            rmax = np.zeros(G, dtype=np.int64)
            np.maximum.at(rmax, ids[~is_hyp][first], cnt)
        clipped = np.minimum(hc, rmax)
        num[:, n - 1] = np.bincount(table.group_of[n], weights=clipped, minlength=H)[:H].astype(np.int64)
        den[:, n - 1] = np.maximum(hyp_len - n + 1, 0)
    # closest reference length, ties to the shorter one (nltk's closest_ref_length, sacrebleu's rule)
    if single_ref:
        return BleuStats(num=num, den=den, hyp_len=hyp_len, ref_len=ref_lens.astype(np.int64),
                         refs_empty=ref_lens == 0)
    diff = np.abs(ref_lens - hyp_len[owner])
    order = np.lexsort((ref_lens, diff, owner))
    first = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
    ref_len = ref_lens[order][first]
    max_ref = np.zeros(H, dtype=np.int64)
    np.maximum.at(max_ref, owner, ref_lens)
    return BleuStats(num=num, den=den, hyp_len=hyp_len, ref_len=ref_len, refs_empty=max_ref == 0)


# --------------------------------------------------------------------------------------------------------------
# nltk-identical BLEU
# --------------------------------------------------------------------------------------------------------------

SMOOTHING_METHODS = tuple(range(8))


@dataclass(frozen=True)
class Smoothing:
    """Chen & Cherry (2014) smoothing, parameters as in ``nltk.translate.bleu_score.SmoothingFunction``."""

    method: int = 4
    epsilon: float = 0.1
    alpha: int = 5
    k: int = 5

    def __post_init__(self) -> None:
        if self.method not in SMOOTHING_METHODS:
            raise InputError(f"BLEU smoothing method must be 0-7, not {self.method!r}")


def _brevity_penalty(closest_ref_len: int, hyp_len: int) -> float:
    """BP = 1 if c > r else exp(1 − r/c) (Papineni et al. 2002, §2.2.2); 0 for c = 0."""
    if hyp_len > closest_ref_len:
        return 1
    if hyp_len == 0:
        return 0
    return math.exp(1 - closest_ref_len / hyp_len)


def _smooth(
    p_n: list[Any],
    sm: Smoothing,
    hyp_len: int,
    last_len: int,
    p5: Fraction | None,
) -> list[Any]:
    """Apply smoothing method ``sm.method`` to the precisions exactly as nltk 3.10.4 does (same types: exact
    fractions where nltk keeps Fractions, floats where it produces floats). ``last_len`` and ``p5`` describe
    the last hypothesis of the corpus (nltk's methods 5-7 look at it), ``hyp_len`` the summed length."""
    m = sm.method
    if m == 0:
        return [p if p.numerator != 0 else sys.float_info.min for p in p_n]
    if m == 1:
        return [(p.numerator + sm.epsilon) / p.denominator if p.numerator == 0 else p for p in p_n]
    if m == 2:
        return [Fraction(p.numerator + 1, p.denominator + 1) if i != 0 else p for i, p in enumerate(p_n)]
    if m == 3:
        out = list(p_n)
        inc = 1
        for i, p in enumerate(out):
            if p.numerator == 0:
                out[i] = 1 / (2**inc * p.denominator)
                inc += 1
        return out
    if m == 4:
        return _method4(p_n, sm, hyp_len)
    if m == 5:
        return _method5(p_n, p5)
    if m == 6:
        if len(p_n) < 3 or not p_n[2]:
            raise InputError(
                "BLEU smoothing method 6 needs at least trigram weights and a non-zero trigram precision "
                "(nltk asserts the same)"
            )
        out = list(p_n)
        for i in range(2, len(out)):
            pi0 = 0 if out[i - 2] == 0 else out[i - 1] ** 2 / out[i - 2]
            mcount = out[i].numerator
            ln = max(last_len - i, 0)
            out[i] = (mcount + sm.alpha * pi0) / (ln + sm.alpha)
        return out
    # method 7: method 4 then method 5
    return _method5(_method4(p_n, sm, hyp_len), p5)


def _method4(p_n: list[Any], sm: Smoothing, hyp_len: int) -> list[Any]:
    out = list(p_n)
    inc = 1
    for i, p in enumerate(out):
        if p.numerator == 0 and hyp_len > 1:
            numerator = 1 / (2**inc * sm.k / math.log(hyp_len))
            out[i] = numerator / p.denominator
            inc += 1
    return out


def _method5(p_n: list[Any], p5: Fraction | None) -> list[Any]:
    plus1 = list(p_n) + [p5]
    out = list(p_n)
    prev = p_n[0] + 1
    for i, p in enumerate(p_n):
        out[i] = (prev + p + plus1[i + 1]) / 3
        prev = out[i]
    return out


class _P:
    """An unreduced fraction with nltk's semantics (numerator/denominator as given; value exact)."""

    __slots__ = ("numerator", "denominator", "_f")

    def __init__(self, numerator: int, denominator: int) -> None:
        self.numerator = numerator
        self.denominator = denominator
        self._f = Fraction(numerator, denominator)

    def __float__(self) -> float:
        return self.numerator / self.denominator

    def __bool__(self) -> bool:
        return self.numerator != 0

    # arithmetic and comparisons behave like the exact Fraction value
    def __add__(self, o: Any) -> Any:
        return self._f + (o._f if isinstance(o, _P) else o)

    __radd__ = __add__

    def __pow__(self, e: int) -> Any:
        return self._f**e

    def __truediv__(self, o: Any) -> Any:
        return self._f / (o._f if isinstance(o, _P) else o)

    def __rtruediv__(self, o: Any) -> Any:
        return o / self._f

    def __gt__(self, o: Any) -> bool:
        return self._f > o

    def __eq__(self, o: object) -> bool:
        return self._f == (o._f if isinstance(o, _P) else o)

    __hash__ = None  # type: ignore[assignment]


def _combine(
    num: Sequence[int],
    den: Sequence[int],
    hyp_len: int,
    ref_len: int,
    weights: tuple[float, ...],
    sm: Smoothing,
    auto_reweigh: bool,
    last_len: int,
    p5: Fraction | None,
) -> float:
    """BLEU = BP · exp(Σ_n w_n log p_n) (Papineni et al. 2002, eq. 2 with smoothed p_n), nltk's float order."""
    bp = _brevity_penalty(ref_len, hyp_len)
    if num[0] == 0:
        return 0.0
    if sm.method in (0, 1, 3, 4) and not (auto_reweigh and hyp_len < 4):
        return bp * math.exp(math.fsum(_fast_terms(num, den, hyp_len, weights, sm)))
    # unreduced fractions; float(p) == numerator / denominator as with nltk's Fraction(_normalize=False)
    p_n: list[Any] = [_P(int(a), max(1, int(b))) for a, b in zip(num, den)]
    p_n = _smooth(p_n, sm, hyp_len, last_len, p5)
    weight = weights
    if auto_reweigh and hyp_len < 4 and weight == (0.25, 0.25, 0.25, 0.25):
        weight = (1 / hyp_len,) * hyp_len
    s = math.fsum(w * math.log(float(p)) for w, p in zip(weight, p_n) if p > 0)
    return bp * math.exp(s)


def _fast_terms(num, den, hyp_len, weights, sm):
    """w_n·log p_n for smoothing methods 0, 1, 3, 4 with plain floats (the values nltk's Fractions give)."""
    m = sm.method
    inc = 1
    log_len = math.log(hyp_len) if (m == 4 and hyp_len > 1) else 0.0
    for w, a, b in zip(weights, num, den):
        b = b if b > 1 else 1
        if a != 0:
            p = a / b
        elif m == 0:
            p = sys.float_info.min
        elif m == 1:
            p = (a + sm.epsilon) / b
        elif m == 3:
            p = 1 / (2**inc * b)
            inc += 1
        elif hyp_len > 1:  # method 4
            p = 1 / (2**inc * sm.k / log_len) / b
            inc += 1
        else:
            continue  # nltk leaves a zero Fraction, which the p > 0 filter drops
        if p > 0:
            yield w * math.log(p)


def _check_weights(weights: Sequence[float]) -> tuple[float, ...]:
    w = tuple(float(x) for x in weights)
    if not w:
        raise InputError("BLEU weights must not be empty")
    if any(not math.isfinite(x) for x in w):
        raise InputError(f"BLEU weights must be finite numbers, got {weights!r}")
    return w


def bleu_sentences(
    hypotheses: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    smoothing: int | Smoothing = 4,
    auto_reweigh: bool = False,
) -> np.ndarray:
    """Sentence BLEU of each hypothesis against its references, identical to nltk's ``sentence_bleu``.

    .. math:: \\mathrm{BLEU} = \\mathrm{BP}\\cdot\\exp\\Big(\\sum_{n=1}^{N} w_n \\log p_n\\Big),\\quad
              \\mathrm{BP} = \\min(1, e^{1-r/c})

    with modified n-gram precisions :math:`p_n` (Papineni et al. 2002, eqs. 1-2) smoothed by Chen & Cherry
    (2014) method ``smoothing`` (0-7, default 4 as in the lyrics evaluation scripts). ``r`` is the reference
    length closest to the hypothesis length ``c`` (ties: the shorter). Tokens are given (use
    :func:`creval.text.tokenize.tokenize` or ``str.split``).

    Returns NaN for an empty hypothesis or when all references are empty (nltk: 0).
    """
    with _gc_paused():
        return _bleu_sentences(hypotheses, references, weights, smoothing, auto_reweigh)


def _bleu_sentences(hypotheses, references, weights, smoothing, auto_reweigh, orders: int = 0) -> np.ndarray:
    w = _check_weights(weights)
    sm = smoothing if isinstance(smoothing, Smoothing) else Smoothing(int(smoothing))
    n_p = max(len(w), orders)  # precisions nltk computes and smooths (the longest of its weight vectors)
    max_n = max(n_p, 5 if sm.method in (5, 7) else 0)
    st = bleu_stats(hypotheses, references, max_n)
    nw = len(w)
    hyp_len = st.hyp_len
    undefined = (hyp_len == 0) | st.refs_empty
    if sm.method in (0, 1, 3, 4):
        out = _combine_batch(st.num[:, :nw], st.den[:, :nw], hyp_len, st.ref_len, w, sm)
        slow = np.flatnonzero((hyp_len < 4) & ~undefined) if auto_reweigh else np.zeros(0, dtype=np.int64)
    else:
        out = np.empty(len(hypotheses), dtype=float)
        slow = np.flatnonzero(~undefined)
    num_l = st.num.tolist()
    den_l = st.den.tolist()
    for i in slow.tolist():
        hl, rl = int(hyp_len[i]), int(st.ref_len[i])
        p5 = Fraction(num_l[i][4], max(1, den_l[i][4])) if sm.method in (5, 7) else None
        out[i] = _combine(num_l[i][:n_p], den_l[i][:n_p], hl, rl, w, sm, auto_reweigh, hl, p5)
    out[undefined] = np.nan
    return out


def _combine_batch(num: np.ndarray, den: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray,
                   weights: tuple[float, ...], sm: Smoothing) -> np.ndarray:
    """:func:`_combine` for smoothing methods 0, 1, 3, 4 on all sentences at once, with the same IEEE operations
    in the same order (numpy's +, −, ×, ÷ are the correctly rounded operations Python uses); logarithms and
    exponentials go through :mod:`math` (once per distinct value) and each sentence's sum through
    ``math.fsum``, exactly as nltk does."""
    H, nw = num.shape
    den_f = np.maximum(den, 1).astype(float)
    num_f = num.astype(float)
    zero = num == 0
    p = np.where(zero, 0.0, num_f / den_f)
    keep = ~zero
    m = sm.method
    if m == 0:
        p = np.where(zero, sys.float_info.min, p)
        keep = np.ones_like(zero)
    elif m == 1:
        p = np.where(zero, (0 + sm.epsilon) / den_f, p)
        keep = np.ones_like(zero)
    else:
        inc = np.cumsum(zero, axis=1)  # the k-th zero precision gets 2**k
        if m == 3:
            p = np.where(zero, 1 / ((2.0**inc) * den_f), p)
            keep = np.ones_like(zero)
        else:
            logs = {hl: math.log(hl) for hl in np.unique(hyp_len).tolist() if hl > 1}
            log_len = np.array([logs.get(hl, 1.0) for hl in hyp_len.tolist()])[:, None]
            smoothed = 1 / ((2.0**inc * sm.k) / log_len) / den_f
            can = zero & (hyp_len[:, None] > 1)
            p = np.where(can, smoothed, p)
            keep = keep | can
    keep &= p > 0
    vals, inv = np.unique(np.where(keep, p, 1.0), return_inverse=True)
    logp = np.array([math.log(v) for v in vals.tolist()])[inv.reshape(p.shape)]
    terms = np.where(keep, np.asarray(weights[:nw], dtype=float)[None, :] * logp, 0.0)
    fsum, exp = math.fsum, math.exp
    out = np.empty(H, dtype=float)
    for i, (row, hl, rl, n1) in enumerate(zip(terms.tolist(), hyp_len.tolist(), ref_len.tolist(),
                                             num[:, 0].tolist())):
        if n1 == 0 or hl == 0:
            out[i] = 0.0
            continue
        bp = 1 if hl > rl else exp(1 - rl / hl)
        out[i] = bp * exp(fsum(row))
    return out


def sentence_bleu(
    references: Sequence[Tokens],
    hypothesis: Tokens,
    weights: Sequence[float] | Sequence[Sequence[float]] = (0.25, 0.25, 0.25, 0.25),
    smoothing: int | Smoothing = 4,
    auto_reweigh: bool = False,
) -> float | list[float]:
    """One sentence BLEU (nltk's argument order); see :func:`bleu_sentences`. Like nltk, ``weights`` may be a
    list of weight vectors: then a list of scores, the precisions computed (and smoothed) up to the longest."""
    if _nested(weights):
        orders = max(len(w) for w in weights)
        with _gc_paused():
            return [float(_bleu_sentences([hypothesis], [references], w, smoothing, auto_reweigh, orders)[0])
                    for w in weights]
    return float(bleu_sentences([hypothesis], [references], weights, smoothing, auto_reweigh)[0])


def _nested(weights: Any) -> bool:
    try:
        weights[0][0]
    except (TypeError, IndexError):
        return False
    return True


def corpus_bleu(
    list_of_references: Sequence[Sequence[Tokens]],
    hypotheses: Sequence[Tokens],
    weights: Sequence[float] | Sequence[Sequence[float]] = (0.25, 0.25, 0.25, 0.25),
    smoothing: int | Smoothing = 4,
    auto_reweigh: bool = False,
) -> float | list[float]:
    """Corpus BLEU identical to nltk's ``corpus_bleu``: matches and counts summed over all hypotheses before
    dividing (micro-average, Papineni et al. 2002 §2.2). Like nltk, smoothing methods 5-7 look at the last
    hypothesis for their extra statistics, and a list of weight vectors gives a list of scores. NaN when every
    hypothesis is empty."""
    if len(hypotheses) == 0:
        raise InputError("corpus BLEU needs at least one hypothesis")
    if _nested(weights):
        orders = max(len(w) for w in weights)
        return [_corpus_bleu(list_of_references, hypotheses, w, smoothing, auto_reweigh, orders) for w in weights]
    return _corpus_bleu(list_of_references, hypotheses, weights, smoothing, auto_reweigh, 0)


def _corpus_bleu(list_of_references, hypotheses, weights, smoothing, auto_reweigh, orders) -> float:
    w = _check_weights(weights)
    sm = smoothing if isinstance(smoothing, Smoothing) else Smoothing(int(smoothing))
    n_p = max(len(w), orders)
    max_n = max(n_p, 5 if sm.method in (5, 7) else 0)
    st = bleu_stats(hypotheses, list_of_references, max_n)
    hyp_total = int(st.hyp_len.sum())
    if hyp_total == 0:
        return float("nan")
    num = st.num.sum(axis=0).tolist()
    den = st.den.sum(axis=0).tolist()
    # nltk sums max(1, count) per sentence for the denominators
    den = np.maximum(st.den, 1).sum(axis=0).tolist()
    last = len(hypotheses) - 1
    p5 = Fraction(int(st.num[last, 4]), max(1, int(st.den[last, 4]))) if sm.method in (5, 7) else None
    return _combine(num[:n_p], den[:n_p], hyp_total, int(st.ref_len.sum()), w, sm, auto_reweigh,
                    int(st.hyp_len[last]), p5)


# --------------------------------------------------------------------------------------------------------------
# sacrebleu-identical BLEU
# --------------------------------------------------------------------------------------------------------------

SACREBLEU_VERSION = "2.6.0"
SACREBLEU_TOKENIZERS = ("13a", "none", "char", "zh")
SACREBLEU_SMOOTH = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}

_RE_13A = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line: str) -> str:
    """mteval-v13a tokenisation as sacrebleu's ``13a`` tokenizer does it (returns space-joined tokens)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for rx, repl in _RE_13A:
        line = rx.sub(repl, line)
    return " ".join(line.split())


# The character ranges sacrebleu's ``zh`` tokenizer treats as Chinese, compared as *strings* the way sacrebleu
# compares them (its two supplementary-plane bounds are written as two-character strings, so in effect they
# cover U+2001..U+2A6D and U+2F81..U+2FA1 of the basic plane; kept for identical results).
_ZH_RANGES = (
    ("\u3400", "\u4db5"), ("\u4e00", "\u9fa5"), ("\u9fa6", "\u9fbb"), ("\uf900", "\ufa2d"),
    ("\ufa30", "\ufa6a"), ("\ufa70", "\ufad9"), ("\u20000", "\u2a6d6"), ("\u2f800", "\u2fa1d"),
    ("\uff00", "\uffef"), ("\u2e80", "\u2eff"), ("\u3000", "\u303f"), ("\u31c0", "\u31ef"),
    ("\u2f00", "\u2fdf"), ("\u2ff0", "\u2fff"), ("\u3100", "\u312f"), ("\u31a0", "\u31bf"),
    ("\ufe10", "\ufe1f"), ("\ufe30", "\ufe4f"), ("\u2600", "\u26ff"), ("\u2700", "\u27bf"),
    ("\u3200", "\u32ff"), ("\u3300", "\u33ff"),
)


@lru_cache(maxsize=2**16)
def _is_zh_char(ch: str) -> bool:
    return any(lo <= ch <= hi for lo, hi in _ZH_RANGES)


def tokenize_zh(line: str) -> str:
    """sacrebleu's ``zh`` tokenizer: every Chinese character (see ``_ZH_RANGES``) becomes a token, the rest is
    tokenised with the 13a rules' regular expressions."""
    line = line.strip()
    spaced = "".join(f" {ch} " if _is_zh_char(ch) else ch for ch in line)
    for rx, repl in _RE_13A:
        spaced = rx.sub(repl, spaced)
    return " ".join(spaced.split())


def _sacre_tokenizer(name: str) -> Callable[[str], str]:
    if name == "13a":
        return tokenize_13a
    if name == "zh":
        return tokenize_zh
    if name == "none":
        return lambda s: s
    if name == "char":
        return lambda s: " ".join(ch for ch in s)
    raise InputError(f"sacrebleu tokenizer must be one of {', '.join(SACREBLEU_TOKENIZERS)}, not {name!r}")


@dataclass
class SacreBleuScore:
    """A sacrebleu-style BLEU result (score on the 0-100 scale) with its sacrebleu signature string."""

    score: float
    counts: list[int]
    totals: list[int]
    precisions: list[float]
    bp: float
    sys_len: int
    ref_len: int
    signature: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _my_log(x: float) -> float:
    return -9999999999 if x == 0.0 else math.log(x)


def _sacre_compute(correct, total, sys_len, ref_len, smooth_method, smooth_value, effective_order, max_order):
    """sacrebleu's ``BLEU.compute_bleu`` (Chen & Cherry 2014 smoothing: floor = method 1, add-k = method 2,
    exp = method 3), same float order."""
    correct = list(correct)
    total = list(total)
    if smooth_value is None:
        smooth_value = SACREBLEU_SMOOTH[smooth_method]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * max_order
    if not any(correct):
        return SacreBleuScore(0.0, correct, total, precisions, bp, sys_len, ref_len)
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, len(precisions) + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    score = bp * math.exp(sum([_my_log(p) for p in precisions[:eff_order]]) / eff_order)
    return SacreBleuScore(score, correct, total, precisions, bp, sys_len, ref_len)


def sacrebleu_signature(
    nrefs: int | str, lowercase: bool, effective_order: bool, tokenize: str, smooth_method: str,
    smooth_value: float | None,
) -> str:
    """The signature string sacrebleu 2.6.0 prints for these settings, with creval's version appended."""
    smooth = smooth_method
    default = SACREBLEU_SMOOTH[smooth_method]
    if default is not None:
        smooth += f"[{(smooth_value if smooth_value is not None else default):.2f}]"
    from creval._version import __version__

    return (
        f"nrefs:{nrefs}|case:{'lc' if lowercase else 'mixed'}|eff:{'yes' if effective_order else 'no'}"
        f"|tok:{tokenize}|smooth:{smooth}|version:{SACREBLEU_VERSION}(creval-{__version__})"
    )


def _sacre_prepare(texts: Sequence[str], tokenize: str, lowercase: bool) -> list[list[str]]:
    tok = _sacre_tokenizer(tokenize)
    out = []
    for t in texts:
        if lowercase:
            t = t.lower()
        out.append(tok(t.rstrip()).split())
    return out


def _sacre_stats(hypotheses, references, tokenize, lowercase, max_order):
    if len(hypotheses) != len(references):
        raise InputError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    hyps = _sacre_prepare(hypotheses, tokenize, lowercase)
    refs = [_sacre_prepare(r, tokenize, lowercase) for r in references]
    st = bleu_stats(hyps, refs, max_order)
    nref = {len(r) for r in references}
    nrefs: int | str = nref.pop() if len(nref) == 1 else "var"
    return st, nrefs


def sacrebleu_corpus(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    max_ngram_order: int = 4,
    effective_order: bool = False,
) -> SacreBleuScore:
    """Corpus BLEU identical to ``sacrebleu.BLEU(...).corpus_score`` (0-100 scale). ``references[i]`` lists the
    references of hypothesis ``i`` (sacrebleu takes reference streams; this is the transpose)."""
    if smooth_method not in SACREBLEU_SMOOTH:
        raise InputError(f"smooth_method must be one of {', '.join(SACREBLEU_SMOOTH)}, not {smooth_method!r}")
    st, nrefs = _sacre_stats(hypotheses, references, tokenize, lowercase, max_ngram_order)
    res = _sacre_compute(
        st.num.sum(axis=0).tolist(), st.den.sum(axis=0).tolist(), int(st.hyp_len.sum()), int(st.ref_len.sum()),
        smooth_method, smooth_value, effective_order, max_ngram_order,
    )
    res.signature = sacrebleu_signature(nrefs, lowercase, effective_order, tokenize, smooth_method, smooth_value)
    return res


def sacrebleu_sentences(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    tokenize: str = "13a",
    lowercase: bool = False,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    max_ngram_order: int = 4,
    effective_order: bool = True,
) -> np.ndarray:
    """Sentence BLEU (0-100) of each hypothesis, identical to ``sacrebleu.sentence_bleu`` (effective order on,
    as sacrebleu recommends for sentences)."""
    if smooth_method not in SACREBLEU_SMOOTH:
        raise InputError(f"smooth_method must be one of {', '.join(SACREBLEU_SMOOTH)}, not {smooth_method!r}")
    st, _ = _sacre_stats(hypotheses, references, tokenize, lowercase, max_ngram_order)
    num, den = st.num.tolist(), st.den.tolist()
    return np.array(
        [
            _sacre_compute(num[i], den[i], int(st.hyp_len[i]), int(st.ref_len[i]), smooth_method, smooth_value,
                           effective_order, max_ngram_order).score
            for i in range(len(hypotheses))
        ],
        dtype=float,
    )


# --------------------------------------------------------------------------------------------------------------
# ROUGE
# --------------------------------------------------------------------------------------------------------------

ROUGE_MODES = ("rouge-score", "rouge")
#: Largest sentence-pair LCS table (words × words) the ``rouge``-package mode builds for ROUGE-L.
ROUGE_PACKAGE_MAX_CELLS = 25_000_000
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
SUMMARIES = ("mean", "max", "min")

_RS_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_NON_ASCII_ALNUM = re.compile(r"[^\W_]", re.UNICODE)


def rouge_score_tokenize(text: str) -> list[str]:
    """rouge-score's default tokenizer (no stemming): lower-case, non ``[a-z0-9]`` → space, split."""
    # after the substitution every whitespace-separated piece matches rouge-score's ^[a-z0-9]+$ filter
    return _RS_NON_ALNUM.sub(" ", text.lower()).split()


def rouge_score_tokenize_all(texts: Sequence[str]) -> list[list[str]]:
    """:func:`rouge_score_tokenize` of many texts with one regex pass over the joined text."""
    if any("\x00" in t for t in texts):
        return [rouge_score_tokenize(t) for t in texts]
    joined = _RS_NON_ALNUM_KEEP0.sub(" ", "\x00".join(texts).lower())
    return [part.split() for part in joined.split("\x00")]


_RS_NON_ALNUM_KEEP0 = re.compile(r"[^a-z0-9\x00]+")
_RS_BYTE_TABLE = bytes(
    b if (48 <= b <= 57 or 97 <= b <= 122 or b == 0) else 32 for b in range(256)
)


def _has_non_ascii_alnum(text: str) -> bool:
    if text.isascii():
        return False
    return any(not c.isascii() for c in _NON_ASCII_ALNUM.findall(text))


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Length of the longest common subsequence (Lin 2004, ROUGE-L), bit-parallel (Allison & Dix 1986;
    Hyyrö 2004): one big-integer update per token of ``b``."""
    if not a or not b:
        return 0
    masks: dict[Any, int] = {}
    get = masks.get
    bit = 1
    for t in a:
        masks[t] = get(t, 0) | bit
        bit <<= 1
    full = bit - 1
    v = full
    for t in b:
        u = v & get(t, 0)
        if u:
            v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_lengths(xs: Sequence[Sequence[Any]], ys: Sequence[Sequence[Any]]) -> np.ndarray:
    """LCS length of every pair (xs[i], ys[i]): the bit-parallel recurrence of :func:`lcs_length` run on uint64
    words for all pairs whose ``ys[i]`` has at most 64 tokens at once (numpy), big integers for the rest."""
    P = len(xs)
    out = np.zeros(P, dtype=np.int64)
    if P == 0:
        return out
    ylen = np.fromiter(map(len, ys), dtype=np.int64, count=P)
    xlen = np.fromiter(map(len, xs), dtype=np.int64, count=P)
    short = (ylen <= 64) & (ylen > 0) & (xlen > 0)
    for i in np.flatnonzero(~short & (ylen > 0) & (xlen > 0)).tolist():
        out[i] = lcs_length(ys[i], xs[i])
    idx = np.flatnonzero(short)
    if idx.size == 0:
        return out
    sub_y = [ys[i] for i in idx.tolist()]
    sub_x = [xs[i] for i in idx.tolist()]
    S = idx.size
    flat, lens, vocab = encode(sub_y + sub_x)
    ny = int(ylen[idx].sum())
    yid, xid = flat[:ny], flat[ny:]
    ypair = np.repeat(np.arange(S, dtype=np.int64), ylen[idx])
    ypos = np.arange(ny, dtype=np.int64) - np.repeat(np.cumsum(ylen[idx]) - ylen[idx], ylen[idx])
    V = max(vocab, 1)
    codes, k = factorize(np.concatenate([ypair * V + yid, np.repeat(np.arange(S), xlen[idx]) * V + xid]))
    masks = np.zeros(k + 1, dtype=np.uint64)
    np.bitwise_or.at(masks, codes[:ny], np.left_shift(np.uint64(1), ypos.astype(np.uint64)))
    xl = xlen[idx]
    xcodes = codes[ny:]
    # x tokens as a (pairs, max x length) matrix of mask indices; padding points at the zero mask k
    width = int(xl.max())
    mat = np.full((S, width), k, dtype=np.int64)
    xpos = np.arange(xcodes.size, dtype=np.int64) - np.repeat(np.cumsum(xl) - xl, xl)
    mat[np.repeat(np.arange(S), xl), xpos] = xcodes
    yl = ylen[idx].astype(np.uint64)
    full = np.where(yl == 64, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << yl) - np.uint64(1))
    v = full.copy()
    for j in range(width):
        u = v & masks[mat[:, j]]
        v = ((v + u) | (v - u)) & full
    out[idx] = ylen[idx] - _popcount(v)
    return out


def _popcount(v: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(v).astype(np.int64)
    ones = np.zeros(v.size, dtype=np.int64)  # pragma: no cover - numpy < 2.0
    vv = v.copy()
    for _ in range(64):
        ones += (vv & np.uint64(1)).astype(np.int64)
        vv >>= np.uint64(1)
    return ones


def _fmeasure(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _rouge_package_split(text: str) -> list[str]:
    """The ``rouge`` package's preprocessing: sentences split on '.', whitespace collapsed, words split on ' '."""
    sents = [" ".join(s.split()) for s in text.split(".") if len(s) > 0]
    return sents


def _recon_lcs_words(x: Sequence[str], y: Sequence[str]) -> set[str]:
    """Words of the LCS of x (reference) and y (candidate) read back the way the ``rouge`` package does."""
    n, m = len(x), len(y)
    if n == 0 or m == 0:
        return set()
    if n * m > ROUGE_PACKAGE_MAX_CELLS:
        raise InputError(
            f"ROUGE-L in mode 'rouge' compares sentences of {n} and {m} words: the rouge package's quadratic "
            f"table ({n * m:,} cells) is too large; split the text into sentences with '.', or use "
            "mode='rouge-score' (linear-memory LCS)"
        )
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        xi = x[i - 1]
        row, prev = table[i], table[i - 1]
        for j in range(1, m + 1):
            if xi == y[j - 1]:
                row[j] = prev[j - 1] + 1
            else:
                row[j] = prev[j] if prev[j] > row[j - 1] else row[j - 1]
    out: set[str] = set()
    i, j = n, m
    while i > 0 and j > 0:
        if x[i - 1] == y[j - 1]:
            out.add(x[i - 1])
            i -= 1
            j -= 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return out


def summarise_pairs(pair_owner: np.ndarray, vals: np.ndarray, n: int, how: str) -> np.ndarray:
    """Mean, max or min of per-pair values over each owner's pairs, NaN pairs left out (NaN if all are)."""
    if how not in SUMMARIES:
        raise InputError(f"summary must be one of {', '.join(SUMMARIES)}, not {how!r}")
    out = np.full(n, np.nan)
    if vals.size == 0:
        return out
    order = np.argsort(pair_owner, kind="stable")
    h = pair_owner[order]
    v = vals[order]
    first = np.flatnonzero(np.r_[True, h[1:] != h[:-1]])
    with np.errstate(invalid="ignore", divide="ignore"), warnings_suppressed():
        if how == "max":
            agg = np.fmax.reduceat(v, first)
        elif how == "min":
            agg = np.fmin.reduceat(v, first)
        else:
            ok = ~np.isnan(v)
            sums = np.add.reduceat(np.where(ok, v, 0.0), first)
            cnt = np.add.reduceat(ok.astype(np.int64), first)
            agg = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
    out[h[first]] = agg
    return out


@contextmanager
def warnings_suppressed() -> Iterator[None]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


@dataclass
class RougeResult:
    """Per (hypothesis, reference) pair and per type: precision, recall and F arrays (``pairs`` gives the
    hypothesis index of each pair), plus :meth:`summary` over each hypothesis's references."""

    mode: str
    types: tuple[str, ...]
    pair_hyp: np.ndarray
    scores: dict[str, dict[str, np.ndarray]]  # type -> stat ("p", "r", "f") -> per pair
    n_hyp: int

    def summary(self, rouge_type: str = "rouge1", stat: str = "f", how: str = "max") -> np.ndarray:
        """Mean, max or min of ``stat`` over each hypothesis's references."""
        if how not in SUMMARIES:
            raise InputError(f"summary must be one of {', '.join(SUMMARIES)}, not {how!r}")
        return summarise_pairs(self.pair_hyp, self.scores[rouge_type][stat], self.n_hyp, how)


def rouge(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    mode: str = "rouge-score",
    types: Sequence[str] = ROUGE_TYPES,
    tokenizer: str | None = None,
    lower: bool = True,
    stem: bool = False,
) -> RougeResult:
    """ROUGE-N and ROUGE-L (Lin 2004, eqs. 1-4) of each hypothesis against each of its references.

    ``mode="rouge-score"`` is identical to Google's ``rouge_score.RougeScorer(types).score(ref, hyp)``:
    clipped n-gram counts, :math:`P = |o|/|h|`, :math:`R = |o|/|r|`, :math:`F = 2PR/(P+R)`, ROUGE-L from the
    sentence-level LCS. ``mode="rouge"`` is identical to the ``rouge`` package (pltrdy, 1.0.1): the text is cut
    into sentences at '.', words are split on single spaces, n-grams are counted as *sets*, ROUGE-L is the
    summary-level union LCS over words, and :math:`F = 2PR/(P+R+10^{-8})`.

    ``tokenizer=None`` uses the library's own tokenisation (rouge-score: ASCII ``[a-z0-9]+`` lower-cased;
    rouge: whitespace, case kept). Text those cannot see (non-ASCII letters for rouge-score; CJK/Thai for the
    rouge package) raises :class:`InputError` instead of silently scoring 0: pass a creval tokenizer name
    (``"auto"`` handles mixed scripts), which is equivalent to running the library on pre-tokenised text.
    Empty hypotheses give NaN.
    """
    with _gc_paused():
        return _rouge(hypotheses, references, mode, types, tokenizer, lower, stem)


def _rouge(hypotheses, references, mode, types, tokenizer, lower, stem=False) -> RougeResult:
    if mode not in ROUGE_MODES:
        raise InputError(f"ROUGE mode must be one of {', '.join(ROUGE_MODES)}, not {mode!r}")
    if stem and (mode != "rouge-score" or tokenizer is not None):
        raise InputError("stem=True is rouge-score's use_stemmer: it needs mode='rouge-score' and tokenizer=None")
    types = tuple(types)
    for t in types:
        if t not in ROUGE_TYPES:
            raise InputError(f"ROUGE type must be one of {', '.join(ROUGE_TYPES)}, not {t!r}")
    if len(hypotheses) != len(references):
        raise InputError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    tok = get_tokenizer(tokenizer, lower) if tokenizer is not None else None
    pair_hyp: list[int] = []
    pair_ref: list[str] = []
    for h, refs in enumerate(references):
        if len(refs) == 0:
            raise InputError(f"hypothesis {h + 1} has an empty reference list")
        for r in refs:
            pair_hyp.append(h)
            pair_ref.append(r)
    ph = np.asarray(pair_hyp, dtype=np.int64)
    if mode == "rouge-score":
        scores = _rouge_score_mode(hypotheses, pair_ref, ph, types, tok, stem)
    else:
        scores = _rouge_package_mode(hypotheses, pair_ref, ph, types, tok)
    return RougeResult(mode=mode, types=types, pair_hyp=ph, scores=scores, n_hyp=len(hypotheses))


def _check_visible(texts: Sequence[str], which: str, mode: str, tokens: Sequence[Sequence[str]] | None = None) -> None:
    """Refuse text the library's own tokenisation cannot see (it would score 0); warn on partial loss.
    For rouge-score, ``tokens`` are the texts' rouge-score tokens."""
    lost = 0
    for i, text in enumerate(texts):
        if text.isascii():
            continue
        if mode == "rouge-score":
            if not _has_non_ascii_alnum(text):
                continue
            if tokens is not None and not tokens[i]:
                raise InputError(
                    f"{which} {i + 1} ({text[:40]!r}) has only non-ASCII letters, which rouge-score's tokenizer "
                    "deletes (it would score 0); pass tokenizer='auto' (or 'word'/'char')"
                )
            lost += 1
        elif has_unspaced_script(text):
            raise InputError(
                f"{which} {i + 1} ({text[:40]!r}) is written without spaces; the rouge package would treat each "
                "sentence as one word; pass tokenizer='auto' (or 'char')"
            )
    if lost:
        import warnings

        warnings.warn(
            f"{lost} {which} text(s) contain non-ASCII letters that rouge-score's tokenizer drops "
            "(identical to rouge-score); use tokenizer='auto' to keep them",
            stacklevel=3,
        )


def _porter_stem() -> Callable[[str], str]:
    try:
        from nltk.stem import porter
    except ImportError:
        raise InputError("stem=True uses nltk's Porter stemmer (as rouge-score does): pip install nltk") from None
    return porter.PorterStemmer().stem


def _encode_rouge_score(texts: Sequence[str], stem: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """rouge-score's tokenisation of all texts, integer-encoded, in one pass: (flat ids, lengths, vocabulary).
    ``stem``: rouge-score's ``use_stemmer`` (Porter stemmer on tokens longer than 3 characters), applied once
    per distinct token."""
    if stem:
        stemmer = _porter_stem()
        cache: dict[str, str] = {}

        def stemmed(t: str) -> str:
            r = cache.get(t)
            if r is None:
                r = cache[t] = stemmer(t) if len(t) > 3 else t
            return r

        return encode([[stemmed(t) for t in text] for text in rouge_score_tokenize_all(texts)])
    if any("\x00" in t for t in texts):
        return encode(rouge_score_tokenize_all(texts))
    # lower-case first (as rouge-score), then every character outside [a-z0-9] becomes a space: non-ASCII
    # characters via the ASCII codec's '?', the rest with a byte table (same tokens as its regex substitution)
    data = "\x00".join(texts).lower().encode("ascii", errors="replace").translate(_RS_BYTE_TABLE)
    toks = data.decode("ascii").replace("\x00", " \x00 ").split()
    flat, _, vocab = encode([toks])
    if len(texts) <= 1:
        return flat, np.array([flat.size] * len(texts), dtype=np.int64), vocab
    sentinel = flat[toks.index("\x00")]
    is_sep = flat == sentinel
    cut = np.flatnonzero(is_sep)
    starts = np.r_[0, cut + 1]
    ends = np.r_[cut, flat.size]
    return flat[~is_sep], (ends - starts).astype(np.int64), vocab


def _pair_layout(flat: np.ndarray, lens: np.ndarray, H: int, ph: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reorder encoded texts (hypotheses 0..H-1, then references) into pair order: the hypothesis of each pair,
    then the pairs' references."""
    hl = lens[:H]
    nh = int(hl.sum())
    if ph.size == H and np.array_equal(ph, np.arange(H)):
        return flat, lens
    h_off = np.cumsum(hl) - hl
    plen = hl[ph]
    rep = np.repeat(ph, plen)
    within = np.arange(int(plen.sum()), dtype=np.int64) - np.repeat(np.cumsum(plen) - plen, plen)
    idx = h_off[rep] + within
    return np.concatenate([flat[:nh][idx], flat[nh:]]), np.concatenate([plen, lens[H:]])


def _pair_table(flat: np.ndarray, lens: np.ndarray, vocab: int, P: int, max_n: int):
    """n-gram ids private to each (hypothesis, reference) pair: sequences 0..P-1 are the pairs' hypotheses,
    P..2P-1 their references (already in that order, see :func:`_pair_layout`)."""
    groups = np.concatenate([np.arange(P, dtype=np.int64), np.arange(P, dtype=np.int64)])
    return grouped_ngrams_from_ids(flat, lens, vocab, groups, max_n)


def _lcs_pairs(flat: np.ndarray, table) -> np.ndarray:
    """LCS length of every pair from the pair-private token ids of :func:`_pair_table`: the bit-parallel
    recurrence of :func:`lcs_length` on uint64 words for all pairs with references of at most 64 tokens at once,
    big integers for the rest."""
    lens = table.lens
    P = lens.size // 2
    out = np.zeros(P, dtype=np.int64)
    if P == 0:
        return out
    xl, yl = lens[:P], lens[P:]
    ok = (xl > 0) & (yl > 0)
    short = ok & (yl <= 64)
    offsets = np.cumsum(lens) - lens
    for i in np.flatnonzero(ok & ~short).tolist():
        x = flat[offsets[i]: offsets[i] + xl[i]].tolist()
        y = flat[offsets[P + i]: offsets[P + i] + yl[i]].tolist()
        out[i] = lcs_length(y, x)
    if not short.any():
        return out
    ids, seq = table.ids[1], table.seqs[1]
    G = table.sizes[1]
    pos = np.arange(ids.size, dtype=np.int64) - offsets[seq]
    is_ref = seq >= P
    pair = np.where(is_ref, seq - P, seq)
    use = short[pair]
    ysel = use & is_ref
    masks = np.zeros(G + 1, dtype=np.uint64)
    np.bitwise_or.at(masks, ids[ysel], np.left_shift(np.uint64(1), pos[ysel].astype(np.uint64)))
    xsel = use & ~is_ref
    rows = np.flatnonzero(short)
    row_of = np.full(P, -1, dtype=np.int64)
    row_of[rows] = np.arange(rows.size)
    width = int(xl[rows].max())
    mat = np.full((rows.size, width), G, dtype=np.int64)
    mat[row_of[pair[xsel]], pos[xsel]] = ids[xsel]
    ylu = yl[rows].astype(np.uint64)
    full = np.where(ylu == 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                    np.left_shift(np.uint64(1), np.minimum(ylu, np.uint64(63))) - np.uint64(1))
    v = full.copy()
    for j in range(width):
        u = v & masks[mat[:, j]]
        v = ((v + u) | (v - u)) & full
    out[rows] = yl[rows] - _popcount(v)
    return out


def _pair_overlaps(table, P: int, ns, count_sets: bool) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per pair and order n: (overlap, hypothesis n-grams, reference n-grams); clipped counts, or distinct
    n-grams when ``count_sets`` (the rouge package)."""
    out = {}
    for n in ns:
        ids, sq, G = table.ids[n], table.seqs[n], table.sizes[n]
        is_h = sq < P
        hc = np.bincount(ids[is_h], minlength=G)
        rc = np.bincount(ids[~is_h], minlength=G)
        if count_sets:
            hc = np.minimum(hc, 1)
            rc = np.minimum(rc, 1)
        grp = table.group_of[n]
        o = np.bincount(grp, weights=np.minimum(hc, rc), minlength=P)[:P]
        hn = np.bincount(grp, weights=hc, minlength=P)[:P]
        rn = np.bincount(grp, weights=rc, minlength=P)[:P]
        out[n] = (o, hn, rn)
    return out


def _rouge_score_mode(hyps, refs, ph, types, tok, stem=False) -> dict[str, dict[str, np.ndarray]]:
    H, P = len(hyps), len(refs)
    if tok is None:
        flat, lens, vocab = _encode_rouge_score(list(hyps) + list(refs), stem)
        empty = [[]] * 1
        _check_visible(hyps, "hypothesis", "rouge-score", [empty[0] if n == 0 else [0] for n in lens[:H]])
        _check_visible(refs, "reference", "rouge-score", [empty[0] if n == 0 else [0] for n in lens[H:]])
    else:
        flat, lens, vocab = encode([tok(t) for t in hyps] + [tok(t) for t in refs])
    hlen, rlen = lens[:H], lens[H:]
    empty_h = (hlen[ph] == 0) | (rlen == 0)
    out: dict[str, dict[str, np.ndarray]] = {}
    ns = sorted({int(t[5:]) for t in types if t != "rougeL"})
    pflat, plens = _pair_layout(flat, lens, H, ph)
    table = _pair_table(pflat, plens, vocab, P, max(ns or [1]))
    if ns:
        for n, (o, hn, rn) in _pair_overlaps(table, P, ns, False).items():
            p = o / np.maximum(hn, 1)
            r = o / np.maximum(rn, 1)
            out[f"rouge{n}"] = _prf(p, r, empty_h)
    if "rougeL" in types:
        lcs = _lcs_pairs(pflat, table).astype(float)
        ok = (hlen[ph] > 0) & (rlen > 0)
        p = np.where(ok, lcs / np.maximum(hlen[ph], 1), 0.0)
        r = np.where(ok, lcs / np.maximum(rlen, 1), 0.0)
        out["rougeL"] = _prf(p, r, empty_h)
    return out


def _prf(p: np.ndarray, r: np.ndarray, empty_h: np.ndarray) -> dict[str, np.ndarray]:
    s = p + r
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(s > 0, 2 * p * r / np.where(s > 0, s, 1.0), 0.0)
    p = np.where(empty_h, np.nan, p)
    r = np.where(empty_h, np.nan, r)
    f = np.where(empty_h, np.nan, f)
    return {"p": p, "r": r, "f": f}


def _rouge_package_mode(hyps, refs, ph, types, tok) -> dict[str, dict[str, np.ndarray]]:
    if tok is None:
        _check_visible(hyps, "hypothesis", "rouge")
        _check_visible(refs, "reference", "rouge")
    else:
        hyps = [" ".join(tok(t)) for t in hyps]
        refs = [" ".join(tok(t)) for t in refs]
    hsents = [_rouge_package_split(t) for t in hyps]
    rsents = [_rouge_package_split(t) for t in refs]
    hwords = [[w for s in ss for w in s.split(" ")] for ss in hsents]
    rwords = [[w for s in ss for w in s.split(" ")] for ss in rsents]
    P = len(rwords)
    empty_h = np.array([len(hsents[h]) == 0 for h in ph.tolist()], dtype=bool)
    empty_r = np.array([len(s) == 0 for s in rsents], dtype=bool)
    out: dict[str, dict[str, np.ndarray]] = {}
    ns = sorted({int(t[5:]) for t in types if t != "rougeL"})
    if ns:
        flat, lens, vocab = encode(hwords + rwords)
        pflat, plens = _pair_layout(flat, lens, len(hwords), ph)
        table = _pair_table(pflat, plens, vocab, P, max(ns))
        for n, (o, hset, rset) in _pair_overlaps(table, P, ns, True).items():
            with np.errstate(invalid="ignore", divide="ignore"):
                p = np.where(hset > 0, o / np.where(hset > 0, hset, 1), 0.0)
                r = np.where(rset > 0, o / np.where(rset > 0, rset, 1), 0.0)
            f = 2.0 * ((p * r) / (p + r + 1e-8))
            out[f"rouge{n}"] = _nan_where(empty_h | empty_r, {"p": p, "r": r, "f": f})
    if "rougeL" in types:
        p = np.zeros(P)
        r = np.zeros(P)
        for i in range(P):
            hs, rsn = hsents[ph[i]], rsents[i]
            if not hs or not rsn:
                continue
            m = len(set(rwords[i]))
            n = len(set(hwords[ph[i]]))
            union: set[str] = set()
            hsw = [s.split(" ") for s in hs]
            for ref_s in rsn:
                rw = ref_s.split(" ")
                for hw in hsw:
                    union |= _recon_lcs_words(rw, hw)
            llcs = len(union)
            r[i] = llcs / m
            p[i] = llcs / n
        f = 2.0 * ((p * r) / (p + r + 1e-8))
        out["rougeL"] = _nan_where(empty_h | empty_r, {"p": p, "r": r, "f": f})
    return out


def _nan_where(mask: np.ndarray, d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.where(mask, np.nan, v) for k, v in d.items()}


# --------------------------------------------------------------------------------------------------------------
# self-BLEU
# --------------------------------------------------------------------------------------------------------------


def self_bleu(
    outputs: Sequence[Tokens],
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    smoothing: int | Smoothing = 1,
) -> np.ndarray:
    """Self-BLEU (Zhu et al. 2018, Texygen): sentence BLEU of each output with all *other* outputs of the set as
    references (never itself); the set's self-BLEU is the mean. Texygen's defaults: uniform 4-gram weights and
    smoothing method 1. Identical to nltk ``sentence_bleu(others, output, ...)`` per output.

    Computed in O(total n-grams): per n-gram the largest and second-largest count over outputs give the clip
    count "max over the others" without building the N×(N−1) reference lists. NaN for a set of one output
    and for empty outputs.
    """
    w = _check_weights(weights)
    sm = smoothing if isinstance(smoothing, Smoothing) else Smoothing(int(smoothing))
    N = len(outputs)
    if N < 2:
        return np.full(N, np.nan)
    max_n = max(len(w), 5 if sm.method in (5, 7) else 0)
    table = ngram_table(list(outputs), max_n)
    lens = table.lens.astype(np.int64)
    num = np.zeros((N, max_n), dtype=np.int64)
    den = np.zeros((N, max_n), dtype=np.int64)
    for n in range(1, max_n + 1):
        ids, seqs, G = table.ids[n], table.seqs[n], table.sizes[n]
        keys, counts = count_keys(seqs * G + ids)
        doc = keys // G
        g = keys % G
        # top-2 counts per n-gram over documents
        order = np.lexsort((-counts, g))
        gs, cs, ds = g[order], counts[order], doc[order]
        first = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]]) if gs.size else np.zeros(0, dtype=np.int64)
        top1 = np.zeros(G, dtype=np.int64)
        top1_doc = np.full(G, -1, dtype=np.int64)
        top2 = np.zeros(G, dtype=np.int64)
        if gs.size:
            top1[gs[first]] = cs[first]
            top1_doc[gs[first]] = ds[first]
            second = first + 1
            has2 = second < gs.size
            has2[has2] = gs[second[has2]] == gs[first[has2]]
            top2[gs[first[has2]]] = cs[second[has2]]
        other_max = np.where(top1_doc[g] == doc, top2[g], top1[g])
        clipped = np.minimum(counts, other_max)
        num[:, n - 1] = np.bincount(doc, weights=clipped, minlength=N).astype(np.int64)
        den[:, n - 1] = np.maximum(lens - n + 1, 0)
    # closest other length (ties: shorter)
    sorted_lens = np.sort(lens)
    uniq, cnt = np.unique(lens, return_counts=True)
    out = np.empty(N, dtype=float)
    nw = len(w)
    num_l, den_l = num.tolist(), den.tolist()
    for i in range(N):
        hl = int(lens[i])
        if hl == 0:
            out[i] = np.nan
            continue
        j = int(np.searchsorted(uniq, hl))
        if cnt[j] >= 2:
            rl = hl
        else:
            cands = []
            if j > 0:
                cands.append(int(uniq[j - 1]))
            if j + 1 < uniq.size:
                cands.append(int(uniq[j + 1]))
            rl = min(cands, key=lambda x: (abs(x - hl), x))
        if sorted_lens[-1] == 0:
            out[i] = np.nan
            continue
        p5 = Fraction(num_l[i][4], max(1, den_l[i][4])) if sm.method in (5, 7) else None
        out[i] = _combine(num_l[i][:nw], den_l[i][:nw], hl, rl, w, sm, False, hl, p5)
    return out


def tokenize_all(texts: Sequence[str], tokenizer: str = "auto", lower: bool = True) -> list[list[str]]:
    tok = get_tokenizer(tokenizer, lower)
    return [tok(t) for t in texts]


# --------------------------------------------------------------------------------------------------------------
# registered measures (creval evaluate --measures bleu,rouge,self_bleu)
# --------------------------------------------------------------------------------------------------------------

def _with_references(outputs, name: str) -> tuple[list[int], list[str]]:
    """Indices of outputs that have references; an InputError when none has any."""
    idx = [i for i, o in enumerate(outputs) if o.references]
    if not idx:
        raise InputError(
            f"measure {name!r} needs references: give each generation a 'references' list in the generations file"
        )
    notes = [f"{outputs[i].id!r} has no references: {name} undefined"
             for i in range(len(outputs)) if not outputs[i].references]
    return idx, notes


def _set_row(system: str, measure: str, value: float) -> dict[str, Any]:
    return {"system": system, "output_id": None, "input_id": None, "sample": None, "checkpoint": None,
            "artist": None, "measure": measure, "value": float(value)}


@register_measure
class BleuMeasure(Measure):
    """Sentence BLEU of each output against its references, and corpus BLEU per system (a set-level row)."""

    name = "bleu"
    description = ("BLEU against each output's references: nltk-identical (default: BLEU-4, smoothing method 4) "
                   "or sacrebleu-identical (mode=sacrebleu, 0-100); bleu per output, bleu_corpus per system")
    default = False

    def __init__(self, mode: str = "nltk", tokenizer: str = "auto", lower: bool = True,
                 weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25), smoothing: int = 4,
                 tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp") -> None:
        """``mode="nltk"``: creval tokenizer ``tokenizer``/``lower``, ``weights``, ``smoothing`` (0-7).
        ``mode="sacrebleu"``: sacrebleu's ``tokenize`` (13a, none, char), ``lowercase``, ``smooth_method``."""
        if mode not in ("nltk", "sacrebleu"):
            raise InputError(f"bleu mode must be 'nltk' or 'sacrebleu', not {mode!r}")
        if mode == "nltk":
            Smoothing(int(smoothing))
            get_tokenizer(tokenizer, lower)
            super().__init__(mode=mode, weights=tuple(_check_weights(weights)), smoothing=int(smoothing),
                             lower=bool(lower))
            self.tokenizer = tokenizer
        else:
            _sacre_tokenizer(tokenize)
            if smooth_method not in SACREBLEU_SMOOTH:
                raise InputError(f"smooth_method must be one of {', '.join(SACREBLEU_SMOOTH)}")
            super().__init__(mode=mode, lowercase=bool(lowercase), smooth_method=smooth_method)
            self.tokenizer = tokenize

    def score(self, outputs):
        idx, notes = _with_references(outputs, "bleu")
        values = np.full(len(outputs), np.nan)
        rows = []
        p = self.params
        if p["mode"] == "nltk":
            tok = get_tokenizer(self.tokenizer, p["lower"])
            hyps = [tok(outputs[i].text) for i in idx]
            refs = [[tok(r) for r in outputs[i].references] for i in idx]
            values[idx] = bleu_sentences(hyps, refs, p["weights"], p["smoothing"])
            groups: dict[str, list[int]] = {}
            for k, i in enumerate(idx):
                groups.setdefault(outputs[i].system, []).append(k)
            for system, ks in groups.items():
                rows.append(_set_row(system, "bleu_corpus", corpus_bleu([refs[k] for k in ks], [hyps[k] for k in ks],
                                                                       p["weights"], p["smoothing"])))
            sig = Signature("bleu", params={k: v for k, v in p.items()}, tokenizer=self.tokenizer)
            csig = Signature("bleu_corpus", params={k: v for k, v in p.items()}, tokenizer=self.tokenizer)
        else:
            hyps_s = [outputs[i].text for i in idx]
            refs_s = [list(outputs[i].references) for i in idx]
            values[idx] = sacrebleu_sentences(hyps_s, refs_s, self.tokenizer, p["lowercase"], p["smooth_method"])
            groups = {}
            for k, i in enumerate(idx):
                groups.setdefault(outputs[i].system, []).append(k)
            for system, ks in groups.items():
                res = sacrebleu_corpus([hyps_s[k] for k in ks], [refs_s[k] for k in ks], self.tokenizer,
                                       p["lowercase"], p["smooth_method"])
                rows.append(_set_row(system, "bleu_corpus", res.score))
            counts = {len(r) for r in refs_s}
            sacre_sig = sacrebleu_signature(counts.pop() if len(counts) == 1 else "var", p["lowercase"], False,
                                            self.tokenizer, p["smooth_method"], None)
            sig = Signature("bleu", params={**p, "eff": True, "scale": 100}, tokenizer=self.tokenizer)
            csig = Signature("bleu_corpus", params={**p, "sacrebleu": sacre_sig, "scale": 100},
                             tokenizer=self.tokenizer)
        for i in idx:
            if np.isnan(values[i]):
                notes.append(f"{outputs[i].id!r}: BLEU undefined (empty output or only empty references)")
        return MeasureResult(values={"bleu": values}, rows=rows,
                             signatures={"bleu": sig, "bleu_corpus": csig}, notes=notes)


@register_measure
class RougeMeasure(Measure):
    """ROUGE-1/2/L F of each output, summarised over its references."""

    name = "rouge"
    description = ("ROUGE-1/2/L F against each output's references (mode rouge-score or rouge; summary "
                   "max/mean/min over references): rouge1, rouge2, rougeL")
    default = False

    def __init__(self, mode: str = "rouge-score", tokenizer: str | None = "auto", summary: str = "max",
                 stat: str = "f", stem: bool = False) -> None:
        if mode not in ROUGE_MODES:
            raise InputError(f"rouge mode must be one of {', '.join(ROUGE_MODES)}, not {mode!r}")
        if summary not in SUMMARIES:
            raise InputError(f"summary must be one of {', '.join(SUMMARIES)}, not {summary!r}")
        if stat not in ("p", "r", "f"):
            raise InputError(f"stat must be p, r or f, not {stat!r}")
        if tokenizer is not None:
            get_tokenizer(tokenizer)
        if stem and (mode != "rouge-score" or tokenizer is not None):
            raise InputError("rouge stem=true needs mode=rouge-score and tokenizer=null (rouge-score's tokenizer)")
        super().__init__(mode=mode, summary=summary, stat=stat, stem=bool(stem))
        self.tokenizer = tokenizer

    def score(self, outputs):
        idx, notes = _with_references(outputs, "rouge")
        res = rouge([outputs[i].text for i in idx], [list(outputs[i].references) for i in idx],
                    mode=self.params["mode"], tokenizer=self.tokenizer, stem=self.params["stem"])
        values = {}
        sigs = {}
        tok = self.tokenizer or ("rouge-score-ascii" if self.params["mode"] == "rouge-score" else "rouge-split")
        for t in ROUGE_TYPES:
            v = np.full(len(outputs), np.nan)
            v[idx] = res.summary(t, self.params["stat"], self.params["summary"])
            values[t] = v
            sigs[t] = Signature(t, params=dict(self.params), tokenizer=tok)
        for i in idx:
            if np.isnan(values["rouge1"][i]):
                notes.append(f"{outputs[i].id!r}: ROUGE undefined (empty output or empty references)")
        return MeasureResult(values=values, signatures=sigs, notes=notes)


@register_measure
class SelfBleuMeasure(Measure):
    """Self-BLEU of each output against the other outputs of its system (and input, when ``by='input'``)."""

    name = "self_bleu"
    description = ("self-BLEU (Zhu et al. 2018): BLEU-4 (smoothing 1) of each output against the other outputs "
                   "of the same system (by=system) or of the same system and input (by=input); higher = less "
                   "diverse")
    default = False

    def __init__(self, by: str = "system", tokenizer: str = "auto", lower: bool = True,
                 weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25), smoothing: int = 1) -> None:
        if by not in ("system", "input"):
            raise InputError(f"self_bleu 'by' must be 'system' or 'input', not {by!r}")
        Smoothing(int(smoothing))
        get_tokenizer(tokenizer, lower)
        super().__init__(by=by, lower=lower, weights=tuple(_check_weights(weights)), smoothing=int(smoothing))
        self.tokenizer = tokenizer

    def score(self, outputs):
        tok = get_tokenizer(self.tokenizer, self.params["lower"])
        toks = [tok(o.text) for o in outputs]
        groups: dict[tuple, list[int]] = {}
        for i, o in enumerate(outputs):
            key = (o.system,) if self.params["by"] == "system" else (o.system, o.input_id)
            groups.setdefault(key, []).append(i)
        values = np.full(len(outputs), np.nan)
        rows = []
        notes = []
        for key, members in groups.items():
            vals = self_bleu([toks[i] for i in members], self.params["weights"], self.params["smoothing"])
            values[members] = vals
            if len(members) < 2:
                notes.append(f"self-BLEU undefined for group {key}: a single output")
            elif self.params["by"] == "system":
                rows.append(_set_row(key[0], "self_bleu_mean", float(np.nanmean(vals))
                                     if not np.isnan(vals).all() else np.nan))
        sigs = {"self_bleu": Signature("self_bleu", params=dict(self.params), tokenizer=self.tokenizer),
                "self_bleu_mean": Signature("self_bleu_mean", params=dict(self.params), tokenizer=self.tokenizer)}
        return MeasureResult(values={"self_bleu": values}, rows=rows, signatures=sigs, notes=notes)
