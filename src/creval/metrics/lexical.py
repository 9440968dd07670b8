"""Lexical diversity: TTR and its length-corrected relatives, MATTR, MSTTR, HD-D, MTLD and moving-average MTLD.

Every function takes a token sequence (``list[str]`` or any sequence of hashables) and a ``mode``:

- ``mode="creval"`` (default): a value that is undefined for the input is ``NaN`` (never a silent zero); the
  reason is returned by :func:`undefined_reason` and put in the measure's notes.
- ``mode="kyle"``: the exact numbers of Kristopher Kyle's ``lexical_diversity`` package 0.1.1 (``lex_div``),
  edge cases included: where his code divides by zero it returns 0 (his ``safe_divide``), and HD-D of a text
  shorter than the sample is 0. The one place his code raises (``log_ttr``/``maas_ttr`` of an empty text,
  ``math domain error``) gives NaN here.

Definitions shared by both modes (they are Kyle's, which follow the cited papers):

- texts no longer than the MATTR window / MSTTR segment fall back to the TTR of the whole text;
- MSTTR drops the incomplete last segment;
- MTLD factors need at least ``min_length`` = 10 tokens (Kyle's addition to McCarthy & Jarvis 2010); the
  original MTLD adds a partial factor for the remainder, the moving-average variants do not.

Speed: all functions are O(n) (HD-D O(n + distinct frequencies · sample)), except the moving-average MTLD,
which is O(n + Σ factor lengths): every start position is advanced in one vectorised sweep with integer type
counts, and a start that provably cannot complete a factor is dropped early. Kyle's moving-average MTLD
rebuilds a ``set`` at every step from every start (cubic).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from creval.corpus.model import Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer

MODES = ("creval", "kyle")

#: Reported names of the ``lexical_diversity`` measure, in order.
REPORTED = (
    "ttr",
    "root_ttr",
    "log_ttr",
    "maas",
    "msttr",
    "mattr",
    "hdd",
    "mtld",
    "mtld_ma_bid",
    "mtld_ma_wrap",
)

_NAN = float("nan")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")


def _undefined(mode: str) -> float:
    """Kyle's ``safe_divide`` returns 0 on a zero denominator; creval returns NaN."""
    return 0.0 if mode == "kyle" else _NAN


def _ids(tokens: Sequence[Hashable]) -> np.ndarray:
    """Dense integer ids of the tokens (first-seen order)."""
    table: dict[Hashable, int] = {}
    return np.fromiter((table.setdefault(t, len(table)) for t in tokens), dtype=np.int64, count=len(tokens))


def _prev_occurrence(ids: np.ndarray) -> np.ndarray:
    """``prev[j]`` = largest i < j with ids[i] == ids[j], else -1 (O(n log n) by a stable sort)."""
    n = len(ids)
    prev = np.full(n, -1, dtype=np.int64)
    if n < 2:
        return prev
    order = np.argsort(ids, kind="stable")
    same = ids[order[1:]] == ids[order[:-1]]
    prev[order[1:][same]] = order[:-1][same]
    return prev


# ----------------------------------------------------------------------------------------------- simple ratios


def ttr(tokens: Sequence[Hashable], mode: str = "creval") -> float:
    r"""Type-token ratio :math:`\mathrm{TTR} = V / N` (Templin 1957), V types, N tokens.

    Empty text: NaN (creval) or 0 (kyle).
    """
    _check_mode(mode)
    n = len(tokens)
    if n == 0:
        return _undefined(mode)
    return len(set(tokens)) / n


def root_ttr(tokens: Sequence[Hashable], mode: str = "creval") -> float:
    r"""Root TTR (Guiraud 1954): :math:`R = V / \sqrt{N}`. Empty text: NaN (creval) or 0 (kyle)."""
    _check_mode(mode)
    n = len(tokens)
    if n == 0:
        return _undefined(mode)
    return len(set(tokens)) / math.sqrt(n)


