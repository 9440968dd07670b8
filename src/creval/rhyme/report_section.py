"""The report's rhyme section: per-system means of the rhyme measures and, per system, its densest output with
the rhymed words coloured by vowel (so words of one rhyme family share a colour)."""

from __future__ import annotations

from creval.report.registry import ReportContext, register_section

RHYME_MEASURES = (
    "end_rhyme_rate",
    "perfect_end_rhyme_rate",
    "rhyme_density",
    "rhyme_density_weighted",
    "end_rhymes_per_line",
    "multisyllable_share",
    "rhyme_factor",
)
_COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#117a65", "#a04000", "#5b2c6f", "#1a5276",
            "#7b7d7d", "#b03a2e", "#239b56", "#2e4053", "#d35400"]  # fmt: skip


def _example_html(lines: list[list[tuple[str, int]]]) -> str:
    from creval.report.html import esc

    out = []
    for line in lines:
        words = []
        for word, group in line:
            if group < 0:
                words.append(esc(word))
            else:
                colour = _COLOURS[group % len(_COLOURS)]
                words.append(f'<b style="color:{colour}">{esc(word)}</b>')
        out.append(" ".join(words))
    return '<pre class="verse">' + "\n".join(out) + "</pre>"


@register_section("rhyme", title="Rhyme", order=45)
def rhyme_section(ctx: ReportContext) -> str | None:
    from creval.report.html import esc, table_html

    res = ctx.results
    if res is None or res.empty:
        return None
    frame = res[res["measure"].isin(RHYME_MEASURES) & res["output_id"].notna()]
    if frame.empty:
        return None
    table = frame.pivot_table(
        index="system", columns="measure", values="value", aggfunc="mean", observed=True
    )
    table = table[[m for m in RHYME_MEASURES if m in table.columns]].reset_index()
    table.columns.name = None
    parts = [
        '<p class="meta">Means per system. End rhyme rate: consecutive line pairs whose last words rhyme '
        "(any type but consonant rhyme; perfect: perfect rhymes only). Rhyme density: share of syllables in a "
        "rhyme with the same or the "
        "previous line (Hirjee &amp; Brown 2010); weighted: × word entropy / word count (Potash et al. 2016); "
        "end rhymes per line: lines whose last syllable rhymes with the line before; multi-syllable share: "
        "rhymes of two or more syllables / all rhymes; rhyme factor: mean longest backward vowel match against "
        "the previous 15 words (Malmi et al. 2016). Pronunciations: CMUdict, then lyric respellings, numerals, "
        "espeak-ng.</p>",
        table_html(table, left=["system"]),
    ]
    type_counts = (ctx.artifacts.get("end_rhyme") or {}).get("type_counts") or {}
    if type_counts:
        import pandas as pd

        from creval.rhyme.pairs import RHYME_TYPES

        cols = [t for t in (*RHYME_TYPES, "none") if any(t in c for c in type_counts.values())]
        rows = []
        for system, counts in sorted(type_counts.items()):
            total = sum(counts.values())
            rows.append({"system": system, **{t: counts.get(t, 0) / total for t in cols}, "pairs": total})
        parts.append(
            '<p class="meta">Consecutive line pairs by the strongest rhyme type of their last words '
            "(share of pairs; Phyme's types, see the README).</p>"
            + table_html(pd.DataFrame(rows), left=["system"], digits=3)
        )
    examples = (ctx.artifacts.get("rhyme_density") or {}).get("examples") or {}
    for system, ex in examples.items():
        parts.append(
            f"<h3>{esc(system)}: densest output <code>{esc(ex['output_id'])}</code> "
            f"(density {ex['density']:.3f})</h3>" + _example_html(ex["lines"])
        )
    if examples:
        parts.append('<p class="meta">Bold coloured words hold a rhymed syllable; one colour per vowel.</p>')
    return "".join(parts)
