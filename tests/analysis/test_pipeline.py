"""The whole analysis over one results table, its report sections, and `creval analyze`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from creval.analysis.pipeline import run_analysis, write_analysis
from creval.analysis.sections import (
    correlations_section,
    ghostwriter_section,
    nondeterministic_section,
    structure_section,
)
from creval.cli import main
from creval.corpus.model import Corpus, Verse
from creval.corpus.stats import corpus_stats
from creval.metrics.base import results_frame
from creval.report.registry import ReportContext

CORPUS = Corpus([
    Verse("Ann", ("the cat sat on the mat", "the dog lay by the door")),
    Verse("Ann", ("a bird flew over the hill", "and sang")),
    Verse("Bob", ("x y z", "w v u")),
    Verse("Cy", ("only one verse here",)),  # Cy has no outputs at all
], name="toy")


def _results() -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(0)
    for artist, slope in (("Ann", 0.1), ("Bob", 0.0)):
        for n in range(1, 6):
            for j in range(3):
                base = {"system": "ngram", "output_id": f"{artist}-{n}-{j}", "input_id": f"{artist}:n{n}",
                        "sample": str(j), "checkpoint": float(n), "artist": artist}
                rows.append({**base, "measure": "rhyme_density_weighted", "value": 0.2 + slope * n})
                rows.append({**base, "measure": "max_similarity", "value": 0.1 * n + 0.01 * j})
                rows.append({**base, "measure": "length_tokens", "value": float(5 + n + j)})
                rows.append({**base, "measure": "ttr", "value": float(rng.random())})
    return results_frame(rows)


DENSITY = {"Ann": 0.5, "Bob": 0.3, "Cy": 0.4}


def test_run_analysis_end_to_end():
    res = run_analysis(_results(), corpus=CORPUS, artist_density=DENSITY, draws=20)
    fits = res.fits.set_index("artist")
    assert fits.loc["Ann", "crossing"] == pytest.approx(3.0)  # (0.5 − 0.2) / 0.1
    assert fits.loc["Ann", "similarity"] == pytest.approx(0.31)  # 0.1·3 + mean(0, .01, .02)
    assert fits.loc["Bob", "status"] == "zero-slope"
    assert fits.loc["Cy", "status"] == "no-outputs"
    assert set(res.ghostwriter["artist"]) == {"Ann", "Bob", "Cy"}
    s = res.structure.set_index("artist")
    assert s.loc["Ann", "gen_max_len"] == 12 and s.loc["Ann", "longest_share"] == pytest.approx(1.0)
    assert s.loc["Cy", "note"] == "no outputs"
    assert {"ttr", "max_similarity"} <= set(res.matrix.index)
    assert not res.corpus_correlations.empty
    pairs = set(res.nondeterministic["pair"])
    assert "random vs average" in pairs
    assert res.notes == []


def test_missing_measures_are_explained():
    res = _results()
    res = res[res["measure"].isin(["length_tokens", "ttr"])]
    out = run_analysis(res, corpus=CORPUS)
    assert any("no 'rhyme_density_weighted'" in n for n in out.notes)
    assert out.fits.empty
    ctx = ReportContext(results=res, corpus=CORPUS, corpus_stats=corpus_stats(CORPUS))
    html = ghostwriter_section(ctx)
    assert "rhyme_density" in html and "<svg" not in html


def test_sections_render():
    res = _results()
    ctx = ReportContext(results=res, corpus=CORPUS, corpus_stats=corpus_stats(CORPUS),
                        artifacts={"analysis": {"artist_density": DENSITY, "draws": 10}})
    gw = ghostwriter_section(ctx)
    assert gw.count("<svg") == 2  # Ann and Bob (Cy has no points to plot)
    assert "zero-slope" in gw and "no outputs" in gw and "Lower similarity wins" in gw
    assert "<table" in structure_section(ctx)
    corr = correlations_section(ctx)
    assert "<svg" in corr and "Against corpus statistics" in corr
    assert "random vs average" in nondeterministic_section(ctx)


def test_no_checkpoints_leaves_the_ghostwriter_section_out():
    res = _results()
    res["checkpoint"] = np.nan
    ctx = ReportContext(results=res, corpus=CORPUS, corpus_stats=corpus_stats(CORPUS))
    assert ghostwriter_section(ctx) is None


def test_write_analysis(tmp_path):
    res = run_analysis(_results(), corpus=CORPUS, artist_density=DENSITY, draws=5)
    write_analysis(res, tmp_path / "a", extra={"x.html": "<p>"})
    names = {p.name for p in (tmp_path / "a").iterdir()}
    assert {"ghostwriter.csv", "structure.csv", "correlations.csv", "nondeterministic.csv", "x.html"} <= names
    table = pd.read_csv(tmp_path / "a" / "ghostwriter.csv")
    assert table.loc[table["artist"] == "Ann", "ngram similarity"].iloc[0] == pytest.approx(0.31)


def _results_dir(tmp_path):
    out = tmp_path / "ev"
    out.mkdir()
    _results().to_csv(out / "results.csv", index=False)
    corpus_dir = tmp_path / "corpus"
    for artist in ("Ann", "Bob", "Cy"):
        (corpus_dir / artist).mkdir(parents=True)
        texts = [v.text for v in CORPUS if v.artist == artist]
        (corpus_dir / artist / "v.txt").write_text("\n\n".join(texts) + "\n")
    return out, corpus_dir


def test_cli_analyze(tmp_path):
    out, corpus_dir = _results_dir(tmp_path)
    ratings = tmp_path / "r.csv"
    pd.DataFrame([{"artist": "Ann", "system": "ngram", "output_id": f"Ann-{n}-{j}", "rating": n + j}
                  for n in range(1, 6) for j in range(3)]).to_csv(ratings, index=False)
    res = CliRunner().invoke(main, ["analyze", str(out), "--corpus", str(corpus_dir), "--ratings", str(ratings),
                                    "--draws", "10"])
    assert res.exit_code == 0, res.output
    folder = out / "analysis"
    html = (folder / "report.html").read_text()
    assert "Unique yet similar" in html and "<svg" in html
    nd = pd.read_csv(folder / "nondeterministic.csv")
    assert "human_rating" in set(nd["measure"])
    fits = pd.read_csv(folder / "ghostwriter_fits.csv")
    assert set(fits["artist"]) == {"Ann", "Bob", "Cy"}


def test_cli_analyze_bad_input(tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["analyze", str(tmp_path / "missing")])
    assert res.exit_code == 2 and "creval evaluate" in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(main, ["analyze", str(empty)])
    assert res.exit_code == 2 and "no results.parquet or results.csv" in res.output
    (empty / "results.csv").write_text("system,value\nx,1\n")
    res = runner.invoke(main, ["analyze", str(empty)])
    assert res.exit_code == 2 and "lacks column" in res.output and "results.csv:1" in res.output
    out, corpus_dir = _results_dir(tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("system,output_id\nngram,Ann-1-0\n")
    res = runner.invoke(main, ["analyze", str(out), "--ratings", str(bad)])
    assert res.exit_code == 2 and "rating" in res.output
    bad.write_text(json.dumps({"x": 1}))
    res = runner.invoke(main, ["analyze", str(out), "--window", "-1"])
    assert res.exit_code == 2 and "--window" in res.output
    assert not (out / "analysis").exists()


def test_artist_density_uses_the_results_signature():
    from creval.analysis.pipeline import _density_fn_for
    from creval.metrics.base import Signature
    from creval.rhyme.density import rhyme_density

    text = "the cat sat on the mat\nthe rat sat on the hat"
    paper = _density_fn_for({})(text)
    assert paper == pytest.approx(rhyme_density(text).rhyme_density_weighted)
    sig = Signature("rhyme_density_weighted", {"weighting": "normalised", "threshold": 0.75, "max_offset": 64})
    expected = rhyme_density(text, weighting="normalised").rhyme_density_weighted
    assert expected != pytest.approx(paper)
    assert _density_fn_for({"rhyme_density_weighted": sig})(text) == pytest.approx(expected)
    assert _density_fn_for({"rhyme_density_weighted": sig.as_dict()})(text) == pytest.approx(expected)
    assert _density_fn_for({"rhyme_density_weighted": str(sig)})(text) == pytest.approx(expected)


def test_integration_with_the_registered_measures():
    """Baselines → creval.evaluate (rhyme_density, uniqueness, length) → analysis, on a tiny corpus."""
    from creval.analysis.ghostwriter import STATUS_TEXT
    from creval.analysis.ngram import generate_baselines
    from creval.api import evaluate_full
    from creval.demo import load_demo_corpus

    demo = load_demo_corpus()
    small = Corpus([v for a in demo.artists[:2] for v in demo.for_artist(a).verses[:15]], name="small")
    outputs = generate_baselines(small, orders=range(1, 5), per_order=2, seed=0)
    ev = evaluate_full(small, outputs, ["rhyme_density", "uniqueness", "length"])
    res = run_analysis(ev.results, corpus=small, corpus_stats=ev.corpus_stats, signatures=ev.signatures, draws=5)
    assert res.notes == []
    assert len(res.fits) == 2 and set(res.fits["status"]) <= set(STATUS_TEXT)
    assert res.fits["density_slope"].notna().all() and res.fits["similarity_slope"].notna().all()
    assert all(np.isfinite(v) for v in res.artist_density.values())
    assert len(res.structure) == 2
