"""HER for music: how much an annotator had to edit a generated piece (Kalonaris & Aljanaki).

HER (human edit rate) counts the edits that turn the generated piece into the annotator's edited version,
over note tokens: :math:`\\mathrm{HER} = (S + D + I) / (S + D + C)` where S, D, I and C are the substitutions,
deletions, insertions and correct tokens of a minimal alignment of the generated tokens (hypothesis) to the
edited tokens (reference), so the denominator is the length of the edited version. A note token is the note's
pitch and length (``tokens="pitch+duration"``, default), its pitch only, or pitch, length and bar position.
Both pieces' pitched tracks are merged and read in order of onset (ties by pitch).

Per bar: the alignment is computed once over the whole piece, then each operation is charged to a bar — C, S
and D to the bar of the edited note, I to the bar of the generated note — and
:math:`\\mathrm{HER}_b = (S_b + D_b + I_b) / (S_b + D_b + C_b)`; NaN for a bar the edited version leaves empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from creval.music.edit import EditCounts, align_tokens, note_tokens
from creval.music.io import Piece, read_piece


@dataclass
class HerResult:
    """HER of one generated piece against its edited version."""

    her: float
    counts: EditCounts
    bars: np.ndarray  # bar numbers (0-based)
    her_per_bar: np.ndarray
    counts_per_bar: np.ndarray  # (n_bars, 4): S, D, I, C

    def rows(self) -> list[dict[str, float]]:
        return [{"bar": int(b), "her": float(h), "S": int(c[0]), "D": int(c[1]), "I": int(c[2]), "C": int(c[3])}
                for b, h, c in zip(self.bars, self.her_per_bar, self.counts_per_bar)]


def _piece(x: Piece | str | Path) -> Piece:
    return x if isinstance(x, Piece) else read_piece(x)


def music_her(generated: Piece | str | Path, edited: Piece | str | Path, *, tokens: str = "pitch+duration",
              track: int | str | None = None) -> HerResult:
    r"""HER of a generated piece against the annotator's edited version, overall and per bar (module docstring).

    :math:`\mathrm{HER} = (S + D + I) / (S + D + C)` (Kalonaris & Aljanaki, HER equation). NaN when the edited
    version has no notes."""
    gen = _piece(generated).notes(track)
    ref = _piece(edited).notes(track)
    ref_tokens = note_tokens(ref, tokens)
    gen_tokens = note_tokens(gen, tokens)
    ops = align_tokens(ref_tokens, gen_tokens)
    counts = EditCounts(*(sum(1 for op, _, _ in ops if op == x) for x in "SDIC"))
    n_bars = int(max(ref.bar.max() if len(ref) else -1, gen.bar.max() if len(gen) else -1)) + 1
    per_bar = np.zeros((max(n_bars, 0), 4), dtype=np.int64)
    column = {"S": 0, "D": 1, "I": 2, "C": 3}
    for op, ri, hi in ops:
        bar = ref.bar[ri] if ri is not None else gen.bar[hi]
        per_bar[int(bar), column[op]] += 1
    denom = per_bar[:, 0] + per_bar[:, 1] + per_bar[:, 3]
    edits = per_bar[:, 0] + per_bar[:, 1] + per_bar[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        her_bar = np.where(denom > 0, edits / np.maximum(denom, 1), np.nan)
    return HerResult(counts.rate, counts, np.arange(len(per_bar)), her_bar, per_bar)
