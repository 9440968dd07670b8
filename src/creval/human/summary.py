"""Results of a study: scores per system and agreement statistics, as tables for the results page and CLI.

Scores:

- every study: the mean value and count of each criterion per system (and per guidelines condition when the
  study split annotators into with/without examples), computed from the tidy judgements;
- the study-specific scores of :mod:`creval.human.results`: fluency/coherence (Potash eq. 1), style-matching
  Match%, Match_A% and artist confusion, the acceptable share (Addanki & Wu), HER per system and per line.

Agreement (:mod:`creval.agreement`), over the unit x rater matrices of :mod:`creval.human.export`:

- categorical criteria (fluency, coherence, choice, good/acceptable/bad): Fleiss' kappa and nominal
  Krippendorff's alpha; ordinal scales also get ordinal alpha;
- 1-5 ratings (side-by-side): ICC(2,1) (two-way random, single rater) over the units every rater rated, or
  ICC(1,1) (one-way random; Shrout & Fleiss case 1) when each unit has its own raters, interval alpha and the mean
  Kendall tau-b between assessors over the outputs of a page (Wu et al.);
- HER (post-editing): interval alpha and ICC (as for ratings) when outputs were edited by two or more annotators.

A statistic that is undefined for the data (one rater per unit, every rating the same) is shown with its reason.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from creval.human.export import criteria_of, matrix, tidy_rows

ORDINAL = {"fluency", "coherence", "rhyming"}


def _fmt_stat(res: Any) -> tuple[Any, Any, str]:
    value = float(getattr(res, "value", math.nan))
    n = getattr(res, "n", "")
    defined = getattr(res, "defined", not math.isnan(value))
    note = getattr(res, "interpretation", None) or ""
    if not defined:
        note = f"undefined: {getattr(res, 'reason', '')}"
    return (value if defined else "—"), n, note


def _agreement_rows(rows: list[dict], study_type: str) -> list[list[Any]]:
    from creval.agreement import alpha, kappa

    out: list[list[Any]] = []
    for crit in criteria_of(study_type):
        if crit == "correct":
            continue
        units, raters, cells = matrix(rows, crit)
        if not units:
            continue
        if crit in ("rating", "her"):
            import numpy as np

            arr = np.array([[math.nan if v is None else float(v) for v in row] for row in cells], dtype=float)
            out.append([crit, "Krippendorff's alpha (interval)", *_safe(lambda arr=arr: alpha.krippendorff_alpha(
                arr.T, level="interval"))])
            from creval.agreement.icc import icc

            complete = arr[~np.isnan(arr).any(axis=1)]
            if len(complete) >= 2:
                # the same raters rated these units: two-way random effects, single rater
                out.append([crit, "ICC(2,1)", *_safe(lambda arr=complete: icc(arr)["ICC(2,1)"])])
            else:
                # different raters per unit (pair-balanced designs): Shrout & Fleiss case 1, one-way random
                # effects, on the units' ratings in slots (rater identity ignored), units with the modal count
                per_unit = [row[~np.isnan(row)] for row in arr]
                m_ = max((len(r) for r in per_unit), default=0)
                slots = np.array([r[:m_] for r in per_unit if len(r) == m_ and m_ >= 2], dtype=float)
                out.append([crit, "ICC(1,1) (different raters per unit)",
                            *_safe(lambda arr=slots: icc(arr)["ICC(1,1)"])])
            if crit == "rating":
                from creval.agreement.rank import kendall_tau_pages

                data = [{"page": r["page"], "assessor": r["annotator"], "item": r["unit"], "score": r["value"]}
                        for r in rows if r["criterion"] == "rating"]
                out.append([crit, "Kendall tau-b between assessors per page (mean)",
                             *_safe(lambda data=data: kendall_tau_pages(data))])
            continue
        labels = [[None if v is None else str(v) for v in row] for row in cells]
        out.append([crit, "Fleiss' kappa", *_safe(lambda labels=labels: kappa.fleiss_kappa(labels))])
        out.append([crit, "Krippendorff's alpha (nominal)",
                    *_safe(lambda labels=labels: alpha.krippendorff_alpha(
                        [list(c) for c in zip(*labels)], level="nominal"))])
        if crit in ORDINAL:
            import numpy as np

            arr = np.array([[math.nan if v is None else float(v) for v in row] for row in cells], dtype=float)
            out.append([crit, "Krippendorff's alpha (ordinal)",
                        *_safe(lambda arr=arr: alpha.krippendorff_alpha(arr.T, level="ordinal"))])
            if study_type == "challenge_response":
                out.append([crit, "Fleiss' kappa, acceptable vs bad (Addanki & Wu)",
                            *_safe(lambda labels=labels: kappa.fleiss_kappa(
                                labels, collapse={"2": "acceptable", "1": "acceptable", "0": "bad"}))])
    return out


def _safe(fn) -> tuple[Any, Any, str]:
    from creval.errors import CrevalError

    try:
        return _fmt_stat(fn())
    except (CrevalError, ValueError, ZeroDivisionError) as exc:
        return "—", "", f"undefined: {exc}"


def _score_rows(rows: list[dict], by_condition: bool) -> list[list[Any]]:
    acc: dict[tuple, list[float]] = defaultdict(list)
    for r in rows:
        if r["criterion"] == "choice":
            continue
        key = (r["system"], r["condition"] if by_condition else "", r["criterion"])
        acc[key].append(float(r["value"]))
    out = []
    for (system, cond, crit), vals in sorted(acc.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        mean = sum(vals) / len(vals)
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else "—"
        row = [system, crit, mean, sd, len(vals)]
        if by_condition:
            row.insert(1, cond)
        out.append(row)
    return out


def _table(title: str, frame: Any, index: bool = True) -> dict:
    if index and (frame.index.name is not None or any(n is not None for n in frame.index.names)):
        frame = frame.reset_index()
    elif index and title.startswith("Artist confusion"):
        frame = frame.reset_index().rename(columns={"index": "artist"})
    return {"title": title, "columns": [str(c) for c in frame.columns],
            "rows": [[_plain(v) for v in row] for row in frame.itertuples(index=False)]}


def _study_specific(study_type: str, rows: list[dict], texts: dict[str, list[str]]) -> tuple[list[dict], list[str]]:
    """Tables from :mod:`creval.human.results` (the study-specific scores of each paper)."""
    import pandas as pd

    from creval.human import results as R

    flat = []
    for r in rows:
        d = {k: v for k, v in r.items() if k != "extra"}
        d.update(r.get("extra") or {})
        flat.append(d)
    frame = pd.DataFrame(flat)
    tables: list[dict] = []
    notes: list[str] = []
    try:
        if study_type == "fluency_coherence":
            scores = R.fluency_coherence_scores(frame, texts=texts)
            tables.append(_table("Fluency and coherence per system (Potash et al. eq. 1: strong 1, weak 0.5; "
                                 "mean over verses)", R.fluency_coherence_summary(scores)))
        elif study_type == "style_matching":
            tables.append(_table("Style matching per system (match = Match%/100, match_agreed = Match_A%/100)",
                                 R.style_matching(frame, by="system")))
            tables.append(_table("Artist confusion (symmetric, Potash et al.)",
                                 R.artist_confusion(frame, options="candidate_artists")))
        elif study_type == "challenge_response":
            by = ["system", "criterion"] + (["condition"] if frame["condition"].nunique() > 1 else [])
            tables.append(_table("Acceptable or better (Addanki & Wu)", R.acceptable_share(frame, by=by)))
        elif study_type == "post_editing":
            tables.append(_table("HER per system", R.her_summary(frame)))
            tables.append(_table("HER per line position", R.her_per_line(frame)))
    except Exception as exc:  # a scoring function's refusal must not take the results page down
        notes.append(f"study scores could not be computed: {exc.__class__.__name__}: {exc}")
    return tables, notes


def _plain(v: Any) -> Any:
    try:
        import numpy as np

        if isinstance(v, np.generic):
            return v.item()
    except ImportError:  # pragma: no cover
        pass
    return v


def study_results(store, study: str | int) -> dict[str, Any]:
    """Everything the results page shows: ``{responses, judgements, raters, tables, notes}``."""
    st = store.study(study)
    rows = tidy_rows(store, study)
    responses = len({(r["page"], r["annotator"]) for r in rows})
    raters = len({r["annotator"] for r in rows})
    tables: list[dict] = []
    notes: list[str] = []
    if not rows:
        notes.append("no judgements yet")
        return {"study": st["name"], "type": st["type"], "responses": 0, "judgements": 0, "raters": 0,
                "tables": tables, "notes": notes}
    by_condition = len({r["condition"] for r in rows}) > 1
    cols = ["system", "criterion", "mean", "sd", "n"]
    if by_condition:
        cols.insert(1, "guidelines")
    tables.append({"title": "Mean judgement per system", "columns": cols, "rows": _score_rows(rows, by_condition)})
    texts = {t["hidden"].get("item"): t["display"]["lines"] for t in store.tasks(study)} \
        if st["type"] == "fluency_coherence" else {}
    extra, extra_notes = _study_specific(st["type"], rows, texts)
    tables.extend(extra)
    notes.extend(extra_notes)
    tables.append({"title": "Agreement", "columns": ["criterion", "statistic", "value", "n", "note"],
                   "rows": _agreement_rows(rows, st["type"])})
    if by_condition:
        for cond in sorted({r["condition"] for r in rows}):
            sub = [r for r in rows if r["condition"] == cond]
            tables.append({"title": f"Agreement, guidelines {cond.replace('_', ' ')}",
                           "columns": ["criterion", "statistic", "value", "n", "note"],
                           "rows": _agreement_rows(sub, st["type"])})
    return {"study": st["name"], "type": st["type"], "responses": responses, "judgements": len(rows),
            "raters": raters, "tables": tables, "notes": notes}
