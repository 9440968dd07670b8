"""``creval agreement``: agreement statistics of a unit x rater matrix file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from creval.cli import main


@main.command("agreement")
@click.argument("matrix", type=click.Path(path_type=Path))
@click.option(
    "--collapse",
    default=None,
    help="Also report Fleiss' kappa with labels grouped: 'acceptable' (good/acceptable vs bad, or 2/1 vs 0), "
    "or a mapping like '2=ok,1=ok,0=bad'.",
)
@click.option("--categories", default=None, help="Ordered, comma-separated category list (e.g. '0,1,2').")
@click.option(
    "--level",
    "levels",
    multiple=True,
    type=click.Choice(["nominal", "ordinal", "interval", "ratio"]),
    help="Krippendorff's alpha level (repeatable). Default: nominal for labels; nominal, ordinal and interval "
    "for numbers.",
)
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="Also write the results as JSON.")
def agreement_cmd(matrix: Path, collapse: str | None, categories: str | None, levels: tuple[str, ...],
                  json_path: Path | None) -> None:  # fmt: skip
    """Inter-annotator agreement of MATRIX, a CSV with a header `unit,rater1,rater2,...`, one row per unit and an
    empty cell where a rater did not judge a unit (what `creval study export` writes per criterion).

    Prints Fleiss' kappa, Krippendorff's alpha, the mean pairwise Cohen's kappa and, for numeric ratings,
    ICC(2,1) and ICC(3,1), each with its interpretation; undefined values are shown with the reason.
    """
    from rich.console import Console

    from creval.agreement.matrix import agreement_table, read_matrix
    from creval.errors import InputError

    units, raters, arr = read_matrix(matrix)
    cats = None
    if categories:
        cats = [c.strip() for c in categories.split(",") if c.strip()]
        if arr.dtype.kind == "f":
            try:
                cats = [float(c) for c in cats]
            except ValueError:
                raise InputError(f"--categories {categories!r}: the matrix holds numbers") from None
    mapping: dict | str | None = None
    if collapse:
        if "=" in collapse:
            mapping = {}
            for part in collapse.split(","):
                key, sep, group = part.partition("=")
                if not sep or not key.strip():
                    raise InputError(
                        f"--collapse {collapse!r}: expected LABEL=GROUP pairs separated by commas"
                    )
                k = key.strip()
                mapping[float(k) if arr.dtype.kind == "f" and _is_number(k) else k] = group.strip()
        elif collapse == "acceptable":
            mapping = (
                {2.0: "acceptable+", 1.0: "acceptable+", 0.0: "bad"}
                if arr.dtype.kind == "f"
                else "acceptable"
            )
        else:
            raise InputError(f"--collapse {collapse!r}: use 'acceptable' or LABEL=GROUP pairs")
    results = agreement_table(arr, collapse=mapping, categories=cats, levels=levels or None)
    con = Console(highlight=False)
    con.print(f"[bold]{matrix}[/bold]: {len(units)} units x {len(raters)} raters", soft_wrap=True)
    width = max(len(_display(r.statistic)) for r in results)
    for r in results:
        con.print(f"  {_display(r.statistic):<{width}}  {_describe(r)}", soft_wrap=True)
    if json_path:
        from creval.corpus.io import atomic_write

        with atomic_write(json_path) as fh:
            json.dump([r.as_dict() for r in results], fh, indent=2, default=str)


_NAMES = {
    "fleiss_kappa": "Fleiss kappa",
    "fleiss_kappa_collapsed": "Fleiss kappa, collapsed",
    "cohen_kappa_mean_pairwise": "Cohen kappa, mean of pairs",
}


def _describe(r) -> str:
    if not r.defined:
        return f"undefined ({r.reason}; n={r.n})"
    text = f"{r.value:.3f}"
    if r.interpretation:
        text += f" ({r.interpretation})"
    if r.ci is not None:
        text += f", {round((r.confidence or 0.95) * 100)}% CI [{r.ci[0]:.3f}, {r.ci[1]:.3f}]"
    if r.p_value is not None:
        text += f", p = {r.p_value:.3g}"
    return text + f", n={r.n}"


def _display(name: str) -> str:
    if name in _NAMES:
        return _NAMES[name]
    if name.startswith("krippendorff_alpha_"):
        return f"alpha ({name.rsplit('_', 1)[-1]})"
    return name.removeprefix("icc ")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
