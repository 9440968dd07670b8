from __future__ import annotations

from pathlib import Path

from creval.api import evaluate_full
from creval.corpus.model import Corpus, Output, Verse
from creval.report.registry import _SECTIONS, register_section, sections


def test_registered_section_is_rendered_in_order(tmp_path: Path) -> None:
    @register_section("zz-test", title="A test section", order=25)
    def _render(ctx):  # noqa: ANN001
        n = ctx.results["output_id"].nunique()
        return f"<p id='probe'>outputs={n}</p>"

    @register_section("zz-empty", title="Never shown", order=26)
    def _empty(ctx):  # noqa: ANN001
        return None

    try:
        corpus = Corpus([Verse("A", ("a b c", "d e"))], name="c")
        outs = [Output("1", "s", "a b c\nd e", artist="A"), Output("2", "t", "x y", artist="A")]
        evaluate_full(corpus, outs, ["length", "lexical_diversity"], out=tmp_path / "o")
        html = (tmp_path / "o" / "report.html").read_text()
        assert "<p id='probe'>outputs=2</p>" in html and "Never shown" not in html
        assert html.index("Per-system summary") < html.index("A test section") < html.index("Distributions")
        assert html.count("<svg") >= 3  # one distribution plot per measure
        keys = [s.key for s in sections()]
        assert keys.index("summary") < keys.index("zz-test")
    finally:
        _SECTIONS.pop("zz-test", None)
        _SECTIONS.pop("zz-empty", None)
