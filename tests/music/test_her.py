from __future__ import annotations

import numpy as np
import pytest

from creval.music.her import music_her
from creval.music.io import read_piece


def test_her_overall_and_per_bar(midi_writer) -> None:
    # generated: bar 0 C D E F, bar 1 G A B C ; edited: bar 0 unchanged, bar 1: A -> F (substitution), B deleted
    gen = [(0, 1, 60), (1, 1, 62), (2, 1, 64), (3, 1, 65), (4, 1, 67), (5, 1, 69), (6, 1, 71), (7, 1, 72)]
    edited = [(0, 1, 60), (1, 1, 62), (2, 1, 64), (3, 1, 65), (4, 1, 67), (5, 1, 65), (7, 1, 72)]
    g = midi_writer("gen.mid", gen)
    e = midi_writer("edit.mid", edited)
    r = music_her(g, e)
    # alignment: 5 correct, F vs A substituted, B inserted (the generated note not in the edited version),
    # C correct: S=1, D=0, I=1, C=6 -> (1 + 0 + 1) / (1 + 0 + 6)
    assert (r.counts.substitutions, r.counts.deletions, r.counts.insertions, r.counts.correct) == (1, 0, 1, 6)
    assert r.her == pytest.approx(2 / 7)
    assert r.her_per_bar[0] == 0.0
    assert r.her_per_bar[1] == pytest.approx(2 / 3)
    assert r.rows()[1] == {"bar": 1, "her": pytest.approx(2 / 3), "S": 1, "D": 0, "I": 1, "C": 2}


def test_her_identical_and_tokens(midi_writer) -> None:
    notes = [(0, 1, 60), (1, 0.5, 62), (1.5, 0.5, 64)]
    a = read_piece(midi_writer("a.mid", notes))
    assert music_her(a, a).her == 0.0
    longer = read_piece(midi_writer("b.mid", [(0, 1, 60), (1, 1, 62), (2, 0.5, 64)]))
    # the second note's length differs: pitch tokens ignore them
    assert music_her(a, longer, tokens="pitch").her == 0.0
    assert music_her(a, longer).her == pytest.approx(1 / 3)  # one substitution out of three


def test_her_empty_edited_bar_is_nan(midi_writer) -> None:
    gen = midi_writer("g.mid", [(0, 1, 60), (4, 1, 62)])
    edited = midi_writer("e.mid", [(0, 1, 60)])
    r = music_her(gen, edited)
    assert r.her == pytest.approx(1.0)  # one insertion over one reference note
    assert np.isnan(r.her_per_bar[1]) and r.counts_per_bar[1].tolist() == [0, 0, 1, 0]


def test_her_on_a_real_melody(nottingham, midi_writer) -> None:
    path = nottingham / "ashover1.mid"
    piece = read_piece(path)
    assert music_her(piece, path).her == 0.0
    notes = piece.notes()
    n = len(notes)
    # an "annotator" transposes three notes up a tone and deletes the last one
    edited = [(float(o), float(d), int(p) + (2 if k in (3, 10, 20) else 0))
              for k, (o, d, p) in enumerate(zip(notes.onset, notes.duration, notes.pitch))][:-1]
    r = music_her(path, midi_writer("edited.mid", edited))
    assert (r.counts.substitutions, r.counts.deletions, r.counts.insertions) == (3, 0, 1)
    assert r.her == pytest.approx(4 / (n - 1))
    assert r.counts_per_bar.sum() == r.counts.substitutions + r.counts.insertions + r.counts.correct


def test_her_agrees_with_the_text_edit_rate(nottingham, midi_writer) -> None:
    from creval.editrate import edit_rate
    from creval.music.edit import note_tokens

    gen = read_piece(nottingham / "morris5.mid")
    other = read_piece(nottingham / "morris6.mid")
    r = music_her(gen, other)
    expected = edit_rate(note_tokens(gen.notes()), note_tokens(other.notes()), "wer")
    assert r.her == pytest.approx(expected)
