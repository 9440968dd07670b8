"""MGEval's musically informed features (Yang & Lerch 2020), absolute and per bar.

Reference: Li-Chia Yang and Alexander Lerch, "On the evaluation of generative models in music", *Neural Computing
and Applications* 32 (2020), 4773–4784, Section 3.1 ("absolute measurements"), and the authors' toolbox
``mgeval`` (``core.py``). Each feature is one function over a :class:`~creval.music.io.Track` (the notes of one
track, or of all pitched tracks merged: :meth:`Piece.notes`). Where the toolbox and the paper leave something
open the choice is written in the docstring.

Pitch features: total used pitch (PC), used pitch per bar, pitch class histogram (PCH, total and per bar), pitch
class transition matrix (PCTM), pitch range (PR), average pitch interval (PI).
Rhythm features: total used note (NC), notes per bar, average inter-onset interval (IOI), note length histogram
(NLH, 12 classes or 24 with rests), note length transition matrix (NLTM).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from creval.errors import InputError
from creval.music.io import Piece, Track

#: Note-length classes of MGEval in units of a bar / 96: whole, half, quarter, 8th, 16th, dotted half, dotted
#: quarter, dotted 8th, dotted 16th, half-note triplet, quarter-note triplet, 8th-note triplet.
NOTE_LENGTH_UNITS = np.array([96, 48, 24, 12, 6, 72, 36, 18, 9, 32, 16, 8], dtype=float)
NOTE_LENGTH_LABELS = ("1", "1/2", "1/4", "1/8", "1/16", "1/2.", "1/4.", "1/8.", "1/16.", "1/2t", "1/4t", "1/8t")


# ------------------------------------------------------------------------------------------------ pitch
def total_used_pitch(notes: Track) -> int:
    r"""Pitch count (PC): the number of distinct MIDI pitches, :math:`|\{p_n\}|`.

    Yang & Lerch (2020), Sec. 3.1.1 "pitch count". Equals MGEval's count of non-empty piano-roll rows (the toolbox
    misses notes shorter than its 10 ms frame; this count does not)."""
    return int(len(np.unique(notes.pitch)))


def bar_used_pitch(notes: Track, n_bars: int) -> np.ndarray:
    """Pitch count per bar: distinct pitches among the notes whose *onset* lies in the bar; shape (n_bars,).

    Yang & Lerch (2020), Sec. 3.1.1. A note belongs to the bar where it starts (as in MGEval's ``bar_used_pitch``)."""
    out = np.zeros(n_bars)
    keep = notes.bar < n_bars
    if keep.any():
        pairs = np.unique(np.stack([notes.bar[keep], notes.pitch[keep]]), axis=1)
        np.add.at(out, pairs[0], 1)
    return out


def _pc_weights(notes: Track, weight: str) -> np.ndarray:
    if weight == "duration":
        return notes.duration_s
    if weight == "velocity-duration":
        return notes.duration_s * notes.velocity
    if weight == "count":
        return np.ones(len(notes))
    raise InputError(f"unknown pitch-class weight {weight!r}; use duration, velocity-duration or count")


def total_pitch_class_histogram(notes: Track, weight: str = "duration") -> np.ndarray:
    r"""Pitch class histogram (PCH): :math:`h_c = \sum_{n: p_n \bmod 12 = c} w_n / \sum_n w_n`, 12 values.

    Yang & Lerch (2020), Sec. 3.1.1. ``weight="duration"`` (default) weights each note by its length in seconds,
    which is MGEval's piano-roll sum for notes of equal velocity; ``"velocity-duration"`` is exactly MGEval's
    piano-roll weighting (velocity × length); ``"count"`` counts notes. All zeros when the weights sum to 0."""
    hist = np.bincount(notes.pitch % 12, weights=_pc_weights(notes, weight), minlength=12)[:12]
    total = hist.sum()
    return hist / total if total > 0 else hist


def bar_pitch_class_histogram(notes: Track, bar_starts: np.ndarray, n_bars: int,
                              weight: str = "duration") -> np.ndarray:
    """Pitch class histogram per bar, shape (n_bars, 12), each row normalised to sum 1 (all-zero rows for
    empty bars).

    Yang & Lerch (2020), Sec. 3.1.1. A note crossing a bar line adds to each bar the part of its length that lies
    in it (in quarter notes, times the velocity for ``"velocity-duration"``). MGEval instead cuts a 100 Hz piano
    roll at bar lengths computed from a fixed 120 BPM, which misplaces bar lines for any other tempo."""
    out = np.zeros((n_bars, 12))
    if not len(notes):
        return out
    edges = np.append(bar_starts, np.inf)
    start, end = notes.onset, notes.end
    b0 = notes.bar
    b1 = np.clip(np.searchsorted(edges, end - 1e-9, side="right") - 1, b0, len(bar_starts) - 1)
    if weight == "count":
        w = np.ones(len(notes))
        keep = b0 < n_bars
        np.add.at(out, (b0[keep], notes.pitch[keep] % 12), w[keep])
    else:
        scale = notes.velocity.astype(float) if weight == "velocity-duration" else np.ones(len(notes))
        if weight not in ("duration", "velocity-duration"):
            _pc_weights(notes, weight)
        single = (b0 == b1) & (b0 < n_bars)
        np.add.at(out, (b0[single], notes.pitch[single] % 12), (notes.duration * scale)[single])
        for k in np.flatnonzero(b0 != b1):
            for b in range(int(b0[k]), min(int(b1[k]), n_bars - 1) + 1):
                part = min(end[k], edges[b + 1]) - max(start[k], edges[b])
                if part > 0:
                    out[b, notes.pitch[k] % 12] += part * scale[k]
    sums = out.sum(axis=1, keepdims=True)
    return np.divide(out, sums, out=np.zeros_like(out), where=sums > 0)


def pitch_class_transition_matrix(notes: Track, normalize: int = 0, time_thresh: float = 0.05) -> np.ndarray:
    r"""Pitch class transition matrix (PCTM), 12 × 12: :math:`T_{ab}` counts the ordered note pairs (i, j) with
    :math:`|\mathrm{end}_i - \mathrm{onset}_j| < \tau` (seconds), :math:`p_i \bmod 12 = a`, :math:`p_j \bmod 12 = b`.

    Yang & Lerch (2020), Sec. 3.1.1; MGEval calls ``pretty_midi.get_pitch_class_transition_matrix`` (τ = 0.05 s),
    whose definition this reproduces without its n × n matrix (a sorted search instead). ``normalize``: 0 counts,
    1 each row sums to 1 (empty rows stay 0), 2 the matrix sums to 1."""
    out = np.zeros((12, 12))
    if len(notes) > 1 and not notes.is_drum:
        order = np.argsort(notes.onset_s, kind="stable")
        starts = notes.onset_s[order]
        pcs = notes.pitch[order] % 12
        ends = notes.end_s
        lo = np.searchsorted(starts, ends - time_thresh, side="right")
        hi = np.searchsorted(starts, ends + time_thresh, side="left")
        counts = np.maximum(hi - lo, 0)
        if counts.sum():
            src = np.repeat(notes.pitch % 12, counts)
            offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            tgt = pcs[np.repeat(lo, counts) + offsets]
            # strict inequality at both ends, as pretty_midi's |end - start| < thresh
            d = np.repeat(ends, counts) - starts[np.repeat(lo, counts) + offsets]
            ok = np.abs(d) < time_thresh
            np.add.at(out, (src[ok], tgt[ok]), 1)
    return _normalize_matrix(out, normalize)


def _normalize_matrix(m: np.ndarray, normalize: int) -> np.ndarray:
    if normalize == 0:
        return m
    if normalize == 1:
        sums = m.sum(axis=1, keepdims=True)
        return np.divide(m, sums, out=np.zeros_like(m), where=sums > 0)
    if normalize == 2:
        total = m.sum()
        return m / total if total > 0 else m
    raise InputError(f"normalize must be 0, 1 or 2, got {normalize!r}")


def pitch_range(notes: Track) -> int:
    r"""Pitch range (PR): :math:`\max_n p_n - \min_n p_n` in semitones. Yang & Lerch (2020), Sec. 3.1.1."""
    return int(notes.pitch.max() - notes.pitch.min()) if len(notes) else 0


def avg_pitch_shift(notes: Track) -> float:
    r"""Average pitch interval (PI): :math:`\frac{1}{N-1}\sum_{n=2}^{N} |p_n - p_{n-1}|` in semitones over the
    notes in order of onset (ties by pitch, ascending). Yang & Lerch (2020), Sec. 3.1.1.

    MGEval takes the order of note-on events in the file; for chords that order is arbitrary, so creval fixes it.
    NaN for fewer than two notes (MGEval: the mean of an empty array, also NaN)."""
    if len(notes) < 2:
        return float("nan")
    return float(np.mean(np.abs(np.diff(notes.pitch))))


# ----------------------------------------------------------------------------------------------- rhythm
def total_used_note(notes: Track) -> int:
    """Note count (NC): the number of notes (note-on events). Yang & Lerch (2020), Sec. 3.1.2."""
    return int(len(notes))


def bar_used_note(notes: Track, n_bars: int) -> np.ndarray:
    """Note count per bar (by onset), shape (n_bars,). Yang & Lerch (2020), Sec. 3.1.2."""
    keep = notes.bar < n_bars
    return np.bincount(notes.bar[keep], minlength=n_bars)[:n_bars].astype(float)


def avg_IOI(notes: Track) -> float:  # noqa: N802 - MGEval's name
    r"""Average inter-onset interval (IOI) in seconds: :math:`\frac{1}{N-1}\sum_n (t_{n} - t_{n-1})` over all
    note onsets sorted in time (simultaneous onsets count, giving intervals of 0, as in MGEval, which uses
    ``pretty_midi.get_onsets``). Yang & Lerch (2020), Sec. 3.1.2. NaN for fewer than two notes."""
    if len(notes) < 2:
        return float("nan")
    return float(np.mean(np.diff(np.sort(notes.onset_s))))


def _length_classes(lengths: np.ndarray, bar_length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    unit = bar_length / 96.0
    dist = np.abs(NOTE_LENGTH_UNITS[None, :] * unit[:, None] - lengths[:, None])
    idx = dist.argmin(axis=1)
    return idx, dist[np.arange(len(idx)), idx] / unit


def _events(notes: Track, piece: Piece, pause_event: bool, relative_to: str = "bar") -> np.ndarray:
    """Class of each note (0–11) and, with ``pause_event``, of each qualifying rest before a note (12–23), in
    time order."""
    if not len(notes):
        return np.zeros(0, dtype=np.int64)
    if relative_to == "bar":
        num, den = piece.time_signature_at(notes.onset)
        bar_length = num * 4.0 / den
    elif relative_to == "whole":
        bar_length = np.full(len(notes), 4.0)
    else:
        raise InputError(f"relative_to must be 'bar' or 'whole', got {relative_to!r}")
    idx, _ = _length_classes(notes.duration, bar_length)
    if not pause_event:
        return idx
    prev_end = np.maximum.accumulate(notes.end)
    gap = np.concatenate([[0.0], notes.onset[1:] - prev_end[:-1]])
    ridx, rdist = _length_classes(np.maximum(gap, 0.0), bar_length)
    rest = (gap > 1e-9) & (rdist < 3.0)
    seq = np.empty(len(notes) + int(rest.sum()), dtype=np.int64)
    pos = np.arange(len(notes)) + np.cumsum(rest)  # where each note lands
    seq[pos] = idx
    seq[pos[rest] - 1] = ridx[rest] + 12
    return seq


def note_length_hist(notes: Track, piece: Piece, normalize: bool = True, pause_event: bool = False,
                     relative_to: str = "bar") -> np.ndarray:
    r"""Note length histogram (NLH): each note's length is given the nearest of MGEval's 12 classes, measured in
    units of the bar length / 96 under the time signature in effect at the note (whole = 96 units, …, 8th-note
    triplet = 8); 12 values, or 24 with ``pause_event`` (the same classes for the rest before a note, counted when
    it is within 3 units of a class, MGEval's tolerance). Normalised to sum 1 unless ``normalize=False``.

    Yang & Lerch (2020), Sec. 3.1.2. A note's rest is the gap between the latest end of the notes before it and
    its onset. Because MGEval's unit is the *bar* / 96, a quarter note in 3/4 or 6/8 (32 units) lands in the
    "half-note triplet" class; ``relative_to="whole"`` measures against a whole note (4 quarter notes) instead,
    so the class names mean what they say in every metre. The default keeps MGEval's definition."""
    seq = _events(notes, piece, pause_event, relative_to)
    hist = np.bincount(seq, minlength=24 if pause_event else 12).astype(float)
    if normalize and hist.sum() > 0:
        hist = hist / hist.sum()
    return hist


def note_length_transition_matrix(notes: Track, piece: Piece, normalize: int = 0,
                                  pause_event: bool = False, relative_to: str = "bar") -> np.ndarray:
    """Note length transition matrix (NLTM), 12 × 12 (24 × 24 with ``pause_event``): counts of consecutive
    events' classes (see :func:`note_length_hist`) in time order. ``normalize`` as for the PCTM.

    Yang & Lerch (2020), Sec. 3.1.2. With rests MGEval writes a rest's transition into the row of the note before
    it in a way that never counts rest → note; creval counts every consecutive pair of events."""
    seq = _events(notes, piece, pause_event, relative_to)
    size = 24 if pause_event else 12
    out = np.zeros((size, size))
    if len(seq) > 1:
        np.add.at(out, (seq[:-1], seq[1:]), 1)
    return _normalize_matrix(out, normalize)


# -------------------------------------------------------------------------------------------- extraction
@dataclass(frozen=True)
class FeatureSpec:
    name: str
    label: str
    per_bar: bool
    shape: tuple[int, ...]  # () scalar; for per-bar features the per-bar shape


FEATURES: dict[str, FeatureSpec] = {s.name: s for s in [
    FeatureSpec("total_used_pitch", "pitch count (PC)", False, ()),
    FeatureSpec("bar_used_pitch", "pitch count per bar", True, ()),
    FeatureSpec("total_used_note", "note count (NC)", False, ()),
    FeatureSpec("bar_used_note", "note count per bar", True, ()),
    FeatureSpec("total_pitch_class_histogram", "pitch class histogram (PCH)", False, (12,)),
    FeatureSpec("bar_pitch_class_histogram", "pitch class histogram per bar", True, (12,)),
    FeatureSpec("pitch_class_transition_matrix", "pitch class transition matrix (PCTM)", False, (12, 12)),
    FeatureSpec("pitch_range", "pitch range (PR)", False, ()),
    FeatureSpec("avg_pitch_shift", "average pitch interval (PI)", False, ()),
    FeatureSpec("avg_IOI", "average inter-onset interval (IOI, s)", False, ()),
    FeatureSpec("note_length_hist", "note length histogram (NLH)", False, (12,)),
    FeatureSpec("note_length_transition_matrix", "note length transition matrix (NLTM)", False, (12, 12)),
]}
SCALAR_FEATURES = tuple(n for n, s in FEATURES.items() if not s.per_bar and s.shape == ())
DEFAULT_FEATURES = tuple(FEATURES)


def piece_notes(piece: Piece, track: int | str | None = None) -> Track:
    """The notes MGEval's features see: one track, or all pitched (non-drum) tracks merged; refuses a piece
    with no pitched note."""
    notes = piece.notes(track)
    if not len(notes):
        drums = any(len(t) for t in piece.tracks if t.is_drum)
        raise InputError("no pitched notes (only drum tracks)" if drums else "no notes", piece.path)
    return notes


def extract_features(piece: Piece, features: Sequence[str] = DEFAULT_FEATURES, *, track: int | str | None = None,
                     num_bars: int | None = None, pause_event: bool = False, pch_weight: str = "duration",
                     pctm_normalize: int = 0, nltm_normalize: int = 0,
                     length_relative_to: str = "bar") -> dict[str, np.ndarray]:
    """All requested features of one piece as arrays (scalars as 0-d arrays; per-bar features with one row per
    bar: the piece's bars, or exactly ``num_bars`` — cut or padded with zeros, as MGEval's ``num_bar``)."""
    unknown = [f for f in features if f not in FEATURES]
    if unknown:
        raise InputError(f"unknown feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
    notes = piece_notes(piece, track)
    n_bars = num_bars if num_bars is not None else max(piece.n_bars, int(notes.bar.max()) + 1)
    bar_starts = piece.bar_starts
    if len(bar_starts) < n_bars:  # pad bar lines for num_bars beyond the piece (empty bars)
        last = bar_starts[-1] if len(bar_starts) else 0.0
        step = piece.time_signatures[-1].bar_length
        bar_starts = np.concatenate([bar_starts, last + step * np.arange(1, n_bars - len(bar_starts) + 1)])
    calls: dict[str, Callable[[], object]] = {
        "total_used_pitch": lambda: total_used_pitch(notes),
        "bar_used_pitch": lambda: bar_used_pitch(notes, n_bars),
        "total_used_note": lambda: total_used_note(notes),
        "bar_used_note": lambda: bar_used_note(notes, n_bars),
        "total_pitch_class_histogram": lambda: total_pitch_class_histogram(notes, pch_weight),
        "bar_pitch_class_histogram": lambda: bar_pitch_class_histogram(notes, bar_starts, n_bars, pch_weight),
        "pitch_class_transition_matrix": lambda: _pctm(piece, notes, track, pctm_normalize),
        "pitch_range": lambda: pitch_range(notes),
        "avg_pitch_shift": lambda: avg_pitch_shift(notes),
        "avg_IOI": lambda: avg_IOI(notes),
        "note_length_hist": lambda: note_length_hist(notes, piece, pause_event=pause_event,
                                                    relative_to=length_relative_to),
        "note_length_transition_matrix": lambda: note_length_transition_matrix(notes, piece, nltm_normalize,
                                                                               pause_event, length_relative_to),
    }
    return {name: np.asarray(calls[name](), dtype=float) for name in features}


def _pctm(piece: Piece, notes: Track, track: int | str | None, normalize: int) -> np.ndarray:
    """PCTM of one track, or, for all tracks, the sum of each pitched track's matrix (transitions stay within a
    track, as ``pretty_midi.PrettyMIDI.get_pitch_class_transition_matrix`` sums its instruments')."""
    if track is not None or len(piece.pitched_tracks) <= 1:
        return pitch_class_transition_matrix(notes, normalize)
    total = sum(pitch_class_transition_matrix(t) for t in piece.pitched_tracks)
    return _normalize_matrix(np.asarray(total, dtype=float), normalize)


def feature_table(feature_dicts: Sequence[dict[str, np.ndarray]], names: Sequence[str] | None = None
                  ) -> dict[str, np.ndarray]:
    """Stack the features of many pieces: name → array of shape (n_pieces, …). Per-bar features must have the
    same number of bars in every piece (extract with ``num_bars``)."""
    if not feature_dicts:
        return {}
    names = list(names or feature_dicts[0])
    out = {}
    for name in names:
        arrays = [d[name] for d in feature_dicts]
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise InputError(f"feature {name!r} has different shapes across pieces {sorted(shapes)[:3]}; "
                             "extract per-bar features with a fixed num_bars")
        out[name] = np.stack(arrays)
    return out


def set_statistics(table: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-set absolute statistics (Yang & Lerch 2020, Sec. 3.1, Table 2): the mean and the standard deviation
    (ddof = 0, as ``np.std`` in MGEval's demo) of each feature over the pieces, element-wise for vectors and
    matrices, ignoring NaN values."""
    return {name: (np.nanmean(values, axis=0), np.nanstd(values, axis=0)) for name, values in table.items()}
