"""Report sections of the ghostwriting analyses: "unique yet similar" (table + one figure per artist and
system), verse structure, correlations (tables + heatmap) and nondeterministic systems.

All four read one :class:`~creval.analysis.pipeline.AnalysisResult`, computed once per report. Options come
from ``ctx.artifacts["analysis"]`` when present (``ratings``: a human-ratings table, ``window``, ``draws``,
``seed``, ``artist_density``, or a ready ``result``), which is how ``creval analyze`` passes them.
"""

from __future__ import annotations

from typing import Any

from creval.report.registry import ReportContext, register_section

_CACHE: list[Any] = [None, None]  # [context, result]: one report is rendered at a time


def analysis_for(ctx: ReportContext):
    """The analysis of this report context (computed on first use, then reused by the other sections)."""
    if _CACHE[0] is ctx:
        return _CACHE[1]
    from creval.analysis.pipeline import run_analysis

    opts = dict(ctx.artifacts.get("analysis", {})) if isinstance(ctx.artifacts, dict) else {}
    if opts.get("result") is not None:
        _CACHE[0], _CACHE[1] = ctx, opts["result"]
        return opts["result"]
    result = run_analysis(
        ctx.results, corpus=ctx.corpus, corpus_stats=ctx.corpus_stats, outputs=ctx.outputs,
        ratings=opts.get("ratings"), artist_density=opts.get("artist_density"), signatures=ctx.signatures,
        window=float(opts.get("window", 0.0)), draws=int(opts.get("draws", 100)), seed=int(opts.get("seed", 0)),
    )
    _CACHE[0], _CACHE[1] = ctx, result
    return result


def _notes(notes: list[str], prefix: str) -> str:
    from creval.report.html import esc

    picked = [n for n in notes if n.startswith(prefix)]
    return "".join(f'<p class="note">{esc(n)}</p>' for n in picked)


@register_section("ghostwriter", title="Unique yet similar (ghostwriting)", order=60)
def ghostwriter_section(ctx: ReportContext) -> str | None:
    from creval.analysis.ghostwriter import regression_figure
    from creval.report.html import esc, table_html
    from creval.report.plots import fig_to_html

    if ctx.results.empty or not ctx.results["checkpoint"].notna().any():
        return None
    result = analysis_for(ctx)
    intro = (
        '<p class="meta">Potash et al. (2016): per artist and system, the mean entropy-weighted rhyme density '
        "and the mean maximum similarity to the artist's verses at each checkpoint (training iteration, or n "
        "for the n-gram baseline), a least-squares line through each, the checkpoint x* where the density line "
        "reaches the artist's own average density, and the similarity line's value there. "
        "<b>Lower similarity wins</b>: the system rhymes like the artist while copying less. A crossing outside "
        "the checkpoints of the data is an extrapolation and is flagged in the note.</p>"
    )
    body = _notes(result.notes, "unique yet similar")
    if result.fits.empty:
        return intro + body
    body += table_html(result.ghostwriter, digits=4, left=["artist", "best"])
    with_fit = result.fits
    figures = []
    for fit in with_fit.to_dict("records"):
        part = result.series[(result.series["artist"] == fit["artist"]) & (result.series["system"] == fit["system"])]
        if part.empty:
            continue
        figures.append(fig_to_html(regression_figure(part, fit), alt=f"{fit['artist']} {fit['system']}"))
    details = table_html(result.fits.drop(columns=["message"]), digits=4, left=["artist", "system", "status"])
    return (
        intro + body
        + f'<h3>Regression plots</h3><div class="plots">{"".join(figures)}</div>'
        + f"<details><summary>Fitted lines ({esc(len(result.fits))} artist × system pairs)</summary>{details}"
        + "</details>"
    )


@register_section("structure", title="Verse structure", order=61)
def structure_section(ctx: ReportContext) -> str | None:
    from creval.report.html import table_html

    if ctx.results.empty:
        return None
    result = analysis_for(ctx)
    if result.structure.empty:
        return None
    intro = (
        '<p class="meta">Average and longest generated verse (tokens) beside the artist\'s corpus; '
        "longest_share = checkpoint of the longest generated verse / the last checkpoint (where in training it "
        "appears). Below: per system, the correlation across artists between the artist's average verse "
        "length and the average generated length.</p>"
    )
    return (intro + table_html(result.structure, digits=3, left=["artist", "system", "note"])
            + table_html(result.length_correlation, digits=3, left=["system", "note"]))


@register_section("correlations", title="Correlations", order=62)
def correlations_section(ctx: ReportContext) -> str | None:
    from creval.analysis.correlations import heatmap_figure
    from creval.report.html import table_html
    from creval.report.plots import fig_to_html

    if ctx.results.empty:
        return None
    result = analysis_for(ctx)
    if result.matrix.shape[0] < 2:
        return None
    out = ('<p class="meta">Pearson r (t-test p) and Spearman ρ (p) between measures, one point per output; '
           "pairs with an undefined value are left out (n says how many remain).</p>")
    out += fig_to_html(heatmap_figure(result.matrix, "Pearson r between measures (per output)"),
                       alt="correlation heatmap")
    out += table_html(result.correlations, digits=3, left=["x", "y", "note"])
    out += ("<details><summary>Per artist × system means</summary>"
            + table_html(result.correlations_aggregate, digits=3, left=["x", "y", "note"]) + "</details>")
    if not result.corpus_correlations.empty:
        out += ("<h3>Against corpus statistics</h3><p class='meta'>Per system, each measure's mean over an "
                "artist's outputs against the artist's corpus statistics (one point per artist).</p>"
                + table_html(result.corpus_correlations, digits=3, left=["system", "measure", "statistic", "note"]))
    return out


@register_section("nondeterministic", title="Nondeterministic systems", order=63)
def nondeterministic_section(ctx: ReportContext) -> str | None:
    from creval.report.html import table_html

    if ctx.results.empty or not ctx.results["input_id"].notna().any():
        return None
    result = analysis_for(ctx)
    nd = result.nondeterministic
    if nd.empty or not nd["pearson_r"].notna().any():
        return None
    draws = int(nd["draws"].max()) if nd["draws"].notna().any() else 0
    out = ("<p class='meta'>Wu et al.: for systems with several samples per input (and optionally a one-best "
           "output, sample = \"best\"), the correlation across inputs between the one-best score, one random "
           f"sample's score (mean over {draws} seeded random choices; sd over them) and the average over "
           "samples.</p>")
    out += table_html(nd[nd["pearson_r"].notna() | (nd["pair"] != "—")], digits=3,
                      left=["system", "measure", "pair", "note"])
    if not result.diversity.empty:
        out += "<h3>Diversity across samples</h3>" + table_html(result.diversity, digits=3,
                                                                  left=["system", "measure"])
    return out
