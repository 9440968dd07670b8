"""Helpers for the music tests: write small MIDI files with mido."""

from __future__ import annotations

from pathlib import Path

import mido
import pytest


def write_midi(path: Path, notes, *, tpq: int = 480, time_signatures=((0, 4, 4),), tempos=((0, 120.0),),
               channel: int = 0, extra_tracks=()) -> Path:
    """notes: (onset_quarters, duration_quarters, pitch[, velocity]); written as a type-1 file with a
    conductor track (time signatures, tempos) and one note track per entry of [notes, *extra_tracks]."""
    mid = mido.MidiFile(type=1, ticks_per_beat=tpq)
    meta = mido.MidiTrack()
    events = []
    for q, num, den in time_signatures:
        events.append((round(q * tpq), mido.MetaMessage("time_signature", numerator=num, denominator=den, time=0)))
    for q, bpm in tempos:
        events.append((round(q * tpq), mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(bpm), time=0)))
    _append(meta, events)
    mid.tracks.append(meta)
    for k, (track_notes, ch) in enumerate([(notes, channel), *extra_tracks]):
        track = mido.MidiTrack()
        track.append(mido.MetaMessage("track_name", name=f"t{k}", time=0))
        ev = []
        for n in track_notes:
            onset, dur, pitch = n[:3]
            vel = n[3] if len(n) > 3 else 80
            ev.append((round((onset + dur) * tpq), mido.Message("note_off", note=pitch, velocity=0, channel=ch)))
            ev.append((round(onset * tpq), mido.Message("note_on", note=pitch, velocity=vel, channel=ch)))
        _append(track, ev)
        mid.tracks.append(track)
    mid.save(str(path))
    return path


def _append(track: mido.MidiTrack, events) -> None:
    # note-offs sort before note-ons at the same tick (they were appended first)
    events = sorted(enumerate(events), key=lambda e: (e[1][0], 0 if e[1][1].type == "note_off" else 1, e[0]))
    now = 0
    for _, (tick, msg) in events:
        track.append(msg.copy(time=tick - now))
        now = tick


@pytest.fixture
def midi_writer(tmp_path: Path):
    def make(name: str, notes, **kw) -> Path:
        return write_midi(tmp_path / name, notes, **kw)

    return make


@pytest.fixture(scope="session")
def nottingham(shared_data: Path) -> Path:
    return shared_data / "nottingham-melody"
