"""Study items built from real corpora (issue 9): every item type, validated by the web app's own validator."""

from __future__ import annotations

from pathlib import Path

import pytest

from creval.corpus.io import read_corpus
from creval.corpus.model import Corpus, Output, Verse
from creval.demo import demo_outputs, load_demo_corpus
from creval.errors import InputError
from creval.human.designs import build_tasks, validate_items
from creval.human.prepare import (
    build_items,
    challenge_response_items,
    fluency_items,
    post_editing_items,
    side_by_side_items,
    style_matching_items,
)


@pytest.fixture(scope="module")
def demo():
    corpus = load_demo_corpus()
    return corpus, demo_outputs(corpus, seed=0)


def test_fluency_items_per_group_and_controls(demo) -> None:
    corpus, outputs = demo
    rows, _ = fluency_items(outputs, corpus, per_group=1, controls=1, seed=3)
    groups = {(o.system, o.artist, o.checkpoint) for o in outputs if o.lines}
    assert len([r for r in rows if r["system"] != "human"]) == len(groups)
    humans = [r for r in rows if r["system"] == "human"]
    assert len(humans) == len(corpus.artists) and all(r["lines"] for r in humans)
    tasks = build_tasks("fluency_coherence", validate_items("fluency_coherence", rows))
    assert len(tasks) == len(rows)


def test_style_matching_from_chicago_poets(shared_data: Path) -> None:
    raw = shared_data / "chicago-rhyme" / "english_raw"
    verses = []
    for poet in ["coleridge", "constable", "crosland", "daniel", "fletcher", "griffin", "lodge", "milton", "more",
                 "smith", "thomas", "turner", "wyatt"]:
        verses.extend(read_corpus(raw / f"{poet}.txt").verses)
    corpus = Corpus(verses)
    assert len(corpus.artists) == 13
    outputs = [Output(f"g{i}", "sys", v.text, artist=v.artist) for i, v in enumerate(corpus.verses[::400])]
    rows, messages = style_matching_items(corpus, outputs, controls=1, seed=1)
    assert not any("artists (the full rotation" in m for m in messages)  # 13 artists: the full rotation
    tasks = build_tasks("style_matching", validate_items("style_matching", rows), seed=1)
    evaluated = [r for r in rows if r["role"] == "evaluated"]
    assert len(tasks) == 4 * len(evaluated)  # 12 other artists in 4 triples
    for r in evaluated:
        met = set()
        for t in tasks:
            if t.hidden["item"] == r["id"]:
                cands = t.hidden["candidate_artists"]
                assert cands[t.hidden["target_position"]] == r["artist"] and len(set(cands)) == 4
                met |= set(cands) - {r["artist"]}
        assert len(met) == 12


def test_style_matching_small_rotation_and_few_verses() -> None:
    artists = [f"a{i}" for i in range(6)]
    verses = [Verse(a, (f"{a} verse {k} line one", f"{a} line two {k}")) for a in artists for k in range(5)]
    verses += [Verse("tiny", ("only", "two lines")), Verse("tiny", ("x", "y"))]
    outputs = [Output("o1", "s", "generated\ntext", artist="a0"), Output("o2", "s", "gen", artist="tiny")]
    rows, messages = style_matching_items(Corpus(verses), outputs)
    assert any("'tiny' has 2 verse(s)" in m for m in messages)
    assert any("6 artists" in m and "2 page(s)" in m for m in messages)
    assert any("'o2'" in m for m in messages)
    tasks = build_tasks("style_matching", validate_items("style_matching", rows))
    assert len(tasks) == 2
    with pytest.raises(InputError, match="at least 4 artists"):
        style_matching_items(Corpus(verses[:15]), outputs)


def test_challenge_response_side_by_side_post_editing() -> None:
    outs = [
        Output("1", "a", "a response that rhymes", input="the challenge line", input_id="c1"),
        Output("2", "b", "another answer\nsecond line", input="the challenge line", input_id="c1", sample="best"),
        Output("3", "b", "a sample", input="the challenge line", input_id="c1", sample="2"),
        Output("4", "a", "only a answered", input="img/cat.png", input_id="c2"),
    ]
    rows, messages = challenge_response_items(outs)
    assert rows[1] == {"id": "2", "system": "b", "challenge": "the challenge line", "response": "another answer",
                       "input_id": "c1"}
    assert "1 output(s) have several lines: the first line is the response" in messages
    pages, messages = side_by_side_items(outs)
    assert len(pages) == 1 and [o["id"] for o in pages[0]["outputs"]] == ["1", "2"]
    assert pages[0]["context"] == "the challenge line"
    assert any("'c2'" in m for m in messages) and any("further sample" in m for m in messages)
    rows, _ = post_editing_items(outs)
    assert rows[0]["source"] == "the challenge line" and len(rows) == 4
    with pytest.raises(InputError, match="no 'input'"):
        challenge_response_items([Output("x", "s", "t")])
    with pytest.raises(InputError, match="at least two systems"):
        side_by_side_items([Output("x", "s", "t", input_id="i")])


def test_chinese_and_french_items(shared_data: Path) -> None:
    corpus = read_corpus(shared_data / "chinese-poetry" / "tang300.json")
    outs = [Output(f"z{i}", "sys", v.text, artist=v.artist, input_id=f"i{i % 3}", input=v.lines[0])
            for i, v in enumerate(corpus.verses[:12])]
    rows, _ = build_items("fluency_coherence", outs, corpus)
    assert rows[0]["lines"] == list(corpus.verses[0].lines)
    rows, _ = build_items("post_editing", outs)
    assert len(rows) == 12
    french = [Output("f1", "s", "Je suis le ténébreux,\nle veuf, l'inconsolé", input="Le Prince d'Aquitaine",
                     input_id="p1"),
              Output("f2", "t", "Ma seule étoile est morte", input="Le Prince d'Aquitaine", input_id="p1")]
    pages, _ = build_items("side_by_side", french)
    assert pages[0]["outputs"][0]["text"].startswith("Je suis le ténébreux")


