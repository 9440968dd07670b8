"""Quick text-overlap commands on line-aligned files: ``creval bleu``, ``creval rouge``, ``creval bertscore``,
and ``creval bertscore-baseline`` to build a BERTScore rescaling file from a corpus."""

from __future__ import annotations

from pathlib import Path

import click

from creval.cli import main
from creval.errors import InputError


def _read_lines(path: str) -> list[str]:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", p) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not valid UTF-8", p, line) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.rstrip("\r") for ln in lines]


def _aligned(hyp_file: str, ref_files: tuple[str, ...]) -> tuple[list[str], list[list[str]]]:
    if not ref_files:
        raise InputError("give at least one reference file")
    hyps = _read_lines(hyp_file)
    if not hyps:
        raise InputError("no hypothesis lines", hyp_file)
    streams = [_read_lines(f) for f in ref_files]
    for f, s in zip(ref_files, streams):
        if len(s) != len(hyps):
            raise InputError(f"{len(s)} lines but the hypothesis file {hyp_file} has {len(hyps)}", f,
                             min(len(s), len(hyps)) + 1)
    return hyps, [list(refs) for refs in zip(*streams)]


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@main.command("bleu")
@click.argument("hypotheses", type=click.Path(dir_okay=False))
@click.argument("references", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--mode", type=click.Choice(["nltk", "sacrebleu"]), default="nltk", show_default=True,
              help="nltk: identical to nltk's corpus_bleu; sacrebleu: identical to sacrebleu (0-100 scale).")
@click.option("--weights", default="0.25,0.25,0.25,0.25", show_default=True,
              help="nltk mode: n-gram weights, comma-separated.")
@click.option("--smoothing", type=click.IntRange(0, 7), default=4, show_default=True,
              help="nltk mode: Chen & Cherry smoothing method.")
@click.option("--tokenizer", type=click.Choice(["auto", "word", "char", "whitespace"]), default="auto",
              show_default=True, help="nltk mode: creval tokenizer.")
@click.option("--tokenize", type=click.Choice(["13a", "none", "char", "zh"]), default="13a", show_default=True,
              help="sacrebleu mode: sacrebleu tokenizer.")
@click.option("--sentences", is_flag=True, help="Also print each line's sentence BLEU.")
def bleu_cmd(hypotheses, references, mode, weights, smoothing, tokenizer, tokenize, sentences) -> None:
    """Corpus BLEU of HYPOTHESES (one per line) against one or more line-aligned REFERENCES files.

    \b
    creval bleu generated.txt reference.txt
    creval bleu generated.txt ref1.txt ref2.txt --mode sacrebleu
    """
    from creval.metrics import overlap
    from creval.text.tokenize import get_tokenizer

    hyps, refs = _aligned(hypotheses, references)
    con = _console()
    if mode == "nltk":
        try:
            w = tuple(float(x) for x in weights.split(","))
        except ValueError:
            raise InputError(f"--weights must be comma-separated numbers, not {weights!r}") from None
        tok = get_tokenizer(tokenizer)
        ht = [tok(h) for h in hyps]
        rt = [[tok(r) for r in rr] for rr in refs]
        score = overlap.corpus_bleu(rt, ht, w, smoothing)
        con.print(f"BLEU = {score:.4f}  (bleu_corpus|tok:{tokenizer}|lower:yes|mode:nltk|smoothing:{smoothing}"
                  f"|weights:{','.join(str(x) for x in w)}|nrefs:{len(references)})")
        if sentences:
            for i, v in enumerate(overlap.bleu_sentences(ht, rt, w, smoothing), start=1):
                con.print(f"{i}\t{v:.4f}")
    else:
        res = overlap.sacrebleu_corpus(hyps, refs, tokenize=tokenize)
        prec = "/".join(f"{p:.1f}" for p in res.precisions)
        con.print(f"BLEU = {res.score:.2f} {prec} (BP = {res.bp:.3f} hyp_len = {res.sys_len} "
                  f"ref_len = {res.ref_len})  {res.signature}")
        if sentences:
            for i, v in enumerate(overlap.sacrebleu_sentences(hyps, refs, tokenize=tokenize), start=1):
                con.print(f"{i}\t{v:.2f}")


