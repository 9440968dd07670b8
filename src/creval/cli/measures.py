"""Quick commands for single texts: ``creval lexdiv`` (lexical diversity) and ``creval grammar`` (grammar
errors by category)."""

from __future__ import annotations

import math
from pathlib import Path

import click

from creval.cli import main
from creval.errors import InputError


def _read_text(path: str) -> str:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", p) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not valid UTF-8", p, data[: exc.start].count(b"\n") + 1) from None


@main.command("lexdiv")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option(
    "--mode",
    type=click.Choice(["creval", "kyle"]),
    default="creval",
    show_default=True,
    help="kyle: the exact numbers of Kyle's lexical_diversity package (0 where undefined).",
)
@click.option(
    "--tokenizer",
    type=click.Choice(["auto", "word", "char", "whitespace"]),
    default="auto",
    show_default=True,
    help="How texts are split into tokens.",
)
def lexdiv_cmd(files: tuple[str, ...], mode: str, tokenizer: str) -> None:
    """Lexical diversity of each FILE (one text per file): TTR, log TTR, Maas, MSTTR, MATTR, HD-D, MTLD, MTLD-MA.

    Example: creval lexdiv verse1.txt verse2.txt --mode kyle
    """
    from rich.console import Console
    from rich.table import Table

    from creval.metrics.lexical import REPORTED, lexical_diversity
    from creval.text.tokenize import tokenize

    columns = []
    for f in files:
        toks = tokenize(_read_text(f), tokenizer)
        vals = lexical_diversity(toks, mode=mode)
        columns.append([str(len(toks))] + ["—" if math.isnan(v) else f"{v:.4f}" for v in vals.values()])
    table = Table("measure", *files)
    for i, name in enumerate(("tokens", *REPORTED)):
        table.add_row(name, *(col[i] for col in columns))
    Console(highlight=False).print(table)


@main.command("grammar")
@click.argument("file", type=click.Path())
@click.option(
    "--exclude",
    default="spelling",
    show_default=True,
    help="Comma-separated categories not counted in the rate (empty: count all).",
)
@click.option("--server", default=None, help="LanguageTool server URL (uses LanguageTool instead of Harper).")
@click.option(
    "--lt-path", default=None, type=click.Path(), help="Local LanguageTool directory (needs Java 17+)."
)
def grammar_cmd(file: str, exclude: str, server: str | None, lt_path: str | None) -> None:
    """Grammar errors of the text in FILE with their categories, and the error rate per character and per line.

    Example: creval grammar verse.txt --exclude spelling,capitalization
    """
    from rich.console import Console

    from creval.metrics.grammar import grammar_error_rate, grammar_errors, undefined_reason

    text = _read_text(file)
    ex = tuple(e.strip() for e in exclude.split(",") if e.strip())
    backend = "languagetool" if (server or lt_path) else "harper"
    console = Console(highlight=False, markup=False)
    reason = undefined_reason(text)
    if reason is not None:
        console.print(f"grammar error rate undefined: {reason}")
        return
    opts = {"server": server, "path": lt_path} if backend == "languagetool" else {}
    errs = grammar_errors(text, backend, **opts)
    for e in errs:
        line = text.count("\n", 0, e.offset) + 1
        mark = " (excluded)" if e.category in ex or e.kind.lower() in {x.lower() for x in ex} else ""
        console.print(
            f"{file}:{line}: [{e.category}{mark}] {text[e.offset : e.offset + e.length]!r}: {e.message}"
        )
    per_char = grammar_error_rate(text, "char", ex, backend, errors=errs)
    per_line = grammar_error_rate(text, "line", ex, backend, errors=errs)
    console.print(
        f"errors per character {per_char:.5f}, per line {per_line:.4f} (excluded: {', '.join(ex) or 'none'})"
    )
