"""Study designs: the items file of each study type, its validation, and how items become annotation pages.

Items files are JSONL (one JSON object per line, UTF-8; blank lines are ignored). Extra keys are refused so a
typo never goes unnoticed. ``id`` values must be unique within a file. ``system`` names never reach an
annotator's page: they are kept in the page's hidden part and only appear in exports and results.

1. ``fluency_coherence`` (Potash et al. 2015/2018, line-level fluency and coherence)::

       {"id": "v1", "system": "lstm", "text": "first line\\nsecond line", "artist": "Eminem"}

   ``text`` (lines separated by newlines) or ``lines`` (a list of strings); optional ``artist``, ``input_id``.
   One page per verse; on it each line is rated for fluency (``2`` strongly, ``1`` weakly, ``0`` not fluent)
   and each line after the first for coherence with the line before (same scale). Units: ``v1:L1``, ``v1:L2``...

2. ``style_matching`` (Potash et al.): two roles in one file::

       {"id": "g1", "role": "evaluated", "artist": "Eminem", "text": "...", "system": "lstm"}
       {"id": "c1", "role": "candidate", "artist": "Eminem", "text": "..."}

   ``evaluated`` rows are the verses to judge (``system`` names the generator; use ``"system": "human"`` for an
   authentic control verse); ``candidate`` rows are authentic verses of every artist to draw candidates from
   (at least one per artist, two for an artist whose authentic verse is also evaluated). Each evaluated verse
   gets ``ceil((A - 1) / 3)`` pages for A artists (13 artists: 4 pages) showing it with four candidates: one
   verse of the target artist and three of other artists, so that across its pages it meets every other
   artist (see :func:`style_pages`). Unit: the page; the answer is the chosen candidate.

3. ``challenge_response`` (Addanki & Wu 2013)::

       {"id": "r1", "system": "fst", "challenge": "a challenge line", "response": "the system's response"}

   Rated for ``fluency`` and ``rhyming`` on ``2`` good / ``1`` acceptable / ``0`` bad. Unit: the item.

4. ``side_by_side`` (Wu et al. 2018)::

       {"id": "p1", "context": "a mountain at dusk", "image": "img/p1.png",
        "outputs": [{"system": "a", "text": "..."}, {"system": "b", "text": "..."}]}

   ``context`` and/or ``image`` (a PNG/JPEG/GIF/WebP/SVG file relative to the items file; it is embedded in
   the database, so the server needs no file access); two or more ``outputs`` with distinct systems. Each
   output is rated 1-5. The order of systems on the pages follows a Williams square (every system in every
   position and after every other system equally often), shown with neutral labels A, B, C...; pages are
   assigned to assessors with :func:`assign_pages`. Units: ``p1:<system>``.

5. ``post_editing`` (Kalonaris & Aljanaki, HER)::

       {"id": "e1", "system": "gpt", "text": "the generated lyric", "source": "optional prompt"}
       {"id": "m1", "system": "mt", "kind": "music", "notation": "C4 D4 E4", "format": "notes"}

   ``kind`` is ``text`` (default; the annotator edits ``text``) or ``music`` (the annotator edits the
   ``notation`` string; its tokenizer is looked up in :data:`EDIT_TOKENIZERS`, which the music module fills
   in). HER per output and per line is computed at export time with :func:`creval.editrate.her`.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import mimetypes
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.errors import InputError

# Labels and values of the scales (value stored, label shown).
FLUENCY_SCALE = ((2, "strongly fluent"), (1, "weakly fluent"), (0, "not fluent"))
COHERENCE_SCALE = ((2, "strongly coherent"), (1, "weakly coherent"), (0, "not coherent"))
GAB_SCALE = ((2, "good"), (1, "acceptable"), (0, "bad"))
RATING_SCALE = (1, 2, 3, 4, 5)
N_CANDIDATES = 4

# Tokenizers for post-editing HER by item kind: kind -> function(text) -> token list. "text" items use the
# study's her.tokenizer; the music module registers "music" (notation string -> note tokens).
EDIT_TOKENIZERS: dict[str, Callable[[str], list]] = {}

_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".webp": "image/webp", ".svg": "image/svg+xml"}


@dataclass
class TaskSpec:
    """One annotation page: ``display`` goes to the annotator, ``hidden`` only to exports and results."""

    key: str
    display: dict[str, Any]
    hidden: dict[str, Any]
    units: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------- reading


def read_items(path: str | Path) -> list[tuple[int, dict]]:
    """Read a JSONL items file into ``(line number, row)`` pairs; bad JSON is an InputError with its line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("items file not found", path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the items file: {exc}", path) from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path, n) from None
        if not isinstance(row, dict):
            raise InputError("each line must be a JSON object", path, n)
        rows.append((n, row))
    if not rows:
        raise InputError("the items file has no items", path)
    return rows


_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    # type: (required, optional)
    "fluency_coherence": ({"id", "system"}, {"text", "lines", "artist", "input_id"}),
    "style_matching": ({"id", "role", "artist", "text"}, {"system", "title"}),
    "challenge_response": ({"id", "system", "challenge", "response"}, {"input_id", "artist"}),
    "side_by_side": ({"id", "outputs"}, {"context", "image", "input_id"}),
    "post_editing": ({"id", "system"}, {"text", "source", "kind", "notation", "format", "artist", "input_id"}),
}


