"""Run every analysis over one evaluation: :func:`run_analysis` → :class:`AnalysisResult` (tables + notes).

The report sections (:mod:`creval.analysis.sections`) and ``creval analyze`` both call this; it reads only the
tidy results table, the corpus (for the artists' own rhyme density), corpus statistics, the outputs (verse
lengths when the results lack ``length_tokens``) and optional human ratings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.corpus.model import Corpus, Output


@dataclass
class AnalysisResult:
    """Every table the analyses produced (empty frames where an analysis had nothing to work on) and notes
    saying why something is missing."""

    fits: pd.DataFrame
    ghostwriter: pd.DataFrame
    series: pd.DataFrame
    structure: pd.DataFrame
    length_correlation: pd.DataFrame
    correlations: pd.DataFrame
    correlations_aggregate: pd.DataFrame
    corpus_correlations: pd.DataFrame
    matrix: pd.DataFrame
    nondeterministic: pd.DataFrame
    diversity: pd.DataFrame
    artist_density: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {
            "ghostwriter": self.ghostwriter,
            "ghostwriter_fits": self.fits,
            "ghostwriter_points": self.series,
            "structure": self.structure,
            "length_correlation": self.length_correlation,
            "correlations": self.correlations,
            "correlations_artist_system": self.correlations_aggregate,
            "corpus_correlations": self.corpus_correlations,
            "correlation_matrix": self.matrix.reset_index(names="measure"),
            "nondeterministic": self.nondeterministic,
            "sample_diversity": self.diversity,
        }


def _density_fn_for(signatures: Mapping[str, Any] | None) -> Callable[[str], float] | None:
    """The rhyme-density function with the parameters (``weighting``, ``threshold``, ``max_offset``) the
    results were computed with, read from their signature (a Signature, its ``as_dict()``, or its string)."""
    from creval.analysis.ghostwriter import DENSITY, _density_value

    try:
        from creval.rhyme.density import rhyme_density
    except ImportError:
        return None
    sig = (signatures or {}).get(DENSITY)
    params: Mapping[str, Any] = {}
    if sig is not None:
        params = getattr(sig, "params", None) or {}
        if not params and isinstance(sig, Mapping):
            params = sig.get("params") or {}
        if not params and isinstance(sig, str):
            params = dict(part.split(":", 1) for part in sig.split("|")[1:] if ":" in part)
    kwargs: dict[str, Any] = {}
    if params.get("weighting") in ("paper", "normalised"):
        kwargs["weighting"] = str(params["weighting"])
    for key, cast in (("threshold", float), ("max_offset", int)):
        if key in params:
            try:
                kwargs[key] = cast(params[key])
            except (TypeError, ValueError):
                pass
    return lambda text: _density_value(rhyme_density(text, **kwargs))


def run_analysis(results: pd.DataFrame, *, corpus: Corpus | None = None, corpus_stats: pd.DataFrame | None = None,
                 outputs: Sequence[Output] | None = None, ratings: pd.DataFrame | None = None,
                 artist_density: Mapping[str, float] | None = None, signatures: Mapping[str, Any] | None = None,
                 window: float = 0.0, draws: int = 100, seed: int = 0,
                 measures: Sequence[str] | None = None) -> AnalysisResult:
    """All analyses of issue 5 over one results table (see each module for the definitions).

    ``artist_density`` overrides the artists' own average rhyme density (otherwise computed from ``corpus``
    with :func:`creval.rhyme.density.rhyme_density`). ``measures`` limits the correlations to these measures.
    """
    import pandas as pd

    from creval.analysis import correlations as corr
    from creval.analysis import ghostwriter as gw
    from creval.analysis import nondeterministic as nd
    from creval.analysis import structure as st

    notes: list[str] = []
    if corpus_stats is None and corpus is not None:
        from creval.corpus.stats import corpus_stats as _stats

        corpus_stats = _stats(corpus)

    # 1. unique yet similar
    have_density = bool((results["measure"] == gw.DENSITY).any())
    have_ckpt = bool(results["checkpoint"].notna().any())
    densities: dict[str, float] = dict(artist_density or {})
    if not have_ckpt:
        notes.append("unique yet similar: no output has a checkpoint (training iteration or n-gram order)")
    elif not have_density:
        notes.append(f"unique yet similar: the results have no {gw.DENSITY!r} values "
                     "(run the rhyme_density measure)")
    if not (results["measure"] == gw.SIMILARITY).any() and have_ckpt:
        notes.append(f"unique yet similar: the results have no {gw.SIMILARITY!r} values (run the uniqueness "
                     "measure); similarity at the crossing is undefined")
    if have_ckpt and have_density and artist_density is None:
        if corpus is None:
            notes.append("unique yet similar: no corpus, so the artists' own rhyme density is unknown")
        else:
            fn = _density_fn_for(signatures)
            if fn is None:
                notes.append("unique yet similar: creval.rhyme.density is not available")
            else:
                densities = gw.artist_rhyme_density(corpus, fn)
    if have_ckpt and have_density:
        known_artists = list(corpus.artists) if corpus is not None else []
        extra = [str(a) for a in results.loc[results["checkpoint"].notna(), "artist"].dropna().unique()]
        for a in [*known_artists, *extra]:
            densities.setdefault(a, math.nan)
        fits = gw.unique_yet_similar(results, densities)
        series = gw.checkpoint_series(results, window=window)
    else:
        fits = pd.DataFrame(columns=list(gw.GhostwriterFit.__dataclass_fields__))
        series = pd.DataFrame(columns=["artist", "system", "checkpoint", "density", "similarity"])
    table = gw.ghostwriter_table(fits)

    # 3. structure
    lengths = st.lengths_from_results(results)
    if lengths.empty and outputs:
        lengths = st.output_lengths(outputs)
    if corpus_stats is not None and not lengths.empty:
        structure = st.verse_structure(lengths, corpus_stats)
        length_corr = st.length_correlation(structure)
    else:
        structure = pd.DataFrame(columns=st.STRUCTURE_COLUMNS)
        length_corr = pd.DataFrame(columns=["system", *corr.CORR_COLUMNS[2:]])
        notes.append("structure: needs verse lengths (length measure or outputs) and corpus statistics")

    # 4. correlations
    human = None
    if ratings is not None:
        human = nd.ratings_as_results(ratings, results)
    full = pd.concat([results, human], ignore_index=True) if human is not None else results
    pairs = corr.measure_correlations(full, measures)
    pairs_agg = corr.measure_correlations(full, measures, level="artist-system")
    matrix = corr.correlation_matrix(full, measures)
    if corpus_stats is not None:
        corpus_corr = corr.corpus_correlations(full, corpus_stats, measures)
    else:
        corpus_corr = pd.DataFrame(columns=["system", "measure", "statistic", *corr.CORR_COLUMNS[2:]])
        notes.append("correlations with corpus statistics: no corpus")

    # 5. nondeterministic systems
    ndt = nd.nondeterministic_correlations(full, measures, draws=draws, seed=seed)
    diversity = nd.sample_diversity(results)
    return AnalysisResult(fits=fits, ghostwriter=table, series=series, structure=structure,
                          length_correlation=length_corr, correlations=pairs, correlations_aggregate=pairs_agg,
                          corpus_correlations=corpus_corr, matrix=matrix, nondeterministic=ndt, diversity=diversity,
                          artist_density=densities, notes=notes)


def write_analysis(result: AnalysisResult, out_dir: str | Path, extra: Mapping[str, str] | None = None) -> Path:
    """Write every table as CSV (plus ``notes.txt`` and the ``extra`` text files, e.g. a report) into
    ``out_dir``, all or nothing."""
    from creval.corpus.io import atomic_directory

    out_dir = Path(out_dir)
    with atomic_directory(out_dir) as tmp:
        for name, frame in result.tables().items():
            frame.to_csv(tmp / f"{name}.csv", index=False)
        (tmp / "notes.txt").write_text("".join(f"{n}\n" for n in result.notes), "utf-8")
        for name, text in (extra or {}).items():
            (tmp / name).write_text(text, "utf-8")
    return out_dir
