"""A plain-text note list for post-editing music in the study web app, with tokens for HER and an SVG preview.

The *notes* format: whitespace-separated tokens, bar lines ``|`` optional (they only help the reader)::

    C4:1 D4:0.5 E4 | F#4+A4:2 r:1 Bb3:1/3 C4 D4

A token is a pitch (``C4`` is MIDI 60; ``#``/``b`` accidentals, ``##``/``bb`` doubled), a chord of pitches joined
by ``+``, or ``r`` for a rest, optionally followed by ``:`` and a length in quarter notes (a decimal or a fraction
such as ``1/3``); without a length a token lasts as long as the token before it (the first: one quarter).
ABC is accepted too (text with a ``K:`` line), read with music21.

For HER (:mod:`creval.music.her`) a note is the token ``"<MIDI pitch>:<length>"`` (pitch and length, length
rounded to 1/48 of a quarter), one per chord member, in order of onset; rests are not tokens (they move the
notes after them, which only pitch+length tokens with positions would see).

Importing this module registers :func:`notation_tokens` as the ``"music"`` tokenizer of the post-editing study
(:data:`creval.human.designs.EDIT_TOKENIZERS`).
"""

from __future__ import annotations

import html
import re
from fractions import Fraction

import numpy as np

from creval.errors import InputError
from creval.music.io import Piece, Track

