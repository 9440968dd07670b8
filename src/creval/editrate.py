"""Edit rates over token sequences: Levenshtein distance, WER and HER (human-targeted edit rate).

HER (Kalonaris & Aljanaki, post-editing evaluation of generated lyrics/music; the idea is HTER from Snover et
al. 2006, "A Study of Translation Edit Rate with Targeted Human Annotation", eq. 1) measures how much a person
had to change a system output until it was acceptable:

    HER(o, e) = d(o, e) / |e|

where ``o`` is the system output, ``e`` the human-edited version, ``d`` the Levenshtein distance over tokens
(insertions, deletions and substitutions each cost 1) and ``|e|`` the number of tokens of the edited version
(the "reference", as in WER).  Two normalisations are offered:

- ``normalise="wer"`` (default): divide by the length of the edited version, as WER/TER do. Can exceed 1
  when the annotator deleted most of a long output.
- ``normalise="levenshtein"``: divide by ``max(|o|, |e|)``, which keeps the rate in [0, 1] (the normalised
  Levenshtein distance).
- ``normalise="none"``: the raw edit count.

Decisions: an empty edited version with an empty output has rate 0; an empty edited version with a non-empty
output has WER-rate ``|o|`` / 0, reported as 1.0 under ``"levenshtein"`` and as ``float(|o|)`` (every token
deleted, counted against a length of one) under ``"wer"`` so the value stays finite. Tokens are compared as
exact strings; tokenize (and lower-case) first with :func:`creval.text.tokenize.tokenize`. The functions work
on any hashable items (words, characters, or notes as tuples), so the music code reuses them for note
sequences.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

NORMALISATIONS = ("wer", "levenshtein", "none")


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Levenshtein distance between two sequences (unit cost insert/delete/substitute).

    Standard dynamic programme (Wagner & Fischer 1974): ``D[i, j] = min(D[i-1, j] + 1, D[i, j-1] + 1,
    D[i-1, j-1] + [a_i != b_j])``. The row update is vectorised with numpy: the substitution/deletion part is an
    element-wise minimum, the insertion chain a running minimum (``min.accumulate`` of ``D - j``).
    """
    n, m = len(a), len(b)
    if n == 0:
        return m
    if m == 0:
        return n
    # Map items to integer codes so the comparison is a numpy equality test.
    codes: dict[Hashable, int] = {}
    ca = np.fromiter((codes.setdefault(x, len(codes)) for x in a), dtype=np.int64, count=n)
    cb = np.fromiter((codes.setdefault(x, len(codes)) for x in b), dtype=np.int64, count=m)
    if n < m:  # keep the row the shorter sequence
        ca, cb, n, m = cb, ca, m, n
    j = np.arange(m + 1, dtype=np.int64)
    prev = j.copy()
    for i in range(1, n + 1):
        sub = prev[:-1] + (cb != ca[i - 1])
        dele = prev[1:] + 1
        cur = np.empty(m + 1, dtype=np.int64)
        cur[0] = i
        cur[1:] = np.minimum(sub, dele)
        # insertions: cur[j] = min(cur[j], cur[j-1] + 1) chained -> min.accumulate(cur - j) + j
        cur = np.minimum.accumulate(cur - j) + j
        prev = cur
    return int(prev[-1])


def edit_rate(output: Sequence[Hashable], edited: Sequence[Hashable], normalise: str = "wer") -> float:
    """Edit rate of ``output`` against its human edit ``edited`` (see the module docstring for the formula)."""
    if normalise not in NORMALISATIONS:
        raise ValueError(f"normalise must be one of {NORMALISATIONS}, got {normalise!r}")
    d = levenshtein(output, edited)
    if normalise == "none":
        return float(d)
    if normalise == "levenshtein":
        denom = max(len(output), len(edited))
        return d / denom if denom else 0.0
    if len(edited) == 0:
        return float(len(output))
    return d / len(edited)


def wer(hypothesis: Sequence[Hashable], reference: Sequence[Hashable]) -> float:
    """Word error rate: Levenshtein distance / reference length (Klakow & Peters 2002)."""
    return edit_rate(hypothesis, reference, "wer")


@dataclass(frozen=True)
class HER:
    """HER of one output: the whole text and each line (lines aligned by position)."""

    value: float
    edits: int
    length: int
    lines: tuple[float, ...]


def her(output: str, edited: str, tokenizer: str = "word", normalise: str = "wer", lower: bool = False) -> HER:
    """HER of a text output against the annotator's edited version, for the whole text and per line.

    The whole-text rate tokenizes both texts over all lines. Per-line rates pair line i of the output with line
    i of the edit; when the annotator added or removed lines, the missing side is the empty line (so a
    deleted line costs all its tokens, an added line has rate ``len`` under ``"wer"``).
    """
    from creval.text.tokenize import tokenize

    def toks(s: str) -> list[str]:
        return list(tokenize(s, tokenizer=tokenizer, lower=lower)) if s.strip() else []

    o_lines = [ln for ln in output.splitlines() if ln.strip()]
    e_lines = [ln for ln in edited.splitlines() if ln.strip()]
    o_all = [t for ln in o_lines for t in toks(ln)]
    e_all = [t for ln in e_lines for t in toks(ln)]
    d = levenshtein(o_all, e_all)
    value = edit_rate(o_all, e_all, normalise)
    per_line = []
    for i in range(max(len(o_lines), len(e_lines))):
        o = toks(o_lines[i]) if i < len(o_lines) else []
        e = toks(e_lines[i]) if i < len(e_lines) else []
        per_line.append(edit_rate(o, e, normalise))
    return HER(value=value, edits=d, length=len(e_all), lines=tuple(per_line))
