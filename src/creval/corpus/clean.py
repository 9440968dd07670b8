"""Corpus cleaning for rap lyrics, after Potash, Romanov & Rumshisky (2016), "GhostWriter", §3.

Steps, in order, each one counted in the :class:`CleaningReport`:

1. **metadata / header lines** are dropped: section headers (``[Verse 1: Artist]``, ``[Intro]``, ``Verse 2:``),
   credit lines (``Produced by …``, ``Written by …``, ``Artist: …``, ``Album: …``, ``Title: …``,
   ``Copyright …``, ``Lyrics …``), and URLs.
2. **line-repetition markup** is removed from the line, which is kept once: ``[x2]``, ``(x2)``, ``x2``,
   ``(2x)``, ``(repeat 2x)``, ``[Repeat x3]``, ``*2``, ``(*2)``. With ``expand_repeats=True`` the line is
   repeated the number of times the markup says instead.
3. **chorus / hook sections** are dropped: from a header such as ``[Chorus]``, ``[Hook: X]``, ``Chorus:``,
   ``(Refrain)`` up to the next section header or the end of the verse (blank line), whichever comes first.
   (The paper drops choruses "up to the next section"; blank lines end a verse in creval's formats, so a
   verse boundary also ends the chorus. A bare ``Chorus`` / ``[Chorus x2]`` line with no lines under it,
   i.e. a pointer to a chorus printed earlier, is simply dropped as a header.)
4. optionally, **disfluency handling** (Addanki & Wu 2014; ``disfluency="correct"`` or ``"filter"``, see
   :mod:`creval.text.disfluency`), counted per artist in ``report.disfluency``;
5. **tokenise** (creval's word tokenizer) and drop verses with fewer than ``min_tokens`` tokens (20, as the
   paper did).

The report lists every dropped verse/line with file, line number and reason.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from creval.corpus.model import Corpus, Verse
from creval.text.disfluency import DisfluencyReport, handle_lines
from creval.text.tokenize import get_tokenizer

_SECTION_WORDS = (
    r"verse|chorus|hook|refrain|bridge|intro|outro|pre-?chorus|post-?chorus|interlude|breakdown|skit|"
    r"instrumental|break|coda|spoken|part|couplet|ad-?libs?|talking"
)
_CHORUS_WORDS = r"chorus|hook|refrain|pre-?chorus|post-?chorus"
# "[Verse 1: Nas]", "(Chorus)", "{Hook}", "Verse 2:", "CHORUS", "Hook x2:"
_SECTION_HEADER = re.compile(
    rf"^\s*(?:[\[({{]\s*(?P<b>(?:{_SECTION_WORDS})\b[^\])}}]*)[\])}}]|(?P<p>(?:{_SECTION_WORDS})\b"
    rf"(?:\s*\d+)?(?:\s*\(?[x×*]\s*\d+\)?)?\s*(?::.*)?))\s*$",
    re.IGNORECASE,
)
_CHORUS = re.compile(rf"^\W*(?:{_CHORUS_WORDS})\b", re.IGNORECASE)
_BRACKETED_ONLY = re.compile(r"^\s*\[[^\]]*\]\s*$")
_METADATA = re.compile(
    r"^\s*(?:(?:produced|written|composed|performed|mixed|recorded|arranged|lyrics)\s+by\b"
    r"|(?:artist|album|title|song|track|producer|label|genre|year|released?|featuring|feat\.?)\s*:"
    r"|copyright\b|©|\(c\)\s*\d{4}|all rights reserved|lyrics\s*(?:provided|licensed)"
    r"|https?://|www\.)",
    re.IGNORECASE,
)
_REPEAT = re.compile(
    r"\s*(?:[\[(]\s*(?:repeat\s*)?(?:[x×*]\s*(?P<a>\d+)|(?P<b>\d+)\s*[x×])\s*(?:times)?\s*[\])]"
    r"|[\[(]\s*repeat(?:\s+(?P<c>\d+)\s*(?:x|times)?)?\s*[\])]"
    r"|(?<=\S)\s+(?:[x×]\s*(?P<d>\d+)|(?P<e>\d+)\s*x|\*\s*(?P<f>\d+))"
    r"|\s*\*(?P<g>\d+))\s*$",
    re.IGNORECASE,
)
_MARKUP_ENDS = frozenset(")]0123456789")


@dataclass
class Dropped:
    """One thing cleaning removed: where it was, what it was, why."""

    source: str
    line: int
    artist: str
    reason: str
    text: str


@dataclass
class CleaningReport:
    """What cleaning did: counts per reason and per artist, and every dropped item."""

    verses_in: int = 0
    verses_out: int = 0
    dropped: list[Dropped] = field(default_factory=list)
    repeat_markup_removed: int = 0
    disfluency: DisfluencyReport | None = None

    def counts(self) -> Counter[str]:
        return Counter(d.reason for d in self.dropped)

    def counts_by_artist(self) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for d in self.dropped:
            out.setdefault(d.artist, Counter())[d.reason] += 1
        return out

    def summary(self) -> str:
        parts = [f"{self.verses_in} verses in, {self.verses_out} kept"]
        for reason, n in sorted(self.counts().items()):
            parts.append(f"{n} × {reason}")
        if self.repeat_markup_removed:
            parts.append(f"{self.repeat_markup_removed} × repetition markup removed (line kept)")
        if self.disfluency is not None:
            d = self.disfluency
            found = ", ".join(f"{d.total(k)} {k}" for k in ("repetition", "stutter", "backing", "filler"))
            parts.append(f"disfluencies ({d.strategy}): {found}; {sum(d.lines_changed.values())} lines "
                         f"corrected, {sum(d.lines_dropped.values())} dropped")
        return "; ".join(parts)


def is_section_header(line: str) -> bool:
    return bool(_SECTION_HEADER.match(line)) or bool(_BRACKETED_ONLY.match(line))


def is_chorus_header(line: str) -> bool:
    return is_section_header(line) and bool(_CHORUS.match(line.strip().lstrip("[({")))


def is_metadata(line: str) -> bool:
    return bool(_METADATA.match(line))


def strip_repeat_markup(line: str) -> tuple[str, int]:
    """Remove line-repetition markup; return the bare line and the repeat count (1 when none)."""
    if line.rstrip()[-1:] not in _MARKUP_ENDS:  # every markup form ends in a digit or a bracket
        return line, 1
    match = _REPEAT.search(line)
    if not match:
        return line, 1
    count = next((int(g) for g in match.groupdict().values() if g), 2)
    bare = line[: match.start()].rstrip()
    return (bare, count) if bare else (line, 1)


def clean_verse(verse: Verse, report: CleaningReport, *, expand_repeats: bool = False) -> list[str]:
    """Apply steps 1-3 to one verse; return its remaining lines."""
    kept: list[str] = []
    in_chorus = False
    for offset, line in enumerate(verse.lines):
        number = verse.line + offset if verse.line else 0
        if is_section_header(line):
            in_chorus = is_chorus_header(line)
            reason = "chorus/hook header" if in_chorus else "section header"
            report.dropped.append(Dropped(verse.source, number, verse.artist, reason, line))
            continue
        if in_chorus:
            report.dropped.append(Dropped(verse.source, number, verse.artist, "chorus/hook line", line))
            continue
        if is_metadata(line):
            report.dropped.append(Dropped(verse.source, number, verse.artist, "metadata line", line))
            continue
        bare, count = strip_repeat_markup(line)
        if bare != line:
            report.repeat_markup_removed += 1
        kept.extend([bare] * (count if expand_repeats else 1))
    return kept


def clean_corpus(
    corpus: Corpus,
    *,
    min_tokens: int = 20,
    tokenizer: str = "word",
    expand_repeats: bool = False,
    disfluency: str | None = None,
) -> tuple[Corpus, CleaningReport]:
    """Clean every verse (module docstring) and drop verses shorter than ``min_tokens`` tokens."""
    if min_tokens < 0:
        raise ValueError("min_tokens must be >= 0")
    tok = get_tokenizer(tokenizer)
    report = CleaningReport(verses_in=len(corpus))
    if disfluency is not None:
        report.disfluency = DisfluencyReport(disfluency)
    out: list[Verse] = []
    for verse in corpus:
        lines = clean_verse(verse, report, expand_repeats=expand_repeats)
        if report.disfluency is not None:
            lines = handle_lines(lines, disfluency, report.disfluency, verse.artist)
        if not lines:
            report.dropped.append(Dropped(verse.source, verse.line, verse.artist, "empty after cleaning", ""))
            continue
        n_tokens = sum(len(tok(line)) for line in lines)
        if n_tokens < min_tokens:
            report.dropped.append(
                Dropped(verse.source, verse.line, verse.artist, f"shorter than {min_tokens} tokens", "\n".join(lines))
            )
            continue
        if tuple(lines) == verse.lines:
            out.append(verse)
        else:
            out.append(
                Verse(verse.artist, tuple(lines), verse.title, verse.source, verse.line, scheme=None)
            )
    report.verses_out = len(out)
    return Corpus(out, name=corpus.name), report