def log_ttr(tokens: Sequence[Hashable], mode: str = "creval") -> float:
    r"""Log TTR (Herdan 1960): :math:`C = \log_{10} V / \log_{10} N`.

    Undefined for N = 1 (log N = 0: NaN in creval mode, 0 in kyle mode) and for an empty text (NaN in both
    modes; Kyle's function raises ``ValueError: math domain error`` there).
    """
    _check_mode(mode)
    n = len(tokens)
    if n == 0:
        return _NAN
    num = math.log10(len(set(tokens)))
    den = math.log10(n)
    if den == 0:
        return _undefined(mode)
    return num / den


def maas(tokens: Sequence[Hashable], mode: str = "creval") -> float:
    r"""Maas's index (Maas 1972), Kyle's "Mass TTR": :math:`a^2 = (\log_{10} N - \log_{10} V) / (\log_{10} N)^2`.

    Lower is more diverse; 0 for a text whose tokens are all different. Undefined for N = 1 (NaN in creval
    mode, 0 in kyle mode) and for an empty text (NaN in both; Kyle's function raises there).
    """
    _check_mode(mode)
    n = len(tokens)
    if n == 0:
        return _NAN
    log_n = math.log10(n)
    num = log_n - math.log10(len(set(tokens)))
    den = math.pow(log_n, 2)
    if den == 0:
        return _undefined(mode)
    return num / den


mass_ttr = maas
"""Alias: Kyle's README calls Maas's index "Mass TTR"."""


# ---------------------------------------------------------------------------------------------- windowed TTRs


def mattr(tokens: Sequence[Hashable], window: int = 50, mode: str = "creval") -> float:
    r"""Moving-average TTR (Covington & McFall 2010): the mean TTR of every window of ``window`` tokens,

    .. math:: \mathrm{MATTR}_W = \frac{1}{N-W+1} \sum_{s=0}^{N-W} \frac{V(t_s \ldots t_{s+W-1})}{W}.

    A text of at most ``window`` tokens gets the TTR of the whole text (Kyle's definition). O(n): the number
    of repeated tokens in window s is the number of consecutive-occurrence pairs (p, j) with s ≤ p and
    j < s + W, accumulated with a difference array. The window TTRs are summed left to right, as Kyle does.
    """
    _check_mode(mode)
    if window < 1:
        raise ValueError("window must be at least 1")
    n = len(tokens)
    if n < window + 1:
        return ttr(tokens, mode)
    ids = _ids(tokens)
    prev = _prev_occurrence(ids)
    j = np.nonzero((prev >= 0) & (np.arange(n) - prev < window))[0]
    p = prev[j]
    n_win = n - window + 1
    diff = np.zeros(n_win + 1, dtype=np.int64)
    np.add.at(diff, np.maximum(j - window + 1, 0), 1)
    np.add.at(diff, np.minimum(p + 1, n_win), -1)
    repeats = np.cumsum(diff[:n_win])
    per_window = (window - repeats) / float(window)
    return float(np.cumsum(per_window)[-1]) / n_win


def msttr(tokens: Sequence[Hashable], segment: int = 50, mode: str = "creval") -> float:
    r"""Mean segmental TTR (Johnson 1944): the mean TTR of consecutive non-overlapping segments of ``segment``
    tokens; the incomplete last segment is dropped. A text of at most ``segment`` tokens gets the TTR of the
    whole text (Kyle's definition)."""
    _check_mode(mode)
    if segment < 1:
        raise ValueError("segment must be at least 1")
    n = len(tokens)
    if n < segment + 1:
        return ttr(tokens, mode)
    n_seg = n // segment
    total = 0.0
    for start in range(0, n_seg * segment, segment):  # one pass; segments summed left to right as Kyle does
        total += len(set(tokens[start : start + segment])) / segment
    return total / n_seg


