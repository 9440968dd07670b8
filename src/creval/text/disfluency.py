"""Disfluency handling for lyrics, after Addanki & Wu (2014), "Evaluating improvised hip hop lyrics".

Transcribed and generated lyrics contain material that is not part of the verse proper; Addanki & Wu compared
two ways to deal with it. creval detects four kinds, per line:

- ``repetition``: a run of the same word repeated back to back, ``the the the``, ``I I I`` (case-insensitive,
  at least ``min_run`` = 2 occurrences; punctuation between the words is allowed: ``go, go, go``);
- ``stutter``: a hyphenated false start, ``b-b-bad``, ``I-I-I``, ``wh-what``;
- ``backing``: a backing-vocal echo, i.e. any parenthesised segment ``(yeah)``, ``(I'm the best)`` — in lyrics
  transcriptions parentheses mark ad-libs and echoes;
- ``filler``: a line made only of vocables/fillers (``yeah yeah``, ``uh``, ``ooh``, ``la la la``).

Two strategies (both options of corpus cleaning and of output post-processing):

- ``correct``: collapse a repetition run or a stutter to one word, delete backing-vocal segments, drop filler
  lines; every other line is kept;
- ``filter``: drop every line that has any disfluency.

A :class:`DisfluencyReport` counts what was found and done per artist (corpus) or system (outputs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from creval.corpus.model import Corpus, Output, Verse

STRATEGIES = ("correct", "filter")
KINDS = ("repetition", "stutter", "backing", "filler")

FILLERS = frozenset(
    "yeah yea yeh yah ya yo uh uhh uhm um umm huh hah ha ho hey ay ayy ayo aye ooh oh ohh ah ahh aah whoa woah woo "
    "wooo hoo mm mmm hmm la na da doo skrrt skrt brr brrr uh-huh uh-oh".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_PAREN = re.compile(r"\s*\([^()]*\)")
_STUTTER = re.compile(r"(?<![\w-])((?:[^\W\d_]{1,3}-)+)([^\W\d_][\w']*)", re.UNICODE)


@dataclass(frozen=True)
class Disfluency:
    kind: str
    start: int
    end: int
    text: str


def _is_stutter(prefixes: str, word: str) -> bool:
    parts = [p for p in prefixes.split("-") if p]
    lw = word.lower()
    return all(lw.startswith(p.lower()) for p in parts)


def _filler_token(token: str) -> bool:
    t = token.lower().replace("’", "'")
    if t in FILLERS:
        return True
    # elongated vocables: "ooooh", "yeaaah", "lalala", "nanana"
    squeezed = re.sub(r"(.)\1+", r"\1", t)
    return squeezed in FILLERS or bool(re.fullmatch(r"(?:la|na|da|ha|ho)+", t))


def is_filler_line(line: str) -> bool:
    """True when a line has words and every word is a vocable/filler (after removing parentheses)."""
    words = _WORD.findall(_PAREN.sub(" ", line)) or _WORD.findall(line.replace("(", " ").replace(")", " "))
    return bool(words) and all(_filler_token(w) for p in words for w in p.split("-"))


def detect(line: str, *, min_run: int = 2) -> list[Disfluency]:
    """All disfluencies of one line (see module docstring), in order of position."""
    if min_run < 2:
        raise ValueError("min_run must be >= 2")
    found: list[Disfluency] = []
    if is_filler_line(line):
        return [Disfluency("filler", 0, len(line), line)]
    for m in _PAREN.finditer(line):
        found.append(Disfluency("backing", m.start(), m.end(), m.group().strip()))
    masked = _PAREN.sub(lambda m: " " * len(m.group()), line)
    for m in _STUTTER.finditer(masked):
        if _is_stutter(m.group(1), m.group(2)):
            found.append(Disfluency("stutter", m.start(), m.end(), m.group()))
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(masked) if "-" not in m.group()]
    i = 0
    while i < len(words):
        j = i
        while j + 1 < len(words) and words[j + 1][2] == words[i][2] and _only_punct_between(masked, words[j], words[j + 1]):
            j += 1
        if j - i + 1 >= min_run:
            found.append(Disfluency("repetition", words[i][0], words[j][1], line[words[i][0]: words[j][1]]))
        i = j + 1
    return sorted(found, key=lambda d: d.start)


def _only_punct_between(text: str, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    gap = text[a[1]: b[0]]
    return all(not ch.isalnum() for ch in gap)


def correct_line(line: str, *, min_run: int = 2) -> str | None:
    """The ``correct`` strategy on one line; None when the line should be dropped (a filler line, or nothing
    left after removing backing vocals)."""
    found = detect(line, min_run=min_run)
    if any(d.kind == "filler" for d in found):
        return None
    out = line
    for d in sorted(found, key=lambda d: d.start, reverse=True):
        if d.kind == "backing":
            replacement = " "
        elif d.kind == "stutter":
            replacement = _STUTTER.match(d.text).group(2)
        else:  # repetition: keep the first occurrence
            replacement = _WORD.match(d.text).group()
        out = out[: d.start] + replacement + out[d.end:]
    out = re.sub(r"\s{2,}", " ", out).strip()
    out = re.sub(r"\s+([,.;:!?])", r"\1", out)
    return out or None


@dataclass
class DisfluencyReport:
    """Counts of disfluencies found (by kind) and lines changed/dropped, per group (artist or system)."""

    strategy: str
    found: dict[str, Counter[str]] = field(default_factory=dict)
    lines_changed: Counter[str] = field(default_factory=Counter)
    lines_dropped: Counter[str] = field(default_factory=Counter)
    lines_total: Counter[str] = field(default_factory=Counter)

    def table(self) -> list[dict[str, object]]:
        rows = []
        for group in sorted(self.lines_total):
            row: dict[str, object] = {"group": group, "lines": self.lines_total[group]}
            row.update({kind: self.found.get(group, Counter())[kind] for kind in KINDS})
            row["changed"] = self.lines_changed[group]
            row["dropped"] = self.lines_dropped[group]
            rows.append(row)
        return rows

    def total(self, kind: str) -> int:
        return sum(c[kind] for c in self.found.values())


def handle_lines(
    lines: Sequence[str], strategy: str, report: DisfluencyReport, group: str, *, min_run: int = 2
) -> list[str]:
    """Apply a strategy to lines, counting into ``report`` under ``group``."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown disfluency strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    counts = report.found.setdefault(group, Counter())
    kept: list[str] = []
    for line in lines:
        report.lines_total[group] += 1
        found = detect(line, min_run=min_run)
        counts.update(d.kind for d in found)
        if not found:
            kept.append(line)
            continue
        if strategy == "filter":
            report.lines_dropped[group] += 1
            continue
        fixed = correct_line(line, min_run=min_run)
        if fixed is None:
            report.lines_dropped[group] += 1
        else:
            report.lines_changed[group] += fixed != line
            kept.append(fixed)
    return kept


