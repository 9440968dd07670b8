"""Rhyme-scheme HMM: scheme helpers, forward-backward and Viterbi against brute force, detection, Chicago gold."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.corpus.model import Corpus, Output, Verse
from creval.errors import InputError
from creval.rhyme.scheme import (
    ADDANKI_WU_SCHEMES,
    CLASSES,
    RhymeSchemeHMM,
    all_schemes,
    baseline_table,
    detect_schemes,
    evaluate_on_gold,
    parse_scheme,
    read_pgold,
    scheme_pairs,
    scheme_string,
    score_schemes,
    verse_scheme,
)

TRAIN = [
    ["day", "night", "way", "light"],
    ["cat", "hat", "dog", "log"],
    ["sing", "moon", "ring", "june"],
    ["tree", "sea", "fire", "desire"],
    ["bright", "sight", "rain", "again"],
    ["sky", "home", "high", "roam"],
]


def test_scheme_helpers():
    assert parse_scheme("ABAB") == (0, 1, 0, 1)
    assert parse_scheme([3, 9, 9, 3]) == (0, 1, 1, 0)
    assert scheme_string((0, 1, 1, 0)) == "ABBA"
    assert scheme_string("BAAA") == "ABBB"
    assert scheme_pairs((0, 1, 0, 1)) == [(0, 2), (1, 3)]
    assert scheme_pairs((0, 0, 0), offset=5) == [(5, 6), (5, 7), (6, 7)]
    # Bell numbers 1, 2, 5, 15: every scheme of up to four lines
    assert len(all_schemes(4)) == 1 + 2 + 5 + 15
    assert len(ADDANKI_WU_SCHEMES) == 9


def test_score_schemes_counts_pairs():
    res = score_schemes([(0, 1, 0, 1), (0, 0, 1, 1)], [(0, 1, 0, 1), (0, 0, 0, 0)])
    assert res["accuracy"] == 0.5
    # predicted pairs: 2 + 6, correct: 2 + 2; gold pairs: 2 + 2
    assert res["precision"] == pytest.approx(4 / 8)
    assert res["recall"] == pytest.approx(1.0)
    assert res["f1"] == pytest.approx(2 * 0.5 / 1.5)
    with pytest.raises(InputError):
        score_schemes([(0, 1)], [(0, 1, 2)])


def test_pair_classes_follow_pronunciation():
    hmm = RhymeSchemeHMM()
    lex = hmm.lex
    pairs = [("day", "way"), ("love", "prove"), ("time", "line"), ("dog", "dog"), ("day", "rock")]
    ids = lex.ids([w for p in pairs for w in p])
    cls = lex.classes(ids[0::2], ids[1::2])
    assert [CLASSES[c] for c in cls] == ["perfect", "eye", "partner", "identical", "none"]


def _brute_force(hmm: RhymeSchemeHMM, words: list[str]) -> tuple[float, float, list[tuple[int, int, int]]]:
    """log Z and the best path by enumerating every segmentation."""
    hmm._ensure_ready()
    data = hmm._prepare(words)
    logE, _ = hmm._log_emissions(data)
    n = len(words)
    paths: list[tuple[float, list[tuple[int, int, int]]]] = []

    def rec(t: int, prev: int, score: float, path: list[tuple[int, int, int]]) -> None:
        if t == n:
            paths.append((score, path))
            return
        for s, length in enumerate(hmm.lengths):
            if t + length > n:
                continue
            step = hmm.log_start[s] if prev < 0 else hmm.log_trans[prev, s]
            rec(t + int(length), s, score + step + logE[t, s], path + [(t, t + int(length), s)])

    rec(0, -1, 0.0, [])
    scores = np.array([p[0] for p in paths])
    log_z = float(np.log(np.exp(scores - scores.max()).sum()) + scores.max())
    best = paths[int(np.argmax(scores))]
    return log_z, best[0], best[1]


@pytest.mark.parametrize("schemes", ["addanki-wu", "all3"])
def test_forward_and_viterbi_match_brute_force(schemes):
    hmm = RhymeSchemeHMM(schemes, n_iter=3).fit(TRAIN)
    words = ["day", "night", "way", "light", "cat", "hat", "sea"]
    data = hmm._prepare(words)
    logE, _ = hmm._log_emissions(data)
    E, lens, _ = hmm._bucket_arrays(data, data.buckets[0], logE)
    Bst, alpha, G, logZ = hmm._forward_backward(E, lens)
    log_z, best_score, best_path = _brute_force(hmm, words)
    assert logZ[0] == pytest.approx(log_z, rel=1e-9, abs=1e-9)
    # backward pass: log Z = logsumexp_s (log π_s + G[0, s])
    assert np.logaddexp.reduce(hmm.log_start + G[0, 0]) == pytest.approx(log_z)
    # segment posteriors: every line is covered by exactly one segment
    post = np.exp(Bst[0, : len(words)] + G[0, : len(words)] - logZ[0])
    cover = np.zeros(len(words))
    for t in range(len(words)):
        for s, length in enumerate(hmm.lengths):
            cover[t : t + length] += post[t, s]
    np.testing.assert_allclose(cover, 1.0, atol=1e-9)
    stanzas = hmm.viterbi(words)
    got = [(s.start, s.end, hmm.schemes.index(s.scheme)) for s in stanzas]
    assert got == best_path


def test_em_increases_likelihood():
    hmm = RhymeSchemeHMM(n_iter=8, tol=0.0, pair_prior=None).fit(TRAIN * 3)
    hist = np.array(hmm.history)
    assert len(hist) == 8
    assert np.all(np.diff(hist) > -1e-6), hist
    # with the word-pair layer switched on after warm-up, EM keeps improving within that phase
    staged = RhymeSchemeHMM(n_iter=8, tol=0.0, pair_prior=20.0, pair_warmup=3).fit(TRAIN * 3)
    hist = np.array(staged.history)
    assert np.all(np.diff(hist[3:]) > -1e-6), hist


def test_detects_quatrains_and_couplets():
    hmm = RhymeSchemeHMM().fit(TRAIN)
    assert hmm.label(["sing", "moon", "ring", "june"]) == "ABAB"
    stanzas = hmm.viterbi(["cat", "hat", "dog", "log", "day", "may"])
    pairs = {p for s in stanzas for p in s.pairs}
    assert {(0, 1), (2, 3), (4, 5)} <= pairs
    assert not {(0, 2), (1, 3), (0, 4)} & pairs
    # segments tile the verse
    assert stanzas[0].start == 0 and stanzas[-1].end == 6
    assert all(a.end == b.start for a, b in zip(stanzas, stanzas[1:]))


def test_label_links_across_segments():
    hmm = RhymeSchemeHMM("all4", pair_prior=None).fit(TRAIN)
    octave = ["day", "night", "light", "way", "stay", "bright", "sight", "play"]
    assert hmm.label(octave) == "ABBAABBA"


def test_detect_schemes_on_lines():
    lines = [
        "The sun was shining on the day,",
        "The moon was up at night;",
        "And all the children ran away",
        "Before the morning light.",
        "",
        "???",
    ]
    stanzas = detect_schemes(lines)
    assert stanzas[0].start == 0 and stanzas[-1].end == len(lines)
    pairs = {p for s in stanzas for p in s.pairs}
    assert (0, 2) in pairs and (1, 3) in pairs
    assert not any(4 in p or 5 in p for p in pairs)
    text = verse_scheme(lines[:4])
    assert text.replace(" ", "") == "ABAB"
    assert detect_schemes([]) == []


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from(["day", "way", "", "🙂", "дом", "night", "light", "x" * 40, "'em", "8"]),
        min_size=1,
        max_size=12,
    )
)
def test_viterbi_any_input_tiles_the_verse(words):
    hmm = RhymeSchemeHMM(n_iter=0)
    stanzas = hmm.viterbi(words)
    assert stanzas[0].start == 0 and stanzas[-1].end == len(words)
    for s in stanzas:
        assert len(s.scheme) == len(s)
        assert all(s.start <= i < j < s.end for i, j in s.pairs)
    assert len(hmm.label(words)) == len(words)


def test_long_input_is_linear_enough():
    """A 3,000-line 'verse' (the bad-input case of a huge text) is segmented and labelled without an n² blow-up."""
    words = (["day", "night", "way", "light", "", "sea"] * 500)[:3000]
    hmm = RhymeSchemeHMM(n_iter=1).fit([words])
    stanzas = hmm.viterbi(words)
    assert stanzas[-1].end == 3000
    groups = hmm.label_groups(words)
    assert len(groups) == 3000
    assert groups[0] == groups[2]  # day / way


def test_bad_parameters_and_input():
    with pytest.raises(InputError):
        RhymeSchemeHMM(["AB1"])
    with pytest.raises(InputError):
        RhymeSchemeHMM(["AA", "ABAB"])  # no single-line state: some verses cannot be segmented
    with pytest.raises(InputError):
        RhymeSchemeHMM("nonsense")
    with pytest.raises(InputError):
        RhymeSchemeHMM(combine="max")
    with pytest.raises(InputError):
        RhymeSchemeHMM().fit([[], []])


def test_read_pgold_skips_mismatched_and_rejects_garbage(tmp_path):
    good = tmp_path / "p.pgold"
    good.write_text(
        "POEM0 spin mouse thin\n1 2 1\n1 2 1\n\nPOEM0 a b c d\n1 2 1\n1 2 1\n\nPOEM1 day way\n1 1\n3 3\n"
    )
    stanzas, skipped = read_pgold(good)
    assert skipped == 1
    assert [s.scheme for s in stanzas] == [(0, 1, 0), (0, 0)]
    assert stanzas[1].line == 9
    bad = tmp_path / "bad.pgold"
    bad.write_text("POEM0 a b\n1 x\n1 2\n")
    with pytest.raises(InputError) as err:
        read_pgold(bad)
    assert err.value.line == 2 and str(bad) in str(err.value)
    with pytest.raises(InputError):
        read_pgold(tmp_path / "missing.pgold")


def test_chicago_gold_beats_baseline(shared_data):
    """On real gold (two small poets), the unsupervised model beats the leave-one-poet-out baseline on scheme
    accuracy and pair F1."""
    gold_dir = shared_data / "chicago-rhyme" / "english_gold"
    everything = {f.stem: read_pgold(f)[0] for f in sorted(gold_dir.glob("*.pgold"))}
    assert len(everything) == 22
    for poet in ("wyatt", "fletcher"):
        others = [s for name, sts in everything.items() if name != poet for s in sts]
        res = evaluate_on_gold(gold_dir / f"{poet}.pgold", baseline=baseline_table(others), schemes="all4")
        assert res["model"]["accuracy"] > res["baseline"]["accuracy"], (poet, res["model"], res["baseline"])
        assert res["model"]["f1"] > res["baseline"]["f1"], poet
        assert res["model"]["f1"] > 0.8


def test_scheme_prior_em_increases_objective_and_picks_the_dominant_form():
    """label_units: EM for the prior over whole-unit schemes never lowers its objective, the prior
    concentrates on the form most units share, and the evidence weight must be positive."""
    hmm = RhymeSchemeHMM().fit(TRAIN * 3)
    units = [u for u in TRAIN if len(u) == 4]
    labels = hmm.label_units(units + [[], ["alone"]])
    assert labels[-2:] == [(), (0,)]
    assert len(labels) == len(units) + 2
    history = hmm.prior_history[4]
    assert len(history) >= 2
    assert all(b >= a - 1e-9 for a, b in zip(history, history[1:]))
    prior = hmm.scheme_prior[4]
    assert math.isclose(sum(prior.values()), 1.0, rel_tol=1e-6, abs_tol=1e-6)
    top = max(prior, key=prior.get)
    assert top in {scheme_string(g) for g in labels[: len(units)]}
    with pytest.raises(InputError):
        hmm.label_units(units, weight=0.0)
    with pytest.raises(InputError):
        RhymeSchemeHMM(prior_weight=-1.0)


def test_scheme_prior_wins_for_sonneteers_on_gold(shared_data):
    """Real gold: Daniel and Griffin (sonnets whose quatrains reuse rhyme sounds, ABABAB sixains) lose to the
    leave-one-poet-out baseline when each stanza is labelled alone; with the learned scheme prior they beat it
    on scheme accuracy and pair F1, and the prior's EM objective increases on every stanza length."""
    gold_dir = shared_data / "chicago-rhyme" / "english_gold"
    everything = {f.stem: read_pgold(f)[0] for f in sorted(gold_dir.glob("*.pgold"))}
    for poet in ("daniel", "griffin"):
        others = [s for name, sts in everything.items() if name != poet for s in sts]
        table = baseline_table(others)
        stanzas = everything[poet]
        hmm = RhymeSchemeHMM().fit([st.words for st in stanzas])
        res = evaluate_on_gold(gold_dir / f"{poet}.pgold", model=hmm, baseline=table)
        alone = evaluate_on_gold(gold_dir / f"{poet}.pgold", model=hmm, baseline=table, prior=False)
        assert res["model"]["accuracy"] > res["baseline"]["accuracy"], (poet, res["model"], res["baseline"])
        assert res["model"]["f1"] > res["baseline"]["f1"], poet
        assert res["model"]["accuracy"] > alone["model"]["accuracy"], poet
        for history in hmm.prior_history.values():
            assert all(b >= a - 1e-6 * abs(a) - 1e-9 for a, b in zip(history, history[1:])), poet
        assert max(hmm.scheme_prior[14], key=hmm.scheme_prior[14].get) == "ABABCDCDEFEFGG"


def test_measure_scores_outputs():
    from creval.rhyme.scheme_measure import RhymeSchemeMeasure, rhymed_share

    assert rhymed_share(4, [(0, 2)]) == 0.5
    assert math.isnan(rhymed_share(0, []))
    outputs = [
        Output("a", "sys", "I walk all day\nI sing at night\nand go my way\ninto the light"),
        Output("b", "sys", "!!!\n..."),
    ]
    measure = RhymeSchemeMeasure()
    measure.fit(Corpus([Verse("x", ("the cat", "a hat", "a dog", "a log"))]))
    res = measure.score(outputs)
    assert res.values["rhyme_scheme_rhymed_share"][0] == 1.0
    assert res.values["rhyme_scheme_stanzas"][0] >= 1
    assert math.isnan(res.values["rhyme_scheme_rhymed_share"][1])
    assert res.notes and "b" in res.notes[0]
    assert res.artifacts["schemes"]["a"].replace(" ", "") == "ABAB"
    with pytest.raises(InputError):
        RhymeSchemeMeasure(schemes="bogus")
