"""BLEU, ROUGE and self-BLEU against the reference libraries (nltk, sacrebleu, rouge-score, rouge), exact."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from creval.errors import InputError
from creval.metrics.overlap import (
    bleu_sentences,
    corpus_bleu,
    lcs_lengths,
    rouge,
    sacrebleu_corpus,
    sacrebleu_sentences,
    self_bleu,
    sentence_bleu,
)

SF = SmoothingFunction()
WORDS = st.sampled_from(["a", "b", "c", "d", "e", "cat", "the"])
SENT = st.lists(WORDS, min_size=1, max_size=14)
WEIGHTS = st.sampled_from([(0.25,) * 4, (0.5, 0.5), (1 / 3,) * 3, (0.1, 0.3, 0.5, 0.1), (0.2,) * 5, (1.0,)])


def _nltk(refs, hyp, weights, method, auto_reweigh=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nltk_sentence_bleu(refs, hyp, weights, smoothing_function=getattr(SF, f"method{method}"),
                                  auto_reweigh=auto_reweigh)


@settings(max_examples=400, deadline=None)
@given(hyp=SENT, refs=st.lists(SENT, min_size=1, max_size=3), weights=WEIGHTS,
       method=st.integers(0, 7), auto_reweigh=st.booleans())
def test_sentence_bleu_identical_to_nltk(hyp, refs, weights, method, auto_reweigh):
    try:
        expected = _nltk(refs, hyp, weights, method, auto_reweigh)
    except (AssertionError, ZeroDivisionError, IndexError):  # nltk method 6 needs a non-zero trigram precision
        with pytest.raises(InputError):
            sentence_bleu(refs, hyp, weights, method, auto_reweigh)
        return
    assert sentence_bleu(refs, hyp, weights, method, auto_reweigh) == expected


@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.tuples(SENT, st.lists(SENT, min_size=1, max_size=3)), min_size=1, max_size=6),
       weights=WEIGHTS, method=st.integers(0, 7))
def test_corpus_bleu_identical_to_nltk(data, weights, method):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = nltk_corpus_bleu(refs, hyps, weights, smoothing_function=getattr(SF, f"method{method}"))
    except (AssertionError, ZeroDivisionError, IndexError):
        return
    assert corpus_bleu(refs, hyps, weights, method) == expected


def test_batch_equals_one_by_one():
    hyps = [s.split() for s in ["the cat sat on the mat", "a dog", "the the the", "on the mat sat the cat"]]
    refs = [[r.split() for r in rr] for rr in [["the cat is on the mat", "there is a cat"], ["a dog barks"],
                                                 ["the cat"], ["the cat sat on the mat"]]]
    batch = bleu_sentences(hyps, refs, (0.5, 0.5), 4)
    for h, r, b in zip(hyps, refs, batch):
        assert b == _nltk(r, h, (0.5, 0.5), 4)


def test_bleu_worked_example_from_lyrics_scripts():
    # run_evaluations' documented example: whitespace tokens, lower-cased, bigram weights, method 4
    refs = [s.lower().split() for s in ["He is also fat.", "He likes rats.", "I hope he can rap."]]
    assert sentence_bleu(refs, "he is not that fat.".split(), (0.5, 0.5), 4) == 0.3872983346207417


def test_bleu_bad_inputs():
    assert math.isnan(sentence_bleu([["a", "b"]], [], (0.5, 0.5)))  # empty hypothesis: NaN, not 0
    assert math.isnan(sentence_bleu([[]], ["a"], (0.5, 0.5)))  # only empty (punctuation-only) references
    with pytest.raises(InputError, match="empty reference list"):
        sentence_bleu([], ["a"])
    with pytest.raises(InputError):
        sentence_bleu([["a"]], ["a"], smoothing=9)
    with pytest.raises(InputError):
        sentence_bleu([["a"]], ["a"], weights=())


def test_bleu_long_text_matches_nltk():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    hyp = [words[i] for i in rng.integers(0, 300, 100_000)]
    ref = [words[i] for i in rng.integers(0, 300, 100_000)]
    assert sentence_bleu([ref], hyp) == _nltk([ref], hyp, (0.25,) * 4, 4)


TEXT = st.lists(st.sampled_from(["the", "cat", "Sat", "on", "mat", "it's", "5-6", "U.S.", "&amp;", "a", "dog",
                                 "床前", "明月光，", "疑是—地上霜", "€5"]),
                min_size=1, max_size=12).map(" ".join)
PUNCT = st.sampled_from(["", ".", " .", "!", ",", "?"])


@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.tuples(TEXT, PUNCT, st.lists(TEXT, min_size=2, max_size=2)), min_size=1, max_size=4),
       tok=st.sampled_from(["13a", "none", "char", "zh"]), lc=st.booleans(),
       smooth=st.sampled_from(["exp", "floor", "add-k", "none"]), eff=st.booleans())
def test_sacrebleu_identical(data, tok, lc, smooth, eff):
    from sacrebleu.metrics import BLEU

    hyps = [h + p for h, p, _ in data]
    refs = [r for _, _, r in data]
    metric = BLEU(tokenize=tok, lowercase=lc, smooth_method=smooth, effective_order=eff)
    expected = metric.corpus_score(hyps, [list(x) for x in zip(*refs)])
    got = sacrebleu_corpus(hyps, refs, tok, lc, smooth, None, 4, eff)
    assert got.score == expected.score
    assert got.counts == expected.counts and got.totals == expected.totals
    assert got.signature.split("(")[0] == str(metric.get_signature())
    import sacrebleu

    sent = sacrebleu_sentences(hyps, refs, tok, lc, smooth)
    exp_sent = [sacrebleu.sentence_bleu(h, r, smooth_method=smooth, tokenize=tok, lowercase=lc).score
                for h, r in zip(hyps, refs)]
    assert list(sent) == exp_sent


RS_TEXT = st.lists(st.sampled_from(["The", "cat", "sat", "on", "the", "mat", "dog", "ran.", "far,", "it's", "5"]),
                   min_size=0, max_size=14).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(hyp=RS_TEXT, ref=RS_TEXT, extra=st.sampled_from(["", ". and the cat", " . ", "..."]))
def test_rouge_score_mode_identical(hyp, ref, extra):
    from rouge_score import rouge_scorer

    hyp = hyp + extra
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    expected = scorer.score(ref, hyp)
    res = rouge([hyp], [[ref]], mode="rouge-score")
    for key in ("rouge1", "rouge2", "rougeL"):
        got = [res.scores[key][s][0] for s in "prf"]
        exp = [expected[key].precision, expected[key].recall, expected[key].fmeasure]
        if not hyp.strip(".,! ") or not any(c.isalnum() for c in ref):
            assert all(math.isnan(g) for g in got)  # documented: NaN instead of rouge-score's silent 0
        else:
            assert got == exp


@settings(max_examples=300, deadline=None)
@given(hyp=RS_TEXT, ref=RS_TEXT, extra=st.sampled_from(["", ". and the cat", " . ", "...", ". The  mat ."]))
def test_rouge_package_mode_identical(hyp, ref, extra):
    from rouge import Rouge

    hyp = hyp + extra
    try:
        expected = Rouge().get_scores(hyp, ref)[0]
    except ValueError:  # the rouge package refuses texts with no sentence
        res = rouge([hyp], [[ref]], mode="rouge")
        assert all(math.isnan(res.scores["rouge1"][s][0]) for s in "prf")
        return
    res = rouge([hyp], [[ref]], mode="rouge")
    for key, key2 in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l")):
        assert [res.scores[key][s][0] for s in "prf"] == [expected[key2][s] for s in "prf"]


def test_rouge_custom_tokenizer_identical_and_unicode_not_zero():
    from rouge_score import rouge_scorer, tokenizers

    from creval.text.tokenize import tokenize

    class Auto(tokenizers.Tokenizer):
        def tokenize(self, text):
            return tokenize(text, "auto")

    hyp, ref = "床前明月光 the moon", "床前看月光 the moon"
    expected = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=Auto()).score(ref, hyp)
    res = rouge([hyp], [[ref]], mode="rouge-score", tokenizer="auto")
    for key in ("rouge1", "rouge2", "rougeL"):
        assert res.scores[key]["f"][0] == expected[key].fmeasure
    assert res.scores["rouge1"]["f"][0] > 0.5
    with pytest.raises(InputError, match="tokenizer='auto'"):
        rouge(["床前明月光"], [["床前看月光"]], mode="rouge-score")
    with pytest.raises(InputError, match="without spaces"):
        rouge(["床前明月光"], [["床前看月光"]], mode="rouge")
    res = rouge(["床前明月光"], [["床前看月光"]], mode="rouge", tokenizer="auto")
    assert res.scores["rouge1"]["f"][0] == pytest.approx(0.8, abs=1e-7)


def test_rouge_multi_reference_summaries():
    res = rouge(["He is not that fat."], [["He is also fat.", "He likes rats.", "I hope he can rap."]], mode="rouge")
    assert res.summary("rouge1", "f", "max")[0] == 0.6666666617283951
    f = res.scores["rouge1"]["f"]
    assert res.summary("rouge1", "f", "mean")[0] == pytest.approx(f.mean())
    assert res.summary("rouge1", "f", "min")[0] == f.min()
    with pytest.raises(InputError):
        rouge(["a"], [[]])
    with pytest.raises(InputError):
        res.summary("rouge1", "f", "median")


def test_lcs_lengths_match_dynamic_programming():
    from rouge_score.rouge_scorer import _lcs_table

    rng = np.random.default_rng(1)
    xs = [list(rng.integers(0, 4, rng.integers(0, 80))) for _ in range(300)]
    ys = [list(rng.integers(0, 4, rng.integers(0, 80))) for _ in range(300)]
    got = lcs_lengths(xs, ys)
    for x, y, g in zip(xs, ys, got):
        assert g == (_lcs_table(y, x)[-1][-1] if x and y else 0)


@settings(max_examples=60, deadline=None)
@given(outs=st.lists(SENT, min_size=2, max_size=7), method=st.sampled_from([0, 1, 2, 3, 4]))
def test_self_bleu_equals_nltk_against_the_others(outs, method):
    got = self_bleu(outs, smoothing=method)
    for i, out in enumerate(outs):
        others = outs[:i] + outs[i + 1:]
        assert got[i] == _nltk(others, out, (0.25,) * 4, method)


def test_self_bleu_single_output_undefined():
    assert np.isnan(self_bleu([["a", "b"]])).all()


MIXED = st.text(alphabet=st.sampled_from(list("abcAB09 .,-'éİKßΣ\u212a\n")), min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(hyp=MIXED, ref=MIXED)
def test_rouge_score_tokenisation_identical_on_unicode(hyp, ref):
    from rouge_score import rouge_scorer

    from creval.metrics.overlap import rouge_score_tokenize

    expected = rouge_scorer.RougeScorer(["rouge1", "rougeL"]).score(ref, hyp)
    if not rouge_score_tokenize(hyp) or not rouge_score_tokenize(ref):
        return  # empty: NaN or a refusal, tested elsewhere
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rouge([hyp], [[ref]], mode="rouge-score", types=("rouge1", "rougeL"))
    assert res.scores["rouge1"]["f"][0] == expected["rouge1"].fmeasure
    assert res.scores["rougeL"]["f"][0] == expected["rougeL"].fmeasure


def test_registered_measures_in_pipeline(tmp_path):
    import sacrebleu
    from rouge_score import rouge_scorer

    from creval.api import evaluate_full
    from creval.corpus.model import Output
    from creval.text.tokenize import tokenize

    outs = [Output(id="1", system="a", text="the cat sat on the mat", references=("a cat sat on a mat",)),
            Output(id="2", system="a", text="hello there my friend", references=("hello you my friend", "hi")),
            Output(id="3", system="b", text="no references here")]
    ev = evaluate_full(None, outs, ["bleu", "rouge"], out=tmp_path / "o")
    res = ev.results
    bleu = res[(res["measure"] == "bleu")]["value"].to_numpy()
    for o, v in zip(outs[:2], bleu[:2]):
        refs = [tokenize(r, "auto") for r in o.references]
        assert v == _nltk(refs, tokenize(o.text, "auto"), (0.25,) * 4, 4)
    assert np.isnan(bleu[2])
    assert any("no references" in n for n in ev.notes)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    rl = res[res["measure"] == "rougeL"]["value"].to_numpy()
    assert rl[1] == max(scorer.score(r, outs[1].text)["rougeL"].fmeasure for r in outs[1].references)
    assert "Overlap with references" in (tmp_path / "o" / "report.html").read_text("utf-8")

    ev = evaluate_full(None, outs[:2], ["bleu"], params={"bleu": {"mode": "sacrebleu"}})
    corpus = ev.results[ev.results["measure"] == "bleu_corpus"]["value"].iloc[0]
    exp = sacrebleu.corpus_bleu([o.text for o in outs[:2]], [["a cat sat on a mat", "hello you my friend"],
                                                             [None, "hi"]])
    assert corpus == pytest.approx(exp.score, abs=1e-12)
    assert "nrefs:var" in str(ev.signatures["bleu_corpus"])
    with pytest.raises(InputError, match="needs references"):
        evaluate_full(None, outs[2:], ["rouge"])
    with pytest.raises(InputError):
        evaluate_full(None, outs, ["bleu"], params={"bleu": {"smoothing": 12}})


def test_long_texts():
    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(50)]
    hyp = " ".join(words[i] for i in rng.integers(0, 50, 100_000))
    ref = " ".join(words[i] for i in rng.integers(0, 50, 1_000))
    res = rouge([hyp], [[ref]], mode="rouge-score")  # 100k tokens: bit-parallel LCS, no quadratic table
    assert 0 < res.scores["rougeL"]["r"][0] <= 1
    with pytest.raises(InputError, match="too large"):
        rouge([hyp], [[hyp]], mode="rouge", types=("rougeL",))
    assert 0 < rouge([hyp], [[ref]], mode="rouge", types=("rouge1",)).scores["rouge1"]["f"][0] <= 1


STEM_TEXT = st.lists(st.sampled_from(["running", "runs", "ran", "cats", "cat", "the", "happily", "happiness",
                                      "generously", "flies", "flying", "a", "b"]), min_size=1, max_size=10).map(" ".join)


@settings(max_examples=100, deadline=None)
@given(hyp=STEM_TEXT, ref=STEM_TEXT)
def test_rouge_score_stemmer_identical(hyp, ref):
    from rouge_score import rouge_scorer

    expected = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True).score(ref, hyp)
    res = rouge([hyp], [[ref]], mode="rouge-score", stem=True)
    for key in ("rouge1", "rouge2", "rougeL"):
        assert res.scores[key]["f"][0] == expected[key].fmeasure
    with pytest.raises(InputError):
        rouge([hyp], [[ref]], mode="rouge", stem=True)


@settings(max_examples=150, deadline=None)
@given(hyp=SENT, refs=st.lists(SENT, min_size=1, max_size=3), method=st.integers(0, 7),
       many=st.sampled_from([[(0.5, 0.5), (1 / 3,) * 3, (0.25,) * 4], [(1.0,), (0.2,) * 5]]))
def test_several_weight_vectors_like_nltk(hyp, refs, method, many):
    try:
        expected = _nltk(refs, hyp, many, method)
    except (AssertionError, ZeroDivisionError, IndexError):
        return
    assert sentence_bleu(refs, hyp, many, method) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp_c = nltk_corpus_bleu([refs, refs], [hyp, hyp[::-1]], many,
                                 smoothing_function=getattr(SF, f"method{method}"))
    assert corpus_bleu([refs, refs], [hyp, hyp[::-1]], many, method) == exp_c
