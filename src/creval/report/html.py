"""The HTML report: one self-contained file (inline CSS, plots as inline SVG, no scripts, no network fetches).

The builder knows no measure: it renders every registered section (:mod:`creval.report.registry`) in order.
Helpers here (:func:`table_html`, :func:`esc`) are for section authors.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval._version import __version__
from creval.report.registry import ReportContext, sections

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.api import Evaluation

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px 32px 64px}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:20px;margin:36px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}
.meta{color:#666;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:8px 0 16px;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}th{background:#f0f0f3}
td.l,th.l{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:12px}
figure.plot{margin:0;background:#fff;border:1px solid #e3e3e3;padding:6px}
figure.plot svg{max-width:100%;height:auto}
nav a{margin-right:12px;font-size:13px}
.note{color:#8a5a00;font-size:13px}
code{background:#f0f0f3;padding:1px 4px;border-radius:3px;font-size:12px}
details{margin:8px 0}
"""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def fmt_value(value: Any, digits: int = 4) -> str:
    """Format a table cell: NaN/NA as an em dash, integral floats without decimals, others to ``digits``."""
    import numpy as np
    import pandas as pd

    if value is None:
        return ""
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (np.floating, float)):
        value = float(value)
        if math.isnan(value):
            return "—"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.{digits}g}" if abs(value) < 1e-3 or abs(value) >= 1e5 else f"{value:.{digits}f}"
    try:
        if pd.isna(value):
            return "—"
    except (TypeError, ValueError):
        pass
    return str(value)


def table_html(frame: pd.DataFrame, *, digits: int = 4, left: Sequence[str] = (), max_rows: int = 500) -> str:
    """An HTML table of a DataFrame; text columns (and ``left``) are left-aligned; long tables are cut."""
    cols = list(frame.columns)
    text_cols = set(left) | {c for c in cols if frame[c].dtype.kind not in "biufc"}
    head = "".join(f'<th class="{"l" if c in text_cols else ""}">{esc(c)}</th>' for c in cols)
    body = []
    for row in frame.head(max_rows).itertuples(index=False):
        cells = "".join(
            f'<td class="{"l" if c in text_cols else ""}">{esc(fmt_value(v, digits))}</td>' for c, v in zip(cols, row)
        )
        body.append(f"<tr>{cells}</tr>")
    more = f'<p class="meta">{len(frame) - max_rows} more rows in the CSV files.</p>' if len(frame) > max_rows else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def render_report(ctx: ReportContext) -> str:
    parts = []
    nav = []
    for section in sections():
        fragment = section.render(ctx)
        if not fragment:
            continue
        anchor = f"s-{section.key}"
        nav.append(f'<a href="#{anchor}">{esc(section.title)}</a>')
        parts.append(f'<section id="{anchor}"><h2>{esc(section.title)}</h2>{fragment}</section>')
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{esc(ctx.title)}</title>"
        f"<style>{CSS}</style></head><body><main><h1>{esc(ctx.title)}</h1>"
        f'<p class="meta">creval {esc(__version__)} · {when}</p><nav>{"".join(nav)}</nav>'
        f"{''.join(parts)}</main></body></html>\n"
    )


def build_report(evaluation: Evaluation, path: str | Path, *, title: str = "creval report") -> Path:
    """Render the report of an evaluation into ``path`` (written atomically)."""
    from creval.corpus.io import atomic_write

    ctx = ReportContext(
        results=evaluation.results,
        summary=evaluation.summary,
        corpus=evaluation.corpus,
        outputs=evaluation.outputs,
        signatures=evaluation.signatures,
        artifacts=evaluation.artifacts,
        corpus_stats=evaluation.corpus_stats,
        notes=evaluation.notes,
        title=title,
    )
    page = render_report(ctx)
    with atomic_write(path) as handle:
        handle.write(page)
    return Path(path)
