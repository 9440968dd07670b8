"""Reading symbolic music into note sequences: MIDI (via ``mido``), MusicXML, ABC and Humdrum (via music21).

Every reader returns a :class:`Piece`: one :class:`Track` per MIDI track × channel (or per music21 part), each a
set of parallel numpy arrays — onset and duration in quarter notes *and* in seconds, MIDI pitch, velocity, the
bar (0-based) and the position in the bar (in quarter notes) — plus the piece's time-signature and tempo maps.

Decisions (documented because readers differ):

* **Time unit.** Onsets and durations are in quarter notes (MIDI ticks / ticks-per-quarter); the ``*_s`` arrays
  are seconds through the tempo map (120 quarter notes per minute until the first tempo event, as MIDI says).
* **Bars.** For MIDI the bar lines follow the time-signature map from tick 0 (4/4 until the first time
  signature; a time signature that arrives mid-bar starts a new bar there). MIDI has no notion of a pick-up bar.
  For music21 sources the bar lines are the measures of the first part, so a pick-up is bar 0 and is short.
* **Note pairing (MIDI).** A note-on with velocity 0 is a note-off; a note-off ends the *earliest* open note of
  that pitch and channel (first in, first out); notes still open at the end of their track end at the track's
  last event. Zero-length notes are kept (they are note-on events, which MGEval counts).
* **Drums.** Channel 10 (index 9) tracks are marked ``is_drum``; the features use pitched tracks only, so a
  drum-only file has no pitched notes (:class:`~creval.errors.InputError` when features are asked of it).
* **Limits.** A file whose time-signature map implies more than :data:`MAX_BARS` bars is refused (a 10,000-bar
  file reads fine).

MuSpy's music21 bridge is not used (it breaks with current music21); ``pretty_midi`` is not used for reading
because it refuses files longer than 10⁷ ticks (about 5,000 bars of 4/4 at 480 ticks per quarter).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from creval.errors import InputError

MIDI_SUFFIXES = (".mid", ".midi", ".smf", ".kar")
M21_SUFFIXES = (".xml", ".musicxml", ".mxl", ".abc", ".krn", ".mei")
MUSIC_SUFFIXES = MIDI_SUFFIXES + M21_SUFFIXES
MAX_BARS = 100_000


@dataclass
class Track:
    """The notes of one track (MIDI track × channel, or one music21 part), sorted by (onset, pitch)."""

    name: str
    program: int
    is_drum: bool
    onset: np.ndarray  # quarter notes
    duration: np.ndarray  # quarter notes
    pitch: np.ndarray  # MIDI number
    velocity: np.ndarray
    onset_s: np.ndarray  # seconds
    duration_s: np.ndarray
    bar: np.ndarray  # 0-based bar index
    beat: np.ndarray  # position in the bar, quarter notes from the bar line

    def __len__(self) -> int:
        return len(self.onset)

    @property
    def end(self) -> np.ndarray:
        return self.onset + self.duration

    @property
    def end_s(self) -> np.ndarray:
        return self.onset_s + self.duration_s


@dataclass(frozen=True)
class TimeSignature:
    onset: float  # quarter notes
    numerator: int
    denominator: int

    @property
    def bar_length(self) -> float:
        """Length of a bar in quarter notes."""
        return self.numerator * 4.0 / self.denominator


@dataclass
class Piece:
    """A piece of music: tracks of notes, time-signature and tempo maps, bar lines (quarter notes)."""

    path: str
    tracks: list[Track]
    time_signatures: list[TimeSignature]
    tempos: list[tuple[float, float]]  # (onset in quarter notes, quarter notes per minute)
    bar_starts: np.ndarray
    end: float  # quarter notes
    _tempo_q: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    _tempo_s: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    _tempo_spq: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]

    @property
    def n_bars(self) -> int:
        return int(len(self.bar_starts))

    @property
    def pitched_tracks(self) -> list[Track]:
        return [t for t in self.tracks if not t.is_drum and len(t)]

    def notes(self, track: int | str | None = None, *, include_drums: bool = False) -> Track:
        """One track (by index or name) or all pitched tracks merged (drums too with ``include_drums``)."""
        if track is not None:
            if isinstance(track, int):
                if not 0 <= track < len(self.tracks):
                    raise InputError(f"track {track} does not exist (the piece has {len(self.tracks)})", self.path)
                return self.tracks[track]
            for t in self.tracks:
                if t.name == track:
                    return t
            raise InputError(f"no track named {track!r}", self.path)
        chosen = [t for t in self.tracks if include_drums or not t.is_drum]
        return merge_tracks(chosen, name="all")

    def time_signature_at(self, onsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, denominator) in effect at each onset."""
        starts = np.array([ts.onset for ts in self.time_signatures])
        idx = np.searchsorted(starts, onsets, side="right") - 1
        idx = np.clip(idx, 0, len(starts) - 1)
        num = np.array([ts.numerator for ts in self.time_signatures])[idx]
        den = np.array([ts.denominator for ts in self.time_signatures])[idx]
        return num, den

    def seconds(self, quarters: np.ndarray) -> np.ndarray:
        """Quarter-note positions → seconds through the tempo map."""
        q = np.asarray(quarters, dtype=float)
        idx = np.clip(np.searchsorted(self._tempo_q, q, side="right") - 1, 0, len(self._tempo_q) - 1)
        return self._tempo_s[idx] + (q - self._tempo_q[idx]) * self._tempo_spq[idx]


