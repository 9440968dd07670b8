"""Syllabification of ARPAbet phone sequences with stress.

Every vowel is the nucleus of one syllable. Consonants between two vowels are split by the maximal onset
principle: the next syllable takes the longest run of consonants that is a legal English word onset, the
rest closes the previous syllable (``AH0 S T R EY1`` → ``AH0 | S T R EY1``), except that a stressed lax vowel
(AE, EH, IH, AH, UH), which cannot end an English syllable, keeps at least one consonant as its coda
(``M AE1 S T ER0`` → ``M AE1 S | T ER0``, ``HH AE1 P IY0`` → ``HH AE1 P | IY0``). Consonants before the first vowel are its onset; after the last vowel, its coda.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from creval.phonetics.arpabet import MANNER, VOWELS, base

_SINGLE = {"P", "B", "T", "D", "K", "G", "F", "V", "TH", "DH", "S", "Z", "SH", "ZH", "CH", "JH", "M", "N", "L",
           "R", "W", "Y", "HH"}  # fmt: skip
_CLUSTERS = """
P R|P L|B R|B L|T R|D R|K R|K L|G R|G L|F R|F L|TH R|SH R|S P|S T|S K|S M|S N|S L|S W|S F|T W|D W|K W|G W|TH W|
P Y|B Y|F Y|K Y|M Y|HH Y|V Y|N Y|L Y|SH M|SH N|SH L|S P R|S T R|S K R|S P L|S K W|S P Y|S K Y|S K L|S M Y
"""
LEGAL_ONSETS: frozenset[tuple[str, ...]] = frozenset(
    {(c,) for c in _SINGLE} | {tuple(c.split()) for c in _CLUSTERS.replace("\n", "").split("|") if c.strip()}
)


@dataclass(frozen=True, slots=True)
class Syllable:
    """One syllable: onset consonants, vowel nucleus (no stress digit), coda consonants and stress
    (0 unstressed, 1 primary, 2 secondary)."""

    onset: tuple[str, ...]
    nucleus: str
    coda: tuple[str, ...]
    stress: int

    @property
    def phones(self) -> tuple[str, ...]:
        return (*self.onset, f"{self.nucleus}{self.stress}", *self.coda)

    def __str__(self) -> str:
        return " ".join(self.phones)


_LAX = frozenset({"AE", "EH", "IH", "AH", "UH"})


def _split_cluster(cluster: Sequence[str], min_coda: int = 0) -> int:
    """Index where the onset of the next syllable starts inside an intervocalic consonant cluster."""
    for start in range(min(min_coda, len(cluster)), len(cluster)):
        if tuple(cluster[start:]) in LEGAL_ONSETS:
            return start
    return len(cluster)


def syllabify(phones: Sequence[str] | str) -> tuple[Syllable, ...]:
    """Split ARPAbet phones (with stress digits on vowels) into :class:`Syllable` s.

    ``phones`` may also be one string: ARPAbet separated by spaces (``"D AO1 G"``), or a word, which is
    pronounced first (``syllabify("master")``). A sequence without any vowel yields no syllables.
    """
    if isinstance(phones, str):
        parts = phones.split()
        if parts and all(base(p) in VOWELS or p in MANNER for p in parts):
            phones = parts
        else:
            from creval.phonetics.lexicon import pronounce

            return pronounce(phones).syllables
    vowel_pos = [i for i, p in enumerate(phones) if base(p) in VOWELS]
    if not vowel_pos:
        return ()
    sylls: list[Syllable] = []
    onset_start = 0
    for n, vi in enumerate(vowel_pos):
        onset = tuple(phones[onset_start:vi])
        if n + 1 < len(vowel_pos):
            cluster = phones[vi + 1 : vowel_pos[n + 1]]
            ph = phones[vi]
            checked = ph[-1] in "12" and base(ph) in _LAX
            cut = _split_cluster(cluster, 1 if checked else 0)
            coda = tuple(cluster[:cut])
            onset_start = vi + 1 + cut
        else:
            coda = tuple(phones[vi + 1 :])
        ph = phones[vi]
        stress = int(ph[-1]) if ph[-1].isdigit() else 0
        sylls.append(Syllable(onset, base(ph), coda, stress))
    return tuple(sylls)
