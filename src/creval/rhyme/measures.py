"""Rhyme measures for the ``creval evaluate`` pipeline: ``rhyme_density`` (Hirjee & Brown 2010, with the
entropy-weighted form of Potash et al. 2016) and ``rhyme_factor`` (Malmi et al. 2016)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from creval.corpus.model import Output
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.rhyme.density import MAX_OFFSET, THRESHOLD, rhyme_density, rhyme_density_batch
from creval.rhyme.factor import LOOKBACK, rhyme_factor

DENSITY_NAMES = ("rhyme_density", "rhyme_density_weighted", "end_rhymes_per_line", "multisyllable_share")
_EXAMPLE_WORDS = 400


def _progress(items: Sequence[Any], label: str):
    """Iterate with a rich progress bar when there is enough work to wait for."""
    if len(items) < 2000:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description=label, transient=True)


def highlight_tokens(result: Any) -> list[list[tuple[str, int]]]:
    """Lines of (word, vowel group) for a density result: group is -1 for a word with no rhymed syllable, else
    an id shared by rhymed syllables with the same vowel (so a report or terminal can colour rhyme families)."""
    tr = result.transcription
    if tr is None:
        return []
    group = np.full(len(tr.tokens), -1, dtype=np.int64)
    if result.rhymed is not None and tr.n:
        idx = np.flatnonzero(result.rhymed)
        # the last rhymed syllable of each word decides its colour
        group[tr.word[idx]] = tr.vowel[idx]
    lines: list[list[tuple[str, int]]] = []
    current = -1
    for tok, li, g in zip(tr.tokens, tr.token_line, group):
        if li != current:
            lines.append([])
            current = int(li)
        lines[-1].append((tok, int(g)))
    return lines


@register_measure
class RhymeDensityMeasure(Measure):
    """Rhyme density per output (Hirjee & Brown 2010) with end rhymes per line, multi-syllable share and the
    entropy-weighted density (Potash et al. 2016); definitions in :mod:`creval.rhyme.density`."""

    name = "rhyme_density"
    description = (
        "rhymed syllables / syllables (Hirjee & Brown 2010), entropy-weighted (Potash et al. 2016), "
        "end rhymes per line, multi-syllable share"
    )

    def __init__(
        self, threshold: float = THRESHOLD, max_offset: int = MAX_OFFSET, weighting: str = "paper"
    ) -> None:
        if weighting not in ("paper", "normalised"):
            from creval.errors import InputError

            raise InputError(f"rhyme_density: weighting must be 'paper' or 'normalised', not {weighting!r}")
        if not 0 < float(threshold) <= 1:
            from creval.errors import InputError

            raise InputError(f"rhyme_density: threshold must be in (0, 1], not {threshold!r}")
        super().__init__(threshold=float(threshold), max_offset=int(max_offset), weighting=weighting)

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        p = self.params
        texts = [o.text for o in outputs]
        values, reasons = rhyme_density_batch(
            texts,
            threshold=p["threshold"],
            max_offset=p["max_offset"],
            weighting=p["weighting"],
            progress=len(texts) >= 5000,
        )
        notes = [f"undefined for output {o.id!r}: {r}" for o, r in zip(outputs, reasons) if r]
        # per system, the densest output of a readable length, shown in the report with its rhymes marked
        best: dict[str, tuple[float, int]] = {}
        for i, out in enumerate(outputs):
            dens = values["rhyme_density"][i]
            if (
                not reasons[i]
                and len(texts[i].split()) <= _EXAMPLE_WORDS
                and dens > best.get(out.system, (-1.0, 0))[0]
            ):
                best[out.system] = (float(dens), i)
        examples = {}
        for system, (dens, i) in sorted(best.items()):
            res = rhyme_density(texts[i], threshold=p["threshold"], max_offset=p["max_offset"])
            examples[system] = {"output_id": outputs[i].id, "density": dens, "lines": highlight_tokens(res)}
        sigs = {
            "rhyme_density": Signature(
                "rhyme_density",
                {"threshold": p["threshold"], "max_offset": p["max_offset"]},
                "rhyme-words",
                "cmudict+espeak-ng",
            ),
            "rhyme_density_weighted": Signature(
                "rhyme_density_weighted",
                {"threshold": p["threshold"], "max_offset": p["max_offset"], "weighting": p["weighting"]},
                "rhyme-words",
                "cmudict+espeak-ng",
            ),
            "end_rhymes_per_line": Signature(
                "end_rhymes_per_line", {"threshold": p["threshold"]}, "rhyme-words", "cmudict+espeak-ng"
            ),
            "multisyllable_share": Signature(
                "multisyllable_share",
                {"threshold": p["threshold"], "max_offset": p["max_offset"]},
                "rhyme-words",
                "cmudict+espeak-ng",
            ),
        }
        return MeasureResult(values=values, signatures=sigs, notes=notes, artifacts={"examples": examples})


@register_measure
class RhymeFactorMeasure(Measure):
    """Rhyme factor per output (Malmi et al. 2016): mean longest backward vowel match against the previous
    words; definition in :mod:`creval.rhyme.factor`."""

    name = "rhyme_factor"
    description = (
        "mean rhyme length in vowels against the previous 15 words (Malmi et al. 2016, DopeLearning)"
    )

    def __init__(self, lookback: int = LOOKBACK, mode: str = "cmudict") -> None:
        from creval.errors import InputError

        if mode not in ("cmudict", "espeak"):
            raise InputError(f"rhyme_factor: mode must be 'cmudict' or 'espeak', not {mode!r}")
        if int(lookback) < 1:
            raise InputError("rhyme_factor: lookback must be at least 1")
        super().__init__(lookback=int(lookback), mode=mode)

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        p = self.params
        values = np.full(len(outputs), np.nan)
        notes: list[str] = []
        for i, out in enumerate(_progress(list(outputs), "rhyme factor")):
            res = rhyme_factor(out.text, lookback=p["lookback"], mode=p["mode"])
            values[i] = res.rhyme_factor
            if res.reason:
                notes.append(f"undefined for output {out.id!r}: {res.reason}")
        model = "cmudict+espeak-ng" if p["mode"] == "cmudict" else "espeak-ng-ascii"
        sig = Signature("rhyme_factor", dict(p), "rhyme-words", model)
        return MeasureResult(values={"rhyme_factor": values}, signatures={"rhyme_factor": sig}, notes=notes)


def end_rhyme_types(lines: Sequence[str]) -> list[str | None]:
    """The strongest rhyme type (:func:`creval.rhyme.pairs.rhyme_type`) between the last words of each pair of
    consecutive lines (None where they do not rhyme or a line has no word)."""
    from creval.rhyme.pairs import rhyme_type
    from creval.rhyme.text import last_word

    ends = [last_word(line) for line in lines if line.strip()]
    return [rhyme_type(a, b) if a and b else None for a, b in zip(ends, ends[1:])]


@register_measure
class EndRhymeMeasure(Measure):
    """Share of consecutive line pairs whose end words rhyme: under :func:`creval.rhyme.check_rhyme` (any type
    but consonant) and as perfect rhymes only.

    .. math::

        \\mathrm{ER} = \\frac{|\\{i : \\mathrm{rhyme}(w_{i-1}, w_i)\\}|}{L - 1}

    with :math:`w_i` the last word of line :math:`i` and :math:`L` the number of lines (NaN when :math:`L < 2`).
    """

    name = "end_rhyme"
    description = (
        "share of consecutive line pairs whose last words rhyme (any type but consonant; perfect only)"
    )

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        from creval.rhyme.check import END_RHYME_TYPES

        any_rate = np.full(len(outputs), np.nan)
        perfect_rate = np.full(len(outputs), np.nan)
        notes: list[str] = []
        counts: dict[str, dict[str, int]] = {}
        for i, out in enumerate(_progress(list(outputs), "end rhymes")):
            types = end_rhyme_types(out.text.split("\n"))
            if not types:
                notes.append(f"undefined for output {out.id!r}: fewer than two lines")
                continue
            any_rate[i] = sum(t in END_RHYME_TYPES for t in types) / len(types)
            perfect_rate[i] = sum(t == "perfect" for t in types) / len(types)
            per = counts.setdefault(out.system, {})
            for t in types:
                key = t or "none"
                per[key] = per.get(key, 0) + 1
        sigs = {
            "end_rhyme_rate": Signature("end_rhyme_rate", {"types": "all-but-consonant"}, "rhyme-words"),
            "perfect_end_rhyme_rate": Signature(
                "perfect_end_rhyme_rate", {"types": "perfect"}, "rhyme-words"
            ),
        }
        return MeasureResult(
            values={"end_rhyme_rate": any_rate, "perfect_end_rhyme_rate": perfect_rate},
            signatures=sigs,
            notes=notes,
            artifacts={"type_counts": counts},
        )
