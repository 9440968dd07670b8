"""Uniqueness (Potash et al.): exact max tf-idf cosine, checked against a full scipy sparse product."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from creval.corpus.model import Corpus, Output, Verse
from creval.metrics.base import measure_registry
from creval.metrics.similarity import UniquenessIndex
from creval.text.tokenize import tokenize


def reference_max_cosine(texts, docs, idf_kind="smooth"):
    """Straightforward tf-idf matrices and one full product Q @ D.T (the definition, no pruning)."""
    vocab: dict[str, int] = {}
    dtoks = [tokenize(d, "auto") for d in docs]
    for t in dtoks:
        for w in t:
            vocab.setdefault(w, len(vocab))
    n = len(docs)
    rows, cols, vals = [], [], []
    for i, t in enumerate(dtoks):
        for w in set(t):
            rows.append(i)
            cols.append(vocab[w])
            vals.append(t.count(w) / len(t))
    tf = sp.csr_matrix((vals, (rows, cols)), shape=(n, len(vocab)))
    df = np.bincount(cols, minlength=len(vocab))
    idf = np.log((1 + n) / (1 + df)) + 1 if idf_kind == "smooth" else np.log(n / df)
    unseen = math.log(1 + n) + 1 if idf_kind == "smooth" else 0.0
    D = tf.multiply(idf).tocsr()
    D = sp.diags(1 / np.sqrt(np.asarray(D.multiply(D).sum(axis=1)).ravel())) @ D
    out = []
    for text in texts:
        t = tokenize(text, "auto")
        if not t:
            out.append((math.nan, set()))
            continue
        q = np.zeros(len(vocab))
        extra = 0.0
        for w in set(t):
            weight = t.count(w) / len(t) * (idf[vocab[w]] if w in vocab else unseen)
            if w in vocab:
                q[vocab[w]] = weight
            else:
                extra += weight * weight
        norm = math.sqrt(q @ q + extra)
        if norm == 0:
            out.append((math.nan, set()))
            continue
        s = D @ (q / norm)
        out.append((float(s.max()), set(np.flatnonzero(s == s.max()).tolist())))
    return out


@pytest.fixture(scope="module")
def sonnets(shared_data):
    text = (shared_data / "deepspeare" / "sonnet_valid.txt").read_text(encoding="utf-8")
    return [
        "\n".join(ln.strip() for ln in row.split("<eos>") if ln.strip())
        for row in text.split("\n")
        if row.strip()
    ]


@pytest.mark.parametrize("idf", ["smooth", "plain"])
def test_matches_full_product_on_real_verses(sonnets, idf):
    docs = sonnets[:200]
    rng = np.random.default_rng(0)
    queries = []
    for i in range(60):  # recombined verses: first half of one, second half of another, plus exact copies
        a = docs[rng.integers(len(docs))].split("\n")
        b = sonnets[200 + i].split("\n")
        queries.append("\n".join(a[:7] + b[7:]))
    queries += docs[:5] + ["", "zzzz qqqq", "the the the", "love"]
    idx = UniquenessIndex(idf=idf).fit(docs)
    sims, best = idx.score(queries)
    ref = reference_max_cosine(queries, docs, idf)
    for s, b, (rs, argmaxes) in zip(sims, best, ref):
        if math.isnan(rs):
            assert math.isnan(s)
            continue
        assert s == pytest.approx(rs, abs=1e-12)
        if rs > 0:
            assert b in argmaxes


def test_copies_score_one_and_are_found(sonnets):
    idx = UniquenessIndex().fit(sonnets[:200])
    sims, best = idx.score([sonnets[17], sonnets[150]])
    assert sims == pytest.approx([1.0, 1.0])
    assert best.tolist() == [17, 150]


def test_line_unit_and_unseen_words():
    idx = UniquenessIndex(unit="line").fit(["a b c\nd e f", "g h i"])
    assert idx.n_docs == 3
    sims, best = idx.score(["d e f", "x y z"])
    assert sims[0] == pytest.approx(1.0) and best[0] == 1
    assert sims[1] == 0.0 and best[1] == -1  # nothing shared: a real 0


def test_measure_artifact_and_nan():
    corpus = Corpus(
        [Verse("A", ("o moon", "so bright"), source="a.txt", line=3), Verse("B", ("dark night",))]
    )
    m = measure_registry()["uniqueness"]().fit(corpus)
    res = m.score([Output(id="1", system="s", text="o bright moon"), Output(id="2", system="s", text="...")])
    assert 0 < res.values["max_similarity"][0] < 1
    assert math.isnan(res.values["max_similarity"][1]) and res.notes
    entry = res.artifacts["most_similar"]["1"]
    assert entry["verse"] == "o moon\nso bright" and entry["artist"] == "A" and entry["source"] == "a.txt"
    assert "idf:smooth" in str(res.signatures["max_similarity"])