def _str(row: dict, key: str, file, line, allow_empty: bool = False) -> str:
    v = row.get(key)
    if not isinstance(v, str):
        raise InputError(f"'{key}' must be a string, got {type(v).__name__}", file, line)
    if not allow_empty and not v.strip():
        raise InputError(f"'{key}' is empty", file, line)
    return v


def validate_items(study_type: str, rows: Iterable[dict | tuple[int, dict]], file: str | Path | None = None,
                   ) -> list[dict]:
    """Check the rows of an items file for ``study_type`` and return them normalised.

    ``rows`` are dicts or ``(line number, dict)`` pairs (as :func:`read_items` gives). Raises
    :class:`InputError` naming the file, the line and the problem. Normalisation: ``fluency_coherence`` rows
    get ``lines`` (a list without blank lines); ``post_editing`` rows get ``kind`` (default ``"text"``).
    """
    if study_type not in _FIELDS:
        raise InputError(f"unknown study type {study_type!r}; expected one of {sorted(_FIELDS)}", file)
    required, optional = _FIELDS[study_type]
    out: list[dict] = []
    seen: dict[str, int | None] = {}
    for i, r in enumerate(rows):
        line, row = r if isinstance(r, tuple) else (i + 1, r)
        if not isinstance(row, dict):
            raise InputError("each item must be a JSON object", file, line)
        missing = sorted(required - row.keys())
        if missing:
            raise InputError(f"missing field(s) {', '.join(missing)} for a {study_type} item", file, line)
        extra = sorted(row.keys() - required - optional)
        if extra:
            raise InputError(f"unknown field(s) {', '.join(extra)} for a {study_type} item "
                             f"(allowed: {', '.join(sorted(required | optional))})", file, line)
        row = dict(row)
        iid = row["id"]
        if isinstance(iid, int) and not isinstance(iid, bool):
            iid = row["id"] = str(iid)
        if not isinstance(iid, str) or not iid.strip() or any(c in iid for c in "\n\r#"):
            raise InputError("'id' must be a non-empty string without newlines or '#'", file, line)
        if iid in seen:
            raise InputError(f"duplicate id {iid!r} (first on line {seen[iid]})", file, line)
        seen[iid] = line
        for key in ("system", "artist", "input_id", "title", "source", "format", "context"):
            if key in row and row[key] is not None and not isinstance(row[key], str):
                raise InputError(f"'{key}' must be a string", file, line)
        if study_type == "fluency_coherence":
            if "lines" in row:
                lines = row["lines"]
                if not isinstance(lines, (list, tuple)) or not all(isinstance(x, str) for x in lines):
                    raise InputError("'lines' must be a list of strings", file, line)
            elif "text" in row:
                lines = _str(row, "text", file, line).splitlines()
            else:
                raise InputError("a fluency_coherence item needs 'text' or 'lines'", file, line)
            lines = [x.strip() for x in lines if x.strip()]
            if not lines:
                raise InputError("the verse has no non-blank lines", file, line)
            row["lines"] = lines
            row.pop("text", None)
        elif study_type == "style_matching":
            if row["role"] not in ("evaluated", "candidate"):
                raise InputError(f"'role' must be 'evaluated' or 'candidate', got {row['role']!r}", file, line)
            _str(row, "artist", file, line)
            _str(row, "text", file, line)
            if row["role"] == "evaluated" and not row.get("system"):
                raise InputError("an evaluated verse needs 'system' (use \"human\" for an authentic control)",
                                 file, line)
        elif study_type == "challenge_response":
            _str(row, "challenge", file, line)
            _str(row, "response", file, line)
        elif study_type == "side_by_side":
            outs = row["outputs"]
            if not isinstance(outs, list) or len(outs) < 2:
                raise InputError("'outputs' must be a list of at least two {system, text} objects", file, line)
            systems = []
            for j, o in enumerate(outs):
                if not isinstance(o, dict) or set(o) - {"system", "text", "id"} or not {"system", "text"} <= set(o):
                    raise InputError(f"outputs[{j}] must be an object with 'system' and 'text' (and optional 'id')",
                                     file, line)
                if not isinstance(o["system"], str) or not o["system"] or not isinstance(o["text"], str):
                    raise InputError(f"outputs[{j}]: 'system' and 'text' must be non-empty strings", file, line)
                systems.append(o["system"])
            if len(set(systems)) != len(systems):
                raise InputError("outputs of one page must come from distinct systems", file, line)
            if not row.get("context") and not row.get("image"):
                raise InputError("a side_by_side item needs 'context' or 'image'", file, line)
        elif study_type == "post_editing":
            kind = row.setdefault("kind", "text")
            if kind not in ("text", "music"):
                raise InputError(f"'kind' must be 'text' or 'music', got {kind!r}", file, line)
            if kind == "text":
                _str(row, "text", file, line)
            else:
                _str(row, "notation", file, line)
        out.append(row)
    if not out:
        raise InputError("the items file has no items", file)
    if study_type == "style_matching":
        _check_style_pool(out, file)
    if study_type == "side_by_side":
        counts = {len(r["outputs"]) for r in out}
        if len(counts) > 1:
            raise InputError("every side_by_side page must show the same number of outputs "
                             f"(found {sorted(counts)})", file)
    return out