def merge_tracks(tracks: Sequence[Track], name: str = "merged") -> Track:
    """All notes of ``tracks`` in one track, sorted by (onset, pitch)."""
    if not tracks:
        return _empty_track(name)
    cat = {k: np.concatenate([getattr(t, k) for t in tracks]) for k in _ARRAYS}
    order = np.lexsort((cat["pitch"], cat["onset"]))
    return Track(name=name, program=tracks[0].program, is_drum=all(t.is_drum for t in tracks),
                 **{k: v[order] for k, v in cat.items()})


_ARRAYS = ("onset", "duration", "pitch", "velocity", "onset_s", "duration_s", "bar", "beat")


def _empty_track(name: str) -> Track:
    f = np.zeros(0)
    i = np.zeros(0, dtype=np.int64)
    return Track(name, 0, False, f, f, i, i, f, f, i, f)


# ------------------------------------------------------------------------------------------------ assembling
def _bar_starts(time_signatures: list[TimeSignature], end: float, path: str) -> np.ndarray:
    starts: list[np.ndarray] = []
    for k, ts in enumerate(time_signatures):
        stop = time_signatures[k + 1].onset if k + 1 < len(time_signatures) else max(end, ts.onset + 1e-9)
        length = ts.bar_length
        n = int(np.ceil((stop - ts.onset) / length - 1e-9))
        if sum(len(s) for s in starts) + n > MAX_BARS:
            raise InputError(f"more than {MAX_BARS} bars: refusing the file (is its length or time signature "
                             "corrupt?)", path)
        starts.append(ts.onset + length * np.arange(max(n, 0)))
    out = np.concatenate(starts) if starts else np.zeros(0)
    return out if len(out) else np.zeros(1)


def _assemble(path: str, raw_tracks: list[dict], time_signatures: list[TimeSignature],
              tempos: list[tuple[float, float]], end: float, bar_starts: np.ndarray | None = None) -> Piece:
    time_signatures = _clean_ts(time_signatures)
    tempos = sorted(tempos) or [(0.0, 120.0)]
    if tempos[0][0] > 0:
        tempos.insert(0, (0.0, 120.0))
    tq = np.array([t[0] for t in tempos], dtype=float)
    spq = np.array([60.0 / t[1] for t in tempos], dtype=float)
    ts_ = np.concatenate([[0.0], np.cumsum(np.diff(tq) * spq[:-1])])
    if bar_starts is None:
        bar_starts = _bar_starts(time_signatures, end, path)
    piece = Piece(path=path, tracks=[], time_signatures=time_signatures, tempos=tempos, bar_starts=bar_starts,
                  end=end, _tempo_q=tq, _tempo_s=ts_, _tempo_spq=spq)
    for raw in raw_tracks:
        onset = np.asarray(raw["onset"], dtype=float)
        duration = np.asarray(raw["duration"], dtype=float)
        pitch = np.asarray(raw["pitch"], dtype=np.int64)
        velocity = np.asarray(raw["velocity"], dtype=np.int64)
        order = np.lexsort((pitch, onset))
        onset, duration, pitch, velocity = onset[order], duration[order], pitch[order], velocity[order]
        onset_s = piece.seconds(onset)
        duration_s = piece.seconds(onset + duration) - onset_s
        bar = np.clip(np.searchsorted(bar_starts, onset + 1e-9, side="right") - 1, 0, None)
        beat = onset - bar_starts[bar] if len(bar_starts) else onset
        piece.tracks.append(Track(raw["name"], raw["program"], raw["is_drum"], onset, duration, pitch, velocity,
                                  onset_s, duration_s, bar.astype(np.int64), beat))
    return piece


