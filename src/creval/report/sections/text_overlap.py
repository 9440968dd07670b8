"""The report's section for reference overlap and within-system diversity: BLEU, ROUGE, BERTScore, self-BLEU,
distinct-n and repetition, with the BERTScore token-similarity picture of a well and a badly scored output."""

from __future__ import annotations

from creval.report.registry import ReportContext, register_section

OUTPUT_MEASURES = ("bleu", "rouge1", "rouge2", "rougeL", "bertscore_p", "bertscore_r", "bertscore_f",
                   "self_bleu", "distinct_1", "distinct_2", "dup_line_rate", "dup_ngram_char_frac")
SET_MEASURES = ("bleu_corpus", "self_bleu_mean", "distinct_1_system", "distinct_2_system")

_EXPLAIN = (
    '<p class="meta">Per-output means per system; set-level values (corpus BLEU, pooled distinct-n, mean '
    "self-BLEU) in the last table. BLEU: Papineni et al. (2002), identical to nltk (or sacrebleu, see the "
    "signature); ROUGE: Lin (2004), identical to rouge-score or the rouge package; BERTScore: Zhang et al. "
    "(2020), offline all-MiniLM-L6-v2, layer 5; self-BLEU: each output against the other outputs of its system "
    "(Zhu et al. 2018; higher = less diverse); distinct-n: distinct / all n-grams (Li et al. 2016); "
    "repetition: share of repeated lines, and share of characters in repeated word 5-grams (Rae et al. 2021). "
    "Outputs without references have no BLEU/ROUGE/BERTScore.</p>"
)


@register_section("text_overlap", title="Overlap with references and diversity", order=50)
def text_overlap_section(ctx: ReportContext) -> str | None:
    from creval.report.html import esc, table_html

    res = ctx.results
    if res is None or res.empty:
        return None
    per_out = res[res["measure"].isin(OUTPUT_MEASURES) & res["output_id"].notna()]
    per_set = res[res["measure"].isin(SET_MEASURES)]
    if per_out.empty and per_set.empty:
        return None
    parts = [_EXPLAIN]
    if not per_out.empty:
        table = per_out.pivot_table(index="system", columns="measure", values="value", aggfunc="mean",
                                    observed=True)
        # two narrower tables (overlap, then diversity/repetition) so the page does not scroll sideways
        for group in (OUTPUT_MEASURES[:7], OUTPUT_MEASURES[7:]):
            cols = [m for m in group if m in table.columns]
            if cols:
                part = table[cols].reset_index()
                part.columns.name = None
                parts.append(table_html(part, left=["system"]))
    if not per_set.empty:
        table = per_set.pivot_table(index="system", columns="measure", values="value", aggfunc="mean",
                                    observed=True)
        table = table[[m for m in SET_MEASURES if m in table.columns]].reset_index()
        table.columns.name = None
        parts.append(table_html(table, left=["system"]))
    examples = (ctx.artifacts.get("bertscore") or {}).get("examples") or []
    if examples:
        from creval.metrics.embedding import plot_similarity
        from creval.report.plots import fig_to_html

        parts.append('<p class="meta">BERTScore greedy matching: cosine similarity of each candidate word piece '
                     "(rows) with each reference word piece (columns); the square marks the best match that "
                     "precision averages (Zhang et al. 2020, Fig. 1). Best and worst scored output per system, against "
                     "the reference that decides its score; first 40 word pieces of each."
                     "</p>")
        import warnings

        for ex in examples:
            with warnings.catch_warnings():  # glyph warnings for CJK word pieces: the SVG keeps them as text
                warnings.simplefilter("ignore", UserWarning)
                fig = plot_similarity(ex["candidate_tokens"], ex["reference_tokens"], ex["similarity"],
                                      title=f"{ex['system']} · {ex['output_id']} · F = {ex['f']:.3f}")
                parts.append(fig_to_html(fig, alt=f"BERTScore similarity matrix for {esc(ex['output_id'])}"))
    return "\n".join(parts)
