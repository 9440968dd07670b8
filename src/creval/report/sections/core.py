"""The report's core sections: dataset statistics, per-system summary, one distribution plot per measure,
signatures and notes."""

from __future__ import annotations

from creval.report.html import esc, table_html
from creval.report.plots import PALETTE, fig_to_html, pyplot
from creval.report.registry import ReportContext, register_section


@register_section("dataset", title="Dataset", order=10)
def dataset_section(ctx: ReportContext) -> str | None:
    if ctx.corpus_stats is None:
        return None
    n_out = len(ctx.outputs)
    systems = sorted({o.system for o in ctx.outputs})
    intro = (
        f'<p>Corpus <code>{esc(ctx.corpus.name if ctx.corpus else "")}</code>: {len(ctx.corpus or [])} verses. '
        f"Generations: {n_out} outputs from {len(systems)} system(s): {esc(', '.join(systems))}.</p>"
        '<p class="meta">Per artist (Potash et al. 2016, Table 1): richness = tokens / vocabulary; verse lengths '
        "in tokens (std with ddof = 1).</p>"
    )
    return intro + table_html(ctx.corpus_stats, digits=3)


@register_section("summary", title="Per-system summary", order=20)
def summary_section(ctx: ReportContext) -> str | None:
    if ctx.summary is None or ctx.summary.empty:
        return None
    frame = ctx.summary.pivot_table(index="measure", columns="system", values="mean", observed=True)
    frame = frame.reset_index()
    frame.columns.name = None
    long = ctx.summary.copy()
    return (
        '<p class="meta">Mean of each measure per system (NaN values, i.e. undefined for an output, are left '
        "out of the mean; see the full table for counts).</p>"
        + table_html(frame, left=["measure"])
        + "<details><summary>Full summary (n, mean, std, median, min, max, undefined)</summary>"
        + table_html(long, left=["system", "measure"])
        + "</details>"
    )


@register_section("distributions", title="Distributions", order=30)
def distributions_section(ctx: ReportContext) -> str | None:
    res = ctx.results
    if res.empty:
        return None
    per_output = res[res["output_id"].notna()]
    plt = pyplot()
    figures = []
    systems = sorted(per_output["system"].dropna().unique())
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(systems)}
    for measure, frame in per_output.groupby("measure", sort=True, observed=True):
        fig, ax = plt.subplots(figsize=(3.6, 2.4))
        data = []
        labels = []
        for system in systems:
            values = frame.loc[frame["system"] == system, "value"].dropna().to_numpy()
            if len(values):
                data.append(values)
                labels.append(system)
        if not data:
            plt.close(fig)
            continue
        parts = ax.boxplot(data, orientation="horizontal", patch_artist=True, widths=0.6)
        for patch, label in zip(parts["boxes"], labels):
            patch.set_facecolor(colours[label])
            patch.set_alpha(0.55)
        ax.set_yticks(range(1, len(labels) + 1), labels)
        ax.set_title(str(measure), fontsize=10)
        figures.append(fig_to_html(fig, alt=f"distribution of {measure}"))
    if not figures:
        return None
    return '<p class="meta">One box plot per measure, by system (undefined values left out).</p>' + (
        f'<div class="plots">{"".join(figures)}</div>'
    )


@register_section("signatures", title="Signatures and notes", order=900)
def signatures_section(ctx: ReportContext) -> str | None:
    if not ctx.signatures and not ctx.notes:
        return None
    rows = "".join(
        f"<tr><td class='l'>{esc(name)}</td><td class='l'><code>{esc(sig)}</code></td></tr>"
        for name, sig in sorted(ctx.signatures.items())
    )
    out = (
        "<p class='meta'>Two numbers are comparable only when their signatures match.</p>"
        f"<table><thead><tr><th class='l'>measure</th><th class='l'>signature</th></tr></thead><tbody>{rows}"
        "</tbody></table>"
    )
    if ctx.notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in ctx.notes[:200])
        more = f"<p class='meta'>{len(ctx.notes) - 200} more in notes.txt</p>" if len(ctx.notes) > 200 else ""
        out += f"<h3>Notes</h3><ul class='note'>{items}</ul>{more}"
    return out
