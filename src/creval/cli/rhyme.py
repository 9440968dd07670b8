"""``creval rhyme``: explain whether two lines rhyme, and ``creval rhyme analyze FILE`` for rhyme density,
rhyme factor and rhyme scheme of every verse with the rhymed words highlighted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from creval.cli import main
from creval.errors import InputError

_STYLES = ["bold red", "bold blue", "bold green", "bold yellow", "bold magenta", "bold cyan", "bold bright_red",
           "bold bright_blue", "bold bright_green", "bold dark_orange", "bold orchid", "bold turquoise2",
           "bold gold3", "bold spring_green3"]  # fmt: skip


class _RhymeGroup(click.Group):
    """``creval rhyme LINE1 LINE2`` runs the hidden ``pair`` command; ``creval rhyme analyze FILE`` the other."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["pair", *args]
        return super().parse_args(ctx, args)


@main.group(cls=_RhymeGroup)
def rhyme() -> None:
    """Rhyme analysis.

    \b
    creval rhyme "I walk the dog" "down by the bog"   explain whether two lines end in a rhyme
    creval rhyme analyze FILE                         density, factor and scheme per verse
    """


def _console():
    from rich.console import Console

    return Console(highlight=False)


@rhyme.command("pair", hidden=True)
@click.argument("previous_line")
@click.argument("line")
def pair_cmd(previous_line: str, line: str) -> None:
    """Explain whether the last words of two lines rhyme: pronunciations, rhyme parts and rhyme types."""
    from rich.table import Table

    from creval.phonetics import pronounce
    from creval.rhyme import check_rhyme
    from creval.rhyme.pairs import RHYME_TYPES, rhyme_part, rhyme_type, rhyme_types
    from creval.rhyme.text import last_word

    a, b = last_word(previous_line), last_word(line)
    if a is None:
        raise InputError(f"no word in the first line {previous_line!r}")
    if b is None:
        raise InputError(f"no word in the second line {line!r}")
    console = _console()
    table = Table(header_style="bold", title="Last words")
    for col in ("word", "looked up", "source", "phones", "syllables", "rhyme part"):
        table.add_column(col)
    for w in (a, b):
        p = pronounce(w)
        sylls = " | ".join(str(s) for s in p.syllables) or "—"
        source = p.source + (f" ({p.note})" if p.note else "")
        table.add_row(
            w, p.spelling, source, " ".join(p.phones) or "—", sylls, " ".join(rhyme_part(p.phones)) or "—"
        )
    console.print(table)
    found = rhyme_types(a, b)
    strongest = rhyme_type(a, b)
    ordered = [t for t in RHYME_TYPES if t in found]
    console.print(f"rhyme types: {', '.join(ordered) if ordered else 'none'}")
    console.print(f"strongest: [bold]{strongest or 'none'}[/bold]")
    verdict = check_rhyme(previous_line, line)
    console.print(
        f"end rhyme (check_rhyme): [bold {'green' if verdict else 'red'}]{'yes' if verdict else 'no'}[/]"
    )


def _read_verses(path: Path) -> list[tuple[str, list[str]]]:
    from creval.corpus.io import read_generations, read_text, split_verses

    if path.suffix.lower() == ".jsonl":
        return [(o.id, [ln for ln in o.text.split("\n") if ln.strip()]) for o in read_generations(path)]
    text = read_text(path)
    verses = [(f"line {start}", lines) for start, lines in split_verses(text)]
    if not verses:
        raise InputError("no verses found (the file is empty or blank)", path)
    return verses


def _scheme_detector(verses: list[list[str]]) -> Any:
    """A function lines -> scheme string from :mod:`creval.rhyme.scheme` (the rhyme-scheme HMM), trained once on
    all the verses of the file; None when that module is not available."""
    try:
        from creval.rhyme import scheme as sch
    except ImportError:
        return None
    verse_scheme = getattr(sch, "verse_scheme", None)
    fit = getattr(sch, "fit_corpus_detector", None)
    if verse_scheme is None:
        return None
    model = fit([v for v in verses if v]) if fit is not None and sum(1 for v in verses if v) > 1 else None
    return lambda lines: str(verse_scheme(lines, model)) if lines else ""


