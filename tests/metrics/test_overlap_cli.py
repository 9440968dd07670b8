"""creval bleu / rouge on line-aligned files: numbers as the library functions, bad files exit 2."""

from __future__ import annotations

from click.testing import CliRunner

from creval.cli import main


def _files(tmp_path):
    h = tmp_path / "hyp.txt"
    r = tmp_path / "ref.txt"
    h.write_text("the cat sat on the mat\nhello there\n", "utf-8")
    r.write_text("a cat sat on a mat\nhello you\n", "utf-8")
    return h, r


def test_bleu_nltk_and_sacrebleu(tmp_path):
    import sacrebleu
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

    h, r = _files(tmp_path)
    res = CliRunner().invoke(main, ["bleu", str(h), str(r)])
    assert res.exit_code == 0, res.output
    hyps = [x.split() for x in h.read_text().splitlines()]
    refs = [[x.split()] for x in r.read_text().splitlines()]
    expected = corpus_bleu(refs, hyps, smoothing_function=SmoothingFunction().method4)
    assert f"BLEU = {expected:.4f}" in res.output
    res = CliRunner().invoke(main, ["bleu", str(h), str(r), "--mode", "sacrebleu"])
    assert res.exit_code == 0, res.output
    exp = sacrebleu.corpus_bleu(h.read_text().splitlines(), [r.read_text().splitlines()])
    assert f"BLEU = {exp.score:.2f}" in res.output and "tok:13a" in res.output


def test_rouge_and_bad_files(tmp_path):
    h, r = _files(tmp_path)
    res = CliRunner().invoke(main, ["rouge", str(h), str(r)])
    assert res.exit_code == 0 and "rouge1" in res.output
    short = tmp_path / "short.txt"
    short.write_text("one line\n", "utf-8")
    res = CliRunner().invoke(main, ["bleu", str(h), str(short)])
    assert res.exit_code == 2 and "short.txt:2" in res.output
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    res = CliRunner().invoke(main, ["rouge", str(bad), str(r)])
    assert res.exit_code == 2 and "bad.txt:2: not valid UTF-8" in res.output
    res = CliRunner().invoke(main, ["bleu", str(h)])
    assert res.exit_code == 2 and "at least one reference" in res.output


def test_bertscore_and_baseline_commands(tmp_path):
    import numpy as np

    from creval.metrics.embedding import BertScorer

    h = tmp_path / "hyp.txt"
    r = tmp_path / "ref.txt"
    h.write_text("the cat sat on the mat\n\nhello there\n", "utf-8")
    r.write_text("a cat sat on a mat\nsome line\nhello you\n", "utf-8")
    res = CliRunner().invoke(main, ["bertscore", str(h), str(r)])
    assert res.exit_code == 0, res.output
    f = BertScorer().score(["the cat sat on the mat", "hello there"], [["a cat sat on a mat"], ["hello you"]])
    assert f"F1 = {np.mean(f.summary('f')):.4f}" in res.output and "layer:5" in res.output
    assert "1 line(s) undefined" in res.output
    h.write_text("\n", "utf-8")
    r.write_text("x\n", "utf-8")
    res = CliRunner().invoke(main, ["bertscore", str(h), str(r)])
    assert res.exit_code == 2 and "undefined on every line" in res.output
    corpus = tmp_path / "corpus"
    (corpus / "Some Artist").mkdir(parents=True)
    (corpus / "Some Artist" / "a.txt").write_text("".join(f"line number {i} of a small corpus\n"
                                                          for i in range(30)), "utf-8")
    base = tmp_path / "base.csv"
    res = CliRunner().invoke(main, ["bertscore-baseline", str(corpus), str(base), "--pairs", "20"])
    assert res.exit_code == 0, res.output
    assert base.read_text().splitlines()[0] == "LAYER,P,R,F" and len(base.read_text().splitlines()) == 8
