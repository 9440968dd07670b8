from __future__ import annotations

from pathlib import Path

import numpy as np
import pretty_midi
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creval.errors import InputError
from creval.music.features import extract_features, piece_notes
from creval.music.io import music_files, piece_from_music21, read_midi, read_music21, read_piece


def test_nottingham_matches_pretty_midi(nottingham: Path) -> None:
    for name in ("ashover1.mid", "jigs10.mid", "reelsa-c5.mid"):
        path = nottingham / name
        piece = read_midi(path)
        pm = pretty_midi.PrettyMIDI(str(path))
        ours = piece.notes()
        ref = sorted(((n.start, n.end, n.pitch, n.velocity) for i in pm.instruments for n in i.notes),
                     key=lambda t: (t[0], t[2]))
        assert len(ours) == len(ref)
        np.testing.assert_allclose(ours.onset_s, [r[0] for r in ref], atol=1e-9)
        np.testing.assert_allclose(ours.end_s, [r[1] for r in ref], atol=1e-9)
        assert list(ours.pitch) == [r[2] for r in ref]
        assert list(ours.velocity) == [r[3] for r in ref]
        ts = [(t.numerator, t.denominator) for t in piece.time_signatures]
        assert ts[0] == (pm.time_signature_changes[0].numerator, pm.time_signature_changes[0].denominator)


def test_bars_beats_tempo_and_time_signature_change(midi_writer) -> None:
    # 3/4 for two bars, then 7/8; tempo 60 from quarter 3
    notes = [(0, 1, 60), (2, 1, 62), (3, 1, 64), (6, 0.5, 65), (9.5, 0.5, 67)]
    path = midi_writer("ts.mid", notes, time_signatures=((0, 3, 4), (6, 7, 8)), tempos=((0, 120.0), (3, 60.0)))
    piece = read_piece(path)
    t = piece.notes()
    assert list(t.bar) == [0, 0, 1, 2, 3]
    np.testing.assert_allclose(t.beat, [0, 2, 0, 0, 0])  # 7/8 bar = 3.5 quarters: 6 + 3.5 = 9.5
    np.testing.assert_allclose(piece.bar_starts[:4], [0, 3, 6, 9.5])
    # 3 quarters at 120 bpm = 1.5 s; then 1 s per quarter
    np.testing.assert_allclose(t.onset_s, [0, 1.0, 1.5, 4.5, 8.0])
    np.testing.assert_allclose(t.duration_s, [0.5, 0.5, 1.0, 0.5, 0.5])
    num, den = piece.time_signature_at(t.onset)
    assert list(num) == [3, 3, 3, 7, 7] and list(den) == [4, 4, 4, 8, 8]


def test_bach_chorale_parts_and_pickup() -> None:
    from music21 import corpus

    piece = piece_from_music21(corpus.parse("bach/bwv66.6"), "bwv66.6")
    assert [t.name for t in piece.tracks] == ["Soprano", "Alto", "Tenor", "Bass"]
    soprano = piece.tracks[0]
    # pick-up bar: one beat long, bar 1 starts at quarter 1
    assert piece.bar_starts[0] == 0 and piece.bar_starts[1] == 1.0
    # two eighth notes in the pick-up, then the first full bar
    np.testing.assert_allclose(soprano.onset[:3], [0, 0.5, 1.0])
    assert list(soprano.bar[:3]) == [0, 0, 1]
    m21 = corpus.parse("bach/bwv66.6").parts[0].stripTies().flatten().notes
    assert len(soprano) == len(m21)
    assert list(soprano.pitch[:4]) == [int(n.pitch.ps) for n in list(m21)[:4]]


def test_musicxml_and_abc_files(tmp_path: Path) -> None:
    from music21 import corpus

    xml = tmp_path / "c.musicxml"
    corpus.parse("bach/bwv66.6").write("musicxml", fp=str(xml))
    a = read_piece(xml)
    assert len(a.tracks) == 4 and len(a.notes()) > 100
    abc = tmp_path / "t.abc"
    abc.write_text("X:1\nT:test\nM:6/8\nL:1/8\nK:G\nGAB c2d|e3 d3|]\n", "utf-8")
    b = read_piece(abc)
    t = b.notes()
    assert list(t.pitch) == [67, 69, 71, 72, 74, 76, 74]
    np.testing.assert_allclose(t.duration, [0.5, 0.5, 0.5, 1.0, 0.5, 1.5, 1.5])
    assert (b.time_signatures[0].numerator, b.time_signatures[0].denominator) == (6, 8)
    assert list(t.bar) == [0, 0, 0, 0, 0, 1, 1]


def test_bad_files(tmp_path: Path, midi_writer) -> None:
    empty = tmp_path / "empty.mid"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_piece(empty)
    corrupt = tmp_path / "corrupt.mid"
    corrupt.write_bytes(b"MThd\x00\x00\x00\x06\x00\x01\x00\x02\x01\xe0MTrk\x00\x00\xff\xff garbage")
    with pytest.raises(InputError, match="corrupt.mid: not a readable MIDI file"):
        read_piece(corrupt)
    text = tmp_path / "text.mid"
    text.write_text("hello, not midi", "utf-8")
    with pytest.raises(InputError):
        read_piece(text)
    with pytest.raises(InputError, match="unknown music file type"):
        read_piece(tmp_path / "x.wav")
    with pytest.raises(InputError, match="not found"):
        read_piece(tmp_path / "missing.mid")
    badxml = tmp_path / "bad.musicxml"
    badxml.write_text("<score-partwise><part", "utf-8")
    with pytest.raises(InputError, match="bad.musicxml"):
        read_music21(badxml)
    nothing = tmp_path / "nothing-here"
    nothing.mkdir()
    (nothing / "notes.txt").write_text("no music", "utf-8")
    with pytest.raises(InputError, match="no music files"):
        music_files(nothing)


