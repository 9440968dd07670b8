"""The report's music section: MGEval feature densities (intra- vs inter-set) and the KL/OA table per system,
absolute feature statistics, and HER by input piece."""

from __future__ import annotations

from typing import Any

from creval.report.registry import ReportContext, register_section

_CURVES = (("intra (reference)", "#7a7a7a", "-"), ("intra (generated)", "#3b6ea8", "--"), ("inter", "#d1793b", "-"))


def _density_grid(densities: dict[str, Any], labels: dict[str, str]) -> str:
    from creval.report.plots import fig_to_html, pyplot

    plt = pyplot()
    names = [n for n, d in densities.items() if d is not None]
    if not names:
        return ""
    cols = 4
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(2.7 * cols, 2.0 * rows), squeeze=False)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    for ax, name in zip(axes.ravel(), names):
        d = densities[name]
        for key, colour, style in _CURVES:
            if key in d:
                ax.plot(d["x"], d[key], color=colour, linestyle=style, linewidth=1.2, label=key)
        ax.set_title(labels.get(name, name), fontsize=8)
        ax.tick_params(labelsize=6)
        ax.set_yticks([])
    axes.ravel()[0].legend(fontsize=6, frameon=False)
    fig.tight_layout()
    return fig_to_html(fig, alt="MGEval feature densities")


def _mgeval_html(art: dict[str, Any]) -> str:
    import pandas as pd

    from creval.music.features import FEATURES
    from creval.report.html import esc, table_html

    labels = {k: s.label for k, s in FEATURES.items()}
    parts = [
        "<h3>MGEval: generated vs reference</h3>",
        f'<p class="meta">Reference corpus <code>{esc(art.get("corpus", ""))}</code> '
        f'({art.get("n_reference", "?")} pieces); mode <code>{esc(art.get("mode"))}</code>; per-bar features '
        f'over the first {art.get("num_bars")} bars. For each feature: Euclidean distances within the reference '
        "set (intra, leave-one-out), within the generated set, and between the sets (inter); KL = "
        "KL(intra-reference ‖ inter), OA = overlap of the two densities (Yang &amp; Lerch 2020). A generated "
        "set close to the reference has small KL and OA near 1. <code>compat</code> reproduces the MGEval "
        "toolbox's numerics; <code>corrected</code> uses one common grid over the full support.</p>",
    ]
    kl_oa = []
    for system, data in art.get("systems", {}).items():
        for row in data["table"]:
            kl_oa.append({"system": system, "feature": labels.get(row["feature"], row["feature"]),
                          "KL": row["kl"], "OA": row["oa"], "status": row["status"]})
    if kl_oa:
        frame = pd.DataFrame(kl_oa)
        wide = frame.pivot_table(index="feature", columns="system", values=["KL", "OA"], dropna=False,
                                 sort=False)
        wide.columns = [f"{stat} · {system}" for stat, system in wide.columns]
        wide = wide.reset_index()
        parts.append(table_html(wide, left=["feature"]))
        constant = frame[frame["status"] != "ok"]
        if len(constant):
            parts.append('<p class="note">Undefined (constant distances or too few pieces): '
                         + esc(", ".join(f"{r.system}: {r.feature} ({r.status})" for r in constant.itertuples()))
                         + "</p>")
    ref_abs = art.get("reference_absolute", {})
    abs_rows = []
    for feat, (mean, std) in ref_abs.items():
        row = {"feature": labels.get(feat, feat), "reference": f"{mean:.3g} ± {std:.3g}"}
        for system, data in art.get("systems", {}).items():
            m, s = data["absolute"].get(feat, (float("nan"), float("nan")))
            row[system] = f"{m:.3g} ± {s:.3g}"
        abs_rows.append(row)
    if abs_rows:
        parts.append("<h3>Absolute features (mean ± std over pieces)</h3>")
        parts.append(table_html(pd.DataFrame(abs_rows), left=list(pd.DataFrame(abs_rows).columns)))
    for system, data in art.get("systems", {}).items():
        parts.append(f"<h3>Feature densities: {esc(system)} "
                     f"({data['n_generated']} generated, {data['n_reference']} reference pieces)</h3>")
        parts.append(_density_grid(data["densities"], labels))
        detail = pd.DataFrame(data["table"])
        parts.append("<details><summary>Distances (mean, std), KL and OA of both sets</summary>"
                     + table_html(detail, left=["feature", "status"]) + "</details>")
    return "".join(parts)


def _her_html(art: dict[str, Any]) -> str:
    import pandas as pd

    from creval.report.html import table_html

    pieces = pd.DataFrame(art.get("pieces", []))
    if pieces.empty:
        return ""
    by_input = (pieces.groupby(["input_id", "system"], sort=True)
                .agg(n=("her", "size"), her=("her", "mean"), S=("S", "sum"), D=("D", "sum"), I=("I", "sum"),
                     C=("C", "sum"), mongeau_sankoff=("mongeau_sankoff", "mean")).reset_index())
    out = ["<h3>HER by input piece</h3>",
           f'<p class="meta">HER = (S + D + I) / (S + D + C) over note tokens ({art.get("tokens")}), the edited '
           "version being the reference (Kalonaris &amp; Aljanaki). Per bar: each edit is charged to the bar of "
           "the edited note (insertions: of the generated note). mongeau_sankoff: mean Mongeau–Sankoff (1990) "
           "distance between the generated and edited melodies (k = 0.348, rests included).</p>",
           table_html(by_input, left=["input_id", "system"])]
    width = max((len(p) for p in pieces["per_bar"]), default=0)
    if width:
        bars = pd.DataFrame([[*p, *([float("nan")] * (width - len(p)))] for p in pieces["per_bar"]],
                            columns=[f"bar {i + 1}" for i in range(width)])
        bars.insert(0, "output", pieces["output_id"])
        out.append("<details><summary>HER per bar</summary>" + table_html(bars.iloc[:, : min(width, 32) + 1],
                                                                           left=["output"]) + "</details>")
    return "".join(out)


@register_section("music", title="Symbolic music", order=60)
def music_section(ctx: ReportContext) -> str | None:
    parts = []
    if "music-mgeval" in ctx.artifacts and ctx.artifacts["music-mgeval"].get("systems"):
        parts.append(_mgeval_html(ctx.artifacts["music-mgeval"]))
    if "music-her" in ctx.artifacts:
        parts.append(_her_html(ctx.artifacts["music-her"]))
    parts = [p for p in parts if p]
    return "".join(parts) or None
