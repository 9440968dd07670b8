"""Offline grapheme-to-phoneme fallback through espeak-ng (``espeakng-loader`` + ``phonemizer``), mapped to
ARPAbet.

The espeak-ng shared library and its data ship inside the ``espeakng-loader`` wheel, so nothing outside PyPI is
needed. espeak's IPA for General American (``en-us``) is split into phones and each phone mapped to the
closest CMUdict phone; espeak's stress marks become CMUdict stress digits (primary 1, secondary 2, none 0).
Flaps and glottal stops become ``T`` (CMUdict writes ``better`` with ``T``), syllabic ``l``/``n`` become
``AH0 L``/``AH0 N``.

:func:`espeak_ascii` gives espeak's own ASCII phoneme mnemonics (``espeak -x``), used by the rhyme factor's
compatibility mode.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from typing import Any

_LOCK = threading.Lock()
_BACKEND: Any = None
_FAILED: str | None = None

#: IPA phone (stress marks removed) -> ARPAbet phones; vowels without a stress digit (added later).
IPA_TO_ARPA: dict[str, tuple[str, ...]] = {
    # vowels and diphthongs
    "i": ("IY",), "iː": ("IY",), "ɪ": ("IH",), "ᵻ": ("IH",), "e": ("EH",), "eɪ": ("EY",), "ɛ": ("EH",),
    "æ": ("AE",), "a": ("AE",), "ɑ": ("AA",), "ɑː": ("AA",), "ɒ": ("AA",), "ɔ": ("AO",), "ɔː": ("AO",),
    "o": ("OW",), "oʊ": ("OW",), "oː": ("OW",), "ʊ": ("UH",), "u": ("UW",), "uː": ("UW",), "ʌ": ("AH",),
    "ə": ("AH",), "ɐ": ("AH",), "ɚ": ("ER",), "ɜ": ("ER",), "ɜː": ("ER",), "ɝ": ("ER",), "aɪ": ("AY",),
    "aʊ": ("AW",), "ɔɪ": ("OY",), "iə": ("IH",), "eə": ("EH",), "ʊə": ("UH",), "aɪɚ": ("AY", "ER"),
    "aɪə": ("AY", "ER"), "aʊɚ": ("AW", "ER"), "ɑːɹ": ("AA", "R"), "ɑɹ": ("AA", "R"), "ɔːɹ": ("AO", "R"),
    "ɔɹ": ("AO", "R"), "oːɹ": ("AO", "R"), "ɛɹ": ("EH", "R"), "ɪɹ": ("IH", "R"), "ʊɹ": ("UH", "R"),
    "ɜːɹ": ("ER",), "əl": ("AH", "L"), "n̩": ("AH", "N"), "l̩": ("AH", "L"), "m̩": ("AH", "M"),
    # consonants
    "p": ("P",), "b": ("B",), "t": ("T",), "d": ("D",), "k": ("K",), "ɡ": ("G",), "g": ("G",),
    "f": ("F",), "v": ("V",), "θ": ("TH",), "ð": ("DH",), "s": ("S",), "z": ("Z",), "ʃ": ("SH",),
    "ʒ": ("ZH",), "h": ("HH",), "tʃ": ("CH",), "dʒ": ("JH",), "m": ("M",), "n": ("N",), "ŋ": ("NG",),
    "l": ("L",), "ɫ": ("L",), "ɹ": ("R",), "r": ("R",), "ɾ": ("T",), "ʔ": ("T",), "w": ("W",), "ʍ": ("W",),
    "j": ("Y",), "x": ("HH",), "ç": ("HH",), "ɬ": ("L",), "ʋ": ("V",), "β": ("V",),
}  # fmt: skip
_VOWELS = {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}
_MAXLEN = max(len(k) for k in IPA_TO_ARPA)
_DROP = set("ːˑ̩̯̃͡‿.-|")


def _setup() -> Any:
    """The espeak-ng backend (created once); raises RuntimeError when espeak cannot be loaded."""
    global _BACKEND, _FAILED
    if _BACKEND is not None:
        return _BACKEND
    if _FAILED is not None:
        raise RuntimeError(_FAILED)
    with _LOCK:
        if _BACKEND is not None:
            return _BACKEND
        try:
            import logging

            import espeakng_loader
            from phonemizer.backend import EspeakBackend
            from phonemizer.backend.espeak.wrapper import EspeakWrapper

            EspeakWrapper.set_library(espeakng_loader.get_library_path())
            EspeakWrapper.set_data_path(espeakng_loader.get_data_path())
            quiet = logging.getLogger("creval.g2p")
            quiet.setLevel(logging.ERROR)
            _BACKEND = EspeakBackend("en-us", with_stress=True, logger=quiet)
        except Exception as exc:  # noqa: BLE001 - any loading failure means "no espeak"
            _FAILED = f"espeak-ng unavailable: {exc}"
            raise RuntimeError(_FAILED) from exc
    return _BACKEND


def available() -> bool:
    try:
        _setup()
    except RuntimeError:
        return False
    return True


def ipa_to_arpabet(ipa: str) -> tuple[str, ...]:
    """Map espeak IPA (phones separated by spaces, stress marks before the stressed vowel) to ARPAbet.

    Clean-ups toward CMUdict's conventions: ``iə`` is ``IY AH`` (``IH`` before ``ɹ``: *zero*); an ``R`` right
    after ``ER`` or a repeated consonant (espeak writes ``ʊɹ ɹ``) is dropped."""
    out: list[str] = []
    tokens = ipa.split()
    for n, token in enumerate(tokens):
        stress = 0
        if "ˈ" in token:
            stress = 1
        elif "ˌ" in token:
            stress = 2
        token = token.replace("ˈ", "").replace("ˌ", "")
        if token == "iə":
            following = tokens[n + 1] if n + 1 < len(tokens) else ""
            phones: tuple[str, ...] = ("IH",) if following.startswith("ɹ") else ("IY", "AH")
        else:
            phones = IPA_TO_ARPA.get(token) or _segment(token)
        first_vowel = True
        for ph in phones:
            if ph in _VOWELS:
                out.append(f"{ph}{stress if first_vowel else 0}")
                first_vowel = False
            elif out and (out[-1] == ph or (ph == "R" and out[-1].startswith("ER"))):
                continue
            else:
                out.append(ph)
    return tuple(out)


def _segment(token: str) -> tuple[str, ...]:
    """Greedy longest-match segmentation of an IPA string that is not one known phone."""
    phones: list[str] = []
    i = 0
    while i < len(token):
        for size in range(min(_MAXLEN, len(token) - i), 0, -1):
            piece = token[i : i + size]
            if piece in IPA_TO_ARPA:
                phones.extend(IPA_TO_ARPA[piece])
                i += size
                break
        else:
            if token[i] not in _DROP:
                stripped = token[i]
                if stripped in IPA_TO_ARPA:
                    phones.extend(IPA_TO_ARPA[stripped])
            i += 1
    return tuple(phones)


def g2p_batch(words: Sequence[str]) -> list[tuple[str, ...]]:
    """ARPAbet phones for each word from espeak-ng (one call for the whole batch).

    Raises RuntimeError when espeak-ng cannot be loaded.
    """
    if not words:
        return []
    from phonemizer.separator import Separator

    backend = _setup()
    with _LOCK:
        ipa = backend.phonemize(
            list(words), separator=Separator(phone=" ", word="|", syllable=None), strip=True, njobs=1
        )
    return [ipa_to_arpabet(x.replace("|", " ")) for x in ipa]


def espeak_ascii(text: str) -> str:
    """espeak-ng's ASCII phoneme mnemonics for ``text`` (what ``espeak -x -q`` prints), words separated by
    spaces, stress marks kept."""
    backend = _setup()
    wrapper = backend._espeak  # the phonemizer EspeakWrapper with the en-us voice set
    lib = wrapper._espeak
    with _LOCK:
        ptr = ctypes.pointer(ctypes.c_char_p(text.encode("utf8")))
        parts: list[str] = []
        while ptr.contents.value is not None:
            res = lib.text_to_phonemes(ptr, 1, 0)
            if res:
                parts.append(res.decode("utf8", "replace").strip())
    return " ".join(parts)
