from __future__ import annotations

from creval.corpus.clean import clean_corpus, is_chorus_header, is_section_header, strip_repeat_markup
from creval.corpus.model import Corpus, Verse

WORDS = " ".join(f"w{i}" for i in range(25))


def verse(*lines: str, artist: str = "A") -> Verse:
    return Verse(artist=artist, lines=tuple(lines), source="f.txt", line=10)


def test_headers_and_markup() -> None:
    for header in ["[Verse 1: Nas]", "[Chorus]", "Chorus:", "(Hook)", "Hook x2:", "[Intro]", "VERSE 2"]:
        assert is_section_header(header), header
    for line in ["This is the chorus of my life", "Hook me up", "verse after verse I spit"]:
        assert not is_section_header(line), line
    assert is_chorus_header("[Hook: Kanye West]") and not is_chorus_header("[Verse 1]")
    assert strip_repeat_markup("ride with me [x2]") == ("ride with me", 2)
    assert strip_repeat_markup("ride with me (repeat 3x)") == ("ride with me", 3)
    assert strip_repeat_markup("ride with me *2") == ("ride with me", 2)
    assert strip_repeat_markup("plain line") == ("plain line", 1)


def test_clean_drops_chorus_metadata_and_short_verses() -> None:
    corpus = Corpus([
        verse("[Verse 1: X]", WORDS, "second line [x2]", "[Chorus]", "la la", "la la la", "[Verse 2]", "after"),
        verse("Produced by Somebody", WORDS),
        verse("too short to keep"),
        verse("Chorus:", "only a hook here"),
    ])
    cleaned, report = clean_corpus(corpus, min_tokens=20)
    assert [v.lines for v in cleaned] == [(WORDS, "second line", "after"), (WORDS,)]
    counts = report.counts()
    assert counts["chorus/hook line"] == 3  # "la la", "la la la", "only a hook here"
    assert counts["chorus/hook header"] == 2 and counts["section header"] == 2
    assert counts["metadata line"] == 1 and counts["shorter than 20 tokens"] == 1
    assert counts["empty after cleaning"] == 1
    assert report.repeat_markup_removed == 1
    assert report.verses_in == 4 and report.verses_out == 2
    assert "4 verses in, 2 kept" in report.summary()
    dropped_meta = [d for d in report.dropped if d.reason == "metadata line"][0]
    assert dropped_meta.line == 10 and dropped_meta.source == "f.txt"


def test_threshold_is_a_parameter_and_expand_repeats() -> None:
    corpus = Corpus([verse("a b c", "d e [x2]")])
    kept, _ = clean_corpus(corpus, min_tokens=5, expand_repeats=True)
    assert kept.verses[0].lines == ("a b c", "d e", "d e")
    none, report = clean_corpus(corpus, min_tokens=6)
    assert len(none) == 0 and report.counts()["shorter than 6 tokens"] == 1
