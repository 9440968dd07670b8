"""`creval demo`: evaluate the bundled public-domain poetry corpus against creval's own baseline systems.

The demo corpus (``creval/data/demo``) holds ten poets of the Chicago Rhyming Poetry Corpus. The systems:

- ``ngram``: the n-gram ghostwriter baseline (:mod:`creval.analysis.ngram`), n = 1..9, five verses per n per
  poet, with ``checkpoint = n`` — the series the "unique yet similar" analysis reads;
- ``line-shuffle``: verses assembled from random lines of the poet's own verses (a retrieval baseline that
  is fluent line by line but copies every line);
- ``verbatim``: verses copied unchanged from the corpus, a sanity check that copy detection and
  similarity measures see what they should.
"""

from __future__ import annotations

import random
from importlib import resources
from pathlib import Path

from creval.api import Evaluation, evaluate_full, write_evaluation
from creval.corpus.io import read_corpus, write_generations
from creval.corpus.model import Corpus, Output


def demo_corpus_path() -> Path:
    """Path of the bundled demo corpus folder (inside the installed package)."""
    return Path(str(resources.files("creval") / "data" / "demo"))


def load_demo_corpus() -> Corpus:
    return read_corpus(demo_corpus_path())


def line_shuffle_outputs(corpus: Corpus, per_artist: int = 10, seed: int = 0) -> list[Output]:
    """For each artist, ``per_artist`` verses whose lines are drawn at random from the artist's verses, with
    verse lengths drawn from the artist's own verse lengths."""
    rng = random.Random(seed)
    outputs: list[Output] = []
    for artist, verses in corpus.by_artist().items():
        lines = [line for v in verses for line in v.lines]
        for i in range(per_artist):
            n_lines = len(rng.choice(verses).lines)
            text = "\n".join(rng.choice(lines) for _ in range(n_lines))
            outputs.append(Output(id=f"shuffle-{_slug(artist)}-{i}", system="line-shuffle", text=text, artist=artist))
    return outputs


def verbatim_outputs(corpus: Corpus, per_artist: int = 5, seed: int = 0) -> list[Output]:
    rng = random.Random(seed + 1)
    outputs: list[Output] = []
    for artist, verses in corpus.by_artist().items():
        for i, verse in enumerate(rng.sample(verses, min(per_artist, len(verses)))):
            outputs.append(Output(id=f"verbatim-{_slug(artist)}-{i}", system="verbatim", text=verse.text, artist=artist))
    return outputs


def demo_outputs(corpus: Corpus, seed: int = 0) -> list[Output]:
    """All demo systems' outputs (see module docstring)."""
    outputs: list[Output] = []
    try:
        from creval.analysis.ngram import generate_baselines
    except ImportError:  # the n-gram baseline ships with the analysis module
        generate_baselines = None
    if generate_baselines is not None:
        outputs.extend(generate_baselines(corpus, seed=seed))
    outputs.extend(line_shuffle_outputs(corpus, seed=seed))
    outputs.extend(verbatim_outputs(corpus, seed=seed))
    return outputs


def run_demo(out_dir: str | Path = "creval-demo", *, seed: int = 0, progress: bool = False,
             measures: list[str] | None = None) -> Evaluation:
    """Generate the demo systems' outputs, evaluate them, write ``out_dir`` (with ``generations.jsonl``)."""
    out_dir = Path(out_dir)
    corpus = load_demo_corpus()
    outputs = demo_outputs(corpus, seed=seed)
    evaluation = evaluate_full(corpus, outputs, measures, progress=progress)
    write_evaluation(evaluation, out_dir, extra=lambda folder: write_generations(outputs, folder / "generations.jsonl"))
    return evaluation


def _slug(text: str) -> str:
    return "-".join(text.lower().split())
