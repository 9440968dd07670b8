"""Reading symbolic music into note sequences: MIDI (own parser of the byte format), MusicXML, ABC and Humdrum (via music21).

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
because it refuses files longer than 10⁷ ticks (about 5,000 bars of 4/4 at 480 ticks per quarter); ``mido`` is
not used because building one Python object per event makes reading four times slower. The tests compare this
reader with ``pretty_midi`` (which reads through ``mido``) note for note.
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
class _Corrupt(Exception):
    """Raised inside the SMF parser; turned into an InputError naming the file."""


def _smf_chunks(data: bytes) -> tuple[int, int, list[bytes]]:
    """(format, ticks per quarter, track chunks) of a Standard MIDI File."""
    if data[:4] != b"MThd":
        raise _Corrupt("no MThd header: not a MIDI file")
    if len(data) < 14:
        raise _Corrupt("truncated header")
    header_len = int.from_bytes(data[4:8], "big")
    if header_len < 6:
        raise _Corrupt("header chunk too short")
    fmt = int.from_bytes(data[8:10], "big")
    division = int.from_bytes(data[12:14], "big")
    if division & 0x8000:
        raise _Corrupt("SMPTE time division is not supported")
    if division == 0:
        raise _Corrupt("zero ticks per quarter note")
    pos = 8 + header_len
    chunks = []
    while pos + 8 <= len(data):
        kind = data[pos:pos + 4]
        length = int.from_bytes(data[pos + 4:pos + 8], "big")
        pos += 8
        if pos + length > len(data):
            raise _Corrupt(f"truncated {kind.decode('latin-1')!r} chunk ({len(data) - pos} of {length} bytes)")
        if kind == b"MTrk":
            chunks.append(data[pos:pos + length])
        pos += length
    return fmt, division, chunks


_DATA_BYTES = {0x80: 2, 0x90: 2, 0xA0: 2, 0xB0: 2, 0xC0: 1, 0xD0: 1, 0xE0: 2}


def _parse_track(body: bytes, tpq: float, tempos: list, time_signatures: list):
    """One MTrk chunk → (name, programs, notes by channel, last tick). Running status as the SMF spec."""
    i = 0
    n = len(body)
    tick = 0
    status = 0
    name = ""
    programs: dict[int, int] = {}
    open_notes: dict[tuple[int, int], list[tuple[int, int]]] = {}
    notes: dict[int, list[tuple[int, int, int, int]]] = {}
    while i < n:
        delta = 0
        while True:
            if i >= n:
                raise _Corrupt("truncated event time")
            byte = body[i]
            i += 1
            delta = (delta << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        tick += delta
        if i >= n:
            raise _Corrupt("truncated event")
        byte = body[i]
        if byte == 0xFF:  # meta event
            if i + 2 > n:
                raise _Corrupt("truncated meta event")
            kind = body[i + 1]
            i += 2
            length = 0
            while True:
                if i >= n:
                    raise _Corrupt("truncated meta event length")
                b = body[i]
                i += 1
                length = (length << 7) | (b & 0x7F)
                if b < 0x80:
                    break
            payload = body[i:i + length]
            if len(payload) < length:
                raise _Corrupt("truncated meta event")
            i += length
            if kind == 0x51 and length == 3:
                mpq = int.from_bytes(payload, "big")
                if mpq > 0:
                    tempos.append((tick / tpq, 60_000_000.0 / mpq))
            elif kind == 0x58 and length >= 2:
                if payload[0] > 0 and payload[1] < 16:
                    time_signatures.append(TimeSignature(tick / tpq, int(payload[0]), 2 ** int(payload[1])))
            elif kind == 0x03 and not name:
                name = payload.decode("latin-1").strip()
            elif kind == 0x2F:
                break
            continue
        if byte in (0xF0, 0xF7):  # sysex
            i += 1
            length = 0
            while True:
                if i >= n:
                    raise _Corrupt("truncated sysex length")
                b = body[i]
                i += 1
                length = (length << 7) | (b & 0x7F)
                if b < 0x80:
                    break
            i += length
            continue
        if byte >= 0x80:
            if byte >= 0xF0:
                raise _Corrupt(f"unexpected status byte 0x{byte:02X}")
            status = byte
            i += 1
        elif status == 0:
            raise _Corrupt("data byte without a status byte")
        size = _DATA_BYTES[status & 0xF0]
        if i + size > n:
            raise _Corrupt("truncated channel message")
        d1 = min(body[i], 127)
        d2 = min(body[i + 1], 127) if size == 2 else 0
        i += size
        hi = status & 0xF0
        channel = status & 0x0F
        if hi == 0x90 and d2 > 0:
            open_notes.setdefault((channel, d1), []).append((tick, d2))
        elif hi == 0x80 or hi == 0x90:
            stack = open_notes.get((channel, d1))
            if stack:
                start, vel = stack.pop(0)
                notes.setdefault(channel, []).append((start, tick, d1, vel))
        elif hi == 0xC0:
            programs.setdefault(channel, d1)
    for (channel, pitch), stack in open_notes.items():
        for start, vel in stack:
            notes.setdefault(channel, []).append((start, max(tick, start), pitch, vel))
    return name, programs, notes, tick


def read_midi(path: str | Path) -> Piece:
    """Read a Standard MIDI File (type 0 or 1) into a :class:`Piece` (see the module docstring).

    A small parser of the SMF byte format (running status, meta and sysex events; data bytes above 127
    clipped, as ``mido``'s ``clip=True``) — several times faster than building ``mido`` message objects."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path)
    data = path.read_bytes()
    if not data:
        raise InputError("empty file: not a MIDI file", path)
    time_signatures: list[TimeSignature] = []
    tempos: list[tuple[float, float]] = []
    raw_tracks: list[dict] = []
    end_tick = 0
    try:
        fmt, division, chunks = _smf_chunks(data)
        if fmt == 2:
            raise _Corrupt("MIDI type 2 (independent sequences) is not supported")
        tpq = float(division)
        for t_index, body in enumerate(chunks):
            name, programs, notes, last = _parse_track(body, tpq, tempos, time_signatures)
            end_tick = max(end_tick, last)
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
    except _Corrupt as exc:
        raise InputError(f"not a readable MIDI file ({exc})", path) from None
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
