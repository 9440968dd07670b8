"""Analysis commands: ``creval baseline train|generate`` (the n-gram ghostwriter) and ``creval analyze``."""

from __future__ import annotations

from pathlib import Path

import click

from creval.cli import main
from creval.errors import InputError


def _console():
    from rich.console import Console

    return Console()


def _parse_orders(value: str) -> list[int]:
    """``"1-9"``, ``"3"`` or ``"1,3,5"`` → list of orders."""
    orders: list[int] = []
    try:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                lo, hi = part.split("-", 1)
                orders.extend(range(int(lo), int(hi) + 1))
            else:
                orders.append(int(part))
    except ValueError:
        raise InputError(f"--orders {value!r}: expected numbers and ranges such as 1-9 or 1,3,5") from None
    if not orders or min(orders) < 1:
        raise InputError(f"--orders {value!r}: give at least one order, each >= 1")
    return list(dict.fromkeys(orders))


def _artists(values: tuple[str, ...]) -> list[str] | None:
    return list(values) if values else None


@main.group()
def baseline() -> None:
    """The n-gram ghostwriter baseline: train per-artist models, generate verses (Potash, Romanov and
    Rumshisky 2016)."""


_orders_option = click.option("--orders", default="1-9", show_default=True,
                              help="n-gram orders: a range (1-9), a list (1,3,5) or both.")
_artist_option = click.option("--artist", "artists", multiple=True,
                              help="Train on this artist only (repeatable); default: every artist.")
_tokenizer_option = click.option("--tokenizer", default="whitespace", show_default=True,
                                 type=click.Choice(["whitespace", "char", "auto"]),
                                 help="Tokens of the model: words as written, characters (Chinese), or auto.")


@baseline.command("train")
@click.option("--corpus", "corpus_path", required=True, type=click.Path(path_type=Path),
              help="Corpus: folder of artist folders, .jsonl, .csv, Chicago .txt or .json.")
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="Model file to write (JSON: vocabulary and n-gram counts per artist and order).")
@_orders_option
@_artist_option
@_tokenizer_option
@click.option("--encoding", default="utf-8", show_default=True, help="Text encoding of the corpus files.")
def baseline_train(corpus_path: Path, out_path: Path, orders: str, artists: tuple[str, ...], tokenizer: str,
                   encoding: str) -> None:
    """Train one n-gram model per artist and order and save them all to one JSON file.

    Example: creval baseline train --corpus lyrics/ --orders 1-9 --out ngram.json
    """
    from creval.analysis.ngram import save_models, train_baselines
    from creval.corpus.io import read_corpus

    data = read_corpus(corpus_path, encoding=encoding)
    models = train_baselines(data, _artists(artists), _parse_orders(orders), tokenizer=tokenizer)
    save_models(models, out_path)
    n_artists = len({m.artist for m in models})
    _console().print(f"wrote {out_path} ({len(models)} models: {n_artists} artist(s) × orders {orders})")


@baseline.command("generate")
@click.option("--model", "model_path", type=click.Path(path_type=Path),
              help="Model file written by `creval baseline train`.")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
              help="Or train on this corpus on the fly (same result as train + generate).")
@click.option("--out", "out_path", required=True, type=click.Path(path_type=Path),
              help="Generations JSONL to write (checkpoint = n, sample = verse number).")
@click.option("--per-order", default=5, show_default=True, help="Verses per artist and order.")
@click.option("--seed", default=0, show_default=True, help="Random seed (one derived seed per artist and n).")
@click.option("--system", default="ngram", show_default=True, help="System name written to every row.")
@click.option("--orders", default=None,
              help="n-gram orders (1-9, 1,3,5); default: every model in --model, or 1-9 with --corpus.")
@_artist_option
@_tokenizer_option
@click.option("--encoding", default="utf-8", show_default=True, help="Text encoding of the corpus files.")
def baseline_generate(model_path: Path | None, corpus_path: Path | None, out_path: Path, per_order: int, seed: int,
                      system: str, orders: str | None, artists: tuple[str, ...], tokenizer: str, encoding: str) -> None:
    """Generate verses from saved models (--model) or from a corpus (--corpus) into a generations JSONL.

    Example: creval baseline generate --model ngram.json --per-order 5 --seed 0 --out ngram.jsonl
    """
    from creval.analysis.ngram import generate_from_models, load_models, train_baselines
    from creval.corpus.io import read_corpus, write_generations

    if (model_path is None) == (corpus_path is None):
        raise InputError("give exactly one of --model and --corpus")
    if per_order < 1:
        raise InputError(f"--per-order must be at least 1, got {per_order}")
    if model_path is not None:
        models = load_models(model_path)
        wanted_orders = set(_parse_orders(orders)) if orders else None
        wanted_artists = set(artists) if artists else None
        if wanted_artists:
            unknown = wanted_artists - {m.artist for m in models}
            if unknown:
                raise InputError(f"artist(s) not in the model file: {', '.join(sorted(unknown))}", model_path)
        models = [m for m in models if (wanted_orders is None or m.n in wanted_orders)
                  and (wanted_artists is None or m.artist in wanted_artists)]
        if not models:
            raise InputError("no model in the file matches --orders/--artist", model_path)
    else:
        data = read_corpus(corpus_path, encoding=encoding)
        models = train_baselines(data, _artists(artists), _parse_orders(orders or "1-9"), tokenizer=tokenizer)
    outputs = generate_from_models(models, per_order, seed, system=system)
    write_generations(outputs, out_path)
    _console().print(f"wrote {out_path} ({len(outputs)} verses from {len(models)} models)")