def _check_style_pool(rows: list[dict], file) -> None:
    evaluated = [r for r in rows if r["role"] == "evaluated"]
    if not evaluated:
        raise InputError("no 'evaluated' verses: nothing to judge", file)
    pool: dict[str, list[dict]] = {}
    for r in rows:
        if r["role"] == "candidate":
            pool.setdefault(r["artist"], []).append(r)
    artists = set(pool)
    if len(artists) < N_CANDIDATES:
        raise InputError(f"style matching needs candidate verses of at least {N_CANDIDATES} artists, found "
                         f"{len(artists)}", file)
    for r in evaluated:
        if r["artist"] not in pool:
            raise InputError(f"evaluated verse {r['id']!r}: no candidate verse of its artist {r['artist']!r}", file)
        if not [c for c in pool[r["artist"]] if c["text"].strip() != r["text"].strip()]:
            raise InputError(f"evaluated verse {r['id']!r}: its artist {r['artist']!r} needs a candidate verse "
                             "other than the evaluated verse itself", file)


# ---------------------------------------------------------------------------------------------- designs


def style_pages(evaluated: list[dict], candidates: dict[str, list[dict]], seed: int = 0,
                n_candidates: int = N_CANDIDATES) -> list[dict]:
    """Build the style-matching pages (Potash et al.).

    For each evaluated verse of artist ``t`` among ``A`` artists, the ``A - 1`` other artists are shuffled and
    cut into groups of ``n_candidates - 1`` (13 artists: four triples), one page per group; the last group is
    filled up with other artists drawn at random when ``A - 1`` is not a multiple. Each page shows the target
    artist's candidate (an authentic verse of ``t`` that is not the evaluated verse) and one verse of each
    artist of the group. The true candidate's position on page ``p`` of verse ``j`` is ``(j + p) mod
    n_candidates``, so with four pages every verse has it once in every position, and over verses every
    position is used equally often. Returns dicts ``{verse, page, target_position, candidates}``.
    """
    rng = random.Random(seed)
    artists = sorted(candidates)
    per_page = n_candidates - 1
    pages = []
    for j, v in enumerate(evaluated):
        others = [a for a in artists if a != v["artist"]]
        rng.shuffle(others)
        n_pages = math.ceil(len(others) / per_page)
        groups = [others[p * per_page:(p + 1) * per_page] for p in range(n_pages)]
        last = groups[-1]
        if len(last) < per_page:
            fill = [a for a in others if a not in last]
            rng.shuffle(fill)
            last.extend(fill[: per_page - len(last)])
        own = [c for c in candidates[v["artist"]] if c["text"].strip() != v["text"].strip() and c["id"] != v["id"]]
        for p, group in enumerate(groups):
            true = rng.choice(own)
            others_c = [rng.choice(candidates[a]) for a in group]
            rng.shuffle(others_c)
            pos = (j + p) % n_candidates
            cands = others_c[:pos] + [true] + others_c[pos:]
            pages.append({"verse": v, "page": p, "target_position": pos, "candidates": cands})
    return pages


