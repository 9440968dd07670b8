"""BERTScore against the bert_score library run with the same offline model and layer."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from creval.errors import InputError
from creval.metrics.embedding import BertScorer, build_baseline, model_path, plot_similarity, read_baseline

CANDS = ["He is not that fat.", "the cat sat on the mat", "I love my rhymes and my rhymes love me",
         "床前明月光 the moon"]
REFS = [["He is also fat.", "He likes rats.", "I hope he can rap."], ["a cat on a mat"], ["rhymes are love"],
        ["床前看月光"]]


@pytest.fixture(scope="module")
def scorer() -> BertScorer:
    return BertScorer()


def _bert_score(cands, refs, layer, **kw):
    import bert_score

    P, R, F = bert_score.score(cands, refs, model_type=str(model_path()), num_layers=layer, **kw)
    return P.numpy().astype(float), R.numpy().astype(float), F.numpy().astype(float)


@pytest.mark.parametrize("layer", [5, 3])
def test_pairs_identical_to_bert_score(layer):
    scorer = BertScorer(layer=layer)
    res = scorer.score(CANDS, REFS)
    flat_c = [c for c, rr in zip(CANDS, REFS) for _ in rr]
    flat_r = [r for rr in REFS for r in rr]
    P, R, F = _bert_score(flat_c, flat_r, layer)
    # float32 throughout, as bert_score; equal up to float32 rounding of differently padded batches
    np.testing.assert_allclose(res.p, P, rtol=0, atol=2e-6)
    np.testing.assert_allclose(res.r, R, rtol=0, atol=2e-6)
    np.testing.assert_allclose(res.f, F, rtol=0, atol=2e-6)


def test_multi_reference_max_is_bert_scores_multi_reference(scorer):
    res = scorer.score(CANDS, REFS)
    P, R, F = _bert_score(CANDS, REFS, 5)  # bert_score takes the best over references, per statistic
    np.testing.assert_allclose(res.summary("f", "max"), F, rtol=0, atol=2e-6)
    np.testing.assert_allclose(res.summary("p", "max"), P, rtol=0, atol=2e-6)
    first = res.f[res.pair_cand == 0]
    assert res.summary("f", "mean")[0] == pytest.approx(first.mean())
    assert res.summary("f", "min")[0] == first.min()
    with pytest.raises(InputError):
        res.summary("f", "median")


def test_baseline_rescaling_identical_to_bert_score(tmp_path, scorer):
    lines = ["shall i compare thee to a summer's day", "thou art more lovely and more temperate",
             "rough winds do shake the darling buds of may", "and summer's lease hath all too short a date",
             "so long lives this and this gives life to thee"]
    path = tmp_path / "base.csv"
    rows = build_baseline(lines, path, pairs=12, seed=1, scorer=scorer)
    assert [r[0] for r in rows] == list(range(7))
    assert read_baseline(path, 5) == rows[5][1:]
    res = BertScorer(baseline=path).score(CANDS, REFS)
    P, R, F = _bert_score(CANDS, REFS, 5, rescale_with_baseline=True, baseline_path=str(path), lang="en")
    np.testing.assert_allclose(res.summary("f", "max"), F, rtol=0, atol=5e-6)
    np.testing.assert_allclose(res.summary("r", "max"), R, rtol=0, atol=5e-6)


def test_bad_inputs(scorer, tmp_path):
    res = scorer.score(["", "a cat"], [["a cat"], [""]])
    assert np.isnan(res.f).all()  # empty candidate / reference: NaN, not bert_score's 0
    with pytest.raises(InputError, match="empty reference list"):
        scorer.score(["a"], [[]])
    with pytest.raises(InputError):
        scorer.score(["a"], [["b"], ["c"]])
    bad = tmp_path / "bad.csv"
    bad.write_text("layer,p\n1,2\n")
    with pytest.raises(InputError, match="LAYER,P,R,F"):
        read_baseline(bad, 5)
    with pytest.raises(InputError, match="at least two"):
        build_baseline(["only one"], tmp_path / "x.csv", scorer=scorer)
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(InputError, match="layer"):
        BertScorer(layer=9).score(["a"], [["b"]])


def test_long_text_is_truncated_like_bert_score(scorer):
    long = " ".join(["word"] * 3000)
    res = scorer.score([long], [["word word"]])
    assert res.truncated == 1 and 0 < res.f[0] <= 1


def test_missing_torch_gives_install_hint(monkeypatch):
    from creval.metrics import embedding

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(InputError, match=r"creval\[bert\]"):
        embedding._torch()


def test_similarity_matrix_and_plot(scorer):
    ctoks, rtoks, sim = scorer.similarity_matrix("He is not that fat.", "He is also fat.")
    assert ctoks == ["he", "is", "not", "that", "fat", "."]
    assert sim.shape == (6, 5)
    assert sim[0, 0] == pytest.approx(sim.max(axis=1)[0])
    fig = plot_similarity(ctoks, rtoks, sim, "x")
    assert len(fig.axes) == 2


def test_measure_in_pipeline_and_report(tmp_path):
    from creval.api import evaluate_full
    from creval.corpus.model import Output

    outs = [Output(id="a", system="s", text="He is not that fat.", references=("He is also fat.",)),
            Output(id="b", system="s", text="the cat sat", references=("a cat sat",)),
            Output(id="c", system="s", text="no refs")]
    ev = evaluate_full(None, outs, ["bertscore"], out=tmp_path / "o")
    f = ev.results[ev.results["measure"] == "bertscore_f"]["value"].to_numpy()
    assert 0 < f[0] <= 1 and np.isnan(f[2])
    assert "layer:5" in str(ev.signatures["bertscore_f"])
    html = (tmp_path / "o" / "report.html").read_text("utf-8")
    assert "Overlap with references" in html and "<svg" in html
    with pytest.raises(InputError, match="needs references"):
        evaluate_full(None, [outs[2]], ["bertscore"])


def test_report_picture_uses_the_reference_that_decides_the_score():
    from creval.corpus.model import Output
    from creval.metrics.embedding import BertScoreMeasure

    # the exact reference is the shorter one: the picture must show it (max summary), not the longest
    outs = [Output(id="a", system="s", text="the cat sat on the mat",
                   references=("a long unrelated reference about rivers and mountains far away",
                               "the cat sat on the mat"))]
    ex = BertScoreMeasure().score(outs).artifacts["examples"]
    assert ex[0]["reference_tokens"] == ["the", "cat", "sat", "on", "the", "mat"]
    ex = BertScoreMeasure(summary="min").score(outs).artifacts["examples"]
    assert ex[0]["reference_tokens"][:3] == ["a", "long", "unrelated"]
