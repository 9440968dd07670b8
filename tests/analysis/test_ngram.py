"""The n-gram ghostwriter baseline: model arithmetic, reproducibility, save/load, CLI."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.analysis.ngram import (
    NgramGhostwriter,
    generate_baselines,
    generate_from_models,
    load_models,
    save_models,
    train_baselines,
)
from creval.cli import main
from creval.corpus.io import read_generations
from creval.corpus.model import Corpus, Verse
from creval.errors import InputError

VERSES = [
    "the cat sat on the mat\nthe dog lay by the door",
    "a bird flew over the hill\nand sang a song of the sea",
    "the night was long and cold\nthe stars were bright above",
]


def _corpus() -> Corpus:
    verses = []
    for artist, texts in {"Ann": VERSES, "Bob": ["x y z\nw v u", "x y q\nr s t", "one two\nthree four five"]}.items():
        for t in texts:
            verses.append(Verse(artist, tuple(t.split("\n"))))
    return Corpus(verses, name="toy")


def _grams(text: str, n: int) -> list[tuple[str, ...]]:
    stream = ["<s>"] * (n - 1)
    for i, line in enumerate(text.split("\n")):
        if i:
            stream.append("<nl>")
        stream.extend(line.split())
    stream.append("</v>")
    return [tuple(stream[i : i + n]) for i in range(len(stream) - n + 1)]


def test_counts_are_the_mle_table():
    gw = NgramGhostwriter(2).fit(["a b a\nb a"])
    vocab = gw.vocab
    table = {(vocab[c[0]],): {vocab[k]: v for k, v in nxt.items()} for c, nxt in gw.counts.items()}
    # stream: <s> a b a <nl> b a </v>
    assert table == {("<s>",): {"a": 1}, ("a",): {"b": 1, "<nl>": 1, "</v>": 1}, ("b",): {"a": 2},
                     ("<nl>",): {"b": 1}}


def test_deterministic_corpus_is_reproduced():
    # every context has exactly one continuation: the model can only copy the verse
    gw = NgramGhostwriter(2, seed=3).fit(["one two three\nfour five"])
    assert gw.generate(3) == ["one two three\nfour five"] * 3


def test_high_order_copies_training_verses():
    gw = NgramGhostwriter(9, seed=0).fit(VERSES)
    for text in gw.generate(10):
        assert text in VERSES


def test_every_generated_ngram_was_seen_in_training():
    n = 3
    gw = NgramGhostwriter(n, seed=11).fit(VERSES)
    seen = {g for v in VERSES for g in _grams(v, n)}
    for text in gw.generate(30):
        assert set(_grams(text, n)) <= seen


def test_unigram_samples_follow_the_counts():
    # unigram over "a a a b" plus </v>: P(a) = 3/5, P(b) = 1/5 (the </v> mass ends verses)
    gw = NgramGhostwriter(1, seed=0).fit(["a a a b"])
    tokens = Counter(tok for text in gw.generate(2000) for tok in text.split())
    share = tokens["a"] / (tokens["a"] + tokens["b"])
    assert abs(share - 0.75) < 0.03
    assert set(tokens) == {"a", "b"}


def test_verse_end_not_drawn_before_a_word():
    gw = NgramGhostwriter(1, seed=0).fit(["a"])  # P(</v>) = 1/2 at every step
    texts = gw.generate(200)
    assert all(t.strip() for t in texts)
    lengths = Counter(len(t.split()) for t in texts)
    assert min(lengths) == 1 and max(lengths) > 2


def test_line_breaks_and_no_empty_lines():
    gw = NgramGhostwriter(1, seed=2).fit(VERSES)
    texts = gw.generate(50)
    assert any("\n" in t for t in texts)
    assert all(line.strip() for t in texts for line in t.split("\n"))


def test_seeded_and_reproducible():
    a = NgramGhostwriter(2, seed=5).fit(VERSES).generate(5)
    b = NgramGhostwriter(2, seed=5).fit(VERSES).generate(5)
    c = NgramGhostwriter(2, seed=6).fit(VERSES).generate(5)
    assert a == b
    assert a != c


def test_max_tokens_truncates():
    gw = NgramGhostwriter(1, seed=0, max_tokens=4).fit(["a b c d e f g h i j k l"])
    results = [gw.generate_one() for _ in range(20)]
    assert all(len(text.split()) <= 4 for text, _ in results)
    # P(</v>) = 1/13 per step: most verses reach the limit; the flag is set exactly when they do not end
    assert any(trunc for _, trunc in results)
    assert all(trunc == (len(text.split()) == 4) or not trunc for text, trunc in results)


def test_char_mode_for_chinese():
    gw = NgramGhostwriter(2, seed=0, tokenizer="auto").fit(["床前明月光\n疑是地上霜"])
    assert gw.mode == "char"
    assert gw.generate(1) == ["床前明月光\n疑是地上霜"]


def test_bad_parameters():
    with pytest.raises(InputError, match="positive integer"):
        NgramGhostwriter(0)
    with pytest.raises(InputError, match="tokenizer"):
        NgramGhostwriter(2, tokenizer="bpe")
    with pytest.raises(InputError, match="no verse"):
        NgramGhostwriter(2).fit(["", "  \n "])
    with pytest.raises(InputError, match="not trained"):
        NgramGhostwriter(2).generate(1)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=0, max_size=6),
                         min_size=1, max_size=4), min_size=1, max_size=5),
       st.integers(1, 5), st.integers(0, 2**31))
def test_any_corpus_generates_seen_ngrams(verses, n, seed):
    texts = ["\n".join(" ".join(line) for line in verse) for verse in verses]
    if not any(t.split() for t in texts):
        with pytest.raises(InputError):
            NgramGhostwriter(n).fit(texts)
        return
    gw = NgramGhostwriter(n, seed=seed).fit(texts)
    clean = ["\n".join(ln for ln in t.split("\n") if ln.strip()) for t in texts if t.split()]
    seen = {g for v in clean for g in _grams(v, n)}
    for text, truncated in (gw.generate_one() for _ in range(3)):
        assert text.strip()
        grams = _grams(text, n)
        if truncated:
            grams = grams[:-1]
        if n > 1:
            assert set(grams) <= seen


def test_save_load_roundtrip(tmp_path):
    gw = NgramGhostwriter(3, seed=9).fit(VERSES, artist="Ann")
    path = gw.save(tmp_path / "m.json")
    data = json.loads(path.read_text())
    assert data["format"] == "creval-ngram/1" and data["n"] == 3 and data["artist"] == "Ann"
    again = NgramGhostwriter.load(path)
    assert again.counts == gw.counts and again.vocab == gw.vocab
    assert NgramGhostwriter(3, seed=9).fit(VERSES).generate(4) == again.generate(4)


def test_load_rejects_bad_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="invalid JSON") as info:
        NgramGhostwriter.load(bad)
    assert info.value.file == str(bad)
    bad.write_text(json.dumps({"format": "other"}))
    with pytest.raises(InputError, match="not a creval n-gram model"):
        NgramGhostwriter.load(bad)
    gw = NgramGhostwriter(2).fit(VERSES).to_dict()
    gw["counts"][0][1] = [10_000]
    gw["counts"][0][2] = [1]
    bad.write_text(json.dumps(gw))
    with pytest.raises(InputError, match="unknown tokens"):
        NgramGhostwriter.load(bad)
    with pytest.raises(InputError, match="not a creval n-gram model file"):
        load_models(_write(tmp_path, [1, 2]))


def _write(tmp_path, obj):
    p = tmp_path / "list.json"
    p.write_text(json.dumps(obj))
    return p


def test_generate_baselines_shape_and_fields():
    corpus = _corpus()
    outs = generate_baselines(corpus, orders=range(1, 4), per_order=2, seed=1)
    assert len(outs) == 2 * 3 * 2
    assert len({o.id for o in outs}) == len(outs)
    assert {o.system for o in outs} == {"ngram"}
    assert Counter((o.artist, o.checkpoint) for o in outs) == {(a, float(n)): 2 for a in ("Ann", "Bob")
                                                               for n in (1, 2, 3)}
    assert {o.sample for o in outs} == {"0", "1"}
    assert outs == generate_baselines(corpus, orders=range(1, 4), per_order=2, seed=1)
    # adding or removing an artist leaves the others' verses unchanged
    only_bob = generate_baselines(corpus, artists=["Bob"], orders=range(1, 4), per_order=2, seed=1)
    assert [o.text for o in only_bob] == [o.text for o in outs if o.artist == "Bob"]
    with pytest.raises(InputError, match="not in the corpus: Zed"):
        generate_baselines(corpus, artists=["Zed"])


def test_bundle_roundtrip_matches_direct_generation(tmp_path):
    corpus = _corpus()
    models = train_baselines(corpus, orders=[1, 2, 5])
    save_models(models, tmp_path / "b.json")
    loaded = load_models(tmp_path / "b.json")
    assert [(m.artist, m.n) for m in loaded] == [(a, n) for a in ("Ann", "Bob") for n in (1, 2, 5)]
    assert generate_from_models(loaded, 3, seed=4) == generate_baselines(corpus, orders=[1, 2, 5],
                                                                         per_order=3, seed=4)


def test_demo_corpus_baselines():
    from creval.demo import load_demo_corpus

    corpus = load_demo_corpus()
    outs = generate_baselines(corpus, per_order=1, seed=0)
    assert len(outs) == len(corpus.artists) * 9
    assert all(o.text.strip() for o in outs)


def test_cli_train_then_generate(tmp_path):
    corpus_dir = tmp_path / "corpus"
    for artist, texts in {"Ann": VERSES, "Bob": VERSES[::-1]}.items():
        (corpus_dir / artist).mkdir(parents=True)
        (corpus_dir / artist / "a.txt").write_text("\n\n".join(texts) + "\n")
    runner = CliRunner()
    model = tmp_path / "ng.json"
    res = runner.invoke(main, ["baseline", "train", "--corpus", str(corpus_dir), "--orders", "1-3",
                               "--out", str(model)])
    assert res.exit_code == 0, res.output
    gens = tmp_path / "g.jsonl"
    res = runner.invoke(main, ["baseline", "generate", "--model", str(model), "--per-order", "2", "--seed", "7",
                               "--out", str(gens)])
    assert res.exit_code == 0, res.output
    outs = read_generations(gens)
    assert len(outs) == 2 * 3 * 2
    assert sorted({o.checkpoint for o in outs}) == [1.0, 2.0, 3.0]
    direct = tmp_path / "d.jsonl"
    res = runner.invoke(main, ["baseline", "generate", "--corpus", str(corpus_dir), "--orders", "1-3",
                               "--per-order", "2", "--seed", "7", "--out", str(direct)])
    assert res.exit_code == 0, res.output
    assert direct.read_text() == gens.read_text()


def test_cli_bad_input(tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["baseline", "generate", "--out", str(tmp_path / "x.jsonl")])
    assert res.exit_code == 2 and "exactly one of --model and --corpus" in res.output
    bad = tmp_path / "m.json"
    bad.write_text("[]")
    res = runner.invoke(main, ["baseline", "generate", "--model", str(bad), "--out", str(tmp_path / "x.jsonl")])
    assert res.exit_code == 2 and str(bad) in res.output
    assert not (tmp_path / "x.jsonl").exists()
    res = runner.invoke(main, ["baseline", "train", "--corpus", str(tmp_path), "--orders", "0-2",
                               "--out", str(tmp_path / "y.json")])
    assert res.exit_code == 2
