"""Rhyme density (Hirjee & Brown 2010) and its entropy-weighted form (Potash et al. 2016).

Hirjee & Brown transcribe a verse into syllables and detect rhymes between syllables of a line and of the
line before, single stressed syllables as well as multi-syllable runs; *rhyme density* is the share of
syllables that take part in a rhyme. Their detector scores syllable pairs with log-odds matrices learned from
annotated lyrics, which are not public; creval scores pairs with an explicit similarity instead:

.. math::

    s(x, y) = v(x, y) \\cdot \\bigl(\\tfrac12 + \\tfrac12\\, c(x, y)\\bigr)

with vowel similarity :math:`v` = 1 for the same vowel (AO/AA merged; unstressed AH/IH/UH are all schwa),
0.75 for a near pair (AA–AH, AE–EH, EH–IH, IH–IY, EH–EY, UH–UW, AH–UH), else 0; and coda similarity
:math:`c` = 1 for identical codas, 0.75 when the codas have the same consonant manner classes in the same order
(``G`` ~ ``K``, ``N T`` ~ ``M P``), 0.4 when one is empty and the other not, else 0.2. Two syllables *match*
when :math:`s \\ge \\theta` (default 0.75: the same vowel with related codas, or a near vowel with the same
coda).

Rhymes are runs of matches along a diagonal — syllables :math:`j, j+1, …` against :math:`k, k+1, …` — inside
the window of H&B: the partner :math:`j` lies in the same line as :math:`k` or in the line before, in a
different word, at most ``max_offset`` syllables back (64 by default, which bounds the cost on pathological
input such as a 50,000-word line). A run counts as a rhyme when it contains a pair of stressed syllables;
unstressed matches before its first stressed pair are dropped (a rhyme starts on a stressed syllable).
Runs do not cross line ends.

* ``rhyme_density`` = rhymed syllables / all syllables (H&B 2010, "Rhyme Density", Table 1).
* ``end_rhymes_per_line`` = lines whose last syllable rhymes with the last syllable of the line before,
  / number of lines.
* ``multisyllable_share`` = rhymes of two or more syllables / all rhymes.
* ``rhyme_density_weighted`` = density × :math:`H / N` with :math:`H` the entropy (bits) of the verse's word
  distribution and :math:`N` its number of words, as Potash et al. (2016, §5.2) word it (``weighting=
  "paper"``); ``weighting="normalised"`` uses :math:`H / \\log_2 N` instead, which lies in [0, 1].
  Repeating a line leaves the density high but lowers :math:`H/N`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from creval.phonetics import pronounce_many
from creval.phonetics.arpabet import MANNER
from creval.rhyme.text import words

THRESHOLD = 0.75
MAX_OFFSET = 64

# --- vowel similarity ----------------------------------------------------------------------------------
_VOWELS = ["AA", "AE", "AH", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]
_VID = {v: i for i, v in enumerate(_VOWELS)}
_VID["AO"] = _VID["AA"]
_NEAR = [("AA", "AH"), ("AE", "EH"), ("EH", "IH"), ("IH", "IY"), ("EH", "EY"), ("UH", "UW"), ("AH", "UH")]
VOWEL_SIM = np.zeros((len(_VOWELS), len(_VOWELS)), dtype=np.float32)
np.fill_diagonal(VOWEL_SIM, 1.0)
for _a, _b in _NEAR:
    VOWEL_SIM[_VID[_a], _VID[_b]] = VOWEL_SIM[_VID[_b], _VID[_a]] = 0.75
_REDUCED = {"AH", "IH", "UH"}

# --- coda interning ------------------------------------------------------------------------------------
_CODA_ID: dict[tuple[str, ...], int] = {(): 0}
_CLASS_ID: dict[tuple[str, ...], int] = {(): 0}
# per-word features: (vowel ids, coda ids, coda class ids, coda lengths, stressed flags)
_WORD_FEATS: dict[str, tuple[list[int], list[int], list[int], list[int], list[bool]]] = {}


def _intern(table: dict[tuple[str, ...], int], key: tuple[str, ...]) -> int:
    got = table.get(key)
    if got is None:
        got = table[key] = len(table)
    return got


def _features(tokens: Sequence[str]) -> list[tuple[list[int], list[int], list[int], list[int], list[bool]]]:
    missing = [t for t in dict.fromkeys(tokens) if t not in _WORD_FEATS]
    if missing:
        for tok, pron in zip(missing, pronounce_many(missing)):
            vs, cs, ms, ls, ss = [], [], [], [], []
            for syl in pron.syllables:
                vowel = "AH" if syl.stress == 0 and syl.nucleus in _REDUCED else syl.nucleus
                vs.append(_VID[vowel])
                cs.append(_intern(_CODA_ID, syl.coda))
                ms.append(_intern(_CLASS_ID, tuple(MANNER[c] for c in syl.coda)))
                ls.append(len(syl.coda))
                ss.append(syl.stress > 0)
            _WORD_FEATS[tok] = (vs, cs, ms, ls, ss)
    return [_WORD_FEATS[t] for t in tokens]


@dataclass
class Transcription:
    """A verse as syllables: per-syllable vowel, coda, coda class, stress, word and line, as arrays."""

    tokens: list[str]
    token_line: np.ndarray
    vowel: np.ndarray
    coda: np.ndarray
    coda_class: np.ndarray
    coda_len: np.ndarray
    stressed: np.ndarray
    word: np.ndarray
    line: np.ndarray
    n_lines: int

    @property
    def n(self) -> int:
        return int(self.vowel.shape[0])


def transcribe(lines: Sequence[str]) -> Transcription:
    """Syllable transcription of a verse (one entry per line; blank lines are skipped)."""
    tokens: list[str] = []
    token_line: list[int] = []
    kept = 0
    for raw in lines:
        ws = words(raw)
        if not ws:
            continue
        tokens.extend(ws)
        token_line.extend([kept] * len(ws))
        kept += 1
    feats = _features(tokens)
    v: list[int] = []
    c: list[int] = []
    m: list[int] = []
    ln: list[int] = []
    s: list[bool] = []
    w: list[int] = []
    li: list[int] = []
    for i, (fv, fc, fm, fl, fs) in enumerate(feats):
        if not fv:
            continue
        v.extend(fv)
        c.extend(fc)
        m.extend(fm)
        ln.extend(fl)
        s.extend(fs)
        w.extend([i] * len(fv))
        li.extend([token_line[i]] * len(fv))
    return Transcription(
        tokens=tokens,
        token_line=np.asarray(token_line, dtype=np.int32),
        vowel=np.asarray(v, dtype=np.intp),
        coda=np.asarray(c, dtype=np.int32),
        coda_class=np.asarray(m, dtype=np.int32),
        coda_len=np.asarray(ln, dtype=np.int16),
        stressed=np.asarray(s, dtype=bool),
        word=np.asarray(w, dtype=np.int32),
        line=np.asarray(li, dtype=np.int32),
        n_lines=kept,
    )


@dataclass
class DensityResult:
    """Rhyme density of one verse with the values it is built from.

    ``rhymed``: per syllable, whether it takes part in a rhyme; ``pairs``: (j, k) syllable index pairs of the
    detected rhymes; ``reason``: why the values are NaN (empty verse, nothing pronounceable), else "".
    """

    rhyme_density: float
    rhyme_density_weighted: float
    end_rhymes_per_line: float
    multisyllable_share: float
    n_syllables: int
    n_rhymed: int
    n_rhymes: int
    n_lines: int
    n_tokens: int
    entropy: float
    weighting: str = "paper"
    reason: str = ""
    transcription: Transcription | None = field(default=None, repr=False)
    rhymed: np.ndarray | None = field(default=None, repr=False)
    pairs: np.ndarray | None = field(default=None, repr=False)
    run_lengths: np.ndarray | None = field(default=None, repr=False)

    def values(self) -> dict[str, float]:
        """The four reported values by name."""
        return {
            "rhyme_density": self.rhyme_density,
            "rhyme_density_weighted": self.rhyme_density_weighted,
            "end_rhymes_per_line": self.end_rhymes_per_line,
            "multisyllable_share": self.multisyllable_share,
        }


def token_entropy(tokens: Iterable[str]) -> tuple[float, int]:
    """Shannon entropy (bits) of the lower-cased word distribution, and the number of words."""
    counts = Counter(t.lower() for t in tokens)
    n = sum(counts.values())
    if n == 0:
        return float("nan"), 0
    p = np.fromiter(counts.values(), dtype=float, count=len(counts)) / n
    return float(-(p * np.log2(p)).sum()), n


def entropy_weight(entropy: float, n_tokens: int, weighting: str = "paper") -> float:
    """Potash et al. (2016) weight: :math:`H/N` (``"paper"``) or :math:`H/\\log_2 N` (``"normalised"``,
    1 for a one-word verse)."""
    if n_tokens == 0:
        return float("nan")
    if weighting == "paper":
        return entropy / n_tokens
    if weighting == "normalised":
        return entropy / math.log2(n_tokens) if n_tokens > 1 else 1.0
    raise ValueError(f"weighting must be 'paper' or 'normalised', not {weighting!r}")


def _nan_result(
    reason: str, n_lines: int, n_tokens: int, weighting: str, tr: Transcription | None
) -> DensityResult:
    nan = float("nan")
    return DensityResult(nan, nan, nan, nan, 0, 0, 0, n_lines, n_tokens, nan, weighting, reason, tr)


def rhyme_density(
    verse_text: str | Sequence[str],
    *,
    threshold: float = THRESHOLD,
    max_offset: int = MAX_OFFSET,
    weighting: str = "paper",
) -> DensityResult:
    """Rhyme density of a verse (Hirjee & Brown 2010), with end rhymes per line, the multi-syllable share and
    the entropy-weighted density (Potash et al. 2016); see the module docstring for every definition.

    ``verse_text`` is the verse as one string (lines separated by newlines) or as a sequence of lines.
    Undefined values (no words, nothing pronounceable) are NaN with the reason in ``reason``.
    """
    if weighting not in ("paper", "normalised"):
        raise ValueError(f"weighting must be 'paper' or 'normalised', not {weighting!r}")
    lines = verse_text.split("\n") if isinstance(verse_text, str) else list(verse_text)
    tr = transcribe(lines)
    n_tok = len(tr.tokens)
    if n_tok == 0:
        return _nan_result(
            "no words in the verse (empty, or punctuation and emoji only)", tr.n_lines, 0, weighting, tr
        )
    n = tr.n
    if n == 0:
        return _nan_result(
            "no pronounceable syllables (symbols, emoji or non-Latin script only)",
            tr.n_lines,
            n_tok,
            weighting,
            tr,
        )
    entropy, _ = token_entropy(tr.tokens)
    line = tr.line
    # first syllable of each line, and the earliest partner allowed for each syllable
    starts = np.flatnonzero(np.r_[True, line[1:] != line[:-1]])
    line_of_start = line[starts]
    first_syl = np.full(tr.n_lines + 1, n, dtype=np.int64)
    first_syl[line_of_start] = starts
    # for a line with no syllables, the "previous line" window falls back to the line itself
    prev_first = np.minimum.accumulate(first_syl[::-1])[::-1]  # first syllable at or after each line
    lo_line = np.where(line > 0, line - 1, 0)
    lo = np.minimum(prev_first[lo_line], prev_first[line])
    idx = np.arange(n)
    span = int((idx - lo).max()) if n else 0
    D = max(1, min(span, max_offset))

    J = idx[:, None]
    K = J + np.arange(1, D + 1)[None, :]
    inside = K < n
    Kc = np.where(inside, K, n - 1)
    valid = inside & (lo[Kc] <= J) & (tr.word[J] != tr.word[Kc])
    vs = VOWEL_SIM[tr.vowel[J], tr.vowel[Kc]]
    same_coda = tr.coda[J] == tr.coda[Kc]
    same_class = tr.coda_class[J] == tr.coda_class[Kc]
    one_empty = (tr.coda_len[J] == 0) != (tr.coda_len[Kc] == 0)
    cs = np.where(same_coda, 1.0, np.where(same_class, 0.75, np.where(one_empty, 0.4, 0.2)))
    match = valid & (vs * (0.5 + 0.5 * cs) >= threshold)
    both_stressed = match & tr.stressed[J] & tr.stressed[Kc]

    # runs go down each column (j, j+1, ...) of the (n, D) grid; a run continues inside both lines only
    cont = np.zeros_like(match)
    same_line_j = line[1:] == line[:-1]
    same_line_k = np.zeros((n, D), dtype=bool)
    same_line_k[1:] = line[Kc[1:]] == line[Kc[1:] - 1]
    cont[1:] = match[1:] & match[:-1] & same_line_j[:, None] & same_line_k[1:]
    start = match & ~cont

    mf = match.T.ravel()
    sf = start.T.ravel()
    spf = both_stressed.T.ravel()
    run_id = np.cumsum(sf) * mf  # 0 outside runs, 1.. inside
    csp = np.cumsum(spf)
    base_at_start = (csp - spf)[sf]  # stressed-pair count before each run
    keep = mf & (csp - np.r_[0, base_at_start][run_id] > 0)

    jf = np.broadcast_to(J, (n, D)).T.ravel()
    kf = K.T.ravel()
    jj, kk = jf[keep], kf[keep]
    rhymed = np.zeros(n, dtype=bool)
    rhymed[jj] = True
    rhymed[kk] = True
    lengths = np.bincount(run_id[keep])
    lengths = lengths[lengths > 0]
    n_rhymes = int(lengths.size)

    # end rhymes: last syllable of line i against last syllable of the line before
    ends = np.r_[starts[1:] - 1, n - 1]
    end_lines = line[ends]
    keep_grid = keep.reshape(D, n).T
    n_end = 0
    for a, b, la, lb in zip(ends[:-1], ends[1:], end_lines[:-1], end_lines[1:]):
        d = b - a
        if lb == la + 1 and 1 <= d <= D and keep_grid[a, d - 1]:
            n_end += 1

    density = float(rhymed.sum()) / n
    weight = entropy_weight(entropy, n_tok, weighting)
    return DensityResult(
        rhyme_density=density,
        rhyme_density_weighted=density * weight,
        end_rhymes_per_line=n_end / tr.n_lines,
        multisyllable_share=float((lengths >= 2).sum()) / n_rhymes if n_rhymes else 0.0,
        n_syllables=n,
        n_rhymed=int(rhymed.sum()),
        n_rhymes=n_rhymes,
        n_lines=tr.n_lines,
        n_tokens=n_tok,
        entropy=entropy,
        weighting=weighting,
        transcription=tr,
        rhymed=rhymed,
        pairs=np.stack([jj, kk], axis=1),
        run_lengths=lengths,
    )
