"""The ARPAbet inventory CMUdict uses, with the phonetic classes rhyme analysis needs.

Consonant classes follow the articulatory grouping that songwriting rhyme dictionaries (Phyme) use:
manner of articulation (plosive, fricative, affricate, nasal, liquid, semivowel, aspirate) and voicing.
"""

from __future__ import annotations

VOWELS: frozenset[str] = frozenset(
    {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}
)

#: Manner class of each consonant.
MANNER: dict[str, str] = {
    "P": "plosive", "B": "plosive", "T": "plosive", "D": "plosive", "K": "plosive", "G": "plosive",
    "F": "fricative", "V": "fricative", "TH": "fricative", "DH": "fricative", "S": "fricative",
    "Z": "fricative", "SH": "fricative", "ZH": "fricative",
    "CH": "affricate", "JH": "affricate",
    "M": "nasal", "N": "nasal", "NG": "nasal",
    "L": "liquid", "R": "liquid",
    "W": "semivowel", "Y": "semivowel",
    "HH": "aspirate",
}  # fmt: skip

#: Voiced consonants (nasals, liquids and semivowels are voiced).
VOICED: frozenset[str] = frozenset(
    {"B", "D", "G", "V", "DH", "Z", "ZH", "JH", "M", "N", "NG", "L", "R", "W", "Y"}
)

CONSONANTS: frozenset[str] = frozenset(MANNER)

#: Index of every vowel (stress removed); used for vectorised lookups.
VOWEL_INDEX: dict[str, int] = {v: i for i, v in enumerate(sorted(VOWELS))}
#: Index of every consonant.
CONSONANT_INDEX: dict[str, int] = {c: i for i, c in enumerate(sorted(CONSONANTS))}
MANNER_INDEX: dict[str, int] = {m: i for i, m in enumerate(sorted(set(MANNER.values())))}


def base(phone: str) -> str:
    """A phone without its stress digit (``"AO1"`` → ``"AO"``)."""
    return phone[:-1] if phone and phone[-1].isdigit() else phone


def is_vowel(phone: str) -> bool:
    return base(phone) in VOWELS


def stress_of(phone: str) -> int:
    """Stress digit of a vowel phone (0 unstressed, 1 primary, 2 secondary); -1 for a consonant."""
    if phone and phone[-1].isdigit():
        return int(phone[-1])
    return -1 if base(phone) not in VOWELS else 0


def consonant_class(phone: str) -> tuple[str, bool]:
    """(manner, voiced) of a consonant phone."""
    return MANNER[phone], phone in VOICED
