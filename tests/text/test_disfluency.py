from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from creval.corpus.clean import clean_corpus
from creval.corpus.model import Corpus, Output, Verse
from creval.text.disfluency import correct_line, detect, handle_corpus, handle_outputs, is_filler_line


@pytest.mark.parametrize(
    ("line", "kinds", "corrected"),
    [
        ("the the the cat sat", ["repetition"], "the cat sat"),
        ("I I I wanna go", ["repetition"], "I wanna go"),
        ("go, go, go now", ["repetition"], "go now"),
        ("b-b-bad to the bone", ["stutter"], "bad to the bone"),
        ("I-I-I need you", ["stutter"], "I need you"),
        ("wh-what you say", ["stutter"], "what you say"),
        ("We run this town (yeah)", ["backing"], "We run this town"),
        ("Check it out (check it out), ya heard", ["backing"], "Check it out, ya heard"),
        ("yeah yeah", ["filler"], None),
        ("Ooooh", ["filler"], None),
        ("(la la la)", ["filler"], None),
        ("well-known x-ray vision", [], "well-known x-ray vision"),
        ("I I (uh) b-b-break it", ["repetition", "backing", "stutter"], "I break it"),
    ],
)
def test_detect_and_correct(line: str, kinds: list[str], corrected: str | None) -> None:
    assert sorted(d.kind for d in detect(line)) == sorted(kinds)
    assert correct_line(line) == corrected


def test_min_run_parameter() -> None:
    assert detect("bye bye baby", min_run=3) == []
    assert [d.kind for d in detect("bye bye bye baby", min_run=3)] == ["repetition"]
    with pytest.raises(ValueError):
        detect("x", min_run=1)


def test_strategies_on_corpus_count_per_artist() -> None:
    corpus = Corpus([
        Verse("A", ("the the cat", "fine line", "yeah yeah")),
        Verse("B", ("(ooh) we ride", "clean")),
    ])
    corrected, rep = handle_corpus(corpus, "correct")
    assert [v.lines for v in corrected] == [("the cat", "fine line"), ("we ride", "clean")]
    assert rep.found["A"]["repetition"] == 1 and rep.found["A"]["filler"] == 1 and rep.found["B"]["backing"] == 1
    assert rep.lines_changed["A"] == 1 and rep.lines_dropped["A"] == 1
    filtered, rep = handle_corpus(corpus, "filter")
    assert [v.lines for v in filtered] == [("fine line",), ("clean",)]
    assert rep.lines_dropped["A"] == 2 and rep.lines_dropped["B"] == 1


def test_outputs_keep_ids_and_can_be_suffixed() -> None:
    outs = [Output("1", "s", "I I I go\nyeah"), Output("2", "t", "fine")]
    fixed, report = handle_outputs(outs, "correct", system_suffix="+correct")
    assert [(o.id, o.system, o.text) for o in fixed] == [("1+correct", "s+correct", "I go"),
                                                          ("2+correct", "t+correct", "fine")]
    assert report.table()[0]["group"] == "s" and report.table()[0]["repetition"] == 1


def test_cleaning_option() -> None:
    words = " ".join(f"w{i}" for i in range(25))
    corpus = Corpus([Verse("A", (words, "the the end", "ooh ooh"))])
    cleaned, report = clean_corpus(corpus, disfluency="filter")
    assert cleaned.verses[0].lines == (words,)
    assert "disfluencies (filter)" in report.summary()


def test_french_and_chinese_lines() -> None:
    assert correct_line("je je je t'aime (ouais)") == "je t'aime"
    assert [d.kind for d in detect("c'est c'est la vie")] == ["repetition"]
    assert correct_line("床前明月光（啊）") == "床前明月光（啊）"  # full-width parentheses are text, not markup
    assert not is_filler_line("床前明月光")


@given(st.text(max_size=60))
def test_correction_never_lengthens_and_is_stable(line: str) -> None:
    once = correct_line(line)
    if once is not None:
        assert len(once) <= len(line.strip()) + 1
        assert all(d.kind != "filler" for d in detect(once))


def test_cli(tmp_path: Path) -> None:
    gens = tmp_path / "g.jsonl"
    gens.write_text(json.dumps({"id": "1", "system": "s", "text": "the the the end\n(yeah)"}) + "\n")
    res = subprocess.run([sys.executable, "-m", "creval", "disfluency", str(gens), "--strategy", "correct",
                          "--suffix", "--out", str(tmp_path / "o.jsonl")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    row = json.loads((tmp_path / "o.jsonl").read_text())
    assert row == {"id": "1+correct", "system": "s+correct", "text": "the end"}
    assert "repetition" in res.stdout
