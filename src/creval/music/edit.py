"""Edit distances between note sequences: WER-style counts over note tokens, Levenshtein, Mongeau–Sankoff.

* :func:`edit_counts` aligns two token sequences with unit costs (Levenshtein) and counts substitutions (S),
  deletions (D), insertions (I) and correct tokens (C), as in the word error rate and in HER's equation
  (Kalonaris & Aljanaki): :math:`\\mathrm{HER} = (S + D + I) / (S + D + C)`, the denominator being the length of
  the reference (the edited version). :func:`levenshtein` is S + D + I.
* :func:`mongeau_sankoff` is the weighted alignment of Mongeau & Sankoff (1990), "Comparison of musical
  sequences", *Computers and the Humanities* 24, 161–175: substitution weight
  :math:`w(a, b) = w_{int}(a, b) + k \\, |\\ell_a - \\ell_b|`, deletion/insertion weight :math:`k \\, \\ell`,
  fragmentation of one note into m ≥ 2 notes and consolidation of m notes into one (weight: the summed interval
  weights plus k times the length difference), with :math:`k = 0.348` and lengths in sixteenth notes.

Mongeau–Sankoff decisions (implementations differ; every choice is a parameter):

* **Interval weights, key-free.** The paper's Table 1 weights degrees of the scale (unison 0, fifth 0.1,
  third 0.2, sixth 0.35, fourth 0.5, seventh 0.8, second 0.9) relative to the key. Without key information the
  semitone distance modulo 12 is mapped to its diatonic interval class (1–2 → second, 3–4 → third, 5 → fourth,
  6 → fourth (augmented), 7 → fifth, 8–9 → sixth, 10–11 → seventh); octaves weigh 0 (:data:`INTERVAL_WEIGHTS`).
* **Rests** (pitch −1) against a note weigh ``rest_weight`` (0.1 by default); rest against rest 0.
* **Duration scaling.** With ``scale_interval_by_duration`` the interval weight of two aligned notes is
  multiplied by the shorter of their lengths (some implementations do, the paper's formula does not).
* Fragmentation and consolidation span at most ``max_fragment`` notes (default 4).

Levenshtein distance is :func:`creval.editrate.levenshtein` (shared with the text edit rates); the alignment
with its S, D, I, C breakdown, which HER per bar needs and :mod:`creval.editrate` does not give, is here.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from creval.errors import InputError

K_DEFAULT = 0.348
#: Interval weight by semitone distance modulo 12 (key-free reading of Mongeau & Sankoff 1990, Table 1).
INTERVAL_WEIGHTS = np.array([0.0, 0.9, 0.9, 0.2, 0.2, 0.5, 0.5, 0.1, 0.35, 0.35, 0.8, 0.8])


# ---------------------------------------------------------------------------------------------- Levenshtein
@dataclass(frozen=True)
class EditCounts:
    """Counts of an alignment: substitutions, deletions, insertions, correct (matches)."""

    substitutions: int
    deletions: int
    insertions: int
    correct: int

    @property
    def edits(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def reference_length(self) -> int:
        return self.substitutions + self.deletions + self.correct

    @property
    def rate(self) -> float:
        """(S + D + I) / (S + D + C); NaN for an empty reference."""
        n = self.reference_length
        return self.edits / n if n else float("nan")


def _encode(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    vocab: dict[Hashable, int] = {}
    ea = np.array([vocab.setdefault(t, len(vocab)) for t in a], dtype=np.int64)
    eb = np.array([vocab.setdefault(t, len(vocab)) for t in b], dtype=np.int64)
    return ea, eb


def _lev_matrix(ea: np.ndarray, eb: np.ndarray) -> np.ndarray:
    """Unit-cost DP matrix, one numpy row at a time (insertions by a running minimum)."""
    n, m = len(ea), len(eb)
    d = np.empty((n + 1, m + 1), dtype=np.int64)
    d[0] = np.arange(m + 1)
    cols = np.arange(m + 1)
    for i in range(1, n + 1):
        prev = d[i - 1]
        t = np.empty(m + 1, dtype=np.int64)
        t[0] = i
        t[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (eb != ea[i - 1]))
        d[i] = np.minimum.accumulate(t - cols) + cols
    return d


def align_tokens(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]
                 ) -> list[tuple[str, int | None, int | None]]:
    """One minimal unit-cost alignment of ``hypothesis`` (e.g. the generated piece's tokens) to ``reference``
    (the edited version): a list of ``(op, reference_index, hypothesis_index)`` with op ``C`` (correct), ``S``,
    ``D`` (reference token missing from the hypothesis) or ``I`` (hypothesis token not in the reference).
    Ties are broken as match/substitution, then deletion, then insertion, walking back from the end."""
    ea, eb = _encode(reference, hypothesis)
    d = _lev_matrix(ea, eb)
    i, j = len(ea), len(eb)
    ops: list[tuple[str, int | None, int | None]] = []
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i, j] == d[i - 1, j - 1] + (ea[i - 1] != eb[j - 1]):
            ops.append(("C" if ea[i - 1] == eb[j - 1] else "S", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and d[i, j] == d[i - 1, j] + 1:
            ops.append(("D", i - 1, None))
            i -= 1
        else:
            ops.append(("I", None, j - 1))
            j -= 1
    return ops[::-1]


def edit_counts(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]) -> EditCounts:
    """Counts S, D, I, C along :func:`align_tokens`' alignment."""
    ops = [op for op, _, _ in align_tokens(reference, hypothesis)]
    return EditCounts(ops.count("S"), ops.count("D"), ops.count("I"), ops.count("C"))


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Levenshtein distance (unit insertions, deletions, substitutions) between two token sequences: the same
    function as the text edit rates use (:func:`creval.editrate.levenshtein`)."""
    from creval.editrate import levenshtein as _levenshtein

    return _levenshtein(list(a), list(b))


def word_error_rate(reference: Sequence[Hashable], hypothesis: Sequence[Hashable]) -> float:
    r"""WER over tokens: :math:`(S + D + I) / (S + D + C)` (NaN for an empty reference)."""
    return edit_counts(reference, hypothesis).rate


def note_tokens(notes, kind: str = "pitch+duration", grid: float = 1 / 48) -> list[str]:
    """Tokens of a note sequence (a :class:`~creval.music.io.Track`) in order of onset: ``"pitch"`` (MIDI
    number), ``"pitch+duration"`` (pitch and length in quarter notes, rounded to ``grid``) or
    ``"pitch+duration+beat"`` (also the position in the bar)."""
    def q(x: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(x) / grid) * grid

    if kind == "pitch":
        return [str(int(p)) for p in notes.pitch]
    if kind == "pitch+duration":
        return [f"{int(p)}:{d:g}" for p, d in zip(notes.pitch, q(notes.duration))]
    if kind == "pitch+duration+beat":
        return [f"{int(p)}:{d:g}@{b:g}" for p, d, b in zip(notes.pitch, q(notes.duration), q(notes.beat))]
    raise InputError(f"unknown token kind {kind!r}; use pitch, pitch+duration or pitch+duration+beat")


# ------------------------------------------------------------------------------------------ Mongeau–Sankoff
def interval_weight(pa: np.ndarray, pb: np.ndarray, rest_weight: float = 0.1) -> np.ndarray:
    """Mongeau–Sankoff interval weight of aligned pitches (−1 = rest), see the module docstring."""
    pa = np.asarray(pa)
    pb = np.asarray(pb)
    w = INTERVAL_WEIGHTS[np.abs(pa - pb) % 12]
    rest_a, rest_b = pa < 0, pb < 0
    w = np.where(rest_a | rest_b, rest_weight, w)
    return np.where(rest_a & rest_b, 0.0, w)


def melody_sequence(notes, *, rests: bool = True, min_rest: float = 1 / 48) -> tuple[np.ndarray, np.ndarray]:
    """A note sequence as Mongeau–Sankoff's (pitch, length) pairs in order of onset, with a rest (pitch −1)
    for each gap of at least ``min_rest`` quarter notes between the end of the notes so far and the next onset
    (``rests=True``, as the paper treats rests as notes). Chords are read as consecutive notes: the measure is
    meant for melodies."""
    onset = np.asarray(notes.onset, dtype=float)
    duration = np.asarray(notes.duration, dtype=float)
    pitch = np.asarray(notes.pitch, dtype=np.int64)
    if not rests or len(onset) == 0:
        return pitch.copy(), duration.copy()
    prev_end = np.concatenate([[onset[0]], np.maximum.accumulate(onset + duration)[:-1]])
    gap = onset - prev_end
    has_rest = gap >= min_rest
    out_p = np.empty(len(pitch) + int(has_rest.sum()), dtype=np.int64)
    out_d = np.empty(len(out_p))
    pos = np.arange(len(pitch)) + np.cumsum(has_rest)
    out_p[pos] = pitch
    out_d[pos] = duration
    out_p[pos[has_rest] - 1] = -1
    out_d[pos[has_rest] - 1] = gap[has_rest]
    return out_p, out_d


def _as_pd(seq, unit: float) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(seq, "pitch") and hasattr(seq, "duration"):
        return np.asarray(seq.pitch, dtype=np.int64), np.asarray(seq.duration, dtype=float) * unit
    pitch, dur = seq
    pitch = np.asarray(pitch, dtype=np.int64)
    dur = np.asarray(dur, dtype=float)
    if pitch.shape != dur.shape or pitch.ndim != 1:
        raise InputError("a melody needs equal-length 1-D pitch and duration arrays")
    if (dur < 0).any() or not np.isfinite(dur).all():
        raise InputError("note durations must be finite and non-negative")
    return pitch, dur * unit


def mongeau_sankoff_batch(pairs: Sequence[tuple], *, k: float = K_DEFAULT, max_fragment: int = 4,
                          scale_interval_by_duration: bool = False, rest_weight: float = 0.1,
                          unit: float = 4.0, return_matrix: bool = False):
    """Mongeau–Sankoff distances of many melody pairs at once (numpy over the batch and over each DP row).

    Each melody is a :class:`~creval.music.io.Track` or a ``(pitch, duration)`` pair of arrays (pitch −1 for a
    rest); durations are in quarter notes and multiplied by ``unit`` (4: sixteenth notes, the paper's unit for
    k = 0.348). Returns an array of distances (and the DP matrices with ``return_matrix``).

    Recurrence (Mongeau & Sankoff 1990, eq. 5), with :math:`\\ell` lengths and :math:`w_{int}` interval weights::

        d[i,j] = min( d[i-1,j]   + k·ℓ(a_i),                               deletion
                      d[i,j-1]   + k·ℓ(b_j),                               insertion
                      d[i-1,j-1] + w_int(a_i,b_j) + k·|ℓ(a_i) − ℓ(b_j)|,   substitution
                      d[i-1,j-m] + Σ_l w_int(a_i,b_l) + k·|ℓ(a_i) − Σ_l ℓ(b_l)|,   fragmentation, 2 ≤ m ≤ F
                      d[i-m,j-1] + Σ_l w_int(a_l,b_j) + k·|Σ_l ℓ(a_l) − ℓ(b_j)|,   consolidation, 2 ≤ m ≤ F )
    """
    if max_fragment < 1:
        raise InputError("max_fragment must be at least 1")
    if not pairs:
        return np.zeros(0)
    melodies = [(_as_pd(a, unit), _as_pd(b, unit)) for a, b in pairs]
    nb = len(melodies)
    n = max(len(a[0]) for a, _ in melodies)
    m = max(len(b[0]) for _, b in melodies)
    pa = np.zeros((nb, n), dtype=np.int64)
    la = np.zeros((nb, n))
    pb = np.zeros((nb, m), dtype=np.int64)
    lb = np.zeros((nb, m))
    na = np.empty(nb, dtype=np.int64)
    mb = np.empty(nb, dtype=np.int64)
    for r, ((p1, l1), (p2, l2)) in enumerate(melodies):
        na[r], mb[r] = len(p1), len(p2)
        pa[r, : len(p1)], la[r, : len(p1)] = p1, l1
        pb[r, : len(p2)], lb[r, : len(p2)] = p2, l2
    w = interval_weight(pa[:, :, None], pb[:, None, :], rest_weight)  # (B, n, m)
    if scale_interval_by_duration:
        w = w * np.minimum(la[:, :, None], lb[:, None, :])
    sub = w + k * np.abs(la[:, :, None] - lb[:, None, :])
    cw_j = np.concatenate([np.zeros((nb, n, 1)), np.cumsum(w, axis=2)], axis=2)  # (B, n, m+1): Σ_{l<j} w(i,l)
    cw_i = np.concatenate([np.zeros((nb, 1, m)), np.cumsum(w, axis=1)], axis=1)  # (B, n+1, m): Σ_{l<i} w(l,j)
    cla = np.concatenate([np.zeros((nb, 1)), np.cumsum(la, axis=1)], axis=1)  # (B, n+1)
    clb = np.concatenate([np.zeros((nb, 1)), np.cumsum(lb, axis=1)], axis=1)  # (B, m+1)
    ins_cum = k * clb  # cumulative insertion cost along a row
    d = np.empty((nb, n + 1, m + 1))
    d[:, 0, :] = ins_cum
    for i in range(1, n + 1):
        t = np.full((nb, m + 1), np.inf)
        t[:, 0] = d[:, i - 1, 0] + k * la[:, i - 1]
        t[:, 1:] = np.minimum(d[:, i - 1, 1:] + k * la[:, i - 1 : i], d[:, i - 1, :-1] + sub[:, i - 1, :])
        for f in range(2, min(max_fragment, m) + 1):  # a_i fragmented into b_{j-f+1..j}
            cost = (cw_j[:, i - 1, f:] - cw_j[:, i - 1, :-f]) + k * np.abs(
                la[:, i - 1 : i] - (clb[:, f:] - clb[:, :-f]))
            np.minimum(t[:, f:], d[:, i - 1, :-f] + cost, out=t[:, f:])
        for c in range(2, min(max_fragment, i) + 1):  # a_{i-c+1..i} consolidated into b_j
            cost = (cw_i[:, i, :] - cw_i[:, i - c, :]) + k * np.abs(
                (cla[:, i : i + 1] - cla[:, i - c : i - c + 1]) - lb)
            np.minimum(t[:, 1:], d[:, i - c, :-1] + cost, out=t[:, 1:])
        # insertions: d[i,j] = min_{q<=j} t[q] + k·Σ_{q<l<=j} ℓ(b_l)
        d[:, i, :] = np.minimum.accumulate(t - ins_cum, axis=1) + ins_cum
    dist = d[np.arange(nb), na, mb]
    return (dist, d) if return_matrix else dist


def mongeau_sankoff(a, b, *, k: float = K_DEFAULT, max_fragment: int = 4, scale_interval_by_duration: bool = False,
                    rest_weight: float = 0.1, unit: float = 4.0) -> float:
    """Mongeau–Sankoff (1990) distance between two melodies (see :func:`mongeau_sankoff_batch`)."""
    return float(mongeau_sankoff_batch([(a, b)], k=k, max_fragment=max_fragment,
                                       scale_interval_by_duration=scale_interval_by_duration,
                                       rest_weight=rest_weight, unit=unit)[0])


def mongeau_sankoff_alignment(a, b, *, k: float = K_DEFAULT, max_fragment: int = 4,
                              scale_interval_by_duration: bool = False, rest_weight: float = 0.1,
                              unit: float = 4.0) -> tuple[float, list[tuple[str, tuple[int, ...], tuple[int, ...]]]]:
    """The distance and one optimal alignment: a list of ``(operation, a_indices, b_indices)`` with operation
    ``match`` (substitution of weight 0), ``substitute``, ``delete``, ``insert``, ``fragment`` or ``consolidate``."""
    kw = {"k": k, "max_fragment": max_fragment, "scale_interval_by_duration": scale_interval_by_duration,
          "rest_weight": rest_weight, "unit": unit}
    dist, d = mongeau_sankoff_batch([(a, b)], return_matrix=True, **kw)
    d = d[0]
    (pa, la), (pb, lb) = _as_pd(a, unit), _as_pd(b, unit)

    def w(i: int, j: int) -> float:
        x = float(interval_weight(pa[i], pb[j], rest_weight))
        return x * min(la[i], lb[j]) if scale_interval_by_duration else x

    ops: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    i, j = len(pa), len(pb)
    tol = 1e-9
    while i > 0 or j > 0:
        here = d[i, j]
        if i > 0 and j > 0:
            cost = w(i - 1, j - 1) + k * abs(la[i - 1] - lb[j - 1])
            if abs(d[i - 1, j - 1] + cost - here) < tol:
                ops.append(("match" if cost < tol else "substitute", (i - 1,), (j - 1,)))
                i, j = i - 1, j - 1
                continue
        if i > 0 and abs(d[i - 1, j] + k * la[i - 1] - here) < tol:
            ops.append(("delete", (i - 1,), ()))
            i -= 1
            continue
        if j > 0 and abs(d[i, j - 1] + k * lb[j - 1] - here) < tol:
            ops.append(("insert", (), (j - 1,)))
            j -= 1
            continue
        found = False
        for f in range(2, min(max_fragment, j) + 1):
            if i == 0:
                break
            cost = sum(w(i - 1, q) for q in range(j - f, j)) + k * abs(la[i - 1] - lb[j - f : j].sum())
            if abs(d[i - 1, j - f] + cost - here) < tol:
                ops.append(("fragment", (i - 1,), tuple(range(j - f, j))))
                i, j = i - 1, j - f
                found = True
                break
        if found:
            continue
        for c in range(2, min(max_fragment, i) + 1):
            if j == 0:
                break
            cost = sum(w(q, j - 1) for q in range(i - c, i)) + k * abs(la[i - c : i].sum() - lb[j - 1])
            if abs(d[i - c, j - 1] + cost - here) < tol:
                ops.append(("consolidate", tuple(range(i - c, i)), (j - 1,)))
                i, j = i - c, j - 1
                found = True
                break
        if not found:  # pragma: no cover - the DP guarantees one predecessor
            raise RuntimeError("Mongeau–Sankoff backtrace failed")
    return float(dist[0]), ops[::-1]