def hdd(tokens: Sequence[Hashable], sample: int = 42, mode: str = "creval") -> float:
    r"""HD-D (McCarthy & Jarvis 2007; 2010, eq. in §2.3): the expected TTR of a random sample of ``sample``
    tokens drawn without replacement,

    .. math:: \mathrm{HD\text{-}D} = \sum_{w} \frac{1}{S}\Big(1 - \frac{\binom{N-f_w}{S}}{\binom{N}{S}}\Big),

    :math:`f_w` the frequency of type w. Computed once per distinct frequency with exact binomials. Undefined
    for N < S: NaN (creval) or 0 (kyle, his ``ZeroDivisionError`` branch). Kyle divides the two binomials as
    floats; creval mode divides the exact integers (no overflow, correctly rounded).
    """
    _check_mode(mode)
    n = len(tokens)
    if n == 0:
        return 0.0 if mode == "kyle" else _NAN
    if n < sample:
        return _undefined(mode)
    _, counts = np.unique(_ids(tokens), return_counts=True)
    freqs, n_types = np.unique(counts, return_counts=True)
    total_choose = math.comb(n, sample)
    per_type = np.empty(len(freqs))
    for i, f in enumerate(freqs.tolist()):
        miss = math.comb(n - f, sample)
        ratio = float(miss) / float(total_choose) if mode == "kyle" else miss / total_choose
        per_type[i] = (1.0 - ratio) * (1 / sample)
    return float(np.cumsum(np.repeat(per_type, n_types))[-1])


# ------------------------------------------------------------------------------------------------------- MTLD


def _mtld_one_way(ids: np.ndarray, threshold: float, min_length: int) -> tuple[float, float]:
    """Factor count and factor lengths of one pass of MTLD (McCarthy & Jarvis 2010, §2.4), O(n)."""
    n = len(ids)
    seen = np.zeros(int(ids.max()) + 1 if n else 0, dtype=bool)
    touched: list[int] = []
    factor = 0.0
    lengths = 0.0
    types = 0
    length = 0
    for x, t in enumerate(ids.tolist()):
        length += 1
        if not seen[t]:
            seen[t] = True
            touched.append(t)
            types += 1
        ratio = types / length
        if x + 1 == n:
            factor += (1 - ratio) / (1 - threshold)
            lengths += length
        elif ratio < threshold and length >= min_length:
            factor += 1
            lengths += length
            seen[touched] = False
            touched.clear()
            types = 0
            length = 0
    return factor, lengths


def mtld(
    tokens: Sequence[Hashable], threshold: float = 0.72, min_length: int = 10, mode: str = "creval"
) -> float:
    r"""MTLD (McCarthy & Jarvis 2010, §2.4): the mean length of sequential token runs ("factors") whose TTR
    stays at or above ``threshold``,

    .. math:: \mathrm{MTLD} = \frac{1}{2}\Big(\frac{N}{F_\rightarrow} + \frac{N}{F_\leftarrow}\Big),

    F the number of factors read forwards / backwards, the last run counting as the partial factor
    (1 − TTR_rest) / (1 − threshold). A factor closes when its TTR falls below the threshold and it has at least
    ``min_length`` tokens (Kyle's rule). Undefined when F = 0, i.e. every token differs: NaN (creval) or 0 (kyle).
    """
    _check_mode(mode)
    ids = _ids(tokens)
    if len(ids) == 0:
        return _undefined(mode)
    vals = []
    for seq in (ids, ids[::-1]):
        factor, lengths = _mtld_one_way(seq, threshold, min_length)
        if factor == 0:
            if mode != "kyle":
                return _NAN
            vals.append(0.0)
        else:
            vals.append(lengths / factor)
    return (vals[0] + vals[1]) / 2


