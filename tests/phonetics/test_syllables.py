"""Syllabification with stress, checked against pronouncing's syllable counts over CMUdict."""

from __future__ import annotations

import pronouncing

from creval.phonetics import syllabify
from creval.phonetics.syllables import Syllable


def test_maximal_onset():
    s = syllabify("M AE1 S T ER0".split())
    assert s == (Syllable(("M",), "AE", ("S",), 1), Syllable(("T",), "ER", (), 0))
    s = syllabify("AH0 S T R EY1".split())
    assert [x.onset for x in s] == [(), ("S", "T", "R")]
    s = syllabify("K AE1 M P L AH0".split())  # "mp" cannot start a syllable: "m | pl"
    assert [x.coda for x in s] == [("M",), ()]
    assert s[1].onset == ("P", "L")
    s = syllabify("R IY1 S T AO0 R".split())  # tense vowel: maximal onset "ree | stor"
    assert s[0].coda == () and s[1].onset == ("S", "T")
    s = syllabify("HH AE1 P IY0".split())  # stressed lax vowel keeps a coda: "hap | py"
    assert s[0].coda == ("P",) and s[1].onset == ()


def test_stress_and_roundtrip():
    phones = "K AA2 N S T AE2 N T IH0 N OW1 P AH0 L".split()
    sylls = syllabify(phones)
    assert [x.stress for x in sylls] == [2, 2, 0, 1, 0]
    assert [p for x in sylls for p in x.phones] == phones


def test_no_vowel():
    assert syllabify(["S", "T"]) == ()


def test_counts_match_pronouncing_on_cmudict_sample():
    pronouncing.init_cmu()
    entries = pronouncing.pronunciations[::97]
    assert len(entries) > 1000
    for _word, phones in entries:
        if not any(ch.isdigit() for ch in phones):
            assert syllabify(phones.split()) == ()
            continue
        sylls = syllabify(phones.split())
        assert len(sylls) == pronouncing.syllable_count(phones)
        assert [p for s in sylls for p in s.phones] == phones.split()


def test_string_inputs():
    assert syllabify("D AO1 G") == syllabify(["D", "AO1", "G"])
    assert [str(x) for x in syllabify("master")] == ["M AE1 S", "T ER0"]
    assert syllabify("😀") == ()