@rhyme.command("analyze")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--weighting",
    type=click.Choice(["paper", "normalised"]),
    default="paper",
    show_default=True,
    help="entropy weighting of the density: H/N (Potash et al.) or H/log2 N",
)
@click.option(
    "--factor-mode",
    type=click.Choice(["cmudict", "espeak"]),
    default="cmudict",
    show_default=True,
    help="rhyme factor transcription: CMUdict vowels, or espeak-ng like the original Raplyzer tool",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.75,
    show_default=True,
    help="syllable similarity needed for a match in the density",
)
@click.option("--scheme/--no-scheme", default=True, show_default=True, help="show the detected rhyme scheme")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="analyse at most this many verses")
def analyze_cmd(
    file: Path, weighting: str, factor_mode: str, threshold: float, scheme: bool, limit: int | None
) -> None:
    """Rhyme density, entropy-weighted density, end rhymes per line, multi-syllable share, rhyme factor and rhyme
    scheme of every verse in FILE (a text file of blank-line-separated verses, or a generations .jsonl), with
    the rhymed words highlighted (one colour per vowel)."""
    from rich.table import Table
    from rich.text import Text

    from creval.rhyme.density import rhyme_density
    from creval.rhyme.factor import rhyme_factor
    from creval.rhyme.measures import highlight_tokens

    verses = _read_verses(file)
    if limit is not None:
        verses = verses[:limit]
    console = _console()
    summary = Table(header_style="bold", title=f"{file.name}: {len(verses)} verse(s)")
    for col in ("verse", "lines", "density", "weighted", "end/line", "multi", "factor", "scheme"):
        summary.add_column(col, justify="left" if col in ("verse", "scheme") else "right")
    detector = _scheme_detector([lines for _, lines in verses]) if scheme else None

    def fmt(x: float, digits: int = 3) -> str:
        return "—" if x != x else f"{x:.{digits}f}"

    for label, lines in verses:
        d = rhyme_density(lines, threshold=threshold, weighting=weighting)
        f = rhyme_factor(lines, mode=factor_mode)
        sch = detector(lines) if detector is not None else None
        body = Text()
        if d.transcription is None or not d.transcription.tokens:
            body.append("\n".join(lines) + "\n")
        for words in highlight_tokens(d):
            for i, (word, group) in enumerate(words):
                if i:
                    body.append(" ")
                body.append(word, style=_STYLES[group % len(_STYLES)] if group >= 0 else "")
            body.append("\n")
        console.rule(f"[bold]{label}[/bold]")
        console.print(body, end="")
        if d.reason:
            console.print(f"[yellow]density undefined: {d.reason}[/yellow]")
        line = (
            f"density {fmt(d.rhyme_density)}  weighted {fmt(d.rhyme_density_weighted, 4)}  end rhymes/line "
            f"{fmt(d.end_rhymes_per_line, 2)}  multi-syllable {fmt(d.multisyllable_share, 2)}  "
            f"factor {fmt(f.rhyme_factor)}"
        )
        if sch:
            line += f"  scheme {sch}"
        console.print(line)

        summary.add_row(
            label, str(d.n_lines), fmt(d.rhyme_density), fmt(d.rhyme_density_weighted, 4),
            fmt(d.end_rhymes_per_line, 2), fmt(d.multisyllable_share, 2), fmt(f.rhyme_factor), sch or "—",
        )  # fmt: skip
    console.print()
    console.print(summary)
    if scheme and detector is None:
        console.print("[yellow]rhyme scheme: creval.rhyme.scheme is not available in this build[/yellow]")