def _ma_factors(ids: np.ndarray, n_starts: int, threshold: float, min_length: int) -> tuple[int, int]:
    """Moving-average MTLD core: from every start x < n_starts, the first end e such that ids[x..e] has at least
    ``min_length`` tokens and TTR < threshold. Returns (number of starts that closed a factor, Σ factor lengths).

    One vectorised sweep over the offset d = e − x, with the type count of every live start updated by
    "is ids[x+d] new since x" ⇔ prev[x+d] < x. A live start is dropped once even turning every remaining
    repeated position of the text into a repeat of its factor could not bring its TTR below the threshold:
    t / (l + R) ≥ threshold, R = repeated positions after the current one (a sound bound, see module notes).
    """
    m = len(ids)
    prev = _prev_occurrence(ids)
    # repeats_after[p] = number of positions j > p with prev[j] >= 0
    rep = (prev >= 0).astype(np.int64)
    repeats_after = np.concatenate([np.cumsum(rep[::-1])[::-1][1:], [0]])
    active = np.arange(n_starts, dtype=np.int64)
    types = np.zeros(n_starts, dtype=np.int64)
    factors = 0
    total = 0
    d = 0
    while active.size:
        pos = active + d
        inside = pos < m
        if not inside.all():
            active, types, pos = active[inside], types[inside], pos[inside]
            if not active.size:
                break
        types += prev[pos] < active
        length = d + 1
        if length >= min_length:
            done = (types / length) < threshold
            k = int(np.count_nonzero(done))
            if k:
                factors += k
                total += k * length
                keep = ~done
                active, types, pos = active[keep], types[keep], pos[keep]
            if active.size and (d & 15) == 15:
                hopeless = types / (length + repeats_after[pos]) >= threshold + 1e-9
                if hopeless.any():
                    keep = ~hopeless
                    active, types = active[keep], types[keep]
        d += 1
    return factors, total


def mtld_ma_bid(
    tokens: Sequence[Hashable], threshold: float = 0.72, min_length: int = 10, mode: str = "creval"
) -> float:
    r"""Bidirectional moving-average MTLD (Kyle's ``mtld_ma_bid``, after McCarthy & Jarvis 2010 §2.4.1):
    from every start position, the length of the first run (≥ ``min_length`` tokens) whose TTR falls below
    ``threshold``; runs that reach the end of the text unclosed are left out (no partial factors). MTLD-MA is
    Σ lengths / number of closed runs, averaged over the forward and the reversed text. Undefined when no run
    closes (short or all-different texts): NaN (creval) or 0 (kyle). Both directions see the same set of
    contiguous runs, so they are defined together.
    """
    _check_mode(mode)
    ids = _ids(tokens)
    n = len(ids)
    vals = []
    for seq in (ids, ids[::-1]):
        factors, total = _ma_factors(seq, n, threshold, min_length)
        if factors == 0:
            if mode != "kyle":
                return _NAN
            vals.append(0.0)
        else:
            vals.append(total / factors)
    return (vals[0] + vals[1]) / 2


def mtld_ma_wrap(
    tokens: Sequence[Hashable], threshold: float = 0.72, min_length: int = 10, mode: str = "creval"
) -> float:
    r"""Wrap-around moving-average MTLD (Kyle's ``mtld_ma_wrap``): as :func:`mtld_ma_bid` read forwards only,
    but a run that reaches the end continues from the start of the text (the text is read twice), so every start
    can close a factor. Undefined when none closes: NaN (creval) or 0 (kyle)."""
    _check_mode(mode)
    ids = _ids(tokens)
    n = len(ids)
    factors, total = _ma_factors(np.concatenate([ids, ids]), n, threshold, min_length)
    if factors == 0:
        return _undefined(mode)
    return total / factors


# ------------------------------------------------------------------------------------------------- reasons


def undefined_reason(name: str, n_tokens: int, n_types: int, window: int = 50, sample: int = 42) -> str:
    """Why a creval-mode value is NaN (for the measure's notes)."""
    if n_tokens == 0:
        return "empty text (no tokens)"
    if name in ("log_ttr", "maas") and n_tokens == 1:
        return "one token: log N = 0"
    if name == "hdd" and n_tokens < sample:
        return f"fewer tokens ({n_tokens}) than the HD-D sample ({sample})"
    if name == "mtld" and n_types == n_tokens:
        return "every token differs: no MTLD factor closes"
    if name.startswith("mtld_ma"):
        return "no run of ≥ min_length tokens falls below the TTR threshold"
    return "undefined"


