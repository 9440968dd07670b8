"""Spelling normalisation for lyrics and numerals spelled out as words.

Rap and song lyrics spell words the way they are sung: dropped g's (``thuggin'``, ``nothin``), clipped
pronouns (``'em``, ``'cause``), elongations (``sooo``, ``yeahhh``) and digits (``8``, ``21``, ``1999``,
``2nd``). :func:`candidates` yields the spellings worth looking up in a dictionary, most faithful first;
:func:`numeral_words` spells a numeral out with ``num2words``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

#: Whole-word respellings common in lyrics (only used when the word itself is not in the dictionary).
RESPELLINGS: dict[str, str] = {
    "'em": "them", "em": "them", "'cause": "because", "'cos": "because", "cuz": "because", "coz": "because",
    "cause": "because", "'til": "until", "til": "until", "'round": "around", "'bout": "about",
    "ya'll": "y'all", "yall": "y'all", "thru": "through", "tho": "though", "u": "you", "ur": "your",
    "luv": "love", "da": "the", "tha": "the", "dat": "that", "dis": "this", "dem": "them", "dey": "they",
    "wit": "with", "ima": "i'ma", "imma": "i'ma", "gon": "gonna", "nuff": "enough", "'nuff": "enough",
    "o'": "of", "ol'": "old", "lil": "little", "lil'": "little", "bout": "about", "ain't": "ain't",
    "cuz'": "because", "'n'": "and", "n'": "and",
}  # fmt: skip

#: Contraction suffixes appended to a known base word, with the phones they add.
CONTRACTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("'ll", ("L",)),
    ("'re", ("ER0",)),
    ("'ve", ("V",)),
    ("'d", ("D",)),
    ("'s", ("Z",)),
    ("'m", ("M",)),
)

_ORDINAL = re.compile(r"^(\d+)(st|nd|rd|th)$")
_PLURAL_NUM = re.compile(r"^(\d+)'?s$")
_DIGITS = re.compile(r"^\d+$")
_DECIMAL = re.compile(r"^\d+\.\d+$")
_MIXED = re.compile(r"\d+|[^\d]+")
_RUN3 = re.compile(r"(.)\1{2,}")


def fold(word: str) -> str:
    """Lower-case, curly apostrophes made straight, accents removed (``Café`` → ``cafe``)."""
    word = word.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'").lower()
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def numeral_words(token: str) -> list[str] | None:
    """Spell a numeral out (``"8"`` → ``["eight"]``, ``"21"`` → ``["twenty", "one"]``, ``"1999"`` →
    ``["nineteen", "ninety", "nine"]`` as a year, ``"2nd"`` → ``["second"]``, ``"90s"`` → ``["nineties"]``);
    None when the token is not a numeral. Mixed tokens such as ``2pac`` are split into runs (``two pac``)."""
    from num2words import num2words

    token = token.strip("'")
    if not token or not any(ch.isdigit() for ch in token):
        return None
    try:
        if _DIGITS.match(token):
            n = int(token)
            if len(token) == 4 and 1100 <= n <= 2099 and n % 1000 != 0:
                text = num2words(n, to="year")
            elif len(token) > 15:
                text = " ".join(num2words(int(d)) for d in token)
            else:
                text = num2words(n)
        elif m := _ORDINAL.match(token):
            text = num2words(int(m.group(1)), to="ordinal")
        elif m := _PLURAL_NUM.match(token):
            words = num2words(int(m.group(1)), to="year" if len(m.group(1)) == 4 else "cardinal").split()
            last = words[-1]
            words[-1] = last[:-1] + "ies" if last.endswith("y") else last + "s"
            text = " ".join(words)
        elif _DECIMAL.match(token):
            text = num2words(float(token))
        else:
            parts = _MIXED.findall(token)
            out: list[str] = []
            for part in parts:
                if part.isdigit():
                    out.extend(numeral_words(part) or [])
                elif part.strip("'-."):
                    out.append(part.strip("'-."))
            return out or None
    except (ValueError, OverflowError, NotImplementedError):
        return None
    return [w for w in re.split(r"[\s\-,]+", text.replace(" and ", " and ")) if w]


def candidates(word: str) -> Iterator[str]:
    """Spellings to try in a dictionary for a lyric word (the folded word itself is not included)."""
    w = fold(word)
    seen = {w}

    def new(c: str) -> bool:
        if c and c not in seen:
            seen.add(c)
            return True
        return False

    stripped = w.strip("'")
    if new(stripped):
        yield stripped
    if w in RESPELLINGS and new(RESPELLINGS[w]):
        yield RESPELLINGS[w]
    if stripped in RESPELLINGS and new(RESPELLINGS[stripped]):
        yield RESPELLINGS[stripped]
    # dropped g: thuggin' / thuggin -> thugging
    for form in (w, stripped):
        if form.endswith("in'") and new(form[:-1] + "g"):
            yield form[:-1] + "g"
        if form.endswith("in") and len(form) > 3 and new(form + "g"):
            yield form + "g"
    # -a for -er: playa -> player, holla -> holler
    if stripped.endswith("a") and len(stripped) > 3 and new(stripped[:-1] + "er"):
        yield stripped[:-1] + "er"
    # -z for -s: boyz -> boys
    if stripped.endswith("z") and len(stripped) > 3 and new(stripped[:-1] + "s"):
        yield stripped[:-1] + "s"
    # elongation: sooo -> soo -> so, yeahhh -> yeahh -> yeah
    if _RUN3.search(stripped):
        two = _RUN3.sub(r"\1\1", stripped)
        one = _RUN3.sub(r"\1", stripped)
        # a run at the end of a word is usually one letter drawn out (sooo, nooo, yeahhh), one inside is
        # usually a double letter drawn out (goood, sweeeet)
        order = (one, two) if re.search(r"(.)\1{2,}$", stripped) else (two, one)
        for c in order:
            if new(c):
                yield c
            if c.endswith("in") and new(c + "g"):
                yield c + "g"
