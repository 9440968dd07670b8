"""Rhyme types between two words, as predicates on their pronunciations (the types of the Phyme rhyming
dictionary for songwriting).

The *rhyme part* of a pronunciation runs from its last stressed vowel (primary or secondary stress; the last
vowel when none is stressed) to the end: ``master`` → ``AE S T ER``. It is split into vowels and the
consonant clusters after each vowel. With ``syllables=n`` the rhyme part starts ``n`` vowels from the end
instead (multi-syllable rhymes such as toxicology/zoology).

=============  ============================================================================  ===============
type           definition on the rhyme parts                                                 example
=============  ============================================================================  ===============
perfect        identical                                                                     dog / cog
family         same vowels, same cluster sizes, every changed consonant keeps its manner     dog / fob
               class *and* voicing (plosive, fricative, affricate, nasal, liquid, semivowel,
               aspirate)
partner        same vowels and cluster sizes, changed consonants keep their manner class     dog / hawk
               (any voicing)
additive       same vowels; ``b`` adds consonants to ``a`` (each of a's clusters is a        do / dude
               subsequence of b's, b is longer)
subtractive    same vowels; ``b`` drops consonants from ``a`` (additive with a, b swapped)   master / matter
substitution   same vowels and cluster sizes, consonants swapped freely                      factor / faster
assonance      same vowels, consonants differ in any way                                     dog / jaunt
consonant      same consonant clusters, vowels differ                                        dog / beg
=============  ============================================================================  ===============

The types nest: family ⊂ partner ⊂ substitution ⊂ assonance, additive/subtractive ⊂ assonance.
:func:`rhyme_types` returns every type that holds, :func:`rhyme_type` the strongest in the order of the table.
All predicates are symmetric except additive and subtractive, which mirror each other:
``is_additive(a, b) == is_subtractive(b, a)`` (as in Phyme: ``dude`` is an additive rhyme of ``do``, ``do``
a subtractive rhyme of ``dude``).

Decisions: stress digits are ignored inside the rhyme part (its first vowel is stressed by construction);
``AO`` and ``AA`` count as one vowel (the cot–caught merger of General American; CMUdict itself writes
``dog`` with AO and ``frog`` with AA); unstressed IH, UH and AH are one
vowel (schwa; CMUdict writes *taxes* with AH0 and *axis* with IH0); ``ER`` right after AY/AW/OY counts as ``R`` (CMUdict has both
``F AY1 ER0`` for *fire* and ``AE0 D M AY1 R`` for *admire*); every pronunciation variant CMUdict lists is tried and a type holds
when it holds for any pair of variants; identical words are perfect rhymes of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from creval.phonetics import Pronunciation, pronounce
from creval.phonetics.arpabet import MANNER, VOICED, VOWELS, base

RHYME_TYPES: tuple[str, ...] = (
    "perfect",
    "family",
    "partner",
    "additive",
    "subtractive",
    "substitution",
    "assonance",
    "consonant",
)

#: Vowels merged before comparison.
VOWEL_MERGE: dict[str, str] = {"AO": "AA"}
#: Diphthongs after which CMUdict writes an r-coloured ending either as ``ER0`` or as ``R``.
_GLIDING = frozenset({"AY", "AW", "OY"})
#: Vowels that are all schwa when unstressed.
_REDUCED = frozenset({"IH", "UH", "AH"})

Part = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
"""A rhyme part as (vowels, consonant cluster after each vowel)."""


def rhyme_part(phones: Sequence[str], syllables: int | None = None) -> tuple[str, ...]:
    """Phones (no stress digits, merged vowels) from the last stressed vowel to the end; ``syllables=n``
    starts ``n`` vowels from the end instead. Empty when there is no vowel."""
    vowel_pos = [i for i, p in enumerate(phones) if base(p) in VOWELS]
    if not vowel_pos:
        return ()
    if syllables is not None and syllables > 0:
        start = vowel_pos[-min(syllables, len(vowel_pos))]
    else:
        stressed = [i for i in vowel_pos if phones[i][-1] in "12"]
        start = stressed[-1] if stressed else vowel_pos[-1]
    out: list[str] = []
    for p in phones[start:]:
        b = base(p)
        if b == "ER" and out and out[-1] in _GLIDING:
            b = "R"  # fire F AY1 ER0 ~ admire ... AY1 R: CMUdict writes both
        elif b in _REDUCED and p.endswith("0"):
            b = "AH"  # unstressed IH/UH/AH are all schwa: taxes AH0 ~ axis IH0
        out.append(VOWEL_MERGE.get(b, b))
    return tuple(out)


def split_part(part: Sequence[str]) -> Part:
    """(vowels, clusters) of a rhyme part that starts with a vowel."""
    vowels: list[str] = []
    clusters: list[list[str]] = []
    for p in part:
        if p in VOWELS:
            vowels.append(p)
            clusters.append([])
        elif clusters:
            clusters[-1].append(p)
    return tuple(vowels), tuple(tuple(c) for c in clusters)


def _same_shape(a: Part, b: Part) -> bool:
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(len(x) == len(y) for x, y in zip(a[1], b[1]))


def _pairs(a: Part, b: Part):
    for ca, cb in zip(a[1], b[1]):
        yield from zip(ca, cb)


def _subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


# --- predicates on rhyme parts --------------------------------------------------------------------------


def _perfect(a: Part, b: Part) -> bool:
    return a == b and bool(a[0])


def _family(a: Part, b: Part) -> bool:
    return (
        _same_shape(a, b)
        and a != b
        and all(
            x == y or (MANNER[x] == MANNER[y] and (x in VOICED) == (y in VOICED)) for x, y in _pairs(a, b)
        )
    )


def _partner(a: Part, b: Part) -> bool:
    return _same_shape(a, b) and a != b and all(MANNER[x] == MANNER[y] for x, y in _pairs(a, b))


def _substitution(a: Part, b: Part) -> bool:
    return _same_shape(a, b) and a != b


def _additive(a: Part, b: Part) -> bool:
    return (
        bool(a[0])
        and a[0] == b[0]
        and sum(map(len, b[1])) > sum(map(len, a[1]))
        and all(_subsequence(x, y) for x, y in zip(a[1], b[1]))
    )


def _subtractive(a: Part, b: Part) -> bool:
    return _additive(b, a)


def _assonance(a: Part, b: Part) -> bool:
    return bool(a[0]) and a[0] == b[0] and a != b


def _consonant(a: Part, b: Part) -> bool:
    return bool(a[0]) and bool(b[0]) and a[1] == b[1] and a[0] != b[0] and any(a[1])


_PREDICATES = {
    "perfect": _perfect,
    "family": _family,
    "partner": _partner,
    "additive": _additive,
    "subtractive": _subtractive,
    "substitution": _substitution,
    "assonance": _assonance,
    "consonant": _consonant,
}


def _variants(word: str | Pronunciation) -> tuple[tuple[str, ...], ...]:
    pron = pronounce(word) if isinstance(word, str) else word
    return pron.alternatives or ((pron.phones,) if pron.phones else ())


@lru_cache(maxsize=200_000)
def _types_cached(
    va: tuple[tuple[str, ...], ...], vb: tuple[tuple[str, ...], ...], syllables: int | None
) -> frozenset[str]:
    found: set[str] = set()
    for pa in va:
        part_a = split_part(rhyme_part(pa, syllables))
        for pb in vb:
            part_b = split_part(rhyme_part(pb, syllables))
            for name, pred in _PREDICATES.items():
                if name not in found and pred(part_a, part_b):
                    found.add(name)
    return frozenset(found)


def rhyme_types(a: str | Pronunciation, b: str | Pronunciation, syllables: int | None = None) -> set[str]:
    """Every rhyme type that holds between ``a`` and ``b`` (words or pronunciations); empty when none holds
    or a word has no pronounceable vowel."""
    return set(_types_cached(_variants(a), _variants(b), syllables))


def rhyme_type(a: str | Pronunciation, b: str | Pronunciation, syllables: int | None = None) -> str | None:
    """The strongest rhyme type between ``a`` and ``b`` in the order of :data:`RHYME_TYPES`, or None."""
    found = _types_cached(_variants(a), _variants(b), syllables)
    for name in RHYME_TYPES:
        if name in found:
            return name
    return None


def _predicate(name: str):
    def pred(a: str | Pronunciation, b: str | Pronunciation, syllables: int | None = None) -> bool:
        return name in _types_cached(_variants(a), _variants(b), syllables)

    pred.__name__ = f"is_{name}"
    pred.__doc__ = f"True when ``a`` and ``b`` are {name} rhymes (see the module table)."
    return pred


is_perfect = _predicate("perfect")
is_family = _predicate("family")
is_partner = _predicate("partner")
is_additive = _predicate("additive")
is_subtractive = _predicate("subtractive")
is_substitution = _predicate("substitution")
is_assonance = _predicate("assonance")
is_consonant = _predicate("consonant")
