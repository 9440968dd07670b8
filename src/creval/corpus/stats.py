"""Dataset statistics per artist, as in Potash, Romanov & Rumshisky (2016), Table 1.

For each artist, with verse lengths :math:`\\ell_1..\\ell_V` in tokens:

- ``verses`` = :math:`V`
- ``tokens`` = :math:`T = \\sum_i \\ell_i` (total words)
- ``vocabulary`` = number of distinct tokens
- ``richness`` = :math:`T / \\text{vocabulary}` (the paper's "vocabulary richness": total words per distinct word)
- ``mean_len``, ``std_len``, ``max_len``: mean, standard deviation and maximum of :math:`\\ell_i`.
  The standard deviation is the sample one (ddof = 1; NaN for a single verse), as a spreadsheet or pandas gives.

A final row ``(all)`` gives the same figures for the whole corpus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from creval.corpus.model import Corpus
from creval.text.tokenize import get_tokenizer

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

STATS_COLUMNS = ("artist", "verses", "tokens", "vocabulary", "richness", "mean_len", "std_len", "max_len")


def _row(artist: str, token_lists: list[list[str]]) -> dict[str, object]:
    lengths = np.array([len(t) for t in token_lists], dtype=float)
    vocab = {tok for toks in token_lists for tok in toks}
    total = int(lengths.sum())
    return {
        "artist": artist,
        "verses": len(token_lists),
        "tokens": total,
        "vocabulary": len(vocab),
        "richness": total / len(vocab) if vocab else float("nan"),
        "mean_len": float(lengths.mean()) if len(lengths) else float("nan"),
        "std_len": float(lengths.std(ddof=1)) if len(lengths) > 1 else float("nan"),
        "max_len": int(lengths.max()) if len(lengths) else 0,
    }


def corpus_stats(corpus: Corpus, *, tokenizer: str = "word", total: bool = True) -> pd.DataFrame:
    """Per-artist statistics table (see module docstring), one row per artist plus ``(all)``."""
    import pandas as pd

    tok = get_tokenizer(tokenizer)
    rows = []
    everything: list[list[str]] = []
    for artist, verses in corpus.by_artist().items():
        token_lists = [tok(v.text) for v in verses]
        everything.extend(token_lists)
        rows.append(_row(artist, token_lists))
    if total and len(rows) > 1:
        rows.append(_row("(all)", everything))
    return pd.DataFrame(rows, columns=list(STATS_COLUMNS))