def williams_square(n: int) -> list[list[int]]:
    """A Williams design for ``n`` treatments: rows are orders in which every treatment appears in every
    position equally often and follows every other treatment equally often (first-order carry-over balance).

    Williams (1949). For even ``n`` one ``n x n`` Latin square with first row ``0, 1, n-1, 2, n-2, ...`` and
    row ``i`` = first row + i (mod n); for odd ``n`` that square and its mirror image (``2n`` rows).
    """
    if n < 1:
        raise ValueError("n must be positive")
    first = [0]
    lo, hi = 1, n - 1
    take_lo = True
    while len(first) < n:
        if take_lo:
            first.append(lo)
            lo += 1
        else:
            first.append(hi)
            hi -= 1
        take_lo = not take_lo
    square = [[(x + i) % n for x in first] for i in range(n)]
    if n % 2 == 1:
        square += [list(reversed(row)) for row in square]
    return square


def assign_pages(n_pages: int, annotators: list[str], k: int, seed: int = 0) -> dict[int, list[str]]:
    """Assign pages to assessors so that every pair of assessors shares pages equally often.

    With ``k >= len(annotators)`` every assessor rates every page. Otherwise the pages cycle through all
    ``k``-subsets of the assessors (a balanced incomplete block design made of every block): in each complete
    cycle of ``C(n, k)`` pages every pair meets exactly ``C(n - 2, k - 2)`` times, and every assessor rates
    the same number of pages; a partial last cycle keeps pair counts within one block of equal because the
    cycle order is a seeded shuffle. Each assessor's own page order is the next Williams-square row (by
    :func:`page_order`), so order effects are balanced too. Returns ``{page index: [assessor names]}``.
    """
    n = len(annotators)
    if k >= n:
        return {p: list(annotators) for p in range(n_pages)}
    rng = random.Random(seed)
    blocks = list(itertools.islice(itertools.combinations(range(n), k), 200_000))
    rng.shuffle(blocks)
    return {p: [annotators[i] for i in blocks[p % len(blocks)]] for p in range(n_pages)}


def page_order(n_pages: int, assessor_index: int) -> list[int]:
    """Order in which assessor ``assessor_index`` sees ``n_pages`` pages: a row of a cyclic Latin square
    (assessor i starts at page i), so each page is seen first, second, ... by equally many assessors."""
    if n_pages == 0:
        return []
    start = assessor_index % n_pages
    return [(start + i) % n_pages for i in range(n_pages)]


# ---------------------------------------------------------------------------------------------- tasks


