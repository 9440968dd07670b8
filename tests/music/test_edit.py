"""Edit distances: hand-computed alignments, Levenshtein against NLTK, Mongeau–Sankoff against a plain
recursive restatement of its recurrence."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.distance import edit_distance

from creval.errors import InputError
from creval.music.edit import (
    INTERVAL_WEIGHTS,
    K_DEFAULT,
    align_tokens,
    edit_counts,
    interval_weight,
    levenshtein,
    melody_sequence,
    mongeau_sankoff,
    mongeau_sankoff_alignment,
    mongeau_sankoff_batch,
    note_tokens,
    word_error_rate,
)

K = K_DEFAULT


def test_edit_counts_by_hand() -> None:
    ref = "C4 D4 E4 F4".split()
    hyp = "C4 X E4 Y F4".split()  # D4 -> X substituted, Y inserted
    counts = edit_counts(ref, hyp)
    assert (counts.substitutions, counts.deletions, counts.insertions, counts.correct) == (1, 0, 1, 3)
    assert counts.rate == pytest.approx(2 / 4)
    assert align_tokens(ref, hyp) == [("C", 0, 0), ("S", 1, 1), ("C", 2, 2), ("I", None, 3), ("C", 3, 4)]
    dele = edit_counts(ref, ["C4", "F4"])
    assert (dele.deletions, dele.correct, dele.rate) == (2, 2, 0.5)
    assert word_error_rate([], ["x"]) != word_error_rate([], ["x"])  # NaN: empty reference
    assert word_error_rate(["a"], []) == 1.0
    # HER can exceed 1 when the hypothesis is much longer
    assert word_error_rate(["a"], ["b", "c", "d"]) == pytest.approx(3.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=12), st.lists(st.sampled_from("abcd"), max_size=12))
def test_levenshtein_matches_nltk(a: list[str], b: list[str]) -> None:
    assert levenshtein(a, b) == edit_distance(a, b)
    c = edit_counts(a, b)
    assert c.edits == edit_distance(a, b)
    assert c.reference_length == len(a)
    assert c.correct + c.substitutions + c.insertions == len(b)


def test_note_tokens() -> None:
    class T:
        pitch = np.array([60, 62])
        duration = np.array([1.0, 0.3333333])
        beat = np.array([0.0, 1.0])

    assert note_tokens(T, "pitch") == ["60", "62"]
    assert note_tokens(T, "pitch+duration") == ["60:1", f"62:{round(0.3333333 * 48) / 48:g}"]
    assert note_tokens(T, "pitch+duration+beat")[1].endswith("@1")
    with pytest.raises(InputError):
        note_tokens(T, "colour")


# ------------------------------------------------------------------------------------- Mongeau–Sankoff
def q(pitches, durations):
    return (np.array(pitches), np.array(durations, dtype=float))


def test_interval_weights_table() -> None:
    assert interval_weight(60, 60) == 0.0
    assert interval_weight(60, 67) == 0.1  # fifth
    assert interval_weight(60, 64) == 0.2  # major third
    assert interval_weight(60, 69) == 0.35  # major sixth
    assert interval_weight(60, 65) == 0.5  # fourth
    assert interval_weight(60, 71) == 0.8  # major seventh
    assert interval_weight(60, 62) == 0.9  # major second
    assert interval_weight(60, 72) == 0.0  # octave
    assert interval_weight(-1, 60) == 0.1 and interval_weight(-1, -1) == 0.0
    assert len(INTERVAL_WEIGHTS) == 12


def test_ms_hand_computed() -> None:
    # identical melodies
    assert mongeau_sankoff(q([60, 62, 64], [1, 1, 2]), q([60, 62, 64], [1, 1, 2])) == 0.0
    # C quarter vs G quarter: a fifth, equal lengths: 0.1 (cheaper than delete + insert = 2 * k * 4)
    assert mongeau_sankoff(q([60], [1]), q([67], [1])) == pytest.approx(0.1)
    # C quarter vs C half: k * |4 - 8| sixteenths
    assert mongeau_sankoff(q([60], [1]), q([60], [2])) == pytest.approx(K * 4)
    # deleting one quarter note costs k * 4
    d, ops = mongeau_sankoff_alignment(q([60, 62], [1, 1]), q([60], [1]))
    assert d == pytest.approx(4 * K)
    assert ops == [("match", (0,), (0,)), ("delete", (1,), ())]
    # a half note fragmented into two quarters of the same pitch costs nothing
    d, ops = mongeau_sankoff_alignment(q([60], [2]), q([60, 60], [1, 1]))
    assert d == 0.0 and ops == [("fragment", (0,), (0, 1))]
    # and the reverse is a consolidation
    d, ops = mongeau_sankoff_alignment(q([60, 60], [1, 1]), q([60], [2]))
    assert d == 0.0 and ops == [("consolidate", (0, 1), (0,))]
    # half C fragmented into C + G quarters: interval weights 0 + 0.1, lengths match
    d, ops = mongeau_sankoff_alignment(q([60], [2]), q([60, 67], [1, 1]))
    assert d == pytest.approx(0.1) and ops == [("fragment", (0,), (0, 1))]
    # a rest replaced by a note of the same length
    assert mongeau_sankoff(q([60, -1, 64], [1, 1, 1]), q([60, 62, 64], [1, 1, 1])) == pytest.approx(0.1)
    # without fragmentation the half-note case falls back to substitute + insert: k*4 + k*4
    assert mongeau_sankoff(q([60], [2]), q([60, 60], [1, 1]), max_fragment=1) == pytest.approx(8 * K)


def test_ms_duration_scaling_flag() -> None:
    # scaled: the fifth's weight times the shorter length (4 sixteenths)
    assert mongeau_sankoff(q([60], [1]), q([67], [1]), scale_interval_by_duration=True) == pytest.approx(0.4)
    assert mongeau_sankoff(q([60], [1]), q([67], [2]), scale_interval_by_duration=True) == pytest.approx(
        0.1 * 4 + K * 4)
    # unit = 1 measures lengths in quarter notes instead of sixteenths
    assert mongeau_sankoff(q([60], [1]), q([60], [2]), unit=1.0) == pytest.approx(K)


def _ms_reference(a, b, k=K, F=4, scale=False):
    """The recurrence written out recursively, for cross-checking the vectorised DP."""
    (pa, la), (pb, lb) = a, b
    la = la * 4.0
    lb = lb * 4.0

    def w(i, j):
        x = float(interval_weight(pa[i], pb[j]))
        return x * min(la[i], lb[j]) if scale else x

    @functools.cache
    def d(i, j):
        if i == 0 and j == 0:
            return 0.0
        best = np.inf
        if i > 0:
            best = min(best, d(i - 1, j) + k * la[i - 1])
        if j > 0:
            best = min(best, d(i, j - 1) + k * lb[j - 1])
        if i > 0 and j > 0:
            best = min(best, d(i - 1, j - 1) + w(i - 1, j - 1) + k * abs(la[i - 1] - lb[j - 1]))
            for m in range(2, min(F, j) + 1):
                cost = sum(w(i - 1, x) for x in range(j - m, j)) + k * abs(la[i - 1] - lb[j - m:j].sum())
                best = min(best, d(i - 1, j - m) + cost)
            for m in range(2, min(F, i) + 1):
                cost = sum(w(x, j - 1) for x in range(i - m, i)) + k * abs(la[i - m:i].sum() - lb[j - 1])
                best = min(best, d(i - m, j - 1) + cost)
        return best

    return d(len(pa), len(pb))


melody = st.lists(st.tuples(st.sampled_from([-1, 55, 57, 60, 62, 64, 67, 72]),
                            st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0])), max_size=8)


@settings(max_examples=60, deadline=None)
@given(melody, melody, st.booleans())
def test_ms_matches_recursive_reference(a, b, scale) -> None:
    ma = q([p for p, _ in a], [d for _, d in a])
    mb = q([p for p, _ in b], [d for _, d in b])
    expected = _ms_reference(ma, mb, scale=scale)
    got = mongeau_sankoff(ma, mb, scale_interval_by_duration=scale)
    assert got == pytest.approx(expected, abs=1e-9)
    dist, ops = mongeau_sankoff_alignment(ma, mb, scale_interval_by_duration=scale)
    assert dist == pytest.approx(expected, abs=1e-9)
    assert sorted(i for _, ia, _ in ops for i in ia) == list(range(len(a)))
    assert sorted(j for _, _, jb in ops for j in jb) == list(range(len(b)))


def test_ms_batch_equals_single_and_symmetry() -> None:
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(20):
        n, m = rng.integers(0, 12, 2)
        pairs.append((q(rng.integers(55, 75, n), rng.choice([0.5, 1, 2], n)),
                      q(rng.integers(55, 75, m), rng.choice([0.5, 1, 2], m))))
    batch = mongeau_sankoff_batch(pairs)
    singles = [mongeau_sankoff(a, b) for a, b in pairs]
    np.testing.assert_allclose(batch, singles)
    swapped = mongeau_sankoff_batch([(b, a) for a, b in pairs])
    np.testing.assert_allclose(batch, swapped)  # the weights are symmetric
    assert len(mongeau_sankoff_batch([])) == 0


def test_ms_bad_input() -> None:
    with pytest.raises(InputError, match="equal-length"):
        mongeau_sankoff(([60, 62], [1.0]), q([60], [1]))
    with pytest.raises(InputError, match="non-negative"):
        mongeau_sankoff(q([60], [-1]), q([60], [1]))


def test_melody_sequence_inserts_rests() -> None:
    class T:
        onset = np.array([0.0, 1.0, 3.0, 3.0])
        duration = np.array([1.0, 1.0, 2.0, 2.0])
        pitch = np.array([60, 62, 64, 67])

    p, d = melody_sequence(T)
    assert p.tolist() == [60, 62, -1, 64, 67] and d.tolist() == [1, 1, 1, 2, 2]
    p, d = melody_sequence(T, rests=False)
    assert p.tolist() == [60, 62, 64, 67]
    # the same melody with its rest shortened from a quarter to an eighth: k * |4 - 2| sixteenths
    short = (np.array([60, 62, -1, 64]), np.array([1.0, 1.0, 0.5, 2.0]))
    assert mongeau_sankoff((p[:2].tolist() + [-1, 64], [1, 1, 1, 2]), short) == pytest.approx(K * 2)
