"""Diversity and repetition within outputs: distinct-n, duplicate lines, duplicate n-gram character fraction.

Definitions (each function's docstring gives the formula):

- distinct-n (Li et al. 2016, §4.2 "distinct-1/distinct-2"): the number of *distinct* n-grams divided by the
  *total* number of n-grams. creval reports it per output (``distinct_n``) and pooled over all outputs of a
  system (``distinct_n_system``, the corpus-level figure Li et al. report). Tokens: creval's tokenizer
  (default ``auto``: words, CJK characters one by one); n-grams never cross a line break.
- duplicate-line rate: the share of an output's non-blank lines that repeat an earlier line of the same output
  (after case-folding and collapsing spaces): 1 − distinct lines / lines.
- duplicate n-gram character fraction (Rae et al. 2021, Gopher quality filters, App. A): the share of the
  output's word characters that lie inside some word n-gram occurring at least twice in the output (counted
  over the whole output, lines joined; each character counted once however many repeated n-grams cover it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from creval.errors import InputError
from creval.metrics._ngrams import count_keys, lookup, ngram_table
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import get_tokenizer

_SPACES = re.compile(r"\s+")


def distinct_n(token_lines: Sequence[Sequence[Sequence[str]]], n: int) -> tuple[np.ndarray, float]:
    """distinct-n = |{distinct n-grams}| / |n-grams| per text (a text is a list of token lines) and pooled over
    all texts. NaN where a text has no n-gram (fewer than n tokens on every line)."""
    if n < 1:
        raise InputError(f"distinct-n needs n >= 1, not {n}")
    lines = [line for text in token_lines for line in text]
    owner = np.repeat(np.arange(len(token_lines)), [len(t) for t in token_lines])
    table = ngram_table(lines, n)
    ids, seqs, G = table.ids[n], table.seqs[n], table.sizes[n]
    text_of = owner[seqs] if seqs.size else seqs
    total = np.bincount(text_of, minlength=len(token_lines)).astype(float)
    keys, _ = count_keys(text_of * G + ids)
    distinct = np.bincount(keys // G, minlength=len(token_lines)).astype(float) if keys.size else np.zeros(
        len(token_lines))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_text = np.where(total > 0, distinct / np.where(total > 0, total, 1), np.nan)
    pooled = float(np.unique(ids).size / ids.size) if ids.size else float("nan")
    return per_text, pooled


def duplicate_line_rate(text: str) -> float:
    """1 − (distinct non-blank lines / non-blank lines), lines compared case-folded with spaces collapsed;
    NaN for a text without lines."""
    lines = [_SPACES.sub(" ", ln.strip()).casefold() for ln in text.split("\n") if ln.strip()]
    if not lines:
        return float("nan")
    return 1.0 - len(set(lines)) / len(lines)


def duplicate_ngram_char_fraction(texts_tokens: Sequence[Sequence[str]], n: int = 5) -> np.ndarray:
    """Per text: Σ chars of tokens covered by a repeated n-gram / Σ chars of all tokens (Rae et al. 2021).
    A text with fewer than n tokens has no repeated n-gram (0.0); an empty text gives NaN."""
    if n < 1:
        raise InputError(f"n must be >= 1, not {n}")
    T = len(texts_tokens)
    table = ngram_table(texts_tokens, n)
    flat_len = np.fromiter((len(t) for text in texts_tokens for t in text), dtype=np.int64,
                           count=int(table.lens.sum()))
    offsets = np.cumsum(table.lens) - table.lens
    ids, seqs, G = table.ids[n], table.seqs[n], table.sizes[n]
    covered = np.zeros(flat_len.size + 1, dtype=np.int64)
    if ids.size:
        keys = seqs * G + ids
        ukeys, counts = count_keys(keys)
        dup = lookup(ukeys, counts, keys) >= 2
        start = offsets[seqs[dup]] + table.starts[n][dup]
        np.add.at(covered, start, 1)
        np.add.at(covered, start + n, -1)
    mask = np.cumsum(covered)[:-1] > 0
    tok_text = np.repeat(np.arange(T), table.lens)
    dup_chars = np.bincount(tok_text, weights=flat_len * mask, minlength=T)
    all_chars = np.bincount(tok_text, weights=flat_len, minlength=T)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(all_chars > 0, dup_chars / np.where(all_chars > 0, all_chars, 1), np.nan)


def _set_row(system: str, measure: str, value: float) -> dict:
    return {"system": system, "output_id": None, "input_id": None, "sample": None, "checkpoint": None,
            "artist": None, "measure": measure, "value": float(value)}


@register_measure
class DistinctMeasure(Measure):
    """distinct-1 and distinct-2 per output and pooled per system."""

    name = "distinct"
    description = ("distinct-n (Li et al. 2016): distinct n-grams / all n-grams, per output (distinct_1, "
                   "distinct_2) and pooled over each system's outputs (distinct_1_system, distinct_2_system)")

    def __init__(self, n: Sequence[int] = (1, 2), tokenizer: str = "auto", lower: bool = True) -> None:
        ns = tuple(int(x) for x in (n if isinstance(n, (list, tuple)) else [n]))
        if not ns or min(ns) < 1:
            raise InputError(f"distinct n must be positive integers, not {n!r}")
        get_tokenizer(tokenizer, lower)
        super().__init__(n=ns, lower=bool(lower))
        self.tokenizer = tokenizer

    def score(self, outputs):
        tok = get_tokenizer(self.tokenizer, self.params["lower"])
        texts = [[tok(line) for line in o.text.split("\n")] for o in outputs]
        values, rows, sigs, notes = {}, [], {}, []
        systems: dict[str, list[int]] = {}
        for i, o in enumerate(outputs):
            systems.setdefault(o.system, []).append(i)
        for n in self.params["n"]:
            per, _ = distinct_n(texts, n)
            values[f"distinct_{n}"] = per
            for system, members in systems.items():
                _, pooled = distinct_n([texts[i] for i in members], n)
                rows.append(_set_row(system, f"distinct_{n}_system", pooled))
            params = {"n": n, "lower": self.params["lower"], "lines": "no-crossing"}
            sigs[f"distinct_{n}"] = Signature(f"distinct_{n}", params=params, tokenizer=self.tokenizer)
            sigs[f"distinct_{n}_system"] = Signature(f"distinct_{n}_system", params=params,
                                                     tokenizer=self.tokenizer)
            undefined = int(np.isnan(per).sum())
            if undefined:
                notes.append(f"distinct_{n} undefined for {undefined} output(s) with fewer than {n} tokens a line")
        return MeasureResult(values=values, rows=rows, signatures=sigs, notes=notes)


@register_measure
class RepetitionMeasure(Measure):
    """Repetition inside each output: duplicate-line rate and duplicate n-gram character fraction."""

    name = "repetition"
    description = ("repetition inside each output: dup_line_rate (share of lines repeating an earlier line) and "
                   "dup_ngram_char_frac (share of characters inside a repeated word n-gram, n=5; Rae et al. 2021)")

    def __init__(self, n: int = 5, tokenizer: str = "auto", lower: bool = True) -> None:
        if int(n) < 1:
            raise InputError(f"n must be >= 1, not {n}")
        get_tokenizer(tokenizer, lower)
        super().__init__(n=int(n), lower=bool(lower))
        self.tokenizer = tokenizer

    def score(self, outputs):
        tok = get_tokenizer(self.tokenizer, self.params["lower"])
        lines = np.array([duplicate_line_rate(o.text) for o in outputs], dtype=float)
        frac = duplicate_ngram_char_fraction([tok(o.text) for o in outputs], self.params["n"])
        sigs = {
            "dup_line_rate": Signature("dup_line_rate", params={"casefold": True}),
            "dup_ngram_char_frac": Signature("dup_ngram_char_frac", params=dict(self.params),
                                             tokenizer=self.tokenizer),
        }
        notes = [f"{o.id!r}: empty output, repetition undefined" for o, v in zip(outputs, lines) if np.isnan(v)]
        return MeasureResult(values={"dup_line_rate": lines, "dup_ngram_char_frac": frac}, signatures=sigs,
                             notes=notes)
