"""Features on real chorales and melodies, checked against pretty_midi (the library MGEval builds on) and
against hand-computed values on constructed pieces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pretty_midi
import pytest

from creval.errors import InputError
from creval.music import features as F
from creval.music.io import piece_from_music21, read_piece

MELODIES = ("ashover1.mid", "hpps12.mid", "jigs10.mid", "morris5.mid", "reelsa-c5.mid", "waltzes3.mid")


def _mgeval_reference(pm: pretty_midi.PrettyMIDI) -> dict[str, object]:
    """MGEval's own computations (core.py) for the features that go through pretty_midi."""
    roll = pm.instruments[0].get_piano_roll(fs=100)
    used = np.flatnonzero(roll.sum(axis=1) > 0)
    hist = np.zeros(12)
    for pitch in range(128):
        hist[pitch % 12] += roll[pitch].sum()
    return {
        "total_used_pitch": len(used),
        "pitch_range": used.max() - used.min(),
        "pch_velocity": hist / hist.sum(),
        "pctm": pm.get_pitch_class_transition_matrix(),
        "avg_IOI": np.mean(np.diff(pm.get_onsets())),
    }


@pytest.mark.parametrize("name", MELODIES)
def test_melody_features_match_mgeval_numerics(nottingham: Path, name: str) -> None:
    path = nottingham / name
    piece = read_piece(path)
    pm = pretty_midi.PrettyMIDI(str(path))
    ref = _mgeval_reference(pm)
    notes = F.piece_notes(piece)
    assert F.total_used_pitch(notes) == ref["total_used_pitch"]
    assert F.pitch_range(notes) == ref["pitch_range"]
    np.testing.assert_allclose(F.total_pitch_class_histogram(notes, "velocity-duration"), ref["pch_velocity"],
                               atol=0.02)  # the piano roll quantises lengths to 10 ms frames
    np.testing.assert_array_equal(F.pitch_class_transition_matrix(notes), ref["pctm"])
    assert F.avg_IOI(notes) == pytest.approx(ref["avg_IOI"])
    assert F.total_used_note(notes) == len(pm.instruments[0].notes)
    pitches = [n.pitch for n in sorted(pm.instruments[0].notes, key=lambda n: (n.start, n.pitch))]
    assert F.avg_pitch_shift(notes) == pytest.approx(np.mean(np.abs(np.diff(pitches))))


def test_chorale_features_all_parts() -> None:
    from music21 import corpus

    score = corpus.parse("bach/bwv66.6")
    piece = piece_from_music21(score, "bwv66.6")
    feats = F.extract_features(piece)
    pitches = [int(p.ps) for n in score.stripTies().flatten().notes for p in n.pitches]
    assert feats["total_used_note"] == len(pitches)
    assert feats["total_used_pitch"] == len(set(pitches))
    assert feats["pitch_range"] == max(pitches) - min(pitches)
    assert feats["bar_used_note"].sum() == len(pitches)
    assert feats["bar_used_note"].shape == (piece.n_bars,)
    # F# minor chorale: C# (1) and F# (6) are among the most used pitch classes
    top = set(np.argsort(feats["total_pitch_class_histogram"])[-4:])
    assert {1, 6} <= top
    assert feats["total_pitch_class_histogram"].sum() == pytest.approx(1.0)
    rows = feats["bar_pitch_class_histogram"]
    assert np.allclose(rows.sum(axis=1)[rows.sum(axis=1) > 0], 1.0)
    # 4/4 chorale: the quarter note is the commonest length
    assert np.argmax(feats["note_length_hist"]) == 2