@main.command("rouge")
@click.argument("hypotheses", type=click.Path(dir_okay=False))
@click.argument("references", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--mode", type=click.Choice(["rouge-score", "rouge"]), default="rouge-score", show_default=True,
              help="Identical to Google's rouge-score, or to the 'rouge' package.")
@click.option("--tokenizer", type=click.Choice(["library", "auto", "word", "char", "whitespace"]), default="auto",
              show_default=True, help="'library' = the chosen library's own tokenisation (ASCII / spaces).")
@click.option("--summary", type=click.Choice(["max", "mean", "min"]), default="max", show_default=True,
              help="How to combine the scores against several references.")
def rouge_cmd(hypotheses, references, mode, tokenizer, summary) -> None:
    """Mean ROUGE-1/2/L P, R and F of HYPOTHESES against line-aligned REFERENCES files."""
    import numpy as np
    from rich.table import Table

    from creval.metrics.overlap import rouge

    hyps, refs = _aligned(hypotheses, references)
    res = rouge(hyps, refs, mode=mode, tokenizer=None if tokenizer == "library" else tokenizer)
    table = Table("ROUGE", "P", "R", "F", title=f"mode:{mode}|tok:{tokenizer}|summary:{summary}")
    for t in ("rouge1", "rouge2", "rougeL"):
        vals = [float(np.nanmean(res.summary(t, s, summary))) for s in "prf"]
        table.add_row(t, *(f"{v:.4f}" for v in vals))
    con = _console()
    con.print(table)
    undefined = int(np.isnan(res.summary("rouge1", "f", summary)).sum())
    if undefined:
        con.print(f"{undefined} line(s) undefined (empty hypothesis or references) and left out of the means")


@main.command("bertscore")
@click.argument("hypotheses", type=click.Path(dir_okay=False))
@click.argument("references", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--layer", type=int, default=5, show_default=True, help="Transformer layer (0-6) of MiniLM.")
@click.option("--summary", type=click.Choice(["max", "mean", "min"]), default="max", show_default=True,
              help="How to combine the scores against several references.")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None,
              help="Rescale with this baseline file (from `creval bertscore-baseline`).")
@click.option("--batch-size", type=click.IntRange(1), default=64, show_default=True)
def bertscore_cmd(hypotheses, references, layer, summary, baseline, batch_size) -> None:
    """Mean BERTScore P, R and F1 of HYPOTHESES against line-aligned REFERENCES (offline MiniLM model)."""
    import numpy as np

    from creval.metrics.embedding import BertScorer

    hyps, refs = _aligned(hypotheses, references)
    scorer = BertScorer(layer=layer, batch_size=batch_size, baseline=baseline, progress=True)
    res = scorer.score(hyps, refs)
    fs = res.summary("f", summary)
    undefined = int(np.isnan(fs).sum())
    if undefined == len(fs):
        raise InputError("BERTScore is undefined on every line (empty hypotheses or references)", hypotheses)
    p, r, f = (float(np.nanmean(res.summary(s, summary))) for s in "prf")
    con = _console()
    con.print(f"P = {p:.4f}  R = {r:.4f}  F1 = {f:.4f}  (bertscore|layer:{layer}|summary:{summary}"
              f"|rescaled:{'yes' if baseline else 'no'}|model:{scorer.model_id})")
    if undefined:
        con.print(f"{undefined} line(s) undefined (empty hypothesis or references) and left out of the means")


@main.command("bertscore-baseline")
@click.argument("corpus", type=click.Path(exists=True))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--pairs", type=click.IntRange(1), default=2000, show_default=True,
              help="Random line pairs to average over.")
@click.option("--seed", type=int, default=0, show_default=True)
def bertscore_baseline_cmd(corpus, out, pairs, seed) -> None:
    """Build a BERTScore rescaling baseline (CSV LAYER,P,R,F) from random pairs of CORPUS lines into OUT."""
    from creval.corpus.io import read_corpus
    from creval.metrics.embedding import BertScorer, build_baseline

    lines = read_corpus(corpus).lines()
    rows = build_baseline(lines, out, pairs=pairs, seed=seed, scorer=BertScorer(progress=True))
    con = _console()
    for layer, p, r, f in rows:
        con.print(f"layer {layer}: P = {p:.4f}  R = {r:.4f}  F = {f:.4f}")
    con.print(f"wrote {out}")
