"""Plot helpers: matplotlib (Agg backend, imported lazily) figures embedded into the HTML report as inline SVG."""

from __future__ import annotations

import io
from typing import Any

PALETTE = ["#3b6ea8", "#d1793b", "#4f9a59", "#b8474c", "#7d66a8", "#8c6d5a", "#c76fa6", "#7a7a7a", "#a8a23b", "#3ba8a1"]


def pyplot() -> Any:
    """Import matplotlib.pyplot with the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False,
                         "axes.spines.right": False})
    return plt


def fig_to_svg(fig: Any) -> str:
    """Render a figure to an inline ``<svg>`` string (no XML header) and close it."""
    plt = pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight",
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    svg = buf.getvalue()
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def fig_to_png_img(fig: Any, dpi: int = 110, alt: str = "") -> str:
    """Render a figure to an ``<img>`` tag with a base64 PNG data URI and close it."""
    import base64

    plt = pyplot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{alt}" src="data:image/png;base64,{data}">'


def fig_to_html(fig: Any, alt: str = "") -> str:
    """The report's default embedding: inline SVG wrapped in a figure block."""
    return f'<figure class="plot" aria-label="{alt}">{fig_to_svg(fig)}</figure>'