def test_constructed_piece_by_hand(midi_writer) -> None:
    # 4/4, 120 bpm: bar 0: C4 q, E4 q, G4 h ; bar 1: C5 8th, rest 8th, B4 dotted quarter, C5 h (crossing into bar 2)
    notes = [(0, 1, 60), (1, 1, 64), (2, 2, 67), (4, 0.5, 72), (5, 1.5, 71), (6.5, 2, 72)]
    piece = read_piece(midi_writer("hand.mid", notes))
    f = F.extract_features(piece, pause_event=False)
    assert f["total_used_pitch"] == 5
    assert f["total_used_note"] == 6
    np.testing.assert_array_equal(f["bar_used_note"], [3, 3, 0])
    np.testing.assert_array_equal(f["bar_used_pitch"], [3, 2, 0])
    assert f["pitch_range"] == 12
    assert f["avg_pitch_shift"] == pytest.approx((4 + 3 + 5 + 1 + 1) / 5)
    assert f["avg_IOI"] == pytest.approx(np.mean([0.5, 0.5, 1.0, 0.5, 0.75]))
    # duration-weighted PCH: C = 1 + 0.5 + 2, E = 1, G = 2, B = 1.5 (quarters) over 8
    expect = np.zeros(12)
    expect[[0, 4, 7, 11]] = [3.5, 1, 2, 1.5]
    np.testing.assert_allclose(f["total_pitch_class_histogram"], expect / 8)
    # per bar: the last C5 lies 1.5 quarters in bar 1 and 0.5 in bar 2
    bar1 = np.zeros(12)
    bar1[[0, 11]] = [0.5 + 1.5, 1.5]
    np.testing.assert_allclose(f["bar_pitch_class_histogram"][1], bar1 / bar1.sum())
    np.testing.assert_allclose(f["bar_pitch_class_histogram"][2][0], 1.0)
    # note lengths (4/4: unit = 1/24 quarter): q, q, h, 8th, dotted q, h
    counts = F.note_length_hist(F.piece_notes(piece), piece, normalize=False)
    assert counts[2] == 2 and counts[1] == 2 and counts[3] == 1 and counts[6] == 1 and counts.sum() == 6
    with_rests = F.note_length_hist(F.piece_notes(piece), piece, normalize=False, pause_event=True)
    assert with_rests.shape == (24,) and with_rests[12 + 3] == 1 and with_rests[12:].sum() == 1
    nltm = F.note_length_transition_matrix(F.piece_notes(piece), piece)
    assert nltm.sum() == 5 and nltm[2, 2] == 1 and nltm[2, 1] == 1 and nltm[1, 3] == 1 and nltm[3, 6] == 1
    assert nltm[6, 1] == 1
    pctm = f["pitch_class_transition_matrix"]
    # legato transitions only (the rest breaks C5 -> B4): C->E, E->G, G->C, B->C
    assert pctm.sum() == 4 and pctm[0, 4] == pctm[4, 7] == pctm[7, 0] == pctm[11, 0] == 1
    np.testing.assert_allclose(F.pitch_class_transition_matrix(F.piece_notes(piece), normalize=1).sum(1)[[0, 4, 7, 11]], 1)


def test_note_length_relative_to_bar_or_whole(midi_writer) -> None:
    piece = read_piece(midi_writer("waltz.mid", [(0, 1, 60), (1, 1, 62), (2, 1, 64)],
                                   time_signatures=((0, 3, 4),)))
    notes = F.piece_notes(piece)
    # MGEval: unit = bar / 96 = 1/32 quarter; a quarter is 32 units -> half-note-triplet class (9)
    assert np.argmax(F.note_length_hist(notes, piece)) == 9
    assert np.argmax(F.note_length_hist(notes, piece, relative_to="whole")) == 2


def test_fixed_num_bars_and_table(midi_writer) -> None:
    a = read_piece(midi_writer("a.mid", [(0, 1, 60), (4, 1, 62)]))
    b = read_piece(midi_writer("b.mid", [(0, 1, 60), (4, 1, 62), (8, 1, 64), (12, 1, 65), (16, 1, 67)]))
    fa = F.extract_features(a, num_bars=4)
    fb = F.extract_features(b, num_bars=4)
    assert fa["bar_used_note"].tolist() == [1, 1, 0, 0]
    assert fb["bar_used_note"].tolist() == [1, 1, 1, 1]
    table = F.feature_table([fa, fb])
    assert table["bar_pitch_class_histogram"].shape == (2, 4, 12)
    stats = F.set_statistics(table)
    mean, std = stats["total_used_note"]
    assert mean == pytest.approx(3.5) and std == pytest.approx(1.5)
    with pytest.raises(InputError, match="different shapes"):
        F.feature_table([F.extract_features(a), F.extract_features(b)])
    with pytest.raises(InputError, match="unknown feature"):
        F.extract_features(a, ["nope"])


def test_single_note_piece_gives_nan_intervals(midi_writer) -> None:
    f = F.extract_features(read_piece(midi_writer("one.mid", [(0, 1, 60)])))
    assert np.isnan(f["avg_pitch_shift"]) and np.isnan(f["avg_IOI"])
    assert f["pitch_range"] == 0 and f["pitch_class_transition_matrix"].sum() == 0


def test_multitrack_pctm_sums_tracks_like_pretty_midi(tmp_path: Path) -> None:
    from music21 import corpus

    path = tmp_path / "bwv66.6.mid"
    corpus.parse("bach/bwv66.6").write("midi", fp=str(path))
    piece = read_piece(path)
    assert len(piece.pitched_tracks) == 4
    feats = F.extract_features(piece, ["pitch_class_transition_matrix", "total_used_note", "avg_IOI"])
    pm = pretty_midi.PrettyMIDI(str(path))
    np.testing.assert_array_equal(feats["pitch_class_transition_matrix"], pm.get_pitch_class_transition_matrix())
    assert feats["total_used_note"] == sum(len(i.notes) for i in pm.instruments)
    assert feats["avg_IOI"] == pytest.approx(np.mean(np.diff(pm.get_onsets())))
