"""Verse structure of generated verses against the artist's corpus (Potash, Romanov & Rumshisky 2016, sec. 7).

Per artist and system, with generated verse lengths :math:`g_1..g_m` and the artist's corpus verse lengths
(tokens, the same tokenizer as :func:`creval.corpus.stats.corpus_stats`, ``"word"`` by default):

- ``gen_mean_len`` = :math:`\\bar g`, ``gen_max_len`` = :math:`\\max g_i`, beside the corpus's ``artist_mean_len``
  and ``artist_max_len``; ``mean_ratio`` = :math:`\\bar g / \\bar\\ell_A`;
- ``longest_checkpoint``: the checkpoint of the longest generated verse (the earliest one on ties), and
  ``longest_share`` = that checkpoint / the system's last checkpoint for the artist — where in training the
  longest verse appears, as a share of training (for the n-gram baseline: :math:`n / n_{\\max}`);
- :func:`length_correlation`: per system, Pearson and Spearman correlation across artists between the artist's
  average verse length and the average generated length (does the system follow each artist's length?).

Lengths come from the ``length_tokens`` measure of the results table (:func:`lengths_from_results`) or from the
outputs themselves (:func:`output_lengths`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from creval.analysis.correlations import correlate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.corpus.model import Output

LENGTH_COLUMNS = ["system", "output_id", "artist", "checkpoint", "length"]
STRUCTURE_COLUMNS = ["artist", "system", "outputs", "gen_mean_len", "gen_max_len", "artist_mean_len",
                     "artist_max_len", "mean_ratio", "longest_checkpoint", "longest_share", "note"]


def output_lengths(outputs: Sequence[Output], tokenizer: str = "word") -> pd.DataFrame:
    """One row per output: ``system, output_id, artist, checkpoint, length`` (tokens)."""
    import pandas as pd

    from creval.text.tokenize import get_tokenizer

    tok = get_tokenizer(tokenizer)
    rows = [{"system": o.system, "output_id": o.id, "artist": o.artist, "checkpoint": o.checkpoint,
             "length": float(len(tok(o.text)))} for o in outputs]
    return pd.DataFrame(rows, columns=LENGTH_COLUMNS)


def lengths_from_results(results: pd.DataFrame, measure: str = "length_tokens") -> pd.DataFrame:
    """The same table from the tidy results (rows of ``measure``)."""
    res = results[(results["measure"] == measure) & results["output_id"].notna()]
    frame = res.rename(columns={"value": "length"})[LENGTH_COLUMNS].copy()
    return frame.reset_index(drop=True)


def verse_structure(lengths: pd.DataFrame, corpus_stats: pd.DataFrame,
                    artists: Iterable[str] | None = None) -> pd.DataFrame:
    """The structure table (module docstring): one row per artist × system; an artist of the corpus with no
    outputs of a system gets a row with ``outputs = 0`` and a note."""
    import pandas as pd

    stats = corpus_stats[corpus_stats["artist"] != "(all)"].set_index("artist")
    lengths = lengths[lengths["artist"].notna()]
    artist_list = list(dict.fromkeys([*stats.index.astype(str), *(artists or [])]))
    for a in lengths["artist"].astype(str).unique():
        if a not in artist_list:
            artist_list.append(a)
    systems = sorted(lengths["system"].dropna().astype(str).unique())
    nan = float("nan")
    rows = []
    for artist in artist_list:
        a_mean = float(stats.loc[artist, "mean_len"]) if artist in stats.index else nan
        a_max = float(stats.loc[artist, "max_len"]) if artist in stats.index else nan
        for system in systems:
            part = lengths[(lengths["artist"] == artist) & (lengths["system"] == system)]
            vals = part["length"].to_numpy(float)
            ok = np.isfinite(vals)
            row = {"artist": artist, "system": system, "outputs": int(ok.sum()), "gen_mean_len": nan,
                   "gen_max_len": nan, "artist_mean_len": a_mean, "artist_max_len": a_max, "mean_ratio": nan,
                   "longest_checkpoint": nan, "longest_share": nan, "note": ""}
            notes = []
            if artist not in stats.index:
                notes.append("artist not in the corpus")
            if not ok.any():
                notes.append("no outputs")
                row["note"] = "; ".join(notes)
                rows.append(row)
                continue
            v = vals[ok]
            ck = part["checkpoint"].to_numpy(float)[ok]
            row["gen_mean_len"] = float(v.mean())
            row["gen_max_len"] = float(v.max())
            if np.isfinite(a_mean) and a_mean > 0:
                row["mean_ratio"] = row["gen_mean_len"] / a_mean
            longest = v == v.max()
            ck_long = ck[longest & np.isfinite(ck)]
            if ck_long.size and np.isfinite(ck).any():
                last = float(np.nanmax(ck))
                row["longest_checkpoint"] = float(ck_long.min())
                if last > 0:
                    row["longest_share"] = row["longest_checkpoint"] / last
                else:
                    notes.append("last checkpoint is 0: no share of training")
            else:
                notes.append("outputs have no checkpoint")
            row["note"] = "; ".join(notes)
            rows.append(row)
    return pd.DataFrame(rows, columns=STRUCTURE_COLUMNS)


def length_correlation(structure: pd.DataFrame) -> pd.DataFrame:
    """Per system: correlation across artists of ``artist_mean_len`` with ``gen_mean_len``."""
    import pandas as pd

    rows = []
    for system, part in structure.groupby("system", sort=True):
        rows.append({"system": system, **correlate(part["artist_mean_len"], part["gen_mean_len"])})
    return pd.DataFrame(rows, columns=["system", "n", "pearson_r", "pearson_p", "spearman_rho", "spearman_p",
                                       "note"])
