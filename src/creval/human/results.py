"""Study scores from tidy judgement tables: pure functions, no web code.

Every function takes the tidy judgements the web app exports (a pandas DataFrame, a list of row dicts or a dict of
columns; see :mod:`creval.human.export`) and returns a pandas DataFrame or an agreement result. The column names
default to the export's: ``item`` (the output or verse judged), ``annotator``, ``criterion``, ``value``,
``system``, ``artist`` (the target artist), and per-line rows carry ``line`` (1-based). Pass other names through
the keyword arguments.

Scales: fluency/coherence values are 2/1/0 (strongly / weakly / not), or the labels ``"strong"``, ``"weak"``,
``"not"`` (also ``"strongly fluent"``, ``"weakly coherent"``, ...); the good/acceptable/bad scale is 2/1/0 or
its labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from creval.agreement._result import StatResult, as_frame
from creval.agreement.correlation import correlation
from creval.errors import InputError

__all__ = [
    "POTASH_CREDIT",
    "acceptable_share",
    "agreement_vs_length",
    "artist_confusion",
    "fluency_coherence_scores",
    "fluency_coherence_summary",
    "her_normalised",
    "her_per_line",
    "her_summary",
    "item_agreement",
    "raw_agreement",
    "style_matching",
]

#: Credit of each fluency/coherence answer in Potash et al.'s eq. 1: strong 1, weak 0.5, not 0.
POTASH_CREDIT: Mapping[Any, float] = {
    2: 1.0, 1: 0.5, 0: 0.0, "2": 1.0, "1": 0.5, "0": 0.0,
    "strong": 1.0, "weak": 0.5, "not": 0.0,
    "strongly fluent": 1.0, "weakly fluent": 0.5, "not fluent": 0.0,
    "strongly coherent": 1.0, "weakly coherent": 0.5, "not coherent": 0.0,
}  # fmt: skip

#: Values counted as "acceptable or better" on the good/acceptable/bad scale (2/1/0).
ACCEPTABLE_OR_BETTER: tuple[Any, ...] = (2, 1, "2", "1", "good", "acceptable")


def _credit(value: Any, scale: Mapping[Any, float], row: int, col: str) -> float:
    key = value
    if isinstance(value, float) and value.is_integer():
        key = int(value)
    elif isinstance(value, str):
        key = value.strip().lower()
    try:
        return float(scale[key])
    except (KeyError, TypeError):
        known = ", ".join(repr(k) for k in scale if not (isinstance(k, str) and k.isdigit()))
        raise InputError(f"judgements row {row + 1}: {col} {value!r} is not on the scale ({known})") from None


def _norm_line(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def _lines_of(text: str | Sequence[str]) -> list[str]:
    if isinstance(text, str):
        return [ln for ln in text.splitlines() if ln.strip()]
    return list(text)


def fluency_coherence_scores(
    judgements: Any,
    *,
    texts: Mapping[Any, str | Sequence[str]] | None = None,
    item: str = "item",
    system: str = "system",
    criterion: str = "criterion",
    value: str = "value",
    line: str = "line",
    scale: Mapping[Any, float] = POTASH_CREDIT,
) -> Any:
    r"""Fluency and coherence per verse (Potash, Romanov & Rumshisky 2018, "Evaluating creative language
    generation: the case of rap lyric ghostwriting", eq. 1):

    .. math:: \text{score} = \frac{\#\text{strong} + 0.5\,\#\text{weak}}{\#\text{annotations}}

    over all annotations of the verse for that criterion (every annotator, every line). Rows whose ``criterion``
    is neither ``"fluency"`` nor ``"coherence"`` are ignored, and so are missing values (the first line has no
    coherence judgement).

    Consecutive repeated lines: following Potash et al., a line identical to the line before it (compared after
    lower-casing and collapsing white space) is "not coherent" whatever the annotators said. This needs the
    verse ``texts`` (item -> text with one line per line, or list of lines) and a 1-based ``line`` column on the
    coherence rows; coherence of line *i* is its fit with line *i - 1*. Without a ``line`` column (verse-level
    coherence judgements) a verse with any consecutive repeated line gets all its coherence annotations forced.
    ``n_forced`` counts the forced annotations.

    Returns one row per (item, system, criterion): ``score``, ``n_annotations``, ``n_strong``, ``n_weak``,
    ``n_not``, ``n_forced``.
    """
    import pandas as pd

    frame = as_frame(judgements, [item, criterion, value], what="judgements")
    keep = (frame[criterion].isin(["fluency", "coherence"]) & frame[value].notna()).to_numpy()
    rows = np.flatnonzero(keep)  # positions in the caller's table, for error messages
    frame = frame[keep]
    if system not in frame.columns:
        frame = frame.assign(**{system: None})
    credit = np.array(
        [_credit(v, scale, int(r), value) for r, v in zip(rows, frame[value].tolist())], dtype=float
    )
    forced = np.zeros(len(frame), dtype=bool)
    if texts is not None:
        repeated: dict[Any, set[int]] = {}
        for key, text in texts.items():
            lines = [_norm_line(s) for s in _lines_of(text)]
            repeated[key] = {i + 1 for i in range(1, len(lines)) if lines[i] == lines[i - 1]}
        is_coh = (frame[criterion] == "coherence").to_numpy()
        items = frame[item].tolist()
        if line in frame.columns:
            lines_col = frame[line].tolist()
            for i in np.flatnonzero(is_coh):
                ln = lines_col[i]
                if ln is None or (isinstance(ln, float) and math.isnan(ln)):
                    continue
                if int(ln) in repeated.get(items[i], ()):
                    forced[i] = True
        else:
            for i in np.flatnonzero(is_coh):
                if repeated.get(items[i]):
                    forced[i] = True
    credit[forced] = 0.0
    keys = pd.DataFrame(
        {
            item: frame[item].to_numpy(),
            system: frame[system].to_numpy(),
            criterion: frame[criterion].to_numpy(),
        }
    )
    cols = [item, system, criterion]
    if keys.empty:
        return pd.DataFrame(
            columns=[*cols, "score", "n_annotations", "n_strong", "n_weak", "n_not", "n_forced"]
        )
    # one group id per (verse, system, criterion), then plain bincounts (pandas' named aggregation is slow)
    gid = keys.groupby(cols, sort=True, dropna=False).ngroup().to_numpy()
    m = int(gid.max()) + 1
    _, first = np.unique(gid, return_index=True)
    out = keys.iloc[first].reset_index(drop=True)
    n = np.bincount(gid, minlength=m)
    out["score"] = np.bincount(gid, weights=credit, minlength=m) / n
    out["n_annotations"] = n
    out["n_strong"] = np.bincount(gid, weights=(credit == 1.0), minlength=m).astype(int)
    out["n_weak"] = np.bincount(gid, weights=(credit == 0.5), minlength=m).astype(int)
    out["n_not"] = np.bincount(gid, weights=(credit == 0.0), minlength=m).astype(int)
    out["n_forced"] = np.bincount(gid, weights=forced, minlength=m).astype(int)
    return out


def fluency_coherence_summary(scores: Any, *, system: str = "system", criterion: str = "criterion") -> Any:
    """Mean ± standard deviation (ddof = 1) of the per-verse scores of :func:`fluency_coherence_scores`, per
    system and criterion, with the number of verses."""
    frame = as_frame(scores, [system, criterion, "score"], what="scores")
    return (
        frame.groupby([system, criterion], sort=True, dropna=False)["score"]
        .agg(mean="mean", std="std", n_items="size")
        .reset_index()
    )


def _choices(
    responses: Any, item: str, annotator: str, target: str, choice: str, criterion: str | None, wanted: str
) -> Any:
    frame = as_frame(responses, [item, annotator, target, choice], what="responses")
    if criterion is not None and criterion in frame.columns:
        frame = frame[frame[criterion] == wanted]
    return frame[frame[choice].notna()]


def style_matching(
    responses: Any,
    *,
    item: str = "item",
    annotator: str = "annotator",
    target: str = "artist",
    choice: str = "value",
    criterion: str | None = "criterion",
    by: Sequence[str] | str | None = None,
) -> Any:
    r"""Style-matching scores (Potash et al. 2018, section on style matching).

    Each response is one annotator's pick of the artist a verse's style matches; ``target`` is the artist the
    verse was written for, ``choice`` the pick. When the table has a ``criterion`` column only rows with
    ``criterion == "choice"`` are used (the export's layout).

    - ``match`` :math:`= \#m / \#a`: correct picks over all responses (Match%: multiply by 100);
    - ``raw_agreement``: share of verses with two or more responses on which every annotator picked the same
      artist;
    - ``match_agreed`` :math:`= \#m_A / \#s_A`: of those agreed verses, the share whose agreed pick is correct
      (Match_A%); NaN when no verse was agreed on.

    Returns one row (or one per ``by`` group, e.g. ``by="system"``) with the three scores and the counts
    ``n_responses``, ``n_items``, ``n_multi`` (verses with two or more responses) and ``n_agreed``.
    """
    import pandas as pd

    frame = _choices(responses, item, annotator, target, choice, criterion, "choice")
    keys = [] if by is None else ([by] if isinstance(by, str) else list(by))
    rows = []
    groups = frame.groupby(keys, sort=True, dropna=False) if keys else [((), frame)]
    for key, sub in groups:
        correct = (sub[choice].astype(str) == sub[target].astype(str)).to_numpy()
        per_item = sub.assign(_ok=correct).groupby(item, sort=False)
        n_multi = n_agreed = n_agreed_ok = 0
        for _, g in per_item:
            if len(g) < 2:
                continue
            n_multi += 1
            picks = g[choice].astype(str)
            if picks.nunique() == 1:
                n_agreed += 1
                n_agreed_ok += int(g["_ok"].iloc[0])
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, key)),
                "match": float(correct.mean()) if len(correct) else math.nan,
                "match_agreed": n_agreed_ok / n_agreed if n_agreed else math.nan,
                "raw_agreement": n_agreed / n_multi if n_multi else math.nan,
                "n_responses": int(len(sub)),
                "n_items": int(sub[item].nunique()),
                "n_multi": n_multi,
                "n_agreed": n_agreed,
            }
        )
    return pd.DataFrame(rows)


def artist_confusion(
    responses: Any,
    *,
    target: str = "artist",
    choice: str = "value",
    options: str | None = None,
    criterion: str | None = "criterion",
    artists: Sequence[Any] | None = None,
) -> Any:
    r"""Symmetric artist confusion matrix (Potash et al. 2018):

    .. math:: \text{Confusion}(a, b) = \frac{\#c(a, b) + \#c(b, a)}{\#p(a, b) + \#p(b, a)}

    with :math:`c(a, b)` the responses whose target was *a* and whose pick was *b*, and :math:`p(a, b)` the
    responses whose target was *a* and that offered *b* as a candidate. ``options`` names a column holding each
    response's candidate artists (a list, or a JSON list as a CSV export writes it); without it, or where a row
    has none, every artist counts as offered. The diagonal
    and pairs never presented together are NaN. Returns a square DataFrame indexed by artist.
    """
    import pandas as pd

    required = [target, choice] + ([options] if options else [])
    frame = as_frame(responses, required, what="responses")
    if criterion is not None and criterion in frame.columns:
        frame = frame[frame[criterion] == "choice"]
    frame = frame[frame[choice].notna()]
    opts = frame[options].tolist() if options else None
    if artists is not None:
        names = [str(a) for a in artists]
    else:
        seen = set(map(str, frame[target])) | set(map(str, frame[choice]))
        for o in opts or ():
            seen.update(map(str, _option_list(o) or ()))
        names = sorted(seen)
    idx = {a: i for i, a in enumerate(names)}
    m = len(names)
    c = np.zeros((m, m))
    p = np.zeros((m, m))
    for r, (t, ch) in enumerate(zip(frame[target].astype(str), frame[choice].astype(str))):
        if t not in idx or ch not in idx:
            raise InputError(
                f"responses row {r + 1}: artist {(t if t not in idx else ch)!r} is not in artists"
            )
        c[idx[t], idx[ch]] += 1
        offered = _option_list(opts[r]) if opts is not None else None
        if offered is None:
            p[idx[t], :] += 1
        else:
            for o in offered:
                if str(o) in idx:
                    p[idx[t], idx[str(o)]] += 1
    num = c + c.T
    den = p + p.T
    with np.errstate(invalid="ignore", divide="ignore"):
        conf = np.where(den > 0, num / den, np.nan)
    np.fill_diagonal(conf, np.nan)
    return pd.DataFrame(conf, index=names, columns=names)


def _option_list(value: Any) -> list[Any] | None:
    """A response's candidate artists: a list, or a JSON list in a string (CSV export); None when absent."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise InputError(f"candidate list {value!r} is not a JSON list") from None
    if isinstance(value, dict) or not isinstance(value, Sequence | np.ndarray):
        raise InputError(f"candidate list {value!r} is not a list")
    return list(value)


def item_agreement(
    judgements: Any, *, item: str = "item", annotator: str = "annotator", value: str = "value"
) -> Any:
    r"""Per-item observed agreement: the share of annotator pairs that gave the same value,
    :math:`\sum_c n_c (n_c - 1) / (m (m - 1))` (Fleiss' :math:`P_i`). Items with fewer than two values are
    left out. Returns ``item``, ``agreement``, ``n_annotations``, ``all_agree``."""
    import pandas as pd

    frame = as_frame(judgements, [item, value], what="judgements")
    frame = frame[frame[value].notna()]
    rows = []
    for key, g in frame.groupby(item, sort=True):
        counts = g[value].astype(str).value_counts().to_numpy()
        mm = int(counts.sum())
        if mm < 2:
            continue
        rows.append(
            {
                item: key,
                "agreement": float((counts * (counts - 1)).sum() / (mm * (mm - 1))),
                "n_annotations": mm,
                "all_agree": bool(len(counts) == 1),
            }
        )
    return pd.DataFrame(rows, columns=[item, "agreement", "n_annotations", "all_agree"])


def raw_agreement(
    judgements: Any,
    *,
    item: str = "item",
    annotator: str = "annotator",
    value: str = "value",
    kind: str = "all",
) -> StatResult:
    """Raw (chance-uncorrected) agreement. ``kind="all"``: the share of items (with two or more judgements) on
    which every annotator gave the same value; ``kind="pairwise"``: the mean over those items of the share of
    agreeing annotator pairs. Undefined when no item has two judgements."""
    if kind not in ("all", "pairwise"):
        raise InputError(f"kind must be 'all' or 'pairwise', got {kind!r}")
    per = item_agreement(judgements, item=item, annotator=annotator, value=value)
    if per.empty:
        return StatResult.undefined(f"raw_agreement_{kind}", "no item has two or more judgements", 0)
    v = per["all_agree"].mean() if kind == "all" else per["agreement"].mean()
    return StatResult(f"raw_agreement_{kind}", float(v), len(per))


def acceptable_share(
    judgements: Any,
    *,
    value: str = "value",
    by: Sequence[str] | str | None = ("system", "criterion"),
    acceptable: Iterable[Any] = ACCEPTABLE_OR_BETTER,
) -> Any:
    """Share of responses rated acceptable or better (good/acceptable vs bad, as Addanki & Wu report), per group
    (``by`` columns present in the table; None for one overall row). Returns the group keys, ``share``,
    ``n_acceptable`` and ``n``."""
    import pandas as pd

    frame = as_frame(judgements, [value], what="judgements")
    frame = frame[frame[value].notna()]
    ok_values = {str(a).lower() for a in acceptable}
    vals = frame[value].map(lambda v: str(int(v) if isinstance(v, float) and v.is_integer() else v).lower())
    work = frame.assign(_ok=vals.isin(ok_values).to_numpy())
    keys = (
        [] if by is None else [k for k in ([by] if isinstance(by, str) else list(by)) if k in frame.columns]
    )
    if not keys:
        n = len(work)
        k = int(work["_ok"].sum())
        return pd.DataFrame([{"share": k / n if n else math.nan, "n_acceptable": k, "n": n}])
    out = work.groupby(keys, sort=True, dropna=False)["_ok"].agg(n_acceptable="sum", n="size").reset_index()
    out.insert(len(keys), "share", out["n_acceptable"] / out["n"])
    return out


def agreement_vs_length(
    judgements: Any,
    lengths: Mapping[Any, float | str | Sequence[str]],
    *,
    item: str = "item",
    annotator: str = "annotator",
    value: str = "value",
    method: str = "spearman",
    tokenizer: str = "word",
) -> StatResult:
    """Correlation of per-item inter-annotator agreement (:func:`item_agreement`) with the challenge length.

    ``lengths`` maps each item to its challenge's length (a number) or to the challenge itself (a string,
    counted in tokens with ``tokenizer``; a list counts its elements). Items absent from ``lengths`` are left
    out. Returns :func:`creval.agreement.correlation`'s result; ``detail["per_item"]`` lists item, length,
    agreement."""
    per = item_agreement(judgements, item=item, annotator=annotator, value=value)
    xs, ys, rows = [], [], []
    for key, agr in zip(per[item].tolist(), per["agreement"].tolist()):
        if key not in lengths:
            continue
        raw = lengths[key]
        if isinstance(raw, str):
            from creval.text.tokenize import tokenize

            length = float(len(tokenize(raw, tokenizer)))
        elif isinstance(raw, Sequence):
            length = float(len(raw))
        else:
            length = float(raw)
        xs.append(length)
        ys.append(agr)
        rows.append({"item": key, "length": length, "agreement": agr})
    res = correlation(xs, ys, method)
    detail = dict(res.detail)
    detail["per_item"] = rows
    return StatResult(
        "agreement_vs_length_" + res.statistic,
        res.value,
        res.n,
        defined=res.defined,
        reason=res.reason,
        ci=res.ci,
        confidence=res.confidence,
        p_value=res.p_value,
        detail=detail,
    )


def _her_frame(judgements: Any, value: str, criterion: str | None, extra: Sequence[str] = ()) -> Any:
    import pandas as pd

    frame = as_frame(judgements, [value, *extra], what="judgements")
    if criterion is not None and criterion in frame.columns:
        frame = frame[frame[criterion] == "her"]
    vals = pd.to_numeric(frame[value], errors="coerce")
    bad = vals.isna() & frame[value].notna()
    if bad.any():
        raise InputError(f"judgements: HER value {frame[value][bad].iloc[0]!r} is not a number")
    return frame.assign(**{value: vals}).dropna(subset=[value])


def her_summary(
    judgements: Any,
    *,
    value: str = "value",
    by: Sequence[str] | str = "system",
    criterion: str | None = "criterion",
) -> Any:
    """HER (human edit rate: edits to make an output acceptable / its length) mean ± standard deviation (ddof=1)
    and count per system (or other ``by`` columns). Rows with ``criterion`` other than ``"her"`` are ignored."""
    keys = [by] if isinstance(by, str) else list(by)
    frame = _her_frame(judgements, value, criterion, keys)
    return (
        frame.groupby(keys, sort=True, dropna=False)[value]
        .agg(mean="mean", std="std", n="size")
        .reset_index()
    )


def her_normalised(
    judgements: Any,
    *,
    value: str = "value",
    annotator: str = "annotator",
    by: Sequence[str] | str = "system",
    method: str = "zscore",
    criterion: str | None = "criterion",
) -> Any:
    r"""HER normalised per annotator, then summarised per system, so a harsh editor does not sink the systems
    they happened to see. ``method="zscore"``: :math:`(h - \bar h_a) / s_a` with the annotator's mean and
    standard deviation (an annotator whose HERs are all equal gets 0); ``"ratio"``: :math:`h / \bar h_a` (an
    annotator with mean 0 gets NaN). Returns the ``by`` keys, ``mean``, ``std``, ``n``."""
    if method not in ("zscore", "ratio"):
        raise InputError(f"method must be 'zscore' or 'ratio', got {method!r}")
    keys = [by] if isinstance(by, str) else list(by)
    frame = _her_frame(judgements, value, criterion, [annotator, *keys])
    grp = frame.groupby(annotator)[value]
    mean = grp.transform("mean")
    if method == "zscore":
        sd = grp.transform("std").fillna(0.0)
        norm = (frame[value] - mean) / sd.where(sd > 0, np.inf)
    else:
        norm = frame[value] / mean.where(mean != 0, np.nan)
    out = frame.assign(_norm=norm)
    return (
        out.groupby(keys, sort=True, dropna=False)["_norm"]
        .agg(mean="mean", std="std", n="size")
        .reset_index()
    )


def her_per_line(
    judgements: Any,
    *,
    line_her: str = "line_her",
    by: Sequence[str] | str = "system",
    criterion: str | None = "criterion",
) -> Any:
    """HER per bar/line: each row's ``line_her`` (a list with one HER per line or bar of the output) is
    exploded, and the per-line HERs are summarised per system and line position: ``mean``, ``std``, ``n``,
    with ``line`` 1-based; a row with ``line = "all"`` per system pools every line."""
    import pandas as pd

    keys = [by] if isinstance(by, str) else list(by)
    frame = as_frame(judgements, [line_her, *keys], what="judgements")
    if criterion is not None and criterion in frame.columns:
        frame = frame[frame[criterion] == "her"]
    recs = []
    for r, (vals, *kv) in enumerate(zip(frame[line_her].tolist(), *(frame[k].tolist() for k in keys))):
        if vals is None or (isinstance(vals, float) and math.isnan(vals)):
            continue
        if isinstance(vals, str):
            import json

            try:
                vals = json.loads(vals)
            except json.JSONDecodeError:
                raise InputError(f"judgements row {r + 1}: {line_her} is not a list") from None
        for i, h in enumerate(vals):
            recs.append({**dict(zip(keys, kv)), "line": i + 1, "her": float(h)})
    if not recs:
        return pd.DataFrame(columns=[*keys, "line", "mean", "std", "n"])
    long = pd.DataFrame(recs)
    per = long.groupby([*keys, "line"], sort=True)["her"].agg(mean="mean", std="std", n="size").reset_index()
    pooled = long.groupby(keys, sort=True)["her"].agg(mean="mean", std="std", n="size").reset_index()
    pooled.insert(len(keys), "line", "all")
    per["line"] = per["line"].astype(object)
    return pd.concat([per, pooled], ignore_index=True)