def lexical_diversity(
    tokens: Sequence[Hashable],
    *,
    mode: str = "creval",
    window: int = 50,
    segment: int = 50,
    sample: int = 42,
    threshold: float = 0.72,
    min_length: int = 10,
) -> dict[str, float]:
    """All the measures of this module for one token sequence, keyed by :data:`REPORTED` names."""
    return {
        "ttr": ttr(tokens, mode),
        "root_ttr": root_ttr(tokens, mode),
        "log_ttr": log_ttr(tokens, mode),
        "maas": maas(tokens, mode),
        "msttr": msttr(tokens, segment, mode),
        "mattr": mattr(tokens, window, mode),
        "hdd": hdd(tokens, sample, mode),
        "mtld": mtld(tokens, threshold, min_length, mode),
        "mtld_ma_bid": mtld_ma_bid(tokens, threshold, min_length, mode),
        "mtld_ma_wrap": mtld_ma_wrap(tokens, threshold, min_length, mode),
    }


@register_measure
class LexicalDiversityMeasure(Measure):
    """Lexical diversity of each output (see the module docstring for every definition)."""

    name = "lexical_diversity"
    description = (
        "TTR, root TTR, log TTR (Herdan), Maas, MSTTR-50, MATTR-50, HD-D-42, MTLD-0.72, MTLD-MA bid/wrap"
    )

    def __init__(
        self,
        tokenizer: str = "auto",
        lower: bool = True,
        mode: str = "creval",
        window: int = 50,
        segment: int = 50,
        sample: int = 42,
        threshold: float = 0.72,
        min_length: int = 10,
    ) -> None:
        _check_mode(mode)
        super().__init__(
            tokenizer=tokenizer,
            lower=lower,
            mode=mode,
            window=window,
            segment=segment,
            sample=sample,
            threshold=threshold,
            min_length=min_length,
        )
        self._tok = get_tokenizer(tokenizer, lower)

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        own = {"lower": p["lower"], "mode": p["mode"]}
        extra = {
            "msttr": {"segment": p["segment"]},
            "mattr": {"window": p["window"]},
            "hdd": {"sample": p["sample"]},
            "mtld": {"threshold": p["threshold"], "min": p["min_length"]},
            "mtld_ma_bid": {"threshold": p["threshold"], "min": p["min_length"]},
            "mtld_ma_wrap": {"threshold": p["threshold"], "min": p["min_length"]},
        }.get(reported_name or "", {})
        return Signature(reported_name or self.name, params={**own, **extra}, tokenizer=p["tokenizer"])

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        p = self.params
        values = {name: np.full(len(outputs), np.nan) for name in REPORTED}
        notes: list[str] = []
        for i, out in enumerate(outputs):
            toks = self._tok(out.text)
            row = lexical_diversity(
                toks,
                mode=p["mode"],
                window=p["window"],
                segment=p["segment"],
                sample=p["sample"],
                threshold=p["threshold"],
                min_length=p["min_length"],
            )
            undefined = []
            for name, value in row.items():
                values[name][i] = value
                if math.isnan(value):
                    undefined.append(name)
            if undefined:
                reason = "; ".join(
                    sorted(
                        {
                            undefined_reason(n, len(toks), len(set(toks)), p["window"], p["sample"])
                            for n in undefined
                        }
                    )
                )
                notes.append(
                    f"lexical_diversity: {', '.join(undefined)} undefined for output {out.id!r}: {reason}"
                )
        return MeasureResult(
            values=values, signatures={name: self.signature(name) for name in REPORTED}, notes=notes
        )