def _clean_ts(time_signatures: list[TimeSignature]) -> list[TimeSignature]:
    by_onset: dict[float, TimeSignature] = {}
    for ts in sorted(time_signatures, key=lambda t: t.onset):
        by_onset[ts.onset] = ts  # the last one at an onset wins
    out = list(by_onset.values())
    if not out or out[0].onset > 0:
        out.insert(0, TimeSignature(0.0, 4, 4))
    return out


# ------------------------------------------------------------------------------------------------------ MIDI
def read_midi(path: str | Path) -> Piece:
    """Read a Standard MIDI File (type 0 or 1) into a :class:`Piece` (see the module docstring)."""
    import mido

    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path)
    if path.stat().st_size == 0:
        raise InputError("empty file: not a MIDI file", path)
    try:
        mid = mido.MidiFile(str(path), clip=True)
    except (OSError, EOFError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise InputError(f"not a readable MIDI file ({type(exc).__name__}: {exc})", path) from None
    if mid.type == 2:
        raise InputError("MIDI type 2 (independent sequences) is not supported", path)
    tpq = float(mid.ticks_per_beat)
    if tpq <= 0:
        raise InputError("MIDI file with SMPTE time division is not supported", path)
    raw_tracks: list[dict] = []
    time_signatures: list[TimeSignature] = []
    tempos: list[tuple[float, float]] = []
    end_tick = 0
    for t_index, track in enumerate(mid.tracks):
        tick = 0
        name = ""
        programs: dict[int, int] = {}
        open_notes: dict[tuple[int, int], list[tuple[int, int]]] = {}
        notes: dict[int, list[tuple[int, int, int, int]]] = {}  # channel -> (start, end, pitch, velocity)
        for msg in track:
            tick += msg.time
            kind = msg.type
            if kind == "note_on" and msg.velocity > 0:
                open_notes.setdefault((msg.channel, msg.note), []).append((tick, msg.velocity))
            elif kind == "note_off" or (kind == "note_on" and msg.velocity == 0):
                stack = open_notes.get((msg.channel, msg.note))
                if stack:
                    start, vel = stack.pop(0)
                    notes.setdefault(msg.channel, []).append((start, tick, msg.note, vel))
            elif kind == "set_tempo":
                tempos.append((tick / tpq, 60_000_000.0 / msg.tempo))
            elif kind == "time_signature":
                time_signatures.append(TimeSignature(tick / tpq, int(msg.numerator), int(msg.denominator)))
            elif kind == "program_change":
                programs.setdefault(msg.channel, msg.program)
            elif kind == "track_name" and not name:
                name = msg.name.strip()
        for (channel, pitch), stack in open_notes.items():
            for start, vel in stack:
                notes.setdefault(channel, []).append((start, max(tick, start), pitch, vel))
        end_tick = max(end_tick, tick)
        for channel, items in sorted(notes.items()):
            arr = np.array(items, dtype=np.int64)
            label = name or f"track {t_index}"
            if len(notes) > 1:
                label += f" ch{channel + 1}"
            raw_tracks.append({
                "name": label,
                "program": programs.get(channel, 0),
                "is_drum": channel == 9,
                "onset": arr[:, 0] / tpq,
                "duration": (arr[:, 1] - arr[:, 0]) / tpq,
                "pitch": arr[:, 2],
                "velocity": arr[:, 3],
            })
    return _assemble(str(path), raw_tracks, time_signatures, tempos, end_tick / tpq)


# --------------------------------------------------------------------------------------------------- music21
def read_music21(path: str | Path) -> Piece:
    """Read MusicXML, ABC, Humdrum or MEI with music21 (ties joined; chords give one note per pitch).

    A multi-tune ABC file (an opus) gives its first tune. Bar lines are the first part's measures."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path)
    if path.stat().st_size == 0:
        raise InputError("empty file", path)
    from music21 import converter

    try:
        parsed = converter.parse(str(path))
    except Exception as exc:  # music21 raises many unrelated types for a bad file
        raise InputError(f"music21 cannot read this file ({type(exc).__name__}: {exc})", path) from None
    return piece_from_music21(parsed, str(path))


def piece_from_music21(obj, path: str = "<music21>") -> Piece:
    """Build a :class:`Piece` from a parsed music21 Score (or Opus: first score; or a single Part)."""
    from music21 import meter, stream, tempo

    if isinstance(obj, stream.Opus):
        scores = list(obj.scores)
        if not scores:
            raise InputError("the file holds no tune", path)
        obj = scores[0]
    score = obj.stripTies(inPlace=False) if hasattr(obj, "stripTies") else obj
    parts = list(score.parts) if isinstance(score, stream.Score) else [score]
    if not parts:
        parts = [score]
    raw_tracks = []
    for k, part in enumerate(parts):
        onset, duration, pitch, velocity = [], [], [], []
        for el in part.flatten().notes:
            off = float(el.getOffsetInHierarchy(part))
            ql = float(el.duration.quarterLength)
            vel = el.volume.velocity if el.volume is not None and el.volume.velocity is not None else 64
            for p in el.pitches:
                onset.append(off)
                duration.append(ql)
                pitch.append(int(round(p.ps)))
                velocity.append(int(vel))
        name = (part.partName or part.id or f"part {k}") if hasattr(part, "partName") else f"part {k}"
        raw_tracks.append({"name": str(name), "program": 0, "is_drum": False, "onset": onset,
                           "duration": duration, "pitch": pitch, "velocity": velocity})
    first = parts[0]
    time_signatures = [TimeSignature(float(ts.getOffsetInHierarchy(first)), int(ts.numerator),
                                     int(ts.denominator))
                       for ts in first.flatten().getElementsByClass(meter.TimeSignature)]
    tempos = []
    for mm in score.flatten().getElementsByClass(tempo.MetronomeMark):
        qpm = mm.getQuarterBPM()
        if qpm:
            tempos.append((float(mm.getOffsetInHierarchy(score)), float(qpm)))
    measures = list(first.getElementsByClass(stream.Measure))
    end = float(score.highestTime)
    bar_starts = np.array(sorted({float(m.offset) for m in measures})) if measures else None
    if bar_starts is not None and len(bar_starts) == 0:
        bar_starts = None
    return _assemble(path, raw_tracks, time_signatures, tempos, end, bar_starts)


# -------------------------------------------------------------------------------------------------- dispatch
def read_piece(path: str | Path) -> Piece:
    """Read any supported file by its suffix (MIDI: .mid .midi .smf .kar; music21: .xml .musicxml .mxl .abc
    .krn .mei)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in MIDI_SUFFIXES:
        return read_midi(path)
    if suffix in M21_SUFFIXES:
        return read_music21(path)
    raise InputError(f"unknown music file type {suffix or '(no suffix)'!r}; expected one of "
                     f"{' '.join(MUSIC_SUFFIXES)}", path)


def music_files(folder: str | Path) -> list[Path]:
    """The music files in ``folder`` (recursively, sorted); an InputError when there are none."""
    folder = Path(folder)
    if not folder.exists():
        raise InputError("folder not found", folder)
    if folder.is_file():
        return [folder]
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in MUSIC_SUFFIXES
                   and not p.name.startswith("."))
    if not files:
        raise InputError(f"no music files ({' '.join(MUSIC_SUFFIXES)}) in the folder", folder)
    return files


def read_pieces(paths: Iterable[str | Path], *, progress: bool = False, description: str = "reading") -> list[Piece]:
    """Read many files, with a rich progress bar when ``progress``."""
    paths = list(paths)
    if not progress:
        return [read_piece(p) for p in paths]
    from rich.progress import Progress

    out = []
    with Progress(transient=True) as bar:
        task = bar.add_task(description, total=len(paths))
        for p in paths:
            out.append(read_piece(p))
            bar.advance(task)
    return out
