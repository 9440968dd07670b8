"""Language coverage (issue 9): measures that need no pronunciation dictionary work on French and on Chinese
(character tokens), on real text — the shared chinese-poetry corpora and public-domain French verse."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from creval.corpus.io import read_corpus
from creval.metrics.diversity import diversity
from creval.metrics.lexical import lexical_diversity, ttr
from creval.metrics.novelty import NoveltyIndex
from creval.metrics.similarity import UniquenessIndex
from creval.text.tokenize import tokenize

# Public-domain French verse: Verlaine, "Chanson d'automne" (1866); Nerval, "El Desdichado" (1854).
VERLAINE = """Les sanglots longs
Des violons
De l'automne
Blessent mon cœur
D'une langueur
Monotone.
Tout suffocant
Et blême, quand
Sonne l'heure,
Je me souviens
Des jours anciens
Et je pleure"""
NERVAL = """Je suis le Ténébreux, – le Veuf, – l'Inconsolé,
Le Prince d'Aquitaine à la Tour abolie :
Ma seule Étoile est morte, – et mon luth constellé
Porte le Soleil noir de la Mélancolie."""


@pytest.fixture(scope="module")
def tang(shared_data: Path):
    return read_corpus(shared_data / "chinese-poetry" / "tang300.json")


def test_tokenisation_french_and_chinese(tang) -> None:
    assert tokenize("Je suis le Ténébreux, – le Veuf, – l'Inconsolé,") == [
        "je", "suis", "le", "ténébreux", "le", "veuf", "l'inconsolé"]
    line = tang.verses[0].lines[0]  # 西陸蟬聲唱，南冠客思侵。
    assert tokenize(line, "char") == [c for c in line if c not in "，。"]
    assert tokenize(line, "auto") == tokenize(line, "char")


def test_novelty_chinese_and_french(tang) -> None:
    idx = NoveltyIndex(tokenizer="char").fit(tang)
    copied = tang.verses[5].text
    reversed_lines = "\n".join(line[::-1] for line in tang.verses[5].lines)
    scores = idx.score([copied, reversed_lines])
    assert scores[0] == 0.0 and scores[1] > 0.9
    fr = NoveltyIndex(tokenizer="word").fit(NERVAL.split("\n"))
    new, old = fr.score(["Je suis le Prince noir de la Tour abolie", NERVAL.split("\n")[1]])
    assert old == 0.0 and 0 < new <= 1


def test_diversity_chinese_and_french(tang) -> None:
    poem = tang.verses[10].text
    assert diversity([poem, poem], tokenizer="char") == 0.0
    assert diversity([poem, tang.verses[11].text], tokenizer="char") > 0.9
    assert diversity([NERVAL, NERVAL]) == 0.0
    assert diversity([NERVAL, VERLAINE]) == pytest.approx(1.0)


def test_uniqueness_chinese_and_french(shared_data: Path) -> None:
    ci = read_corpus(shared_data / "chinese-poetry" / "songci300.json")
    idx = UniquenessIndex(tokenizer="char").fit(ci)
    sims, best = idx.score([ci.verses[42].text, "春眠不覺曉處處聞啼鳥"])
    assert sims[0] == pytest.approx(1.0) and best[0] == 42
    assert 0 <= sims[1] < 0.5
    fr = UniquenessIndex(tokenizer="word").fit([VERLAINE, NERVAL])
    sims, best = fr.score(["Le Soleil noir de la Mélancolie"])
    assert best[0] == 1 and 0 < sims[0] < 1


def test_lexical_diversity_chinese_and_french(tang) -> None:
    chars = tokenize(tang.verses[0].text, "char")
    assert 0 < ttr(chars) <= 1
    all_chars = [c for v in tang.verses[:60] for c in tokenize(v.text, "char")]
    scores = lexical_diversity(all_chars)
    assert all(math.isfinite(v) for v in scores.values()), scores
    fr = lexical_diversity(tokenize(VERLAINE + "\n" + NERVAL))
    assert fr["ttr"] == pytest.approx(len(set(tokenize(VERLAINE + " " + NERVAL))) / len(tokenize(VERLAINE + " " + NERVAL)))
    assert np.isfinite(fr["mtld"])
