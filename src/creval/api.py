"""The front doors: :func:`evaluate` (the main job) and :func:`run_evaluations` (the lyrics-paper dictionary).

:func:`evaluate` reads a corpus and a generations file, runs every requested measure (``fit`` once on the
corpus, ``score`` on all outputs), and returns the tidy results table — one row per output × measure with the
columns ``system, output_id, input_id, sample, checkpoint, artist, measure, value``. With ``out`` it also
writes ``results.csv``, ``results.parquet``, ``summary.csv``, ``signatures.json``, ``corpus_stats.csv``,
``notes.txt`` and ``report.html`` into that directory, all or nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.corpus.model import Corpus, Output
from creval.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.metrics.base import Signature


@dataclass
class Evaluation:
    """Everything one run of :func:`evaluate_full` produced."""

    results: pd.DataFrame
    summary: pd.DataFrame
    signatures: dict[str, Signature] = field(default_factory=dict)
    artifacts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    corpus: Corpus | None = None
    outputs: list[Output] = field(default_factory=list)
    corpus_stats: pd.DataFrame | None = None


def _load_inputs(
    corpus: Corpus | str | Path | None, generations: Sequence[Output] | str | Path, encoding: str
) -> tuple[Corpus | None, list[Output]]:
    from creval.corpus.io import read_corpus, read_generations

    if isinstance(corpus, (str, Path)):
        corpus = read_corpus(corpus, encoding=encoding)
    if isinstance(generations, (str, Path)):
        outputs = read_generations(generations, encoding=encoding)
    else:
        outputs = list(generations)
        seen: set[str] = set()
        for out in outputs:
            if out.id in seen:
                raise InputError(f"duplicate output id {out.id!r}")
            seen.add(out.id)
        if not outputs:
            raise InputError("no outputs to evaluate")
    return corpus, outputs


def _select_measures(measures: Sequence[str] | None, have_corpus: bool = True) -> tuple[list[str], list[str]]:
    """The measures to run, and notes. With no explicit list: every default measure, less those that need a
    corpus when there is none (said in a note); an explicit list is taken as it is."""
    from creval.metrics.base import default_measures, get_measure

    notes: list[str] = []
    if measures:
        names = list(measures)
    else:
        names = default_measures()
        if not have_corpus:
            skipped = [n for n in names if get_measure(n).needs_corpus]
            names = [n for n in names if n not in skipped]
            if skipped:
                notes.append(f"no corpus given: left out the measures that need one ({', '.join(skipped)})")
    for name in names:
        get_measure(name)  # raises a clear InputError for an unknown name
    return list(dict.fromkeys(names)), notes


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Per system × measure: n (defined values), mean, std (ddof=1), median, min, max, and NaN count."""
    import pandas as pd

    if results.empty:
        return pd.DataFrame(columns=["system", "measure", "n", "mean", "std", "median", "min", "max", "undefined"])
    grouped = results.groupby(["system", "measure"], sort=True, observed=True)["value"]
    summary = grouped.agg(["count", "mean", "std", "median", "min", "max"]).reset_index()
    summary["undefined"] = grouped.apply(lambda s: int(s.isna().sum())).to_numpy()
    return summary.rename(columns={"count": "n"})