def _read_results(results_dir: Path):
    import pandas as pd

    from creval.metrics.base import TIDY_COLUMNS, results_frame

    if not results_dir.is_dir():
        raise InputError("expected the output folder of `creval evaluate` (results.csv inside)", results_dir)
    parquet, csv = results_dir / "results.parquet", results_dir / "results.csv"
    if parquet.is_file():
        try:
            frame = pd.read_parquet(parquet)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise InputError(f"cannot read the results table ({exc})", parquet) from None
        source = parquet
    elif csv.is_file():
        try:
            frame = pd.read_csv(csv, dtype={"output_id": "string", "input_id": "string", "sample": "string"})
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise InputError(f"cannot read the results table ({exc})", csv) from None
        source = csv
    else:
        raise InputError("no results.parquet or results.csv in this folder", results_dir)
    missing = [c for c in TIDY_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"results table lacks column(s) {', '.join(missing)}", source, 1)
    return results_frame(frame[list(TIDY_COLUMNS)].to_dict("records"))


def _read_ratings(path: Path):
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype={"output_id": "string"})
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read the ratings CSV ({exc})", path) from None
    missing = {"system", "output_id", "rating"} - set(frame.columns)
    if missing:
        raise InputError(f"ratings CSV lacks column(s) {', '.join(sorted(missing))} (expected artist, system, "
                         "output_id, rating)", path, 1)
    values = pd.to_numeric(frame["rating"], errors="coerce")
    bad = values.isna() & frame["rating"].notna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(f"rating {frame['rating'].iloc[row]!r} is not a number", path, row + 2)
    return frame


@main.command("analyze")
@click.argument("results_dir", type=click.Path(path_type=Path))
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
              help="The corpus the results were computed against (for the artists' own rhyme density and "
                   "verse lengths).")
@click.option("--generations", "gen_path", type=click.Path(path_type=Path),
              help="Generations JSONL (default: RESULTS_DIR/generations.jsonl when it exists).")
@click.option("--ratings", "ratings_path", type=click.Path(path_type=Path),
              help="Human ratings CSV with columns artist, system, output_id, rating (one row per judgement).")
@click.option("--window", default=0.0, show_default=True,
              help="Average outputs within ± this many checkpoints of each point (unique yet similar).")
@click.option("--draws", default=100, show_default=True, help="Random sample choices averaged (Wu et al.).")
@click.option("--seed", default=0, show_default=True, help="Seed of the random sample choices.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path),
              help="Where to write the tables and report.html (default: RESULTS_DIR/analysis).")
@click.option("--encoding", default="utf-8", show_default=True, help="Text encoding of the corpus files.")
def analyze_cmd(results_dir: Path, corpus_path: Path | None, gen_path: Path | None, ratings_path: Path | None,
                window: float, draws: int, seed: int, out_dir: Path | None, encoding: str) -> None:
    """Run the ghostwriting analyses over the output folder of `creval evaluate`: "unique yet similar"
    (Potash et al. 2016), verse structure, correlations (with corpus statistics) and nondeterministic
    systems (Wu et al.). Writes one CSV per table and a report.html.

    Example: creval analyze results/ --corpus lyrics/
    """
    import json

    import pandas as pd

    from creval.analysis.pipeline import run_analysis, write_analysis
    from creval.api import summarise
    from creval.corpus.io import read_corpus, read_generations

    if window < 0:
        raise InputError(f"--window must be >= 0, got {window}")
    if draws < 1:
        raise InputError(f"--draws must be at least 1, got {draws}")
    results = _read_results(results_dir)
    corpus = read_corpus(corpus_path, encoding=encoding) if corpus_path is not None else None
    stats = None
    if corpus is not None:
        from creval.corpus.stats import corpus_stats

        stats = corpus_stats(corpus)
    elif (results_dir / "corpus_stats.csv").is_file():
        stats = pd.read_csv(results_dir / "corpus_stats.csv")
    if gen_path is None and (results_dir / "generations.jsonl").is_file():
        gen_path = results_dir / "generations.jsonl"
    outputs = read_generations(gen_path) if gen_path is not None else []
    ratings = _read_ratings(ratings_path) if ratings_path is not None else None
    signatures = {}
    sig_file = results_dir / "signatures.json"
    if sig_file.is_file():
        try:
            signatures = json.loads(sig_file.read_text("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            signatures = {}
    result = run_analysis(results, corpus=corpus, corpus_stats=stats, outputs=outputs, ratings=ratings,
                          signatures=signatures, window=window, draws=draws, seed=seed)
    target = out_dir or results_dir / "analysis"
    from creval.report.html import render_report
    from creval.report.registry import ReportContext

    ctx = ReportContext(results=results, summary=summarise(results), corpus=corpus, outputs=outputs,
                        signatures={}, corpus_stats=stats, notes=list(result.notes), title="creval analysis",
                        artifacts={"analysis": {"result": result}})
    write_analysis(result, target, extra={"report.html": render_report(ctx)})
    console = _console()
    if not result.ghostwriter.empty:
        from creval.cli.core import _print_frame

        compact = result.fits[["artist", "system", "artist_density", "crossing", "similarity", "status"]]
        _print_frame(compact, "unique yet similar: similarity at the crossing x* (lower wins); "
                              "ghostwriter.csv has the notes", digits=4)
    for note in result.notes:
        console.print(f"[yellow]{note}[/]")
    console.print(f"wrote {target}/ ({', '.join(f'{k}.csv' for k in result.tables())}, report.html)")