def _image_data_uri(path: str, base: Path | None, file, line) -> str:
    p = Path(path)
    if not p.is_absolute() and base is not None:
        p = base / p
    mime = _IMAGE_TYPES.get(p.suffix.lower()) or mimetypes.guess_type(str(p))[0]
    if mime not in _IMAGE_TYPES.values():
        raise InputError(f"image {path!r}: not a PNG/JPEG/GIF/WebP/SVG file", file, line)
    try:
        data = p.read_bytes()
    except OSError:
        raise InputError(f"image {path!r} not found (paths are relative to the items file)", file, line) from None
    if len(data) > 5_000_000:
        raise InputError(f"image {path!r} is larger than 5 MB", file, line)
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def build_tasks(study_type: str, rows: list[dict], seed: int = 0, base_dir: Path | None = None,
                file: str | Path | None = None) -> list[TaskSpec]:
    """Turn validated items into annotation pages (:class:`TaskSpec`)."""
    tasks: list[TaskSpec] = []
    if study_type == "fluency_coherence":
        for r in rows:
            tasks.append(TaskSpec(
                key=r["id"], display={"lines": r["lines"]},
                hidden={"item": r["id"], "system": r["system"], "artist": r.get("artist"),
                        "input_id": r.get("input_id")},
                units=[f"{r['id']}:L{i + 1}" for i in range(len(r["lines"]))]))
    elif study_type == "style_matching":
        evaluated = [r for r in rows if r["role"] == "evaluated"]
        pool: dict[str, list[dict]] = {}
        for r in rows:
            if r["role"] == "candidate":
                pool.setdefault(r["artist"], []).append(r)
        for pg in style_pages(evaluated, pool, seed=seed):
            v = pg["verse"]
            key = f"{v['id']}#p{pg['page'] + 1}"
            tasks.append(TaskSpec(
                key=key,
                display={"verse": v["text"], "candidates": [c["text"] for c in pg["candidates"]]},
                hidden={"item": v["id"], "system": v["system"], "artist": v["artist"],
                        "candidate_ids": [c["id"] for c in pg["candidates"]],
                        "candidate_artists": [c["artist"] for c in pg["candidates"]],
                        "target_position": pg["target_position"]},
                units=[key]))
    elif study_type == "challenge_response":
        for r in rows:
            tasks.append(TaskSpec(
                key=r["id"], display={"challenge": r["challenge"], "response": r["response"]},
                hidden={"item": r["id"], "system": r["system"], "artist": r.get("artist"),
                        "input_id": r.get("input_id")},
                units=[r["id"]]))
    elif study_type == "side_by_side":
        rng = random.Random(seed)
        systems = sorted({o["system"] for r in rows for o in r["outputs"]})
        symbol = {s: i for i, s in enumerate(systems)}
        perm = list(range(len(systems)))
        rng.shuffle(perm)  # which system plays which Williams treatment: random per study
        square = williams_square(len(systems))
        rows_order = list(range(len(rows)))
        rng.shuffle(rows_order)
        for page_no, idx in enumerate(rows_order):
            r = rows[idx]
            line = r.get("_line")
            sq_row = square[page_no % len(square)]
            rank = {t: pos for pos, t in enumerate(sq_row)}
            outs = sorted(r["outputs"], key=lambda o: rank[perm[symbol[o["system"]]]])
            display = {"context": r.get("context"), "outputs": [o["text"] for o in outs]}
            if r.get("image"):
                display["image"] = _image_data_uri(r["image"], base_dir, file, line)
            tasks.append(TaskSpec(
                key=r["id"], display=display,
                hidden={"item": r["id"], "systems": [o["system"] for o in outs],
                        "output_ids": [o.get("id") for o in outs], "input_id": r.get("input_id")},
                units=[f"{r['id']}:{o['system']}" for o in outs]))
    elif study_type == "post_editing":
        for r in rows:
            kind = r.get("kind", "text")
            original = r["text"] if kind == "text" else r["notation"]
            tasks.append(TaskSpec(
                key=r["id"],
                display={"kind": kind, "original": original, "source": r.get("source"),
                         "format": r.get("format")},
                hidden={"item": r["id"], "system": r["system"], "artist": r.get("artist"),
                        "input_id": r.get("input_id")},
                units=[r["id"]]))
    else:  # pragma: no cover - validated before
        raise InputError(f"unknown study type {study_type!r}", file)
    return tasks


def load_items(study_type: str, path: str | Path, seed: int = 0) -> list[TaskSpec]:
    """Read, validate and build the pages of an items file."""
    path = Path(path)
    pairs = read_items(path)
    rows = validate_items(study_type, pairs, path)
    for (line, _), row in zip(pairs, rows):
        row["_line"] = line
    tasks = build_tasks(study_type, rows, seed=seed, base_dir=path.parent, file=path)
    for r in rows:
        r.pop("_line", None)
    return tasks


# ---------------------------------------------------------------------------------------------- answers


class AnswerError(ValueError):
    """A submitted form does not fit the page (out-of-range rating, unknown choice): shown to the annotator."""


def _int_in(form: dict, key: str, allowed: Iterable[int]) -> int:
    raw = form.get(key)
    if raw is None or raw == "":
        raise AnswerError(f"please answer every question ({key} is missing)")
    try:
        v = int(str(raw))
    except ValueError:
        raise AnswerError(f"{key}: not a number") from None
    allowed = tuple(allowed)
    if v not in allowed:
        raise AnswerError(f"{key}: {v} is not one of {list(allowed)}")
    return v