def evaluate_full(
    corpus: Corpus | str | Path | None,
    generations: Sequence[Output] | str | Path,
    measures: Sequence[str] | None = None,
    *,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    encoding: str = "utf-8",
    report: bool = True,
) -> Evaluation:
    """Run the main job and return an :class:`Evaluation` (see :func:`evaluate` for the arguments)."""
    import numpy as np

    from creval.metrics.base import get_measure, results_frame

    params = dict(params or {})
    if out is not None:
        from creval.corpus.io import check_output_directory

        check_output_directory(out)
    names, notes = _select_measures(measures, have_corpus=corpus is not None)
    unknown_params = set(params) - set(names)
    if unknown_params:
        raise InputError(f"parameters given for measures that are not run: {', '.join(sorted(unknown_params))}")
    corpus, outputs = _load_inputs(corpus, generations, encoding)

    rows: list[dict[str, Any]] = []
    signatures: dict[str, Signature] = {}
    artifacts: dict[str, Any] = {}
    meta = [
        {
            "system": o.system,
            "output_id": o.id,
            "input_id": o.input_id,
            "sample": o.sample,
            "checkpoint": o.checkpoint,
            "artist": o.artist,
        }
        for o in outputs
    ]
    with _Progress(progress, total=len(names)) as bar:
        for name in names:
            bar.describe(f"{name}")
            cls = get_measure(name)
            try:
                measure = cls(**dict(params.get(name, {})))
            except (TypeError, ValueError) as exc:
                raise InputError(f"bad parameters for measure {name!r}: {exc}") from None
            if cls.needs_corpus:
                if corpus is None:
                    raise InputError(f"measure {name!r} needs a corpus (--corpus)")
                measure.fit(corpus)
            result = measure.score(outputs)
            for reported, values in result.values.items():
                values = np.asarray(values, dtype=float)
                if values.shape != (len(outputs),):
                    raise RuntimeError(
                        f"measure {name!r} returned {values.shape} values for {reported!r}, "
                        f"expected {len(outputs)}"
                    )
                if reported in signatures and reported not in result.signatures:
                    raise RuntimeError(f"measure {name!r} reported {reported!r} without a signature")
                if reported in signatures:
                    raise InputError(
                        f"two of the requested measures both report {reported!r}; request only one of them"
                    )
                for m, v in zip(meta, values):
                    rows.append({**m, "measure": reported, "value": float(v)})
            for row in result.rows:
                rows.append({col: row.get(col) for col in _tidy_columns()})
            missing_sig = (set(result.values) | {r.get("measure") for r in result.rows}) - set(result.signatures)
            if missing_sig:
                raise RuntimeError(f"measure {name!r} gave no signature for {sorted(missing_sig)}")
            signatures.update(result.signatures)
            if result.artifacts:
                artifacts[name] = result.artifacts
            notes.extend(f"{name}: {note}" for note in result.notes)
            bar.advance()

    results = results_frame(rows)
    summary = summarise(results)
    stats = None
    if corpus is not None:
        from creval.corpus.stats import corpus_stats

        stats = corpus_stats(corpus)
    evaluation = Evaluation(
        results=results,
        summary=summary,
        signatures=signatures,
        artifacts=artifacts,
        notes=notes,
        corpus=corpus,
        outputs=outputs,
        corpus_stats=stats,
    )
    results.attrs["signatures"] = {k: str(v) for k, v in signatures.items()}
    if out is not None:
        write_evaluation(evaluation, out, report=report)
    return evaluation


def _tidy_columns() -> tuple[str, ...]:
    from creval.metrics.base import TIDY_COLUMNS

    return TIDY_COLUMNS


def evaluate(
    corpus: Corpus | str | Path | None,
    generations: Sequence[Output] | str | Path,
    measures: Sequence[str] | None = None,
    *,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    encoding: str = "utf-8",
) -> pd.DataFrame:
    """Evaluate generated outputs against a corpus; return the tidy results table.

    Parameters
    ----------
    corpus:
        A :class:`~creval.corpus.model.Corpus` or a path in any corpus format (see :mod:`creval.corpus.io`).
        May be None when no requested measure needs one.
    generations:
        Outputs, or the path of a generations JSONL file.
    measures:
        Registered measure names (``creval evaluate --list-measures``); default: every default measure.
    params:
        Per-measure keyword parameters, e.g. ``{"ttr": {"tokenizer": "char"}}``.
    out:
        When given, write the results, summary, signatures and ``report.html`` into this directory (all or
        nothing: the directory appears only when everything was written).

    The table's ``attrs["signatures"]`` maps each reported measure to its signature string.
    """
    return evaluate_full(
        corpus, generations, measures, params=params, out=out, progress=progress, encoding=encoding
    ).results


def write_evaluation(
    evaluation: Evaluation,
    out: str | Path,
    *,
    report: bool = True,
    extra: Callable[[Path], None] | None = None,
) -> Path:
    """Write an evaluation's files into ``out`` atomically (see module docstring); ``extra(folder)`` may add
    more files to the folder before it is moved into place."""
    from creval.corpus.io import atomic_directory

    out = Path(out)
    with atomic_directory(out) as tmp:
        evaluation.results.to_csv(tmp / "results.csv", index=False)
        evaluation.results.to_parquet(tmp / "results.parquet", index=False)
        evaluation.summary.to_csv(tmp / "summary.csv", index=False)
        sigs = {k: v.as_dict() for k, v in sorted(evaluation.signatures.items())}
        (tmp / "signatures.json").write_text(json.dumps(sigs, indent=2, ensure_ascii=False) + "\n", "utf-8")
        if evaluation.corpus_stats is not None:
            evaluation.corpus_stats.to_csv(tmp / "corpus_stats.csv", index=False)
        (tmp / "notes.txt").write_text("".join(f"{n}\n" for n in evaluation.notes), "utf-8")
        if report:
            from creval.report.html import build_report

            build_report(evaluation, tmp / "report.html")
        if extra is not None:
            extra(tmp)
    return out


class _Progress:
    """A rich progress bar over measures, or nothing when ``enabled`` is False."""

    def __init__(self, enabled: bool, total: int) -> None:
        self.enabled = enabled
        self.total = total
        self._progress = None
        self._task = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("[bold]evaluating[/] {task.description:<24}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("", total=self.total)
        return self

    def describe(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=text)

    def advance(self) -> None:
        if self._progress is not None:
            self._progress.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description="done")
            self._progress.__exit__(*exc)
