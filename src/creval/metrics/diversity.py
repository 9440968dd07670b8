"""Diversity across several outputs for the same input (Wu et al.; DESIGN.md).

Outputs are grouped by ``(system, input_id)``; a group of M ≥ 2 outputs gets one value (a set-level tidy row
with ``output_id`` empty and ``input_id`` set). For sentence position i (the i-th non-blank line of each
output), let :math:`s_{m,k}` be the set of k-grams of output m's i-th line; then

.. math:: D_{k,i} = 1 - \\frac{|s_{1,k} \\cap \\dots \\cap s_{M,k}|}{|s_{1,k} \\cup \\dots \\cup s_{M,k}|}
          \\quad (\\text{mode } "jaccard", \\text{the default}), \\qquad
          \\mathrm{diversity}_i = \\frac{1}{n-2} \\sum_{k=3}^{n} D_{k,i},

and the group's diversity is the mean of diversity_i over positions i. Modes:

- ``"jaccard"`` (default): :math:`D = 1 - |\\cap|/|\\cup|`; equals the paper's formula for M = 2.
- ``"pairwise"``: the mean Jaccard distance over the M(M−1)/2 pairs of outputs.
- ``"xor-chained"``: the paper's formula read literally, :math:`|s_1 \\oplus \\dots \\oplus s_M| / |\\cup|` with
  ⊕ the symmetric difference chained left to right. **Warning**: for odd M it gives identical outputs the
  maximum diversity (three identical sets XOR to the set itself), so it is offered only to reproduce the
  literal formula.

Choices where the paper is loose: n = 8 as DESIGN.md says, but capped at the longest of the M lines,
n = min(8, max_m L_m), so that every k in 3..n has a non-empty union (the same cap novelty uses); a position i
counts when at least two outputs have an i-th line with 3 tokens or more (the outputs that have one take
part); a group with no such position is NaN with a note. k-grams never cross a line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from creval.corpus.model import Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer

MODES = ("jaccard", "pairwise", "xor-chained")


def _kgrams(tokens: Sequence[str], k: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def set_distance(sets: Sequence[set], mode: str = "jaccard") -> float:
    """D for one k and one sentence position over M sets (see module docstring); NaN when the union is empty."""
    union = set().union(*sets)
    if not union:
        return math.nan
    if mode == "jaccard":
        return 1.0 - len(set.intersection(*sets)) / len(union)
    if mode == "pairwise":
        dists = []
        for a, b in combinations(sets, 2):
            u = a | b
            dists.append(1.0 - len(a & b) / len(u) if u else 0.0)
        return float(np.mean(dists))
    if mode == "xor-chained":
        acc: set = set()
        for s in sets:
            acc = acc ^ s
        return len(acc) / len(union)
    raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")


def line_diversity(
    lines_tokens: Sequence[Sequence[str]], mode: str = "jaccard", k_min: int = 3, k_max: int = 8
) -> float:
    """diversity_i for the i-th lines (token lists) of M outputs: the mean of D_k over k = k_min … n,
    n = min(k_max, longest line); NaN when fewer than two lines have ``k_min`` tokens."""
    lines = [t for t in lines_tokens if len(t) >= k_min]
    if len(lines) < 2:
        return math.nan
    n = min(k_max, max(len(t) for t in lines))
    vals = [set_distance([_kgrams(t, k) for t in lines], mode) for k in range(k_min, n + 1)]
    return float(sum(vals) / (n - k_min + 1))


def diversity(
    texts: Sequence[str], mode: str = "jaccard", tokenizer: str = "auto", lower: bool = True, k_max: int = 8
) -> float:
    """Diversity of M texts produced for the same input: the mean over line positions of
    :func:`line_diversity` (NaN when no position has two lines of 3 tokens or more)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    tok = get_tokenizer(tokenizer, lower)
    per_text = [[tok(ln) for ln in t.split("\n") if ln.strip()] for t in texts]
    n_pos = max((len(p) for p in per_text), default=0)
    vals = []
    for i in range(n_pos):
        v = line_diversity([p[i] for p in per_text if len(p) > i], mode, 3, k_max)
        if not math.isnan(v):
            vals.append(v)
    return float(np.mean(vals)) if vals else math.nan


@register_measure
class DiversityMeasure(Measure):
    """Diversity of the outputs a system produced for one input (set-level rows, one per system × input)."""

    name = "diversity"
    description = (
        "k-gram (k=3..8) Jaccard diversity across outputs for the same input_id, per sentence position"
    )

    def __init__(
        self, mode: str = "jaccard", tokenizer: str = "auto", lower: bool = True, k_max: int = 8
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        super().__init__(mode=mode, tokenizer=tokenizer, lower=lower, k_max=k_max)

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        return Signature(
            reported_name or self.name,
            params={
                "mode": p["mode"],
                "k": f"3-{p['k_max']}",
                "lower": p["lower"],
                "group": "system+input_id",
            },
            tokenizer=p["tokenizer"],
        )

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        p = self.params
        groups: dict[tuple[str, str], list[Output]] = {}
        for o in outputs:
            if o.input_id is not None and str(o.input_id) != "":
                groups.setdefault((o.system, str(o.input_id)), []).append(o)
        rows = []
        notes = []
        artists: dict[tuple[str, str], str | None] = {}
        for key, outs in groups.items():
            a = {o.artist for o in outs}
            artists[key] = a.pop() if len(a) == 1 else None
        for (system, input_id), outs in sorted(groups.items()):
            if len(outs) < 2:
                continue
            value = diversity([o.text for o in outs], p["mode"], p["tokenizer"], p["lower"], p["k_max"])
            if math.isnan(value):
                notes.append(
                    f"diversity undefined for system {system!r} input {input_id!r}: no line position where two "
                    "outputs have 3 tokens or more"
                )
            rows.append(
                {
                    "system": system,
                    "output_id": None,
                    "input_id": input_id,
                    "sample": None,
                    "checkpoint": None,
                    "artist": artists[(system, input_id)],
                    "measure": "diversity",
                    "value": value,
                }
            )
        if not rows:
            notes.append("no input_id has two or more outputs from one system; nothing to compare")
        return MeasureResult(rows=rows, signatures={"diversity": self.signature()}, notes=notes)