def parse_answer(study_type: str, display: dict, form: dict[str, str]) -> dict:
    """Validate a submitted form against the page and return the stored answer (server-side validation)."""
    if study_type == "fluency_coherence":
        n = len(display["lines"])
        flu = [_int_in(form, f"fluency_{i}", (0, 1, 2)) for i in range(n)]
        coh = [None] + [_int_in(form, f"coherence_{i}", (0, 1, 2)) for i in range(1, n)]
        return {"fluency": flu, "coherence": coh}
    if study_type == "style_matching":
        return {"choice": _int_in(form, "choice", range(len(display["candidates"])))}
    if study_type == "challenge_response":
        return {"fluency": _int_in(form, "fluency", (0, 1, 2)), "rhyming": _int_in(form, "rhyming", (0, 1, 2))}
    if study_type == "side_by_side":
        return {"ratings": [_int_in(form, f"rating_{i}", RATING_SCALE) for i in range(len(display["outputs"]))]}
    if study_type == "post_editing":
        edited = form.get("edited")
        if edited is None:
            raise AnswerError("the edited text is missing")
        edited = edited.replace("\r\n", "\n")
        if len(edited) > 100_000:
            raise AnswerError("the edited text is too long")
        if not edited.strip():
            raise AnswerError("the edited version is empty: edit the output until it is acceptable")
        return {"edited": edited}
    raise AnswerError(f"unknown study type {study_type}")


def judgements(study_type: str, display: dict, hidden: dict, answer: dict, her_settings: dict | None = None,
               task_key: str | None = None) -> list[dict]:
    """Flatten one page's answer into tidy judgements ``{unit, criterion, value, system, extra...}``."""
    out: list[dict] = []
    base = {"item": hidden.get("item"), "artist": hidden.get("artist"), "input_id": hidden.get("input_id")}
    if study_type == "fluency_coherence":
        for i, v in enumerate(answer["fluency"]):
            out.append({**base, "unit": f"{hidden['item']}:L{i + 1}", "line": i + 1, "system": hidden["system"],
                        "criterion": "fluency", "value": v})
        for i, v in enumerate(answer["coherence"]):
            if v is not None:
                out.append({**base, "unit": f"{hidden['item']}:L{i + 1}", "line": i + 1,
                            "system": hidden["system"], "criterion": "coherence", "value": v})
    elif study_type == "style_matching":
        c = answer["choice"]
        chosen = hidden["candidate_artists"][c]
        out.append({**base, "unit": task_key or hidden["item"], "system": hidden["system"], "criterion": "choice", "value": chosen,
                    "choice_position": c, "target_position": hidden["target_position"],
                    "candidate_artists": list(hidden["candidate_artists"]),
                    "correct": int(c == hidden["target_position"])})
    elif study_type == "challenge_response":
        for crit in ("fluency", "rhyming"):
            out.append({**base, "unit": hidden["item"], "system": hidden["system"], "criterion": crit,
                        "value": answer[crit]})
    elif study_type == "side_by_side":
        for pos, (sysname, r) in enumerate(zip(hidden["systems"], answer["ratings"])):
            out.append({**base, "unit": f"{hidden['item']}:{sysname}", "system": sysname, "criterion": "rating",
                        "value": r, "position": pos})
    elif study_type == "post_editing":
        from creval.editrate import her

        s = her_settings or {}
        kind = display.get("kind", "text")
        original = display["original"]
        edited = answer["edited"]
        if kind == "music" and kind not in EDIT_TOKENIZERS:
            import creval.music.notation  # noqa: F401  (registers the "music" tokenizer)
        if kind == "text" or kind not in EDIT_TOKENIZERS:
            h = her(original, edited, tokenizer=s.get("tokenizer", "word"), normalise=s.get("normalise", "wer"))
        else:
            from creval.editrate import HER, edit_rate, levenshtein

            tok = EDIT_TOKENIZERS[kind]
            o, e = tok(original), tok(edited)
            h = HER(edit_rate(o, e, s.get("normalise", "wer")), levenshtein(o, e), len(e), ())
        out.append({**base, "unit": hidden["item"], "system": hidden["system"], "criterion": "her",
                    "value": h.value, "edits": h.edits, "length": h.length, "line_her": list(h.lines),
                    "edited": edited, "kind": kind})
    return out
