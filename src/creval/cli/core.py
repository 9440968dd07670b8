"""Core commands: ``creval corpus stats|clean``, ``creval evaluate``, ``creval measures``, ``creval demo``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from creval.cli import main
from creval.errors import InputError

_T0 = time.perf_counter()


def _console():
    from rich.console import Console

    return Console()


def _print_frame(frame, title: str, digits: int = 3) -> None:
    from rich.table import Table

    from creval.report.html import fmt_value

    table = Table(title=title, header_style="bold")
    for col in frame.columns:
        numeric = frame[col].dtype.kind in "fiu"
        table.add_column(str(col), justify="right" if numeric else "left")
    for row in frame.itertuples(index=False):
        table.add_row(*[fmt_value(v, digits) for v in row])
    _console().print(table)


def _parse_params(items: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    import yaml

    params: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        measure, dot, name = key.partition(".")
        if not sep or not dot or not measure or not name:
            raise InputError(f"--param {item!r}: expected MEASURE.NAME=VALUE, e.g. length.tokenizer=char")
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            value = raw
        params.setdefault(measure, {})[name] = value
    return params


def _split_measures(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [m.strip() for m in value.split(",") if m.strip()]


@main.group()
def corpus() -> None:
    """Inspect and clean corpora (folder of artist folders, JSONL, CSV, Chicago raw, chinese-poetry JSON)."""


_encoding_option = click.option(
    "--encoding", default="utf-8", show_default=True, help="Text encoding of the corpus files."
)


@corpus.command("stats")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--csv", "csv_path", type=click.Path(path_type=Path), help="Write the table to this CSV file "
              "(default: <corpus name>_stats.csv in the current folder).")
@click.option("--clean/--no-clean", default=False, show_default=True,
              help="Clean the corpus first (Potash et al. 2016 rules, see `creval corpus clean`).")
@click.option("--min-tokens", default=20, show_default=True, type=click.IntRange(min=0),
              help="With --clean: drop shorter verses.")
@click.option("--tokenizer", default="word", show_default=True,
              type=click.Choice(["word", "char", "whitespace", "auto"]), help="How to count tokens.")
@_encoding_option
def corpus_stats_cmd(path: Path, csv_path: Path | None, clean: bool, min_tokens: int, tokenizer: str,
                     encoding: str) -> None:
    """Per-artist statistics: verses, tokens, vocabulary, richness, verse lengths.

    As in Table 1 of Potash, Romanov and Rumshisky (2016): richness = tokens / vocabulary; mean, standard
    deviation and maximum verse length in tokens. Prints a table and writes CSV."""
    from creval.corpus.clean import clean_corpus
    from creval.corpus.io import atomic_write, read_corpus
    from creval.corpus.stats import corpus_stats

    data = read_corpus(path, encoding=encoding)
    if clean:
        data, report = clean_corpus(data, min_tokens=min_tokens, tokenizer=tokenizer)
        _console().print(f"[dim]cleaning: {report.summary()}[/]")
        if not data.verses:
            raise InputError("no verses left after cleaning", path)
    stats = corpus_stats(data, tokenizer=tokenizer)
    _print_frame(stats, f"{data.name}: {len(data)} verses")
    target = csv_path or Path(f"{data.name or 'corpus'}_stats.csv")
    with atomic_write(target) as handle:
        stats.to_csv(handle, index=False)
    _console().print(f"wrote {target}")


@corpus.command("clean")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="Cleaned corpus as JSONL (artist, title, text).")
@click.option("--min-tokens", default=20, show_default=True, type=click.IntRange(min=0),
              help="Drop verses with fewer tokens.")
@click.option("--tokenizer", default="word", show_default=True, type=click.Choice(["word", "char", "whitespace", "auto"]),
              help="How to count tokens for --min-tokens (char or auto for Chinese and other unspaced scripts).")
@click.option("--expand-repeats", is_flag=True, help="Repeat a line marked [x2] instead of keeping it once.")
@click.option("--disfluency", type=click.Choice(["correct", "filter"]),
              help="Also handle disfluencies (Addanki & Wu 2014): correct them, or filter the lines out.")
@click.option("--dropped", "dropped_path", type=click.Path(path_type=Path),
              help="Write every dropped verse/line with file, line and reason to this CSV.")
@_encoding_option
def corpus_clean_cmd(path: Path, out_path: Path, min_tokens: int, tokenizer: str, expand_repeats: bool,
                     disfluency: str | None, dropped_path: Path | None, encoding: str) -> None:
    """Clean rap lyrics (rules of Potash, Romanov and Rumshisky 2016).

    Drops metadata and section-header lines, repetition markup ([x2], (repeat 2x), *2), chorus/hook sections,
    then verses shorter than --min-tokens tokens."""
    import csv

    from creval.corpus.clean import clean_corpus
    from creval.corpus.io import atomic_write, read_corpus, write_corpus_jsonl

    data = read_corpus(path, encoding=encoding)
    cleaned, report = clean_corpus(data, min_tokens=min_tokens, tokenizer=tokenizer, expand_repeats=expand_repeats,
                                   disfluency=disfluency)
    write_corpus_jsonl(cleaned, out_path)
    if dropped_path is not None:
        with atomic_write(dropped_path) as handle:
            writer = csv.writer(handle)
            writer.writerow(["source", "line", "artist", "reason", "text"])
            for d in report.dropped:
                writer.writerow([d.source, d.line, d.artist, d.reason, d.text])
    _console().print(report.summary())
    by_artist = report.counts_by_artist()
    if by_artist:
        import pandas as pd

        rows = [{"artist": a, **dict(c)} for a, c in sorted(by_artist.items())]
        _print_frame(pd.DataFrame(rows).fillna(0), "dropped, by artist and reason")
    if report.disfluency is not None:
        _print_disfluency(report.disfluency, "artist")
    _console().print(f"wrote {out_path} ({len(cleaned)} verses)")


def _print_disfluency(report, group: str) -> None:
    import pandas as pd

    frame = pd.DataFrame(report.table()).rename(columns={"group": group})
    if not frame.empty:
        _print_frame(frame, f"disfluencies found ({report.strategy}), by {group}")


@main.command("disfluency")
@click.argument("generations", type=click.Path(path_type=Path))
@click.option("--strategy", required=True, type=click.Choice(["correct", "filter"]),
              help="correct: collapse repeated words and stutters, drop echoes and filler lines; "
                   "filter: drop every line with a disfluency.")
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="Post-processed generations JSONL.")
@click.option("--suffix", is_flag=True,
              help="Append '+STRATEGY' to system names and ids, so both strategies can be compared in one study.")
@click.option("--min-run", default=2, show_default=True, type=click.IntRange(min=2),
              help="Shortest run of a repeated word that counts.")
def disfluency_cmd(generations: Path, strategy: str, out_path: Path, suffix: bool, min_run: int) -> None:
    """Correct or filter disfluencies in system outputs.

    After Addanki and Wu (2014): repeated words ("the the the"), stutters ("b-b-bad"), backing-vocal echoes
    ("(yeah)") and filler lines ("ooh", "yeah yeah"). Prints the counts per system."""
    from creval.corpus.io import read_generations, write_generations
    from creval.text.disfluency import handle_outputs

    outputs = read_generations(generations)
    fixed, report = handle_outputs(outputs, strategy, min_run=min_run,
                                   system_suffix=f"+{strategy}" if suffix else None)
    write_generations(fixed, out_path)
    _print_disfluency(report, "system")
    _console().print(f"wrote {out_path} ({len(fixed)} outputs)")


@main.command("measures")
def measures_cmd() -> None:
    """List the registered measures and what each reports."""
    from rich.table import Table

    from creval.metrics.base import measure_registry

    table = Table(header_style="bold")
    table.add_column("measure")
    table.add_column("default")
    table.add_column("corpus")
    table.add_column("description")
    for name, cls in measure_registry().items():
        table.add_row(name, "yes" if cls.default else "", "yes" if cls.needs_corpus else "", cls.description)
    _console().print(table)


@main.command("evaluate")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
              help="Training/reference corpus: folder of artist folders, .jsonl, .csv, Chicago .txt or .json.")
@click.option("--generations", "gen_path", required=True, type=click.Path(path_type=Path),
              help="Generations JSONL: one {id, system, text, ...} object per line.")
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Output folder (results.csv/.parquet, summary.csv, signatures.json, report.html).")
@click.option("--measures", "measures", metavar="A,B,...",
              help="Comma-separated measure names (see `creval measures`); default: all default measures.")
@click.option("--param", "params", multiple=True, metavar="MEASURE.NAME=VALUE",
              help="A measure parameter, e.g. --param length.tokenizer=char (repeatable).")
@click.option("--clean/--no-clean", default=False, show_default=True,
              help="Clean the corpus first (see `creval corpus clean`).")
@click.option("--min-tokens", default=20, show_default=True, type=click.IntRange(min=0),
              help="With --clean: drop shorter verses.")
@click.option("--clean-tokenizer", default="word", show_default=True,
              type=click.Choice(["word", "char", "whitespace", "auto"]),
              help="With --clean: how to count tokens (char or auto for unspaced scripts).")
@click.option("--no-report", is_flag=True, help="Skip report.html.")
@click.option("--encoding", default="utf-8", show_default=True,
              help="Text encoding of the corpus and generations files.")
def evaluate_cmd(corpus_path: Path | None, gen_path: Path, out_dir: Path, measures: str | None,
                 params: tuple[str, ...], clean: bool, min_tokens: int, clean_tokenizer: str, no_report: bool,
                 encoding: str) -> None:
    """Score every output with every requested measure and write the tidy results table and report.

    Example: creval evaluate --corpus lyrics/ --generations outputs.jsonl --out results/
    """
    from creval.api import evaluate_full
    from creval.corpus.io import read_corpus

    data = read_corpus(corpus_path, encoding=encoding) if corpus_path is not None else None
    if data is not None and clean:
        from creval.corpus.clean import clean_corpus

        data, report = clean_corpus(data, min_tokens=min_tokens, tokenizer=clean_tokenizer)
        _console().print(f"[dim]cleaning: {report.summary()}[/]")
        if not data.verses:
            raise InputError("no verses left after cleaning", corpus_path)
    evaluation = evaluate_full(
        data, gen_path, _split_measures(measures), params=_parse_params(params), out=out_dir, progress=True,
        report=not no_report, encoding=encoding,
    )
    _print_summary(evaluation)
    _console().print(f"wrote {out_dir}/ (results.csv, results.parquet, summary.csv, signatures.json"
                     f"{'' if no_report else ', report.html'})")


def _print_summary(evaluation) -> None:
    summary = evaluation.summary
    if summary.empty:
        return
    table = summary.pivot_table(index="measure", columns="system", values="mean", observed=True).reset_index()
    table.columns.name = None
    _print_frame(table, "mean per system", digits=4)
    if evaluation.notes:
        _console().print(f"[yellow]{len(evaluation.notes)} note(s) in notes.txt[/]")


@main.command("demo")
@click.option("--out", "out_dir", default="creval-demo", show_default=True, type=click.Path(path_type=Path),
              help="Where to write the demo results and report.html.")
@click.option("--seed", default=0, show_default=True, help="Seed of the demo systems.")
def demo_cmd(out_dir: Path, seed: int) -> None:
    """Evaluate the bundled public-domain poetry corpus against outputs of creval's baseline systems.

    Writes OUT/generations.jsonl, the results table, the summary and OUT/report.html.
    """
    from creval.demo import run_demo

    evaluation = run_demo(out_dir, seed=seed, progress=True)
    _print_summary(evaluation)
    _console().print(f"[bold green]report:[/] {out_dir / 'report.html'}")