def test_challenge_pairs_from_chicago_poets(shared_data: Path) -> None:
    from creval.human.prepare import challenge_response_pairs, sample_challenges
    from creval.rhyme import check_rhyme

    raw = shared_data / "chicago-rhyme" / "english_raw"
    corpus = Corpus(read_corpus(raw / "wyatt.txt").verses + read_corpus(raw / "smith.txt").verses)
    pairs, messages = challenge_response_pairs(corpus)
    assert len(pairs) > 200 and len(pairs) % 2 == 0
    # both directions, and every pair really rhymes
    keys = {(p.challenge, p.response) for p in pairs}
    assert all((p.response, p.challenge) in keys for p in pairs)
    assert all(check_rhyme(p.challenge, p.response) for p in pairs[:100])
    # pairs stay inside one verse
    by_text = {}
    for v in corpus:
        for line in v.lines:
            by_text.setdefault(line, set()).add(id(v))
    assert all(by_text[p.challenge] & by_text[p.response] for p in pairs)
    one_way, _ = challenge_response_pairs(corpus, both_directions=False)
    assert len(one_way) == len(pairs) // 2
    test = sample_challenges(pairs, 25, seed=4)
    assert len({p.challenge for p in test}) == 25 and test == sample_challenges(pairs, 25, seed=4)
    with pytest.raises(InputError, match="only"):
        sample_challenges(pairs, 10**6)


def test_no_rhyming_lines_is_a_clear_error() -> None:
    from creval.human.prepare import challenge_response_pairs

    corpus = Corpus([Verse("A", ("the cat sat down", "a dog ran off", "my house is big", "we went to school"))])
    with pytest.raises(InputError, match="no rhyming line pairs"):
        challenge_response_pairs(corpus)


def test_items_and_challenges_cli(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    from creval.corpus.io import write_generations

    corpus = load_demo_corpus()
    outs = demo_outputs(corpus, seed=0)[:40]
    write_generations(outs, tmp_path / "g.jsonl")
    res = subprocess.run([sys.executable, "-m", "creval", "study", "items", "fluency_coherence", "--generations",
                          str(tmp_path / "g.jsonl"), "--out", str(tmp_path / "st")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    check = subprocess.run([sys.executable, "-m", "creval", "study", "create", str(tmp_path / "st" / "study.yaml"),
                            "--check"], capture_output=True, text=True)
    assert check.returncode == 0 and "ok" in check.stdout, check.stderr
    res = subprocess.run([sys.executable, "-m", "creval", "study", "items", "challenge_response", "--generations",
                          str(tmp_path / "g.jsonl"), "--out", str(tmp_path / "st2")], capture_output=True, text=True)
    assert res.returncode == 2 and "has no 'input'" in res.stderr and not (tmp_path / "st2").exists()
    mini = tmp_path / "mini"
    (mini / "Smith").mkdir(parents=True)
    (mini / "Smith" / "a.txt").write_text("I saw the light of day\nand then I went away\n\nthe cat\nthe hat\n")
    res = subprocess.run([sys.executable, "-m", "creval", "challenges", str(mini), "--out", str(tmp_path / "p.jsonl"),
                          "--test-size", "2"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert {(r["challenge"], r["response"]) for r in rows} >= {("I saw the light of day", "and then I went away")}
    test = [json.loads(x) for x in (tmp_path / "p.test.jsonl").read_text().splitlines()]
    assert len(test) == 2 and {t["input_id"] for t in test} == {"c1", "c2"}


def test_every_item_type_from_the_shared_corpora(shared_data: Path) -> None:
    """The whole preparation path on real data: challenges mined from Chicago poets, two systems answering
    them (the n-gram baseline and the authentic response), then all five item types, each accepted by the
    web app's own validator and turned into pages."""
    from creval.analysis.ngram import NgramGhostwriter
    from creval.human.prepare import challenge_response_pairs, sample_challenges

    raw = shared_data / "chicago-rhyme" / "english_raw"
    corpus = Corpus([v for poet in ["wyatt", "smith", "coleridge", "crosland", "thomas"]
                     for v in read_corpus(raw / f"{poet}.txt").verses])
    pairs, _ = challenge_response_pairs(corpus)
    test = sample_challenges(pairs, 12, seed=2)
    outputs: list[Output] = []
    for i, pair in enumerate(test):
        artist_verses = [v for v in corpus if v.artist == pair.artist]
        model = NgramGhostwriter(3, seed=i).fit(artist_verses)
        generated = model.generate(1)[0]
        outputs.append(Output(f"ng{i}", "ngram", generated, artist=pair.artist, input_id=f"c{i}",
                              input=pair.challenge))
        outputs.append(Output(f"au{i}", "authentic", pair.response, artist=pair.artist, input_id=f"c{i}",
                              input=pair.challenge))
    for study_type in ("fluency_coherence", "challenge_response", "side_by_side", "post_editing",
                       "style_matching"):
        rows, _ = build_items(study_type, outputs, corpus, controls=1)
        tasks = build_tasks(study_type, validate_items(study_type, rows))
        assert tasks, study_type
        if study_type == "side_by_side":
            assert len(tasks) == 12 and all(len(t.display["outputs"]) == 2 for t in tasks)
        if study_type == "challenge_response":
            assert {t.display["challenge"] for t in tasks} == {p.challenge for p in test}