def handle_corpus(corpus: Corpus, strategy: str, *, min_run: int = 2) -> tuple[Corpus, DisfluencyReport]:
    """Apply a strategy to every verse; verses left with no lines are dropped. Counts are per artist."""
    report = DisfluencyReport(strategy)
    verses: list[Verse] = []
    for verse in corpus:
        lines = handle_lines(verse.lines, strategy, report, verse.artist, min_run=min_run)
        if lines:
            same = tuple(lines) == verse.lines
            verses.append(verse if same else replace(verse, lines=tuple(lines), scheme=None))
    return Corpus(verses, name=corpus.name), report


def handle_outputs(
    outputs: Iterable[Output], strategy: str, *, min_run: int = 2, system_suffix: str | None = None
) -> tuple[list[Output], DisfluencyReport]:
    """Post-process generated outputs (counts per system). An output may end up empty (text ``""``); it is kept
    so that ids stay aligned. ``system_suffix`` renames systems (``"+correct"`` makes ``sys+correct``) so both
    strategies can sit side by side in one study."""
    report = DisfluencyReport(strategy)
    result: list[Output] = []
    for out in outputs:
        lines = handle_lines(out.text.split("\n"), strategy, report, out.system, min_run=min_run)
        system = out.system + system_suffix if system_suffix else out.system
        oid = f"{out.id}{system_suffix}" if system_suffix else out.id
        result.append(replace(out, id=oid, text="\n".join(lines), system=system))
    return result, report
