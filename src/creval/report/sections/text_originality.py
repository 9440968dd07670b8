"""The report's section for lexical diversity, grammar, novelty, diversity across samples, uniqueness and
copying: a per-system table of means, the most similar training verse of the most and least unique outputs,
grammar errors by category, and a few copied outputs."""

from __future__ import annotations

from creval.report.registry import ReportContext, register_section

LEXICAL = (
    "ttr",
    "root_ttr",
    "log_ttr",
    "maas",
    "msttr",
    "mattr",
    "hdd",
    "mtld",
    "mtld_ma_bid",
    "mtld_ma_wrap",
)
ORIGINALITY = (
    "novelty",
    "max_similarity",
    "exact_copy",
    "copied_lines",
    "longest_common_run",
    "ngram8_coverage",
)
GRAMMAR = ("grammar_error_rate", "grammar_errors_per_line", "grammar_error_count")

_EXPLAIN = (
    '<p class="meta">Lexical diversity (Kyle\'s definitions; MATTR window 50, MSTTR segment 50, HD-D sample 42, '
    "MTLD threshold 0.72 with 10-token factors; Maas: lower = more diverse). Novelty: share of each line's "
    "k-grams (k = 3..min(8, L)) absent from the training lines, averaged (Wu et al.). Diversity: k-gram Jaccard "
    "distance between the outputs a system gave for one input, per line position (Wu et al.; DESIGN.md). "
    "max_similarity: largest tf-idf cosine to any training verse (Potash et al. 2015; lower = more unique). "
    "Copying: exact copy of a verse/line/reference, longest token run shared with the corpus, share of tokens "
    "inside corpus 8-grams. Grammar: checker errors per character (and per line), excluded categories in the "
    "signature.</p>"
)


def _means(ctx: ReportContext, names: tuple[str, ...]):
    res = ctx.results
    if "ngram8_coverage" in names:  # the coverage's name follows its n parameter
        extra = sorted(
            m for m in res["measure"].dropna().unique() if m.startswith("ngram") and m.endswith("_coverage")
        )
        names = tuple(n for n in names if n != "ngram8_coverage") + tuple(extra)
    frame = res[res["measure"].isin(names) & res["output_id"].notna()]
    if frame.empty:
        return None
    table = frame.pivot_table(
        index="system", columns="measure", values="value", aggfunc="mean", observed=True
    )
    table = table[[m for m in names if m in table.columns]].reset_index()
    table.columns.name = None
    return table


@register_section("text_originality", title="Lexical diversity, grammar, novelty and copying", order=55)
def text_originality_section(ctx: ReportContext) -> str | None:
    from creval.report.html import esc, table_html

    res = ctx.results
    if res is None or res.empty:
        return None
    parts: list[str] = []
    for title, names in (
        ("Lexical diversity", LEXICAL),
        ("Novelty, uniqueness, copying", ORIGINALITY),
        ("Grammar", GRAMMAR),
    ):
        table = _means(ctx, names)
        if table is not None:
            parts.append(f"<h3>{esc(title)}</h3>" + table_html(table, left=["system"]))
    div = res[res["measure"] == "diversity"]
    if not div.empty:
        table = (
            div.groupby("system", observed=True)["value"].agg(["count", "mean", "min", "max"]).reset_index()
        )
        table = table.rename(columns={"count": "inputs"})
        parts.append(
            "<h3>Diversity across samples for one input</h3>"
            '<p class="meta">One value per system × input_id with two or more outputs.</p>'
            + table_html(table)
        )
    grammar = ctx.artifacts.get("grammar") or {}
    by_cat = grammar.get("by_category") or {}
    if by_cat:
        import pandas as pd

        frame = pd.DataFrame(by_cat).fillna(0).astype(int).T.reset_index().rename(columns={"index": "system"})
        excluded = ", ".join(grammar.get("exclude") or []) or "none"
        parts.append(
            f'<p class="meta">Grammar errors by category (all categories; not counted in the rates: {esc(excluded)}).</p>'
            + table_html(frame, left=["system"])
        )
    uniq = (ctx.artifacts.get("uniqueness") or {}).get("most_similar") or {}
    if uniq:
        rows = []
        by_system: dict[str, list[tuple[str, dict]]] = {}
        for oid, entry in uniq.items():
            by_system.setdefault(entry.get("system", ""), []).append((oid, entry))
        for system, entries in sorted(by_system.items()):
            entries.sort(key=lambda e: e[1]["similarity"])
            picks = [("most unique", entries[0])] + (
                [("least unique", entries[-1])] if len(entries) > 1 else []
            )
            for label, (oid, entry) in picks:
                where = entry.get("artist") or ""
                if entry.get("source"):
                    where += f" ({entry['source']}:{entry.get('line', '')})"
                rows.append(
                    f"<tr><td class=l>{esc(system)}</td><td class=l>{esc(label)}</td><td class=l>{esc(oid)}</td>"
                    f"<td>{entry['similarity']:.3f}</td><td class=l><pre>{esc(entry.get('output', ''))}</pre></td>"
                    f"<td class=l><pre>{esc(entry.get('verse', ''))}</pre><br><span class=meta>{esc(where)}</span></td></tr>"
                )
        parts.append(
            "<h3>Most similar training verse</h3>"
            '<p class="meta">For each system, its most and least unique output beside the training '
            f"{esc((ctx.artifacts.get('uniqueness') or {}).get('unit', 'verse'))} it is most similar to.</p>"
            "<table><thead><tr><th class=l>system</th><th class=l></th><th class=l>output</th><th>cosine</th>"
            "<th class=l>output text</th><th class=l>most similar training text</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )
    copies = res[(res["measure"] == "exact_copy") & (res["value"] == 1.0)]
    if not copies.empty:
        listed = ", ".join(
            f"{esc(s)}:{esc(o)}" for s, o in copies[["system", "output_id"]].head(20).itertuples(index=False)
        )
        parts.append(
            f'<p class="meta">Exact copies of training or reference text ({len(copies)}): {listed}</p>'
        )
    if not parts:
        return None
    return _EXPLAIN + "".join(parts)
