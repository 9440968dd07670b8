"""Exports of a study: tidy judgements (CSV/JSONL), unit x rater matrices, the design (JSON), the event log.

Tidy judgements have one row per judgement (a line's fluency, a page's choice, an output's rating, an
output's HER) with the columns :data:`TIDY_COLUMNS`; type-specific extras (candidate positions, per-line HER,
the edited text...) are in ``extra`` (a JSON object in the CSV, merged into the row in JSONL).

A unit x rater matrix (:func:`matrix`) has one row per unit (what agreement is computed over: a line, a page,
an output) and one column per annotator, empty where that annotator did not judge that unit: the layout
Fleiss' kappa and ICC take (Krippendorff's alpha takes its transpose).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from creval.human import designs
from creval.human.config import StudyConfig

TIDY_COLUMNS = ("study", "study_type", "page", "unit", "item", "annotator", "condition", "criterion", "value",
                "system", "artist", "input_id", "seconds", "submitted_at", "extra")

CRITERIA = {
    "fluency_coherence": ("fluency", "coherence"),
    "style_matching": ("choice", "correct"),
    "challenge_response": ("fluency", "rhyming"),
    "side_by_side": ("rating",),
    "post_editing": ("her",),
}


def criteria_of(study_type: str) -> tuple[str, ...]:
    return CRITERIA[study_type]


def tidy_rows(store, study: str | int) -> list[dict[str, Any]]:
    """One dict per judgement of the study (accepted responses only)."""
    st = store.study(study)
    cfg = StudyConfig.model_validate_json(st["config"])
    her_settings = cfg.her.model_dump()
    out = []
    for r in store.responses(study):
        for j in designs.judgements(st["type"], r["display"], r["hidden"], r["answer"], her_settings,
                                    task_key=r["key"]):
            base = {"study": st["name"], "study_type": st["type"], "page": r["key"], "unit": j.pop("unit"),
                    "item": j.pop("item"), "annotator": r["annotator"], "condition": r["condition"],
                    "criterion": j.pop("criterion"), "value": j.pop("value"), "system": j.pop("system"),
                    "artist": j.pop("artist"), "input_id": j.pop("input_id"), "seconds": r["seconds"],
                    "submitted_at": r["submitted_at"]}
            if st["type"] == "style_matching":
                out.append({**base, "extra": dict(j)})
                out.append({**base, "criterion": "correct", "value": j["correct"], "extra": dict(j)})
                continue
            base["extra"] = j
            out.append(base)
    return out


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TIDY_COLUMNS)
    for r in rows:
        w.writerow(["" if r.get(c) is None else (json.dumps(r[c], ensure_ascii=False) if c == "extra"
                                                  else r[c]) for c in TIDY_COLUMNS])
    return buf.getvalue()


def to_jsonl(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        d = {k: v for k, v in r.items() if k != "extra"}
        d.update(r.get("extra") or {})
        lines.append(json.dumps(d, ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")


def matrix(rows: list[dict], criterion: str) -> tuple[list[str], list[str], list[list[Any]]]:
    """``(units, raters, cells)`` for one criterion; ``cells[u][r]`` is the value or None."""
    sel = [r for r in rows if r["criterion"] == criterion]
    units = list(dict.fromkeys(r["unit"] for r in sel))
    raters = sorted({r["annotator"] for r in sel})
    ui = {u: i for i, u in enumerate(units)}
    ri = {a: i for i, a in enumerate(raters)}
    cells: list[list[Any]] = [[None] * len(raters) for _ in units]
    for r in sel:
        cells[ui[r["unit"]]][ri[r["annotator"]]] = r["value"]
    return units, raters, cells


def matrix_csv(rows: list[dict], criterion: str) -> str:
    units, raters, cells = matrix(rows, criterion)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["unit", *raters])
    for u, row in zip(units, cells):
        w.writerow([u, *["" if v is None else v for v in row]])
    return buf.getvalue()


def design(store, study: str | int) -> dict:
    """A JSON description of the study design: config, pages (with hidden parts), units and assignment plan."""
    st = store.study(study)
    cfg = json.loads(st["config"])
    tasks = store.tasks(study)
    return {
        "study": st["name"], "type": st["type"], "title": st["title"], "k": st["k"],
        "lease_seconds": st["lease_seconds"], "config": cfg, "criteria": list(criteria_of(st["type"])),
        "scales": {"fluency": dict((v, lab) for v, lab in designs.FLUENCY_SCALE),
                   "coherence": dict((v, lab) for v, lab in designs.COHERENCE_SCALE),
                   "good_acceptable_bad": dict((v, lab) for v, lab in designs.GAB_SCALE),
                   "rating": list(designs.RATING_SCALE)},
        "pages": [{"page": t["key"], "position": t["position"], "units": t["units"], "hidden": t["hidden"],
                   "done": t["done_count"]} for t in tasks],
        "plan": store.plan_rows(study) if st["has_plan"] else None,
    }


def event_rows(store, study: str | int) -> list[dict]:
    out = []
    for e in store.events(study):
        d = dict(e)
        d["payload"] = json.loads(d["payload"])
        out.append(d)
    return out


def write_exports(store, study: str, out_dir: str | Path) -> list[Path]:
    """Write every export of a study into ``out_dir`` (atomically, file by file); return the paths."""
    from creval.corpus.io import atomic_write

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    st = store.study(study)
    rows = tidy_rows(store, study)
    files: dict[str, str] = {
        "judgements.csv": to_csv(rows),
        "judgements.jsonl": to_jsonl(rows),
        "design.json": json.dumps(design(store, study), indent=2, ensure_ascii=False) + "\n",
        "events.jsonl": to_jsonl(event_rows(store, study)),
    }
    for c in criteria_of(st["type"]):
        files[f"matrix_{c}.csv"] = matrix_csv(rows, c)
    written = []
    for name, content in files.items():
        path = out_dir / f"{st['name']}_{name}"
        with atomic_write(path) as fh:
            fh.write(content)
        written.append(path)
    return written