_PITCH = re.compile(r"^([A-Ga-g])(##|bb|#|b)?(-?\d+)$")
_STEPS = {"c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11}
_ACC = {None: 0, "#": 1, "##": 2, "b": -1, "bb": -2}
_NAMES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")


def is_abc(text: str) -> bool:
    """True when the text looks like ABC notation (a ``K:`` header line)."""
    return re.search(r"^\s*K:", text, flags=re.MULTILINE) is not None


def parse_pitch(name: str) -> int:
    """``C4`` → 60, ``F#3`` → 54, ``Bb5`` → 82; an InputError for anything else or outside 0–127."""
    m = _PITCH.match(name)
    if not m:
        raise InputError(f"not a pitch: {name!r} (write e.g. C4, F#3, Bb5)")
    midi = 12 * (int(m.group(3)) + 1) + _STEPS[m.group(1).lower()] + _ACC[m.group(2)]
    if not 0 <= midi <= 127:
        raise InputError(f"pitch {name!r} is outside the MIDI range")
    return midi


def pitch_name(midi: int) -> str:
    return f"{_NAMES[midi % 12]}{midi // 12 - 1}"


def _duration(text: str, token: str) -> float:
    try:
        value = float(Fraction(text))
    except (ValueError, ZeroDivisionError):
        raise InputError(f"bad length in {token!r}: {text!r} (a number of quarter notes, e.g. 1, 0.5, 1/3)"
                         ) from None
    if not 0 < value <= 1024:
        raise InputError(f"length in {token!r} must be positive (quarter notes)")
    return value


def parse_notes(text: str) -> list[tuple[float, float, int]]:
    """Parse the notes format into ``(onset, length, pitch)`` triples (quarter notes), rests left out."""
    out: list[tuple[float, float, int]] = []
    now = 0.0
    last = 1.0
    for position, token in enumerate(text.split(), 1):
        if token == "|" or token == "||":
            continue
        head, sep, dur = token.partition(":")
        length = _duration(dur, token) if sep else last
        last = length
        if head.lower() == "r":
            now += length
            continue
        try:
            pitches = [parse_pitch(p) for p in head.split("+")]
        except InputError as exc:
            raise InputError(f"token {position} {token!r}: {exc.problem}") from None
        for p in sorted(set(pitches)):
            out.append((now, length, p))
        now += length
    return out


def notation_track(text: str) -> Track:
    """The notes of a notation string (notes format or ABC) as a :class:`~creval.music.io.Track`."""
    if is_abc(text):
        from music21 import converter

        from creval.music.io import piece_from_music21

        try:
            parsed = converter.parse(text, format="abc")
        except Exception as exc:  # music21 raises many types for bad ABC
            raise InputError(f"cannot read the ABC notation ({type(exc).__name__}: {exc})") from None
        return piece_from_music21(parsed, "<abc>").notes()
    notes = parse_notes(text)
    onset = np.array([n[0] for n in notes], dtype=float)
    duration = np.array([n[1] for n in notes], dtype=float)
    pitch = np.array([n[2] for n in notes], dtype=np.int64)
    zeros = np.zeros(len(notes), dtype=np.int64)
    return Track("notation", 0, False, onset, duration, pitch, zeros + 80, onset / 2, duration / 2, zeros,
                 onset.copy())


def notation_tokens(text: str) -> list[str]:
    """HER tokens of a notation string: ``"<pitch>:<length>"`` per note in order of onset.

    Lenient, because an annotator's edit is data, not a command: in the notes format a token that cannot be read
    becomes the literal token ``"?<token>"`` (so a typo counts as an edit instead of losing the judgement); ABC
    that music21 cannot read is an :class:`~creval.errors.InputError`."""
    from creval.music.edit import note_tokens

    if is_abc(text):
        return note_tokens(notation_track(text), "pitch+duration")
    out: list[str] = []
    last = 1.0
    for token in text.split():
        if token in ("|", "||"):
            continue
        try:
            notes = parse_notes(f"{token}" if ":" in token else f"{token}:{last!r}")
        except InputError:
            out.append(f"?{token}")
            continue
        head, sep, dur = token.partition(":")
        if sep:
            last = _duration(dur, token)
        if notes:
            track = Track("t", 0, False, np.zeros(len(notes)), np.array([n[1] for n in notes]),
                          np.array([n[2] for n in notes], dtype=np.int64), np.zeros(len(notes), dtype=np.int64),
                          np.zeros(len(notes)), np.zeros(len(notes)), np.zeros(len(notes), dtype=np.int64),
                          np.zeros(len(notes)))
            out.extend(note_tokens(track, "pitch+duration"))
    return out


def piece_to_notes(piece: Piece | Track, *, bars: bool = True) -> str:
    """Write a piece (all pitched tracks merged) in the notes format, rests filling the gaps, notes with the
    same onset and length joined as chords, ``|`` at bar lines (``bars``). Lengths are written in quarter notes,
    rounded to 1/48. The format is sequential (a melody, with chords): overlapping voices of different lengths
    come out one after the other, so give polyphonic pieces to annotators as ABC or MusicXML instead."""
    track = piece if isinstance(piece, Track) else piece.notes()
    parts: list[str] = []
    now = 0.0
    current_bar = 0
    i = 0
    n = len(track)

    def fmt(x: float) -> str:
        frac = Fraction(round(x * 48), 48)
        return str(frac.numerator) if frac.denominator == 1 else (
            f"{float(frac):g}" if len(f"{float(frac):g}") <= 6 else f"{frac.numerator}/{frac.denominator}")

    while i < n:
        onset, length = float(track.onset[i]), float(track.duration[i])
        if bars and int(track.bar[i]) != current_bar:
            parts.append("|")
            current_bar = int(track.bar[i])
        if round((onset - now) * 48) >= 1:  # gaps shorter than 1/48 of a quarter are not written
            parts.append(f"r:{fmt(onset - now)}")
        j = i
        chord = []
        while j < n and abs(track.onset[j] - onset) < 1e-6 and abs(track.duration[j] - length) < 1e-6:
            chord.append(pitch_name(int(track.pitch[j])))
            j += 1
        parts.append(f"{'+'.join(chord)}:{fmt(max(length, 1 / 48))}")
        now = max(now, onset + length)
        i = j
    return " ".join(parts)


def preview_svg(text: str, width: int = 640) -> str:
    """A piano-roll SVG of a notation string (for the annotator's preview); a short message when it cannot be
    read. Everything textual is escaped."""
    try:
        track = notation_track(text)
    except InputError as exc:
        return f'<p class="error" data-testid="preview-error">Cannot preview: {html.escape(exc.problem)}</p>'
    if not len(track):
        return '<p class="meta" data-testid="preview-empty">No notes to preview.</p>'
    lo, hi = int(track.pitch.min()) - 1, int(track.pitch.max()) + 1
    end = float(track.end.max())
    row = 6
    height = (hi - lo + 1) * row + 10
    scale = (width - 20) / max(end, 1e-9)
    rects = []
    for o, d, p in zip(track.onset, track.duration, track.pitch):
        x = 10 + o * scale
        y = 5 + (hi - p) * row
        rects.append(f'<rect x="{x:.1f}" y="{y}" width="{max(d * scale - 1, 1):.1f}" height="{row - 1}" rx="1">'
                     f"<title>{pitch_name(int(p))} ({d:g})</title></rect>")
    grid = []
    for q in range(0, int(np.ceil(end)) + 1, 4):
        x = 10 + q * scale
        grid.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height}" stroke="#ddd"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="piano roll of {len(track)} notes" '
            f'data-testid="preview" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<rect width="{width}" height="{height}" fill="#fff"/>{"".join(grid)}'
            f'<g fill="#3b6ea8">{"".join(rects)}</g></svg>')


def _register() -> None:
    try:
        from creval.human.designs import EDIT_TOKENIZERS
    except ImportError:  # pragma: no cover - the human package is part of creval
        return
    EDIT_TOKENIZERS.setdefault("music", notation_tokens)


_register()