def test_no_notes_and_drum_only(midi_writer) -> None:
    silent = read_piece(midi_writer("silent.mid", []))
    with pytest.raises(InputError, match="silent.mid: no notes"):
        piece_notes(silent)
    drums = read_piece(midi_writer("drums.mid", [(0, 0.25, 36), (1, 0.25, 38)], channel=9))
    assert drums.tracks[0].is_drum
    with pytest.raises(InputError, match="only drum tracks"):
        extract_features(drums)
    mixed = read_piece(midi_writer("mixed.mid", [(0, 1, 60)], extra_tracks=[([(0, 0.25, 36)], 9)]))
    assert len(mixed.notes()) == 1 and len(mixed.notes(include_drums=True)) == 2


def test_ten_thousand_bars(midi_writer) -> None:
    notes = [(4.0 * b, 1.0, 60 + b % 12) for b in range(10_000)]
    piece = read_piece(midi_writer("long.mid", notes))
    assert piece.n_bars == 10_000
    feats = extract_features(piece)
    assert feats["bar_used_note"].shape == (10_000,)
    assert feats["bar_used_note"].sum() == 10_000
    assert feats["total_used_pitch"] == 12


def test_refuses_absurd_bar_count(midi_writer) -> None:
    path = midi_writer("huge.mid", [(0, 1, 60), (500_000, 1, 60)], time_signatures=((0, 1, 16),))
    with pytest.raises(InputError, match="more than 100000 bars"):
        read_piece(path)


# ------------------------------------------------------------------------------------- fuzzed bad input

_HEADER = b"MThd\x00\x00\x00\x06\x00\x01\x00\x01\x01\xe0MTrk"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200), st.booleans())
def test_random_bytes_are_read_or_refused_cleanly(tmp_path: Path, data: bytes, with_header: bool) -> None:
    path = tmp_path / "fuzz.mid"
    body = (_HEADER + len(data).to_bytes(4, "big") + data) if with_header else data
    path.write_bytes(body)
    try:
        piece = read_piece(path)
    except InputError as exc:
        assert "fuzz.mid" in str(exc)
        return
    for track in piece.tracks:
        assert (track.duration >= 0).all() and ((track.pitch >= 0) & (track.pitch <= 127)).all()


def test_running_status_sysex_and_channels(tmp_path: Path) -> None:
    # type 0, 96 ticks per quarter; running status (note-on velocity 0 as note-off), a sysex event, a program
    # change, a second channel, a tempo of 60 bpm and a 6/8 time signature
    events = bytes([
        0x00, 0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40,  # tempo 1,000,000 us per quarter
        0x00, 0xFF, 0x58, 0x04, 0x06, 0x03, 0x18, 0x08,  # 6/8
        0x00, 0xF0, 0x03, 0x7E, 0x7F, 0xF7,  # sysex
        0x00, 0xC1, 0x28,  # channel 2: program 40
        0x00, 0x90, 0x3C, 0x50,  # C4 on
        0x60, 0x3C, 0x00,  # running status: C4 off after one quarter
        0x00, 0x3E, 0x50,  # D4 on
        0x30, 0x91, 0x43, 0x40,  # channel 2 G4 on after an eighth
        0x30, 0x80, 0x3E, 0x00,  # D4 off
        0x00, 0x81, 0x43, 0x00,  # G4 off
        0x00, 0xFF, 0x2F, 0x00,
    ])
    data = b"MThd" + (6).to_bytes(4, "big") + bytes([0, 0, 0, 1, 0, 96]) + b"MTrk" + len(events).to_bytes(4, "big") + events
    path = tmp_path / "rs.mid"
    path.write_bytes(data)
    piece = read_piece(path)
    assert [t.name for t in piece.tracks] == ["track 0 ch1", "track 0 ch2"]
    assert piece.tracks[1].program == 40
    one, two = piece.tracks
    np.testing.assert_allclose(one.onset, [0, 1]) and np.testing.assert_allclose(one.duration, [1, 1])
    np.testing.assert_allclose(two.onset, [1.5]) and np.testing.assert_allclose(two.duration, [0.5])
    np.testing.assert_allclose(one.onset_s, [0, 1])  # 60 bpm
    assert (piece.time_signatures[0].numerator, piece.time_signatures[0].denominator) == (6, 8)
    pm = pretty_midi.PrettyMIDI(str(path))
    ref = sorted((n.start, n.pitch) for i in pm.instruments for n in i.notes)
    assert ref == sorted(zip(piece.notes().onset_s.tolist(), piece.notes().pitch.tolist()))
    truncated = tmp_path / "cut.mid"
    truncated.write_bytes(data[:-6])
    with pytest.raises(InputError, match="cut.mid: not a readable MIDI file \\(truncated"):
        read_piece(truncated)


def test_multi_tune_abc_gives_the_first_tune(tmp_path: Path) -> None:
    abc = tmp_path / "two.abc"
    abc.write_text("X:1\nT:one\nM:4/4\nL:1/4\nK:C\nC D E F|\n\nX:2\nT:two\nM:4/4\nL:1/4\nK:C\nG A B c|\n", "utf-8")
    piece = read_piece(abc)
    assert list(piece.notes().pitch) == [60, 62, 64, 65]
