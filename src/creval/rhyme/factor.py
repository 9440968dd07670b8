"""Rhyme factor (Malmi et al. 2016, "DopeLearning: a computational approach to rap lyrics generation", and
their *Raplyzer* tool).

Each word is reduced to its vowels and the verse to one vowel stream. For word :math:`w_i` ending at vowel
position :math:`p_i`, the rhyme length against an earlier word :math:`w_m` (one of the ``lookback`` = 15 words
before it) is the number of vowels that agree going backward from both word ends:

.. math::

    \\ell(m, i) = \\max\\{\\,l : V_{p_m - t} = V_{p_i - t}\\ \\forall t < l\\,\\},\\quad
    l \\le p_i - p_m,\\ l \\le p_m + 1

(so a rhyme may reach back across word boundaries, but the two halves never overlap, and it stops before a
pair of identical earlier words, so a repeated phrase is not a long rhyme); identical rhyme-final words and
rhymes of length 1 count 0. The word's rhyme length is :math:`\\max_m \\ell(m, i)` and the verse's rhyme
factor is the mean over its words after the first:

.. math::

    \\mathrm{RF} = \\frac{1}{W-1} \\sum_{i=2}^{W} \\max_{i-15 \\le m < i} \\ell(m, i)

Two transcriptions:

* ``mode="cmudict"`` (default): ARPAbet vowels from :func:`creval.phonetics.pronounce` (stress ignored,
  AO/AA merged); identical words are compared by spelling.
* ``mode="espeak"``: the original tool's conventions, for numbers comparable with it: espeak-ng's ASCII
  phonemes (``espeak -x``) with its vowel letters ``3L5aAeEiI0VuUoO`` (schwa ``@`` ignored), ``0``/``O`` → ``o``,
  ``I`` → ``i``, ``E`` → ``e``, a repeated vowel letter counted once, duplicate lines removed first, and words
  compared by their phonetic spelling up to the last vowel. Diphthongs count as two vowels there, as in the
  tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from creval.phonetics import pronounce_many
from creval.phonetics.arpabet import VOWELS, base
from creval.rhyme.text import words

LOOKBACK = 15
_ESPEAK_VOWELS = set("3L5aAeEiI0VuUoO")
_ESPEAK_MAP = {"0": "o", "O": "o", "I": "i", "E": "e"}
_VMERGE = {"AO": "AA"}


@dataclass
class FactorResult:
    """Rhyme factor of a verse; ``lengths``: each word's rhyme length (first word excluded); ``partner``: the
    index of the earlier word it rhymes with (-1 for none); ``reason``: why the value is NaN."""

    rhyme_factor: float
    n_words: int
    lengths: np.ndarray
    partner: np.ndarray
    words: list[str]
    mode: str = "cmudict"
    reason: str = ""


def _cmudict_stream(lines: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    toks = [w for line in lines for w in words(line)]
    prons = pronounce_many(toks)
    kept: list[str] = []
    vowels: list[list[str]] = []
    for tok, pron in zip(toks, prons):
        vs = [_VMERGE.get(base(p), base(p)) for p in pron.phones if base(p) in VOWELS]
        if vs:
            kept.append(tok.lower())
            vowels.append(vs)
    return kept, vowels


def _espeak_stream(lines: Sequence[str]) -> tuple[list[str], list[list[str]], list[str]]:
    from creval.phonetics.g2p import espeak_ascii

    seen: set[str] = set()
    uniq: list[str] = []
    for line in lines:
        clean = re.sub(r"[^\w'\u2019\n]+", " ", line).strip()
        if clean and clean in seen:
            continue
        seen.add(clean)
        if clean:
            uniq.append(clean)
    kept: list[str] = []
    vowels: list[list[str]] = []
    full: list[str] = []
    for line in uniq:
        phon = espeak_ascii(line).replace("'", "").replace(",", "")
        for word in phon.split():
            vs: list[str] = []
            last = -1
            for i, ch in enumerate(word):
                c = _ESPEAK_MAP.get(ch, ch)
                if c in _ESPEAK_VOWELS or c in "oie":
                    last = i
                    # a vowel letter repeated (the raw letter before equals this mapped one) counts once
                    if i > 0 and word[i - 1] == c:
                        continue
                    vs.append(c)
            if vs:
                kept.append(word[: last + 1])
                vowels.append(vs)
                full.append(word)
    return kept, vowels, full


def rhyme_factor(
    verse_text: str | Sequence[str], *, lookback: int = LOOKBACK, mode: str = "cmudict"
) -> FactorResult:
    """Rhyme factor of a verse (Malmi et al. 2016); see the module docstring. NaN with a reason when the verse
    has fewer than two words with a vowel."""
    if mode not in ("cmudict", "espeak"):
        raise ValueError(f"mode must be 'cmudict' or 'espeak', not {mode!r}")
    if lookback < 1:
        raise ValueError("lookback must be at least 1")
    lines = verse_text.split("\n") if isinstance(verse_text, str) else list(verse_text)
    if mode == "cmudict":
        kept, vowel_lists = _cmudict_stream(lines)
        return factor_from_vowels(kept, vowel_lists, lookback=lookback, mode=mode)
    kept, vowel_lists, full = _espeak_stream(lines)
    return factor_from_vowels(kept, vowel_lists, lookback=lookback, mode=mode, full_words=full)


def factor_from_vowels(
    kept: Sequence[str],
    vowel_lists: Sequence[Sequence[str]],
    *,
    lookback: int = LOOKBACK,
    mode: str = "cmudict",
    full_words: Sequence[str] | None = None,
) -> FactorResult:
    """Rhyme factor from words and their vowel sequences, vectorised over all (word, earlier word) pairs.

    ``kept`` decides whether two rhyme-final words are identical (such a pair scores 0); ``full_words``
    (default ``kept``) decides whether two *earlier* words a rhyme reaches back through are identical: a rhyme
    stops before a pair of identical earlier words, as in Raplyzer (``I got money`` / ``I got honey`` rhymes
    money/honey, not the repeated ``I got``)."""
    kept = list(kept)
    full = list(full_words) if full_words is not None else kept
    W = len(kept)
    if W < 2:
        empty = np.zeros(0, dtype=np.int64)
        reason = "fewer than two words with a vowel"
        return FactorResult(float("nan"), W, empty, empty.copy(), kept, mode, reason)
    codes: dict[str, int] = {}
    stream = np.fromiter((codes.setdefault(v, len(codes)) for vs in vowel_lists for v in vs), dtype=np.int64)
    n_vowels = np.array([len(vs) for vs in vowel_lists])
    ends = np.cumsum(n_vowels) - 1
    word_ids = {w: i for i, w in enumerate(dict.fromkeys(kept))}
    wid = np.array([word_ids[w] for w in kept])
    full_ids = {w: i for i, w in enumerate(dict.fromkeys(full))}
    fid = np.array([full_ids[w] for w in full])
    vowel_word = np.repeat(fid, n_vowels)  # full-word id of the word each vowel belongs to

    # pairs (m, i): word i against each of the lookback words before it
    i_idx = np.arange(1, W)[:, None]
    m_idx = i_idx - np.arange(1, lookback + 1)[None, :]
    ok = m_idx >= 0
    mc = np.where(ok, m_idx, 0)
    p1 = ends[mc]
    p2 = np.broadcast_to(ends[i_idx], p1.shape)
    d = p2 - p1
    dmax = int(d[ok].max()) if ok.any() else 1
    # per vowel offset: run[d-1, p] = consecutive equal vowels ending at (p, p + d) going backward;
    # back[d-1, p] = distance back from p to the nearest q <= p whose words at (q, q + d) are identical
    n = stream.size
    idx = np.arange(n)
    big = n + 1
    run = np.zeros((dmax, n), dtype=np.int64)
    back = np.full((dmax, n), big, dtype=np.int64)
    for off in range(1, dmax + 1):
        eq = np.zeros(n, dtype=bool)
        eq[: n - off] = stream[: n - off] == stream[off:]
        last_false = np.maximum.accumulate(np.where(~eq, idx, -1))
        run[off - 1] = np.where(eq, idx - last_false, 0)
        same = np.zeros(n, dtype=bool)
        same[: n - off] = vowel_word[: n - off] == vowel_word[off:]
        last_same = np.maximum.accumulate(np.where(same, idx, -big))
        back[off - 1] = np.minimum(idx - last_same, big)
    dc = np.clip(d, 1, dmax)
    # blocking starts once both sides have left their own words: t >= max(vowels of m, vowels of i)
    reach = np.maximum(n_vowels[mc], np.broadcast_to(n_vowels[i_idx], mc.shape))
    q = p1 - reach
    blocked_at = np.where(q >= 0, back[dc - 1, np.maximum(q, 0)] + reach, big)
    length = np.minimum.reduce([run[dc - 1, p1], blocked_at, d, p1 + 1])
    length = np.where(ok & (d >= 1) & (wid[mc] != wid[i_idx]), length, 0)
    length[length == 1] = 0
    best = length.max(axis=1)
    partner = np.where(best > 0, mc[np.arange(W - 1), length.argmax(axis=1)], -1)
    return FactorResult(float(best.mean()), W, best, partner, kept, mode)
