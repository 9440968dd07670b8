"""From corpus and generations to a study: ``creval study items`` and ``creval challenges``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from creval.cli import main
from creval.cli.study import study
from creval.errors import InputError

_TYPES = ["fluency_coherence", "style_matching", "challenge_response", "side_by_side", "post_editing"]


def _console():
    from rich.console import Console

    return Console()


@study.command("items")
@click.argument("study_type", type=click.Choice(_TYPES), metavar="TYPE")
@click.option("--generations", "gen_path", required=True, type=click.Path(path_type=Path),
              help="Generations JSONL (see README: id, system, text, artist, input_id, input, sample...).")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
              help="Corpus of authentic verses (style matching candidates, authentic controls).")
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Folder for items.jsonl and a study.yaml to edit (guidelines, k, annotators).")
@click.option("--name", help="Study name (default: the folder name).")
@click.option("--per-group", type=click.IntRange(min=1), help="Keep at most N outputs per (system, artist, checkpoint), drawn with "
              "the seed.")
@click.option("--controls", default=0, show_default=True, type=click.IntRange(min=0),
              help="Authentic corpus verses per artist rated like the outputs (system 'human').")
@click.option("--k", default=2, show_default=True, type=click.IntRange(min=1), help="Annotations per item, written into study.yaml.")
@click.option("--annotators", default=3, show_default=True, type=click.IntRange(min=1), help="Number of invite links, into study.yaml.")
@click.option("--seed", default=0, show_default=True)
@click.option("--encoding", default="utf-8", show_default=True,
              help="Text encoding of the corpus and generations files.")
def items_cmd(study_type: str, gen_path: Path, corpus_path: Path | None, out_dir: Path, name: str | None,
              per_group: int | None, controls: int, k: int, annotators: int, seed: int, encoding: str) -> None:
    """Build the items file of a TYPE study from a generations file (and a corpus), plus a study.yaml.

    \b
    creval study items fluency_coherence --generations gens.jsonl --out my-study/
    creval study create my-study/study.yaml
    creval serve
    """
    import yaml

    from creval.corpus.io import atomic_directory, check_output_directory, read_corpus, read_generations
    from creval.human.example import GUIDELINES
    from creval.human.prepare import build_items

    check_output_directory(out_dir)
    outputs = read_generations(gen_path, encoding=encoding)
    corpus = read_corpus(corpus_path, encoding=encoding) if corpus_path is not None else None
    rows, messages = build_items(study_type, outputs, corpus, per_group=per_group, controls=controls, seed=seed)
    con = _console()
    for message in messages:
        con.print(f"[yellow]note:[/] {message}")
    cfg = {
        "name": name or out_dir.name,
        "title": f"{study_type.replace('_', ' ').capitalize()} study",
        "type": study_type,
        "items": "items.jsonl",
        "k": k,
        "annotators": annotators,
        "lease_minutes": 30,
        "seed": seed,
        "guidelines": {"text": GUIDELINES[study_type]},
    }
    with atomic_directory(out_dir) as tmp:
        with open(tmp / "items.jsonl", "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        (tmp / "study.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), "utf-8")
        if messages:
            (tmp / "notes.txt").write_text("".join(m + "\n" for m in messages), "utf-8")
    n_eval = sum(1 for r in rows if r.get("role", "evaluated") == "evaluated")
    con.print(f"wrote {out_dir / 'items.jsonl'} ({n_eval} item(s) to judge) and {out_dir / 'study.yaml'}")
    con.print(f"next: edit the guidelines in study.yaml, then [bold]creval study create {out_dir / 'study.yaml'}[/]")


@main.command("challenges")
@click.argument("corpus_path", type=click.Path(path_type=Path), metavar="CORPUS")
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="All (challenge, response) pairs as JSONL.")
@click.option("--test-size", type=click.IntRange(min=1),
              help="Also draw this many distinct challenges as a test set.")
@click.option("--test-out", type=click.Path(path_type=Path),
              help="Test challenges as a generations-style input file (default: OUT with .test.jsonl).")
@click.option("--one-way", is_flag=True, help="Only earlier line -> later line (default: both directions).")
@click.option("--adjacent-only", is_flag=True, help="Only pairs of consecutive lines (couplets).")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Keep only pairs whose end words also pass the phonetic rhyme check (`creval rhyme`).")
@click.option("--seed", default=0, show_default=True)
@click.option("--encoding", default="utf-8", show_default=True, help="Text encoding of the corpus files.")
def challenges_cmd(corpus_path: Path, out_path: Path, test_size: int | None, test_out: Path | None, one_way: bool,
                   adjacent_only: bool, verify: bool, seed: int, encoding: str) -> None:
    """Challenge-response pairs from a corpus (Addanki & Wu 2013): lines that rhyme within a stanza, found by
    the rhyme-scheme HMM trained on the corpus, in both directions; optionally a seeded test set of challenges
    for systems to answer (rows {input_id, input, artist, reference})."""
    from creval.corpus.io import atomic_write, read_corpus
    from creval.human.prepare import challenge_response_pairs, pairs_rows, sample_challenges

    corpus = read_corpus(corpus_path, encoding=encoding)
    try:
        pairs, messages = challenge_response_pairs(corpus, both_directions=not one_way,
                                                   adjacent_only=adjacent_only, verify=verify)
        chosen = sample_challenges(pairs, test_size, seed=seed) if test_size else None
    except InputError as exc:
        raise InputError(exc.problem, exc.file or corpus_path, exc.line) from None
    con = _console()
    for message in messages:
        con.print(f"[yellow]note:[/] {message}")
    with atomic_write(out_path) as handle:
        for row in pairs_rows(pairs):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    con.print(f"wrote {out_path} ({len(pairs)} pairs)")
    if chosen is not None:
        target = test_out or out_path.with_suffix(".test.jsonl")
        with atomic_write(target) as handle:
            for i, pair in enumerate(chosen):
                row = {"input_id": f"c{i + 1}", "input": pair.challenge, "artist": pair.artist,
                       "reference": pair.response}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        con.print(f"wrote {target} ({len(chosen)} test challenges)")
