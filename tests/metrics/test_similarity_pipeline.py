"""End to end: the six text measures of this area through `creval evaluate` (API and CLI) and the report."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from creval.api import evaluate_full
from creval.cli import main
from creval.corpus.model import Corpus, Output, Verse
from creval.report.registry import ReportContext
from creval.report.sections.text_originality import text_originality_section

MEASURES = ["lexical_diversity", "grammar", "novelty", "diversity", "uniqueness", "copying"]


def _data(shared_data):
    rows = [
        r
        for r in (shared_data / "deepspeare" / "sonnet_valid.txt").read_text("utf-8").split("\n")
        if r.strip()
    ]
    verses = [tuple(ln.strip() for ln in r.split("<eos>") if ln.strip()) for r in rows]
    corpus = Corpus(
        [Verse(f"poet{i % 3}", v, source="valid.txt", line=i + 1) for i, v in enumerate(verses[:80])]
    )
    outs = []
    for inp in range(3):
        for s in range(2):
            outs.append(
                Output(
                    id=f"copy-{inp}-{s}",
                    system="copy",
                    text="\n".join(verses[inp * 2 + s][:4]),
                    input_id=f"i{inp}",
                )
            )
            outs.append(
                Output(
                    id=f"new-{inp}-{s}",
                    system="new",
                    text="\n".join(verses[100 + inp * 2 + s][:4]),
                    input_id=f"i{inp}",
                )
            )
    outs.append(Output(id="empty", system="new", text=""))
    return corpus, outs


def test_api_and_report(shared_data):
    corpus, outs = _data(shared_data)
    ev = evaluate_full(corpus, outs, measures=MEASURES, progress=False)
    res = ev.results
    for name in (
        "ttr",
        "mtld",
        "grammar_error_rate",
        "novelty",
        "max_similarity",
        "exact_copy",
        "longest_common_run",
        "ngram8_coverage",
    ):
        assert name in set(res["measure"]), name
        assert name in ev.signatures
    div = res[res["measure"] == "diversity"]
    assert len(div) == 6 and div["output_id"].isna().all()
    nov = res[res["measure"] == "novelty"].set_index("output_id")["value"]
    assert nov["copy-0-0"] == 0.0 and nov["new-0-0"] > 0.3
    assert np.isnan(nov["empty"])
    ctx = ReportContext(
        results=res, outputs=outs, corpus=corpus, signatures=ev.signatures, artifacts=ev.artifacts
    )
    html = text_originality_section(ctx)
    assert (
        "Most similar training verse" in html
        and "max_similarity" in html
        and "Diversity across samples" in html
    )


def test_cli(shared_data, tmp_path):
    corpus, outs = _data(shared_data)
    cpath = tmp_path / "corpus.jsonl"
    cpath.write_text(
        "".join(json.dumps({"artist": v.artist, "title": "", "text": v.text}) + "\n" for v in corpus), "utf-8"
    )
    gpath = tmp_path / "gen.jsonl"
    gpath.write_text("".join(json.dumps(o.as_row()) + "\n" for o in outs), "utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            "--corpus",
            str(cpath),
            "--generations",
            str(gpath),
            "--out",
            str(out),
            "--measures",
            ",".join(MEASURES),
            "--param",
            "grammar.exclude=spelling,capitalization",
        ],
    )
    assert result.exit_code == 0, result.output
    sigs = json.loads((out / "signatures.json").read_text("utf-8"))
    assert "exclude:spelling,capitalization" in json.dumps(sigs)
    assert "s-text_originality" in (out / "report.html").read_text("utf-8")
