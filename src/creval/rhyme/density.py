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

* ``rhyme_density`` = rhymed syllables / all syllables (H&B 2010, "Using automated rhyme detection to
  characterize rhyming style in rap music").
* ``end_rhymes_per_line`` = lines whose last syllable rhymes with the last syllable of the line before,
  / number of lines.
* ``multisyllable_share`` = rhymes of two or more syllables / all rhymes.
* ``rhyme_density_weighted`` = density × :math:`H / N` with :math:`H` the entropy (bits) of the verse's word
  distribution and :math:`N` its number of words, as Potash et al. (2016, "Evaluating creative language
  generation: the case of rap lyric ghostwriting") word it (``weighting="paper"``); ``weighting="normalised"`` uses :math:`H / \\log_2 N` instead, which lies in [0, 1].
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

# --- the word table: every word seen so far, its syllables in one growing set of arrays ----------------
_CODA_ID: dict[tuple[str, ...], int] = {(): 0}
_CLASS_ID: dict[tuple[str, ...], int] = {(): 0}


def _intern(table: dict[tuple[str, ...], int], key: tuple[str, ...]) -> int:
    got = table.get(key)
    if got is None:
        got = table[key] = len(table)
    return got


class _WordTable:
    """Word string -> id; per id the first syllable row, the syllable count and a case-folded word id; per
    syllable row: vowel, coda, coda class, coda length, stressed. Arrays grow by doubling, so a warm lookup is
    one dict access per word and one fancy index per verse."""

    FIELDS = ("vowel", "coda", "coda_class", "coda_len", "stressed")

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.lower_ids: dict[str, int] = {}
        self.n_words = 0
        self.n_syll = 0
        self.start = np.zeros(1024, dtype=np.int64)
        self.count = np.zeros(1024, dtype=np.int64)
        self.lower = np.zeros(1024, dtype=np.int64)
        self.syl = {f: np.zeros(4096, dtype=np.int64) for f in self.FIELDS}

    def _grow_words(self, need: int) -> None:
        size = self.start.shape[0]
        if need <= size:
            return
        while size < need:
            size *= 2
        for name in ("start", "count", "lower"):
            arr = getattr(self, name)
            grown = np.zeros(size, dtype=arr.dtype)
            grown[: arr.shape[0]] = arr
            setattr(self, name, grown)

    def _grow_sylls(self, need: int) -> None:
        size = self.syl["vowel"].shape[0]
        if need <= size:
            return
        while size < need:
            size *= 2
        for name, arr in self.syl.items():
            grown = np.zeros(size, dtype=arr.dtype)
            grown[: arr.shape[0]] = arr
            self.syl[name] = grown

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Word ids of ``tokens``, adding unseen words first."""
        try:
            return np.fromiter(map(self.ids.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        except KeyError:
            self.add(tokens)
            return np.fromiter(map(self.ids.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    def add(self, tokens: Sequence[str]) -> None:
        missing = [t for t in dict.fromkeys(tokens) if t not in self.ids]
        if not missing:
            return
        prons = pronounce_many(missing)
        self._grow_words(self.n_words + len(missing))
        self._grow_sylls(self.n_syll + sum(len(p.syllables) for p in prons))
        for tok, pron in zip(missing, prons):
            wid = self.n_words
            self.ids[tok] = wid
            self.start[wid] = self.n_syll
            self.count[wid] = len(pron.syllables)
            self.lower[wid] = self.lower_ids.setdefault(tok.lower(), len(self.lower_ids))
            for syl in pron.syllables:
                row = self.n_syll
                vowel = "AH" if syl.stress == 0 and syl.nucleus in _REDUCED else syl.nucleus
                self.syl["vowel"][row] = _VID[vowel]
                self.syl["coda"][row] = _intern(_CODA_ID, syl.coda)
                self.syl["coda_class"][row] = _intern(_CLASS_ID, tuple(MANNER[c] for c in syl.coda))
                self.syl["coda_len"][row] = len(syl.coda)
                self.syl["stressed"][row] = syl.stress > 0
                self.n_syll += 1
            self.n_words += 1


_TABLE = _WordTable()


@dataclass
class Transcription:
    """A verse as syllables: per-syllable vowel, coda, coda class, stress, word and line, as arrays; plus the
    verse's words (``tokens``), each word's line and case-folded word id (for the entropy)."""

    tokens: list[str]
    token_line: np.ndarray
    token_lower: np.ndarray
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
    return transcribe_many([lines])[0]


def transcribe_many(verses: Sequence[Sequence[str]]) -> tuple[Transcription, np.ndarray, np.ndarray]:
    """One transcription of many verses laid end to end, with an empty line number between two verses (so
    no rhyme is sought across them); also each word's and each syllable's verse index."""
    tokens: list[str] = []
    per_line: list[int] = []
    line_ids: list[int] = []
    verse_tokens: list[int] = []
    slot = 0
    for lines in verses:
        before = len(tokens)
        for raw in lines:
            ws = words(raw)
            if ws:
                tokens.extend(ws)
                per_line.append(len(ws))
                line_ids.append(slot)
                slot += 1
        verse_tokens.append(len(tokens) - before)
        slot += 1  # the gap between verses
    table = _TABLE
    ids = table.lookup(tokens)
    token_line = np.repeat(np.asarray(line_ids, dtype=np.int64), per_line)
    token_verse = np.repeat(np.arange(len(verses)), verse_tokens)
    counts = table.count[ids]
    total = int(counts.sum())
    ends = np.cumsum(counts)
    rows = np.repeat(table.start[ids] - (ends - counts), counts) + np.arange(total)
    word = np.repeat(np.arange(len(tokens)), counts)
    syl = table.syl
    tr = Transcription(
        tokens=tokens,
        token_line=token_line,
        token_lower=table.lower[ids],
        vowel=syl["vowel"][rows],
        coda=syl["coda"][rows],
        coda_class=syl["coda_class"][rows],
        coda_len=syl["coda_len"][rows],
        stressed=syl["stressed"][rows].astype(bool),
        word=word,
        line=token_line[word],
        n_lines=max(slot - 1, 0) if len(verses) > 1 else len(per_line),
    )
    return tr, token_verse, token_verse[word]


@dataclass
class _Detected:
    jj: np.ndarray  # kept pairs (j < k) of rhyming syllables
    kk: np.ndarray
    run: np.ndarray  # run number of each kept pair (0-based, runs in order)
    lengths: np.ndarray  # syllables per run
    rhymed: np.ndarray  # per syllable
    end_pair: np.ndarray  # per kept pair: it joins the last syllables of two adjacent lines


def _detect(tr: Transcription, threshold: float, max_offset: int) -> _Detected:
    """Rhyme detection on a (possibly concatenated) transcription; see the module docstring."""
    n = tr.n
    line = tr.line
    # first syllable of each line, and the earliest partner allowed for each syllable
    new_line = np.ones(n, dtype=bool)
    new_line[1:] = line[1:] != line[:-1]
    starts = np.flatnonzero(new_line)
    first_syl = np.full(tr.n_lines + 2, n, dtype=np.int64)
    first_syl[line[starts]] = starts
    # a line with no syllables (or the gap between two verses) falls back to the line itself
    prev_first = np.minimum.accumulate(first_syl[::-1])[::-1]  # first syllable at or after each line
    lo_line = np.where(line > 0, line - 1, 0)
    lo = np.minimum(prev_first[lo_line], prev_first[line])
    idx = np.arange(n)
    D = max(1, min(int((idx - lo).max()), max_offset))

    # candidate pairs on a (D, n) grid: row d-1 holds (j, j + d); only same or near vowels can match
    K = idx[None, :] + np.arange(1, D + 1)[:, None]
    Kc = np.minimum(K, n - 1)
    near = (VOWEL_SIM >= threshold).ravel()
    cand = near[tr.vowel[None, :] * VOWEL_SIM.shape[0] + tr.vowel[Kc]] & (K < n) & (lo[Kc] <= idx[None, :])
    dd, jj = np.nonzero(cand)  # sorted by d, then j: consecutive j of one diagonal are neighbours
    dd = dd + 1
    kk = jj + dd
    keep_pair = tr.word[jj] != tr.word[kk]
    jj, kk, dd = jj[keep_pair], kk[keep_pair], dd[keep_pair]
    vs = VOWEL_SIM[tr.vowel[jj], tr.vowel[kk]]
    same_coda = tr.coda[jj] == tr.coda[kk]
    same_class = tr.coda_class[jj] == tr.coda_class[kk]
    one_empty = (tr.coda_len[jj] == 0) != (tr.coda_len[kk] == 0)
    cs = np.where(same_coda, 1.0, np.where(same_class, 0.75, np.where(one_empty, 0.4, 0.2)))
    ok = vs * (0.5 + 0.5 * cs) >= threshold
    jj, kk, dd = jj[ok], kk[ok], dd[ok]
    stressed_pair = tr.stressed[jj] & tr.stressed[kk]

    # runs: a match continues the previous one on its diagonal when both sides stay inside their lines
    cont = np.zeros(jj.shape[0], dtype=bool)
    if jj.shape[0] > 1:
        cont[1:] = (
            (dd[1:] == dd[:-1]) & (jj[1:] == jj[:-1] + 1) & (line[jj[1:]] == line[jj[:-1]])
            & (line[kk[1:]] == line[kk[:-1]])
        )  # fmt: skip
    run_id = np.cumsum(~cont)  # 1.. per run
    csp = np.cumsum(stressed_pair)
    base = np.concatenate(([0], (csp - stressed_pair)[~cont]))  # stressed pairs before each run starts
    keep = csp - base[run_id] > 0
    jj, kk, run_id = jj[keep], kk[keep], run_id[keep]
    rhymed = np.zeros(n, dtype=bool)
    rhymed[jj] = True
    rhymed[kk] = True
    # renumber the kept runs 0..R-1
    if run_id.size:
        first = np.ones(run_id.size, dtype=bool)
        first[1:] = run_id[1:] != run_id[:-1]
        run = np.cumsum(first) - 1
    else:
        run = run_id
    lengths = np.bincount(run) if run.size else np.zeros(0, dtype=np.int64)
    # end rhymes: last syllable of a line against the last syllable of the line before
    is_end = np.zeros(n, dtype=bool)
    is_end[starts[1:] - 1] = True
    is_end[n - 1] = True
    end_pair = is_end[jj] & is_end[kk] & (line[kk] == line[jj] + 1)
    return _Detected(jj, kk, run, lengths, rhymed, end_pair)


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

    .. math::

        \\mathrm{RD} = \\frac{\\#\\,\\text{rhymed syllables}}{\\#\\,\\text{syllables}},\\qquad
        \\mathrm{RD}_w = \\mathrm{RD} \\cdot \\frac{H(\\text{words})}{N}

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
    counts = np.bincount(tr.token_lower)
    p = counts[counts > 0] / n_tok
    entropy = float(-(p * np.log2(p)).sum())
    det = _detect(tr, threshold, max_offset)
    rhymed, lengths = det.rhymed, det.lengths
    n_rhymes = int(lengths.size)
    n_end = int(det.end_pair.sum())
    jj, kk = det.jj, det.kk

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


#: Names :func:`rhyme_density_batch` returns, in order.
VALUE_NAMES = ("rhyme_density", "rhyme_density_weighted", "end_rhymes_per_line", "multisyllable_share")


def rhyme_density_batch(
    verses: Sequence[str | Sequence[str]],
    *,
    threshold: float = THRESHOLD,
    max_offset: int = MAX_OFFSET,
    weighting: str = "paper",
    chunk_syllables: int = 40_000,
    progress: bool = False,
) -> tuple[dict[str, np.ndarray], list[str]]:
    """:func:`rhyme_density` for many verses at once: the same values (one array per name of
    :data:`VALUE_NAMES`, aligned with ``verses``) and the reason for each NaN ("" where defined).

    Verses are laid end to end with a gap line between two of them and detected together in chunks of about
    ``chunk_syllables`` syllables, so the per-verse cost is a share of a few large numpy operations.
    ``progress=True`` shows a rich progress bar.
    """
    if weighting not in ("paper", "normalised"):
        raise ValueError(f"weighting must be 'paper' or 'normalised', not {weighting!r}")
    as_lines = [v.split("\n") if isinstance(v, str) else list(v) for v in verses]
    V = len(as_lines)
    out = {name: np.full(V, np.nan) for name in VALUE_NAMES}
    reasons = [""] * V
    bar = None
    if progress:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("rhyme density", total=V)
        bar.start()
    try:
        start = 0
        while start < V:
            # grow the chunk until it holds about chunk_syllables syllables (estimated from characters)
            stop, size = start, 0
            while stop < V and (stop == start or size < chunk_syllables * 4):
                size += sum(len(x) for x in as_lines[stop])
                stop += 1
            _batch_chunk(as_lines[start:stop], start, out, reasons, threshold, max_offset, weighting)
            if bar is not None:
                bar.update(task, completed=stop)
            start = stop
    finally:
        if bar is not None:
            bar.stop()
    return out, reasons


def _batch_chunk(chunk, offset, out, reasons, threshold, max_offset, weighting) -> None:
    tr, token_verse, syl_verse = transcribe_many(chunk)
    V = len(chunk)
    n_tok = np.bincount(token_verse, minlength=V)
    n_syl = np.bincount(syl_verse, minlength=V)
    lines_per_verse = np.zeros(V, dtype=np.int64)
    if tr.token_line.size:
        first_tok = np.ones(tr.token_line.size, dtype=bool)
        first_tok[1:] = tr.token_line[1:] != tr.token_line[:-1]
        lines_per_verse = np.bincount(token_verse[first_tok], minlength=V)
    # entropy of each verse's case-folded words
    entropy = np.zeros(V)
    if tr.token_lower.size:
        width = int(tr.token_lower.max()) + 1
        keys, counts = np.unique(token_verse * width + tr.token_lower, return_counts=True)
        kv = keys // width
        p = counts / n_tok[kv]
        entropy = np.bincount(kv, weights=-p * np.log2(p), minlength=V)
    if tr.n:
        det = _detect(tr, threshold, max_offset)
        n_rhymed = np.bincount(syl_verse[det.rhymed], minlength=V)
        run_verse = np.zeros(det.lengths.size, dtype=np.int64)
        run_verse[det.run] = syl_verse[det.jj]
        n_runs = np.bincount(run_verse, minlength=V)
        n_multi = np.bincount(run_verse[det.lengths >= 2], minlength=V)
        n_end = np.bincount(syl_verse[det.jj[det.end_pair]], minlength=V)
    else:
        n_rhymed = n_runs = n_multi = n_end = np.zeros(V, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        density = n_rhymed / n_syl
        if weighting == "paper":
            weight = entropy / n_tok
        else:
            weight = np.where(n_tok > 1, entropy / np.log2(np.maximum(n_tok, 2)), 1.0)
        values = {
            "rhyme_density": density,
            "rhyme_density_weighted": density * weight,
            "end_rhymes_per_line": n_end / np.maximum(lines_per_verse, 1),
            "multisyllable_share": np.where(n_runs > 0, n_multi / np.maximum(n_runs, 1), 0.0),
        }
    undefined = n_syl == 0
    for name, arr in values.items():
        arr = np.where(undefined, np.nan, arr)
        out[name][offset : offset + V] = arr
    for i in np.flatnonzero(undefined):
        reasons[offset + i] = (
            "no words in the verse (empty, or punctuation and emoji only)"
            if n_tok[i] == 0
            else "no pronounceable syllables (symbols, emoji or non-Latin script only)"
        )
