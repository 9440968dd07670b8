"""run_evaluations(): the documented example of the original lyrics evaluation module, and bad input."""

from __future__ import annotations

import math

import pytest

import creval
from creval.errors import InputError
from creval.evaluations import FIELDS, bleu_field, rouge_field, run_evaluations

EXAMPLE = ("My cat is a cute cat.", ["He is also fat.", "He likes rats.", "I hope he can rap."],
           "He is not that fat.")


def test_documented_example_holds_exactly():
    scores = creval.run_evaluations(*EXAMPLE)
    assert list(scores) == list(FIELDS)
    assert scores["grammar_score"] == 0.0
    assert scores["rhyme"] is True
    assert scores["bleu_score"] == 0.3872983346207417
    assert scores["rouge_score"] == 0.6666666617283951
    assert 0 < scores["bert_score"] <= 1
    assert scores["ld_score"] == 1.0
    assert scores["plagiarism"] is False


def test_fields_match_the_reference_libraries():
    import warnings

    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from rouge import Rouge

    refs, gen = EXAMPLE[1], "the cat and the hat and the bat"
    toks = gen.lower().split()
    order = len(toks) // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sentence_bleu([r.lower().split() for r in refs], toks, weights=[1 / order] * order,
                                 smoothing_function=SmoothingFunction().method4, auto_reweigh=True)
    assert bleu_field(refs, gen) == expected
    assert rouge_field(refs, gen) == max(Rouge().get_scores(gen, r)[0]["rouge-1"]["f"] for r in refs)
    assert rouge_field(refs, gen, "rougeL") == max(Rouge().get_scores(gen, r)[0]["rouge-l"]["f"] for r in refs)


def test_bad_and_edge_inputs():
    empty = run_evaluations("My cat", ["a"], "")
    assert all(isinstance(v, float) and math.isnan(v) for v in empty.values())
    with pytest.raises(InputError, match="must not be empty"):
        run_evaluations("My cat", [], "a cat")
    with pytest.raises(InputError, match="list of strings"):
        run_evaluations("My cat", "a cat", "a cat")
    one = run_evaluations("My cat", ["a hat"], "hat", bert=False)  # one token: BLEU order 1, no crash
    assert one["bleu_score"] == math.exp(1 - 2 / 1) and math.isnan(one["bert_score"])  # unigram p = 1, BP = e^(1-r/c)
    assert run_evaluations("x", ["He is NOT that fat"], "He is not that fat.", bert=False)["plagiarism"] is True


def test_without_torch_the_error_names_the_extra_and_bert_false(monkeypatch):
    import sys

    from creval import evaluations

    evaluations._scorer.cache_clear()
    monkeypatch.setitem(sys.modules, "torch", None)
    try:
        with pytest.raises(InputError, match=r"creval\[bert\].*bert=False"):
            run_evaluations(*EXAMPLE)
        rest = run_evaluations(*EXAMPLE, bert=False)
        assert math.isnan(rest["bert_score"]) and rest["bleu_score"] == 0.3872983346207417
    finally:
        evaluations._scorer.cache_clear()


def test_punctuation_only_line_and_unspaced_script():
    import warnings

    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from rouge import Rouge

    punct = run_evaluations("My cat", ["He is fat"], "...", bert=False)
    assert all(isinstance(v, float) and math.isnan(v) for v in punct.values())
    # Chinese: a whitespace split would make each line one word; characters are the tokens instead
    refs, gen = ["疑是地上霜", "举头望明月光"], "低头望明月"
    got = run_evaluations("床前明月光", refs, gen, bert=False)
    hyp = list(gen)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sentence_bleu([list(r) for r in refs], hyp, weights=[0.5, 0.5],
                                 smoothing_function=SmoothingFunction().method4)
    assert got["bleu_score"] == expected > 0
    spaced = [" ".join(r) for r in refs]
    assert got["rouge_score"] == max(Rouge().get_scores(" ".join(gen), r)[0]["rouge-1"]["f"] for r in spaced)
    assert got["ld_score"] == 1.0 and got["plagiarism"] is False
