"""check_rhyme on lines, and on the Chicago Rhyming Poetry Corpus gold stanzas."""

from __future__ import annotations

import itertools

from creval.rhyme import check_rhyme
from creval.rhyme.pairs import rhyme_types


def test_basic_lines():
    assert check_rhyme("I walk the dog,", "down by the bog!")
    assert check_rhyme("Keep on rhymin'", "it's all in the timing")
    assert check_rhyme("he just turned 21", "out here havin' fun")
    assert check_rhyme("we were sittin' on the dock", "ticking like a clock...")
    assert not check_rhyme("I walk the dog", "under a tree")
    assert not check_rhyme("I walk the dog", "then I beg")  # consonant rhyme does not count
    assert check_rhyme("she said: “dog”", "and I said 'jaunt'")  # assonance counts


def test_lines_without_words():
    assert not check_rhyme("", "dog")
    assert not check_rhyme("...", "!!!")
    assert not check_rhyme("你好", "世界")


def _gold_stanzas(path):
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("POEM") and i + 2 < len(lines):
            words = line.split()[1:]
            labels = lines[i + 2].split()
            if len(words) == len(labels):
                yield words, labels


def test_end_words_against_chicago_gold(shared_data):
    """Pairs of end words in one stanza: gold rhyme = same label. Measured on these four poets (2026-11):
    perfect rhymes P 0.967 R 0.765; check_rhyme P 0.740 R 0.776. The bounds leave a small margin."""
    counts = {"perfect": [0, 0, 0], "check": [0, 0, 0]}  # tp, fp, fn
    for name in ("coleridge", "wyatt", "thomas", "sidney"):
        for words, labels in _gold_stanzas(shared_data / "chicago-rhyme" / "english_gold" / f"{name}.pgold"):
            for i, j in itertools.combinations(range(len(words)), 2):
                gold = labels[i] == labels[j]
                found = rhyme_types(words[i], words[j])
                preds = {"perfect": "perfect" in found, "check": check_rhyme(words[i], words[j])}
                for key, pred in preds.items():
                    c = counts[key]
                    c[0] += gold and pred
                    c[1] += pred and not gold
                    c[2] += gold and not pred
    for key, (tp, fp, fn) in counts.items():
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        print(key, round(precision, 3), round(recall, 3))
        if key == "perfect":
            assert precision >= 0.9 and recall >= 0.7
        else:
            assert precision >= 0.68 and recall >= 0.7


def test_check_rhyme_is_symmetric():
    lines = ["I walk the dog", "he's a cog", "do", "the dude", "master", "matter", "21", "fun", "I beg",
             "a tree", "keep rhymin'", "timing", "😀", ""]  # fmt: skip
    for a, b in itertools.product(lines, lines):
        assert check_rhyme(a, b) == check_rhyme(b, a), (a, b)
