"""Rhyme-scheme detection: a hidden Markov model over stanza rhyme schemes (Addanki & Wu 2013) whose emission
model is the rhyme-pair model of Reddy & Knight (2011), trained unsupervised with forward-backward (EM) on the
end words of verses.

The model
---------
A verse is the sequence of its lines' end words ``x_1 … x_n``. Hidden states are stanza rhyme schemes; by default
the nine of Addanki & Wu (2013): ``A, AA, ABA, AAA, ABAB, AABA, ABAA, BAAA, AAAA`` (letters as usual: lines with
the same letter rhyme, a letter used once marks an unrhymed line). A state of length ``L`` emits ``L``
consecutive end words, so the chain is a segmental HMM: a path through it cuts the verse into stanzas and gives
each its scheme. Start probabilities ``π`` and transitions ``A[s', s]`` between schemes are learned.

Emission (Reddy & Knight 2011, §3): within a stanza with scheme ``s``, the first line of each rhyme group draws
its word from the unigram distribution ``U``; every later line ``i`` of a group ``G`` draws its word from the
words already in the group, ``p(x_i | s) = (1/|G_<i|) Σ_{j∈G_<i} θ(x_i | x_j)``. Dividing by the scheme-free
``Π U(x_i)`` (the same for every path), a stanza's emission score is

    E(x_t..x_{t+L-1} | s) = Π_{i later in a group} (1/|G_<i|) Σ_{j∈G_<i} ρ(x_j, x_i),   ρ(w, v) = θ(v | w) / U(v).

The rhyme-pair distribution ``θ(v | w)`` is anchored on pronunciation. Every word pair falls in one phonetic
class ``k(w, v)`` (the strongest that holds): identical word; perfect rhyme (same rhyme part from the last
stressed vowel, :func:`creval.rhyme.pairs.rhyme_part`); partner rhyme (same vowels, consonants of the same manner
class: the family/partner types of :mod:`creval.rhyme.pairs`); eye rhyme (same spelling from the last vowel
letter: love/prove, flood/good, frequent in older verse); assonance (same vowels); consonant rhyme (same final
consonants, other vowels); none. The class model is

    θ_cls(v | w) = U(v) φ_k / M_k(w),   k = k(w, v),   M_k(w) = Σ_{v' : k(w, v') = k} U(v')

so a class of rare sounds (small mass ``M_k(w)``) is strong evidence and a common one weak; ``φ`` (how often a
linked pair is a perfect rhyme, a slant rhyme, ...) is learned by EM, initialised from phonetics
(:data:`PHI_INIT`).

On top, pair-specific probabilities are learned by EM as Reddy & Knight learn word-pair probabilities, but on the
pair's *rhyme parts* (``pair_level="rhyme"``: love/dove and glove/above share evidence) and shrunk towards the
class model so that one chance co-occurrence cannot make a rhyme (``pair_model="rate"``, default):

    ρ(w, v) = ρ_cls(w, v) · [(c(w, v) + β q_k) / (m(w, v) + β)] / q_k

where ``m`` counts how often the two rhyme parts stand within one stanza window of each other in the training
verses, ``c`` the expected number of times they were linked (E-step), ``q_k`` the linked share of all
co-occurring pairs of class ``k``, and ``β = pair_prior``. ``pair_model="dirichlet"`` is Reddy & Knight's MAP
form ``θ(v | w) = (c(w, v) + β θ_cls(v | w)) / (n_w + β)``, which on this corpus lets EM talk itself into
non-rhymes (Coleridge's ABCB ballads collapse to ABAB). The pair layer joins after ``pair_warmup`` iterations of
the class model alone. ``pair_prior=None`` keeps the class model only. A verse's stanza emission multiplies, for
every later line of a group, the geometric mean of ρ over the earlier lines of its group (``combine``; the
arithmetic mixture of Reddy & Knight is ``combine="mixture"``, which let all-A states swallow couplets).

Training is forward-backward in log space, vectorised with numpy over all verses of a length bucket at once (the
sums over the previous state are matrix products); decoding is Viterbi.

:meth:`RhymeSchemeHMM.label` gives one scheme for a whole unit (a gold stanza of any length): the Viterbi
stanzas' rhyme groups; then a line whose mean log ρ to the rest of its group is below log ``split_threshold``
leaves it (the transition prior put it there, not its sound); then groups are linked *across* Viterbi stanzas
(a sonnet octave ABBAABBA, a Spenserian stanza ABABBCBCC, tail rhyme AABCCB), best pair first, while the mean
log ρ over their cross pairs at most ``link_window`` lines apart exceeds log ``link_threshold``.

Evaluation on the Chicago Rhyming Poetry Corpus (:func:`evaluate_on_gold`): given the gold stanza boundaries,
each stanza is labelled; scheme accuracy is the share of stanzas whose scheme equals the gold up to renaming of
letters; pair precision/recall/F1 count unordered line pairs inside a stanza that share a letter.

References: K. Addanki and D. Wu (2013), "Unsupervised rhyme scheme identification in hip hop lyrics using
hidden Markov models", SLSP. S. Reddy and K. Knight (2011), "Unsupervised discovery of rhyme schemes", ACL.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from creval.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from creval.corpus.model import Corpus

#: The hidden states of Addanki & Wu (2013).
ADDANKI_WU_SCHEMES: tuple[str, ...] = ("A", "AA", "ABA", "AAA", "ABAB", "AABA", "ABAA", "BAAA", "AAAA")


def all_schemes(max_length: int = 4) -> tuple[str, ...]:
    """Every rhyme scheme of 1 … ``max_length`` lines (restricted growth strings; 23 up to length 4)."""
    out: list[str] = []
    frontier: list[tuple[int, ...]] = [(0,)]
    while frontier:
        nxt = []
        for s in frontier:
            out.append(scheme_string(s))
            if len(s) < max_length:
                nxt.extend(s + (g,) for g in range(max(s) + 2))
        frontier = nxt
    return tuple(out)


#: Named state inventories accepted by :class:`RhymeSchemeHMM` (``schemes="all4"``).
INVENTORIES: dict[str, tuple[str, ...]] = {}

#: Phonetic classes of a word pair, strongest first.
CLASSES: tuple[str, ...] = ("identical", "perfect", "partner", "eye", "assonance", "consonant", "none")
_NONE = len(CLASSES) - 1

#: Initial φ: the share of rhyme-linked pairs in each class (the phonetic anchor of the emission model).
PHI_INIT: np.ndarray = np.array([0.06, 0.52, 0.10, 0.08, 0.08, 0.04, 0.12])

#: Typical class masses M_k(w) of an English end-word vocabulary; small vocabularies are shrunk towards them.
_DEFAULT_MASS = np.array([0.002, 0.012, 0.012, 0.006, 0.06, 0.03, 0.878])

_BLANK_RATIO = 1e-3  # ρ of any pair with a line that has no word
_VOWEL_LETTERS = re.compile(r"[aeiouy]+")
_KEEP = re.compile(r"[^\w']+")


# ------------------------------------------------------------------------------------------------ schemes
def parse_scheme(scheme: str | Sequence[Any]) -> tuple[int, ...]:
    """A scheme as a restricted growth tuple: ``"ABAB"`` → ``(0, 1, 0, 1)``; ``[1, 2, 2, 1]`` → ``(0, 1, 1, 0)``.

    Letters or labels are renamed in order of first appearance, so equal tuples mean equal schemes.
    """
    items = list(scheme) if isinstance(scheme, str) else list(scheme)
    names: dict[Any, int] = {}
    return tuple(names.setdefault(x, len(names)) for x in items)


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def scheme_string(scheme: Sequence[int]) -> str:
    """``(0, 1, 0, 1)`` → ``"ABAB"`` (labels beyond 52 groups are written as ``<n>``)."""
    return "".join(_LETTERS[g] if g < len(_LETTERS) else f"<{g}>" for g in parse_scheme(scheme))


def scheme_pairs(scheme: Sequence[int], offset: int = 0) -> list[tuple[int, int]]:
    """All line pairs ``(i, j)``, ``i < j``, that share a label (``offset`` is added to both)."""
    out = []
    for j, gj in enumerate(scheme):
        for i in range(j):
            if scheme[i] == gj:
                out.append((i + offset, j + offset))
    return out


@dataclass(frozen=True)
class Stanza:
    """One stanza of a segmentation: lines ``start`` ≤ i < ``end`` (0-based, of the input), its ``scheme``
    (``"ABAB"``) and the pairs of line indices that rhyme inside it."""

    start: int
    end: int
    scheme: str
    pairs: tuple[tuple[int, int], ...] = ()

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class _Compiled:
    length: int
    # for every line k that is not the first of its group: (k, antecedent offsets j < k)
    links: tuple[tuple[int, tuple[int, ...]], ...]


def _compile(scheme: str) -> _Compiled:
    groups = parse_scheme(scheme)
    links = []
    for k, g in enumerate(groups):
        ante = tuple(j for j in range(k) if groups[j] == g)
        if ante:
            links.append((k, ante))
    return _Compiled(len(groups), tuple(links))


# ----------------------------------------------------------------------------------------------- words
def end_word(line: str) -> str:
    """The normalised end word of a line: its last word, lower-cased, outer apostrophes kept; ``""`` when the
    line has no word."""
    from creval.rhyme.text import last_word

    word = last_word(line)
    return word.lower().replace("\u2019", "'") if word else ""


def _ortho_key(word: str) -> str:
    """Spelling from the last vowel letter group on, a silent final e kept with it (love → ove, flood → ood)."""
    w = re.sub(r"[^a-z]", "", word.lower())
    if not w:
        return ""
    stem, tail = w, ""
    if len(w) > 2 and w.endswith("e") and w[-2] not in "aeiouy":
        stem, tail = w[:-1], "e"
    found = list(_VOWEL_LETTERS.finditer(stem))
    if not found:
        return w
    return stem[found[-1].start() :] + tail


class _Lexicon:
    """End words with their phonetic keys (ids), counts, unigram U and class masses M_k(w)."""

    N_VAR = 2  # pronunciation variants compared per word

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.words: list[str] = []
        self._key_ids: list[dict[Any, int]] = [{} for _ in range(5)]  # perfect, partner, vowels, cons, ortho
        self.perfect = np.zeros((0, self.N_VAR), np.int64)
        self.partner = np.zeros((0, self.N_VAR), np.int64)
        self.vowels = np.zeros((0, self.N_VAR), np.int64)
        self.cons = np.zeros((0, self.N_VAR), np.int64)
        self.ortho = np.zeros(0, np.int64)
        self.counts = np.zeros(0, np.float64)
        self.total = 0.0
        self.group_mass: list[dict[tuple[int, ...], float]] = []
        self.mass = np.zeros((0, len(CLASSES)))
        self.u = np.zeros(0)

    def _kid(self, which: int, key: Any) -> int:
        table = self._key_ids[which]
        return table.setdefault(key, len(table))

    def _fresh(self, which: int) -> int:
        table = self._key_ids[which]
        key = ("__unique__", len(table))
        return table.setdefault(key, len(table))

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """Ids of ``words``, adding new ones (with phonetic keys) to the lexicon."""
        new = [w for w in dict.fromkeys(words) if w not in self.index]
        if new:
            self._add(new)
        return np.fromiter((self.index[w] for w in words), np.int64, count=len(words))

    def _add(self, new: list[str]) -> None:
        from creval.phonetics import pronounce_many
        from creval.phonetics.arpabet import MANNER
        from creval.rhyme.pairs import rhyme_part, split_part

        prons = pronounce_many([w if w else "_" for w in new])
        rows = {name: [] for name in ("perfect", "partner", "vowels", "cons")}
        ortho = []
        for w, pron in zip(new, prons):
            self.index[w] = len(self.words)
            self.words.append(w)
            variants = [v for v in (pron.alternatives or ((pron.phones,) if pron.phones else ())) if v]
            keys: dict[str, list[int]] = {name: [] for name in rows}
            for v in variants[: self.N_VAR]:
                part = rhyme_part(v)
                if not part:
                    continue
                vowels, clusters = split_part(part)
                manner = tuple(tuple(MANNER.get(c, c) for c in cl) for cl in clusters)
                keys["perfect"].append(self._kid(0, part))
                keys["partner"].append(self._kid(1, (vowels, manner)))
                keys["vowels"].append(self._kid(2, vowels))
                keys["cons"].append(self._kid(3, clusters) if any(clusters) else self._fresh(3))
            for which, name in enumerate(rows):
                got = keys[name] or [self._fresh(which)]
                got = (got + got[-1:] * self.N_VAR)[: self.N_VAR]
                rows[name].append(got)
            ok = _ortho_key(w)
            ortho.append(self._kid(4, ok) if ok else self._fresh(4))
        self.perfect = np.vstack([self.perfect, np.array(rows["perfect"], np.int64)])
        self.partner = np.vstack([self.partner, np.array(rows["partner"], np.int64)])
        self.vowels = np.vstack([self.vowels, np.array(rows["vowels"], np.int64)])
        self.cons = np.vstack([self.cons, np.array(rows["cons"], np.int64)])
        self.ortho = np.concatenate([self.ortho, np.array(ortho, np.int64)])
        self.counts = np.concatenate([self.counts, np.zeros(len(new))])
        if self.group_mass:  # frozen vocabulary: masses of the new words against it
            self.u = np.concatenate([self.u, np.full(len(new), self._u_unseen)])
            self.mass = np.vstack(
                [self.mass, self._masses(np.arange(len(self.words) - len(new), len(self.words)))]
            )

    # -- pair classes ---------------------------------------------------------------------------------
    def classes(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Class index (into :data:`CLASSES`) of each pair ``(a[i], b[i])``: the strongest over pronunciation
        variants."""
        out = np.full(a.shape, _NONE, np.int8)
        eye = self.ortho[a] == self.ortho[b]
        for va in range(self.N_VAR):
            for vb in range(self.N_VAR):
                best = np.full(a.shape, _NONE, np.int8)
                best = np.where(self.cons[a, va] == self.cons[b, vb], 5, best)
                best = np.where(self.vowels[a, va] == self.vowels[b, vb], 4, best)
                best = np.where(eye & (best > 3), 3, best)
                best = np.where(self.partner[a, va] == self.partner[b, vb], 2, best)
                best = np.where(self.perfect[a, va] == self.perfect[b, vb], 1, best)
                out = np.minimum(out, best.astype(np.int8))
        out = np.where(eye, np.minimum(out, 3), out)
        return np.where(a == b, 0, out).astype(np.int8)

    # -- unigram and masses ---------------------------------------------------------------------------
    def freeze(self, counts: np.ndarray, shrink: float) -> None:
        """Set U from ``counts`` (add-½ smoothing) and the class masses M_k(w) of every word."""
        self.counts = counts.astype(np.float64)
        self.total = float(counts.sum())
        denom = self.total + 0.5 * (len(counts) + 1)
        self.u = (self.counts + 0.5) / denom
        self._u_unseen = 0.5 / denom
        self._shrink = shrink
        cols = self._columns()
        self.group_mass = []
        for combo in _MASS_COMBOS:
            table: dict[tuple[int, ...], float] = {}
            keys = np.stack([cols[c] for c in combo], axis=1)
            uniq, inv = np.unique(keys, axis=0, return_inverse=True)
            sums = np.bincount(inv.ravel(), weights=self.u, minlength=len(uniq))
            for row, s in zip(map(tuple, uniq.tolist()), sums):
                table[row] = float(s)
            self.group_mass.append(table)
        self.mass = self._masses(np.arange(len(self.words)))

    def _columns(self, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
        sl = slice(None) if idx is None else idx
        return {
            "perfect": self.perfect[sl, 0],
            "partner": self.partner[sl, 0],
            "vowels": self.vowels[sl, 0],
            "cons": self.cons[sl, 0],
            "ortho": self.ortho[sl],
        }

    def _masses(self, idx: np.ndarray) -> np.ndarray:
        """M_k(w) by inclusion–exclusion over group sums of U (first pronunciation variant), shrunk towards
        :data:`_DEFAULT_MASS` with weight ``shrink`` pseudo-tokens."""
        cols = self._columns(idx)
        g = []
        for combo, table in zip(_MASS_COMBOS, self.group_mass):
            keys = zip(*(cols[c].tolist() for c in combo))
            g.append(np.array([table.get(k, 0.0) for k in keys]))
        perfect, partner, eye, eye_partner, vowel, vowel_eye, cons, cons_vowel, cons_eye, cons_vowel_eye = g
        u = np.array([self.u[i] if i < len(self.u) else self._u_unseen for i in idx.tolist()])
        m = np.zeros((len(idx), len(CLASSES)))
        m[:, 0] = u
        m[:, 1] = np.maximum(perfect - u, 0)
        m[:, 2] = np.maximum(partner - perfect, 0)
        m[:, 3] = np.maximum(eye - eye_partner, 0)
        m[:, 4] = np.maximum(vowel - partner - (vowel_eye - eye_partner), 0)
        m[:, 5] = np.maximum(cons - cons_vowel - cons_eye + cons_vowel_eye, 0)
        m[:, 6] = np.maximum(1.0 - m[:, :6].sum(1), 0)
        n = self.total
        return (n * m + self._shrink * _DEFAULT_MASS) / (n + self._shrink)


_MASS_COMBOS: tuple[tuple[str, ...], ...] = (
    ("perfect",),
    ("partner",),
    ("ortho",),
    ("ortho", "partner"),
    ("vowels",),
    ("vowels", "ortho"),
    ("cons",),
    ("cons", "vowels"),
    ("cons", "ortho"),
    ("cons", "vowels", "ortho"),
)


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.squeeze(out, axis=axis)


def _row_max(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=1)
    return np.where(np.isfinite(m), m, 0.0)


def _log_matmul(log_x: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """log(exp(log_x) @ mat) for rows of log values, stable: shift each row by its maximum."""
    m = _row_max(log_x)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(log_x - m[:, None]) @ mat) + m[:, None]


@dataclass
class _Data:
    """Verses packed for vectorised training: global positions, per-offset pair tables."""

    words: np.ndarray  # word id per line, all verses concatenated
    starts: np.ndarray  # first position of each verse
    lengths: np.ndarray
    # per offset d = 1..D-1: class and sparse-pair index of (words[p], words[p+d]); -1 where p+d leaves the verse
    cls: np.ndarray  # [D, P]
    pair: np.ndarray  # [D, P]
    buckets: list[np.ndarray] = field(default_factory=list)  # verse indices grouped by similar length


INVENTORIES.update({"addanki-wu": ADDANKI_WU_SCHEMES, "all3": all_schemes(3), "all4": all_schemes(4)})


# ------------------------------------------------------------------------------------------------- model
class RhymeSchemeHMM:
    """Segmental HMM over stanza rhyme schemes (Addanki & Wu 2013) with the Reddy & Knight (2011) rhyme-pair
    emission model, anchored on pronunciations; see the module docstring for the equations.

    Parameters: ``schemes`` (hidden states: a list such as ``["A", "AA", "ABAB"]`` or a name of
    :data:`INVENTORIES`, ``"addanki-wu"`` (default) or ``"all4"``); ``n_iter`` / ``tol`` (EM stopping: at most
    ``n_iter`` iterations, stop when the mean log-likelihood per line improves by less than ``tol``);
    ``pair_prior`` (β, strength of the class model as prior of the pair-specific layer; None: class model only);
    ``pair_model`` (``"rate"`` or Reddy & Knight's ``"dirichlet"``), ``pair_level`` (``"rhyme"`` part or
    ``"word"``) and ``pair_warmup`` (iterations before the pair layer joins); ``phi_prior`` (pseudo-counts of
    :data:`PHI_INIT` in the φ update); ``combine`` (``"geometric"`` mean of ρ over a line's earlier group
    members, ``"mixture"`` or ``"last"``); ``split_threshold``, ``link_threshold`` and ``link_window`` (the
    group clean-up and cross-stanza linking of :meth:`label`); ``mass_shrink`` (pseudo-tokens shrinking class
    masses of a small vocabulary towards typical values); ``progress`` (a rich progress bar over EM iterations).

    >>> hmm = RhymeSchemeHMM().fit([["day", "night", "way", "light"], ["cat", "hat", "dog", "log"]])
    >>> hmm.label(["sing", "moon", "ring", "june"])
    'ABAB'
    """

    def __init__(
        self,
        schemes: Sequence[str] | str = ADDANKI_WU_SCHEMES,
        *,
        n_iter: int = 15,
        tol: float = 1e-4,
        pair_prior: float | None = 5.0,
        phi_prior: float = 20.0,
        link_threshold: float = 5.0,
        link_window: int | None = 4,
        split_threshold: float | None = 0.2,
        mass_shrink: float = 200.0,
        combine: str = "geometric",
        pair_level: str = "rhyme",
        pair_warmup: int = 5,
        pair_model: str = "rate",
        prior_weight: float = 0.3,
        progress: bool = False,
    ) -> None:
        if isinstance(schemes, str):
            if schemes not in INVENTORIES:
                raise InputError(f"unknown scheme inventory {schemes!r}; known: {', '.join(INVENTORIES)}")
            schemes = INVENTORIES[schemes]
        if not schemes:
            raise InputError("a rhyme-scheme HMM needs at least one scheme")
        for s in schemes:
            if not s or not s.isalpha():
                raise InputError(f"bad scheme {s!r}: use letters such as 'ABAB'")
        self.schemes = tuple(scheme_string(parse_scheme(s)) for s in schemes)
        if len(set(self.schemes)) != len(self.schemes):
            raise InputError(f"duplicate schemes in {list(schemes)}")
        if "A" not in self.schemes:
            raise InputError("the schemes must include 'A' so that every verse can be segmented")
        if n_iter < 0:
            raise InputError("n_iter must be ≥ 0")
        if pair_prior is not None and pair_prior <= 0:
            raise InputError("pair_prior must be positive (or None for the class model only)")
        if link_threshold <= 0:
            raise InputError("link_threshold must be positive")
        if combine not in ("geometric", "mixture", "last"):
            raise InputError(f"combine must be 'geometric', 'mixture' or 'last', not {combine!r}")
        self.combine = combine
        if pair_level not in ("word", "rhyme"):
            raise InputError(f"pair_level must be 'word' or 'rhyme', not {pair_level!r}")
        self.pair_level = pair_level
        self.pair_warmup = int(pair_warmup)
        if pair_model not in ("rate", "dirichlet"):
            raise InputError(f"pair_model must be 'rate' or 'dirichlet', not {pair_model!r}")
        self.pair_model = pair_model
        self.n_iter = n_iter
        self.tol = tol
        self.pair_prior = pair_prior
        self.phi_prior = phi_prior
        self.link_threshold = link_threshold
        self.link_window = link_window
        if split_threshold is not None and split_threshold <= 0:
            raise InputError("split_threshold must be positive (or None for no splitting)")
        self.split_threshold = split_threshold
        self.mass_shrink = mass_shrink
        if not prior_weight > 0:
            raise InputError("prior_weight must be positive")
        self.prior_weight = float(prior_weight)
        self.progress = progress
        self._compiled = [_compile(s) for s in self.schemes]
        self.lengths = np.array([c.length for c in self._compiled])
        self.max_len = int(self.lengths.max())
        self.lex = _Lexicon()
        S = len(self.schemes)
        self.log_start = np.log(np.full(S, 1.0 / S))
        self.log_trans = np.log(np.full((S, S), 1.0 / S))
        self.phi = PHI_INIT / PHI_INIT.sum()
        self.pair_keys = np.zeros(0, np.int64)  # sorted a * V0 + b
        self.pair_counts = np.zeros(0)
        self.antecedent_counts = np.zeros(0)
        self._v0 = 1
        self._unit_u = np.zeros(0)
        self._unit_u_unseen = 1.0
        self._pair_active = False
        self.pair_opps = np.zeros(0)
        self._class_rate = np.ones(len(CLASSES))
        self._class_opps = np.ones(len(CLASSES))
        self.fitted = False
        self.history: list[float] = []
        self.scheme_prior: dict[int, dict[str, float]] = {}  # set by label_units
        self.prior_history: dict[int, list[float]] = {}

    @property
    def params(self) -> dict[str, Any]:
        return {
            "schemes": ",".join(self.schemes),
            "pair_prior": self.pair_prior,
            "phi_prior": self.phi_prior,
            "link_threshold": self.link_threshold,
            "link_window": self.link_window,
            "split_threshold": self.split_threshold,
            "n_iter": self.n_iter,
            "combine": self.combine,
            "pair_level": self.pair_level,
            "pair_model": self.pair_model,
            "prior_weight": self.prior_weight,
        }

    # -- pair ratios ----------------------------------------------------------------------------------
    def _ratio(
        self, a: np.ndarray, b: np.ndarray, cls: np.ndarray, pair: np.ndarray | None = None
    ) -> np.ndarray:
        """ρ(a, b) = θ(b | a) / U(b) for arrays of word ids."""
        lex = self.lex
        blank = lex.index.get("")
        rho_cls = self.phi[cls] / np.maximum(lex.mass[a, cls], 1e-12)
        if blank is not None:  # a line with no word never rhymes
            rho_cls = np.where((a == blank) | (b == blank), _BLANK_RATIO, rho_cls)
        if self.pair_prior is None or not self._pair_active:
            return rho_cls
        alpha = self.pair_prior
        if pair is None:
            pair = self._pair_index(a, b)
        c = self.pair_counts[np.maximum(pair, 0)] if len(self.pair_counts) else np.zeros(a.shape)
        c = np.where(pair >= 0, c, 0.0)
        if self.pair_model == "rate":
            q = self._class_rate[cls]
            m = np.where(pair >= 0, self.pair_opps[np.maximum(pair, 0)] if len(self.pair_opps) else 0.0, 0.0)
            rho = rho_cls * ((c + alpha * q) / (m + alpha)) / q
            if blank is not None:
                rho = np.where((a == blank) | (b == blank), _BLANK_RATIO, rho)
            return rho
        ua, ub = self._unit(a), self._unit(b)
        known = ua < len(self.antecedent_counts)
        n = np.where(
            known, self.antecedent_counts[np.where(known, ua, 0)] if len(self.antecedent_counts) else 0.0, 0.0
        )
        u_b = np.where(
            ub < len(self._unit_u),
            self._unit_u[np.minimum(ub, max(len(self._unit_u) - 1, 0))] if len(self._unit_u) else 1.0,
            self._unit_u_unseen,
        )
        rho = (c / u_b + alpha * rho_cls) / (n + alpha)
        if blank is not None:
            rho = np.where((a == blank) | (b == blank), _BLANK_RATIO, rho)
        return rho

    def _unit(self, ids: np.ndarray) -> np.ndarray:
        """The unit word-pair probabilities are learned on: the word itself, or its rhyme part."""
        return ids if self.pair_level == "word" else self.lex.perfect[ids, 0]

    def _pair_index(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if not len(self.pair_keys):
            return np.full(a.shape, -1, np.int64)
        ua, ub = self._unit(a), self._unit(b)
        inside = (ua < self._v0) & (ub < self._v0)
        key = ua * self._v0 + ub
        pos = np.searchsorted(self.pair_keys, key)
        pos = np.minimum(pos, len(self.pair_keys) - 1)
        hit = inside & (self.pair_keys[pos] == key)
        return np.where(hit, pos, -1)

    # -- packing --------------------------------------------------------------------------------------
    def _pack(self, verses: Sequence[Sequence[str]]) -> _Data:
        lengths = np.array([len(v) for v in verses], np.int64)
        flat = [w for v in verses for w in v]
        words = self.lex.ids(flat) if flat else np.zeros(0, np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64) if len(lengths) else lengths
        P = len(words)
        D = self.max_len
        verse_of = np.repeat(np.arange(len(lengths)), lengths)
        end_of = (starts + lengths)[verse_of] if P else np.zeros(0, np.int64)
        cls = np.full((D, P), _NONE, np.int8)
        pair = np.full((D, P), -1, np.int64)
        pos = np.arange(P)
        for d in range(1, D):
            ok = pos + d < end_of
            p = pos[ok]
            cls[d, p] = self.lex.classes(words[p], words[p + d])
        order = np.argsort(lengths, kind="stable")
        buckets = []
        i = 0
        while i < len(order):
            j = i + 1
            cap = int(lengths[order[i]]) * 1.25 + 4
            while j < len(order) and j - i < 4096 and lengths[order[j]] <= cap:
                j += 1
            buckets.append(order[i:j])
            i = j
        return _Data(words, starts, lengths, cls, pair, buckets)

    def _index_pairs(self, data: _Data) -> None:
        """Build the sparse pair table (of words or rhyme parts) from every pair that can be linked in
        training, and the unit's unigram distribution."""
        P = len(data.words)
        units = self._unit(data.words)
        self._v0 = int(units.max()) + 1 if P else 1
        counts = np.bincount(units, minlength=self._v0).astype(float)
        denom = counts.sum() + 0.5 * (self._v0 + 1)
        self._unit_u = (counts + 0.5) / denom
        self._unit_u_unseen = 0.5 / denom
        pos = np.arange(P)
        verse_of = np.repeat(np.arange(len(data.lengths)), data.lengths)
        end_of = (data.starts + data.lengths)[verse_of] if P else np.zeros(0, np.int64)
        all_keys = []
        for d in range(1, self.max_len):
            p = pos[pos + d < end_of]
            all_keys.append(units[p] * self._v0 + units[p + d])
        self.pair_keys = np.unique(np.concatenate(all_keys)) if all_keys else np.zeros(0, np.int64)
        self.pair_counts = np.zeros(len(self.pair_keys))
        self.pair_opps = np.zeros(len(self.pair_keys))
        self.antecedent_counts = np.zeros(self._v0)
        class_opps = np.zeros(len(CLASSES))
        for d in range(1, self.max_len):
            p = pos[pos + d < end_of]
            data.pair[d, p] = self._pair_index(data.words[p], data.words[p + d])
            self.pair_opps += np.bincount(data.pair[d, p], minlength=len(self.pair_keys))
            class_opps += np.bincount(data.cls[d, p], minlength=len(CLASSES))
        self._class_opps = class_opps

    # -- emissions ------------------------------------------------------------------------------------
    def _log_emissions(self, data: _Data) -> tuple[np.ndarray, np.ndarray]:
        """log E[p, s] for a stanza of scheme s starting at global position p (-inf when it leaves the verse),
        and the pair ratios R[d, p] = ρ(x_p, x_{p+d})."""
        P = len(data.words)
        D = self.max_len
        R = np.ones((D, P + D))
        for d in range(1, D):
            ok = data.pair[d] >= 0 if self.pair_prior is not None and len(self.pair_keys) else None
            verse_of = np.repeat(np.arange(len(data.lengths)), data.lengths)
            end_of = (data.starts + data.lengths)[verse_of]
            valid = np.arange(P) + d < end_of
            p = np.flatnonzero(valid)
            if not len(p):
                continue
            a, b = data.words[p], data.words[p + d]
            pair = data.pair[d, p] if ok is not None else None
            R[d, p] = self._ratio(a, b, data.cls[d, p].astype(np.int64), pair)
        logR = np.log(np.maximum(R, 1e-300))
        S = len(self.schemes)
        logE = np.zeros((P, S))
        verse_of = np.repeat(np.arange(len(data.lengths)), data.lengths)
        remaining = (data.starts + data.lengths)[verse_of] - np.arange(P)
        for s, comp in enumerate(self._compiled):
            acc = np.zeros(P)
            for k, ante in comp.links:
                if len(ante) == 1:
                    j = ante[0]
                    acc += logR[k - j, j : j + P]
                elif self.combine == "geometric":
                    acc += np.mean([logR[k - j, j : j + P] for j in ante], axis=0)
                elif self.combine == "last":
                    j = ante[-1]
                    acc += logR[k - j, j : j + P]
                else:
                    vals = np.stack([R[k - j, j : j + P] for j in ante])
                    acc += np.log(np.maximum(vals.mean(0), 1e-300))
            acc[remaining < comp.length] = -np.inf
            logE[:, s] = acc
        return logE, R

    # -- forward-backward -----------------------------------------------------------------------------
    def _bucket_arrays(
        self, data: _Data, bucket: np.ndarray, logE: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lens = data.lengths[bucket]
        T = int(lens.max())
        S = len(self.schemes)
        E = np.full((len(bucket), T + self.max_len, S), -np.inf)
        t_idx = np.arange(T)
        mask = t_idx[None, :] < lens[:, None]
        gpos = data.starts[bucket][:, None] + t_idx[None, :]
        E[:, :T][mask] = logE[gpos[mask]]
        return E, lens, gpos

    def _forward_backward(
        self, E: np.ndarray, lens: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Log forward/backward over segment boundaries. Returns (Bst, alpha, G, logZ) where Bst[n, t, s] is
        the log probability of reaching boundary t and starting state s there, alpha[n, t, s] of a state-s
        segment ending at t, G[n, t, s] of the rest of the verse given a state-s segment starts at t."""
        N, TT, S = E.shape
        T = int(lens.max())
        L = self.lengths
        trans = np.exp(self.log_trans)
        states = np.arange(S)
        alpha = np.full((N, T + 1, S), -np.inf)
        Bst = np.full((N, T + 1, S), -np.inf)
        Bst[:, 0, :] = self.log_start
        for t in range(1, T + 1):
            ok = t - L >= 0
            src, st = (t - L)[ok], states[ok]
            alpha[:, t, st] = Bst[:, src, st] + E[:, src, st]
            Bst[:, t, :] = _log_matmul(alpha[:, t, :], trans)
        beta = np.full((N, T + self.max_len + 1, S), -np.inf)
        G = np.full((N, T + 1, S), -np.inf)
        at_end = np.zeros((N, 1), bool)
        for t in range(T, -1, -1):
            G[:, t, :] = E[:, t, :] + beta[:, t + L, states]
            beta[:, t, :] = _log_matmul(G[:, t, :], trans.T)
            at_end = (lens == t)[:, None]
            beta[:, t, :] = np.where(at_end, 0.0, beta[:, t, :])
        logZ = alpha[np.arange(N), lens, :]
        logZ = _logsumexp(logZ, axis=1)
        return Bst, alpha, G, logZ

    # -- training -------------------------------------------------------------------------------------
    def fit(self, verses_end_words: Iterable[Sequence[str]]) -> RhymeSchemeHMM:
        """Train by EM (forward-backward) on verses given as lists of end words (empty strings allowed for
        lines with no word; they never rhyme). Returns self."""
        verses = [[str(w).lower() for w in v] for v in verses_end_words]
        verses = [v for v in verses if v]
        if not verses:
            raise InputError("no verses with lines to train the rhyme-scheme HMM on")
        data = self._pack(verses)
        counts = np.bincount(data.words, minlength=len(self.lex.words)).astype(float)
        self.lex.freeze(counts, self.mass_shrink)
        if self.pair_prior is not None:
            self._index_pairs(data)
        self.history = []
        self._train_lines = int(data.lengths.sum())
        iterator: Iterable[int] = range(self.n_iter)
        if self.progress and self.n_iter:
            from rich.progress import track

            iterator = track(iterator, description="rhyme-scheme HMM: EM", transient=True)
        self._pair_active = False
        for it in iterator:
            # the word-pair layer joins after ``pair_warmup`` iterations of the class model alone, so that its
            # first counts come from a posterior anchored on pronunciation
            self._pair_active = self.pair_prior is not None and it >= self.pair_warmup
            ll = self._em_step(data)
            self.history.append(ll)
            if (
                len(self.history) > 1
                and abs(self.history[-1] - self.history[-2]) < self.tol
                and (self._pair_active or self.pair_prior is None)
            ):
                break
        self._pair_active = self.pair_prior is not None and self.n_iter > self.pair_warmup
        self.fitted = True
        return self

    def _em_step(self, data: _Data) -> float:
        S = len(self.schemes)
        P = len(data.words)
        logE, R = self._log_emissions(data)
        gamma = np.zeros((P, S))
        start_counts = np.zeros(S)
        trans_counts = np.zeros((S, S))
        total_ll = 0.0
        for bucket in data.buckets:
            E, lens, gpos = self._bucket_arrays(data, bucket, logE)
            Bst, alpha, G, logZ = self._forward_backward(E, lens)
            total_ll += float(logZ.sum())
            T = int(lens.max())
            post = np.exp(Bst[:, :T, :] + G[:, :T, :] - logZ[:, None, None])
            mask = np.arange(T)[None, :] < lens[:, None]
            gamma[gpos[mask]] = post[mask]
            start_counts += post[:, 0, :].sum(0)
            trans = np.exp(self.log_trans)
            for t in range(1, T):
                live = lens > t
                if not live.any():
                    break
                # Σ_n exp(alpha[n,t,s'] + log A[s',s] + G[n,t,s] - log Z_n), as a matrix product
                a, g = alpha[live, t, :], G[live, t, :]
                am, gm = _row_max(a), _row_max(g)
                w = np.exp(am + gm - logZ[live])
                trans_counts += trans * ((np.exp(a - am[:, None]) * w[:, None]).T @ np.exp(g - gm[:, None]))
        # M-step
        self.log_start = np.log((start_counts + 0.1) / (start_counts.sum() + 0.1 * S))
        self.log_trans = np.log((trans_counts + 0.1) / (trans_counts.sum(1, keepdims=True) + 0.1 * S))
        class_counts = np.zeros(len(CLASSES))
        pair_counts = np.zeros(len(self.pair_keys)) if self.pair_prior is not None else None
        for s, comp in enumerate(self._compiled):
            g = gamma[:, s]
            live = np.flatnonzero(g > 1e-12)
            if not len(live):
                continue
            for k, ante in comp.links:
                vals = np.stack([R[k - j, live + j] for j in ante])
                if self.combine == "geometric":
                    resp = np.full(vals.shape, 1.0 / len(ante))
                elif self.combine == "last":
                    resp = np.zeros(vals.shape)
                    resp[-1] = 1.0
                else:
                    resp = vals / np.maximum(vals.sum(0, keepdims=True), 1e-300)
                for r, j in zip(resp, ante):
                    w = g[live] * r
                    q = live + j
                    class_counts += np.bincount(data.cls[k - j, q], weights=w, minlength=len(CLASSES))
                    if pair_counts is not None:
                        idx = data.pair[k - j, q]
                        ok = idx >= 0
                        pair_counts += np.bincount(idx[ok], weights=w[ok], minlength=len(pair_counts))
        phi = class_counts + self.phi_prior * PHI_INIT / PHI_INIT.sum()
        self.phi = phi / phi.sum()
        if pair_counts is not None:
            self.pair_counts = pair_counts
            # how often two co-occurring words of each class are linked (the rate the pair layer shrinks to)
            self._class_rate = np.clip((class_counts + 0.5 * PHI_INIT) / (self._class_opps + 0.5), 1e-6, 1.0)
            a = self.pair_keys // self._v0
            self.antecedent_counts = np.bincount(a, weights=pair_counts, minlength=self._v0)
        return total_ll / max(P, 1)

    # -- decoding -------------------------------------------------------------------------------------
    def _prepare(self, end_words: Sequence[str]) -> _Data:
        data = self._pack([[str(w).lower() for w in end_words]])
        if self.pair_prior is not None:
            pos = np.arange(len(data.words))
            for d in range(1, self.max_len):
                p = pos[pos + d < len(data.words)]
                data.pair[d, p] = self._pair_index(data.words[p], data.words[p + d])
        return data

    def _ensure_ready(self) -> None:
        if not len(self.lex.u) or not self.lex.group_mass:
            self.lex.freeze(np.zeros(len(self.lex.words)), self.mass_shrink)

    def viterbi(self, end_words: Sequence[str]) -> list[Stanza]:
        """The most probable segmentation of a verse (its lines' end words) into stanzas with schemes;
        ``Stanza.pairs`` are the rhyming line pairs inside each stanza. An unfitted model decodes with its
        phonetic initialisation."""
        n = len(end_words)
        if n == 0:
            return []
        self._ensure_ready()
        data = self._prepare(end_words)
        logE, _ = self._log_emissions(data)
        S = len(self.schemes)
        L = self.lengths
        states = np.arange(S)
        score = np.full((n + 1, S), -np.inf)  # best path with a state-s segment ending at t
        start_best = np.full((n + 1, S), -np.inf)  # best log prob of starting state s at boundary t
        start_prev = np.full((n + 1, S), -1, np.int64)
        start_best[0] = self.log_start
        for t in range(1, n + 1):
            ok = t - L >= 0
            src, st = (t - L)[ok], states[ok]
            score[t, st] = start_best[src, st] + logE[src, st]
            cand = score[t, :, None] + self.log_trans
            start_prev[t] = np.argmax(cand, axis=0)
            start_best[t] = cand[start_prev[t], np.arange(S)]
        s = int(np.argmax(score[n]))
        t = n
        out: list[Stanza] = []
        while t > 0:
            begin = t - int(L[s])
            scheme = self.schemes[s]
            out.append(Stanza(begin, t, scheme, tuple(scheme_pairs(parse_scheme(scheme), begin))))
            prev = int(start_prev[begin, s]) if begin > 0 else -1
            t, s = begin, prev
        out.reverse()
        return out

    def rhyme_pairs(self, end_words: Sequence[str], *, link: bool = False) -> list[tuple[int, int]]:
        """Pairs of line indices ``(i, j)``, ``i < j``, that rhyme: inside the Viterbi stanzas, or with
        ``link=True`` inside the groups of :meth:`label` (linked across stanzas)."""
        if link:
            return scheme_pairs(self.label_groups(end_words))
        return [p for st in self.viterbi(end_words) for p in st.pairs]

    def log_ratio(self, a: str, b: str) -> float:
        """log ρ(a, b): how much more likely ``b`` is as a rhyme partner of ``a`` than as an unrelated word."""
        self._ensure_ready()
        ids = self.lex.ids([a.lower(), b.lower()])
        cls = self.lex.classes(ids[:1], ids[1:]).astype(np.int64)
        return float(np.log(self._ratio(ids[:1], ids[1:], cls)[0]))

    def label(self, end_words: Sequence[str]) -> str:
        """:meth:`label_groups` as letters such as ``"ABBAABBA"``."""
        return scheme_string(self.label_groups(end_words))

    def label_groups(self, end_words: Sequence[str]) -> tuple[int, ...]:
        """One scheme for the whole unit (e.g. a gold stanza): the Viterbi stanzas' groups, then groups linked
        across stanzas while the best pair of groups has mean log ρ over their cross pairs (within
        ``link_window`` lines) above log ``link_threshold``. Returns a restricted growth tuple."""
        return self._groups(end_words)[1]

    def _groups(self, end_words: Sequence[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(the Viterbi stanzas' own groups, the groups after splitting and linking) of one unit."""
        n = len(end_words)
        if n == 0:
            return (), ()
        stanzas = self.viterbi(end_words)
        group = np.empty(n, np.int64)
        next_id = 0
        for st in stanzas:
            local = parse_scheme(st.scheme)
            for i, g in enumerate(local):
                group[st.start + i] = next_id + g
            next_id += max(local) + 1
        own = parse_scheme(group.tolist())
        if n > 1:
            group = self._link(end_words, group)
        return own, parse_scheme(group.tolist())

    def label_units(
        self,
        units: Sequence[Sequence[str]],
        *,
        n_iter: int = 100,
        tol: float = 1e-6,
        penalty: float = 0.0,
        weight: float | None = None,
    ) -> list[tuple[int, ...]]:
        """Label many units (e.g. the stanzas of a poet) under a learned prior over whole-unit schemes, the
        piece of Reddy & Knight (2011, §4) that lets a poet's dominant form win where the sound is ambiguous.

        For each unit length n the candidates are the distinct schemes :meth:`label_groups` gives the units of
        that length, and the Viterbi stanzas' own groups (no split, no cross-stanza links). A unit's score
        under scheme s is a log-likelihood ratio of its end words against "no line rhymes":

            score(u, s) = Σ_j log ρ(w_{a(j)}, w_j) − penalty · Σ_{i<j, s_i≠s_j} max(0, log ρ(w_i, w_j))

        with a(j) the latest earlier line of j's group (lines first in their group add 0). The prior π_n over
        the candidates is fitted by EM (a mixture with fixed components; the objective
        Σ_u log Σ_s π_n(s) exp(λ·score(u, s)) never decreases: ``self.prior_history``), starting uniform:
        posterior(s | u) ∝ π_n(s) exp(λ·score(u, s)), π_n(s) ← mean posterior over the units of length n.
        λ = ``weight`` (default: the model's ``prior_weight``, 0.3) tempers the pair evidence, which counts
        every repeated rhyme as independent: with λ = 1 a sonnet whose quatrains reuse a sound is linked into
        one group however dominant ABABCDCDEFEFGG is. Each unit gets its most probable scheme a posteriori;
        the fitted priors are in ``self.scheme_prior`` (length → scheme → probability). Returns restricted growth
        tuples, like :meth:`label_groups`.

        >>> hmm = RhymeSchemeHMM().fit([["day", "night", "way", "light"], ["cat", "hat", "dog", "log"]])
        >>> [scheme_string(g) for g in hmm.label_units([["sing", "moon", "ring", "june"]])]
        ['ABAB']
        """
        weight = self.prior_weight if weight is None else float(weight)
        if not weight > 0:
            raise InputError("the evidence weight of label_units must be positive")
        self._ensure_ready()
        units = [[str(w).lower() for w in u] for u in units]
        out: list[tuple[int, ...]] = [()] * len(units)
        by_len: dict[int, list[int]] = {}
        for k, u in enumerate(units):
            by_len.setdefault(len(u), []).append(k)
        self.scheme_prior = {}
        self.prior_history = {}
        for n, members in sorted(by_len.items()):
            if n == 0:
                continue
            groups = [self._groups(units[k]) for k in members]
            if n == 1:
                for k in members:
                    out[k] = (0,)
                continue
            cands = sorted(_with_merges({g for pair in groups for g in pair}))
            score = weight * self._scheme_scores([units[k] for k in members], cands, penalty)  # [U, K]
            log_pi = np.full(len(cands), -math.log(len(cands)))
            history: list[float] = []
            for _ in range(max(n_iter, 1)):
                joint = score + log_pi
                norm = _logsumexp(joint, axis=1)
                history.append(float(norm.sum()))
                post = np.exp(joint - norm[:, None])
                with np.errstate(divide="ignore"):
                    log_pi = np.log(post.mean(0))
                if len(history) > 1 and history[-1] - history[-2] < tol * len(members):
                    break
            best = np.argmax(score + log_pi, axis=1)
            for k, b in zip(members, best):
                out[k] = cands[int(b)]
            self.scheme_prior[n] = {
                scheme_string(c): float(np.exp(v)) for c, v in zip(cands, log_pi) if v > -30
            }
            self.prior_history[n] = history
        return out

    def _scheme_scores(
        self, units: Sequence[Sequence[str]], cands: Sequence[tuple[int, ...]], penalty: float
    ) -> np.ndarray:
        """score(u, s) of :meth:`label_units` for units of one length n and candidate schemes: [U, K]."""
        n = len(units[0])
        ids = np.array([self.lex.ids(u) for u in units], np.int64)  # [U, n]
        i_idx, j_idx = np.triu_indices(n, 1)
        a, b = ids[:, i_idx].ravel(), ids[:, j_idx].ravel()
        logr = np.log(np.maximum(self._ratio(a, b, self.lex.classes(a, b).astype(np.int64)), 1e-300))
        lr = np.zeros((len(units), n, n))
        lr[:, i_idx, j_idx] = logr.reshape(len(units), -1)
        excess = np.maximum(lr, 0.0)
        scores = np.zeros((len(units), len(cands)))
        for c, scheme in enumerate(cands):
            last: dict[int, int] = {}
            ant_i, ant_j = [], []
            for j, g in enumerate(scheme):
                if g in last:
                    ant_i.append(last[g])
                    ant_j.append(j)
                last[g] = j
            s = lr[:, ant_i, ant_j].sum(1) if ant_i else np.zeros(len(units))
            if penalty:
                g = np.asarray(scheme)
                diff = g[i_idx] != g[j_idx]
                s = s - penalty * excess[:, i_idx[diff], j_idx[diff]].sum(1)
            scores[:, c] = s
        return scores

    def _split(self, ids: np.ndarray, group: np.ndarray) -> np.ndarray:
        """Take out of its group, one at a time, the line whose mean log ρ to the rest of the group is lowest,
        while that mean is below log ``split_threshold`` (the HMM's prior put it there, not its sound)."""
        limit = math.log(self.split_threshold)
        next_id = int(group.max()) + 1
        order = np.argsort(group, kind="stable")
        bounds = np.flatnonzero(np.diff(group[order])) + 1
        for members in np.split(order, bounds):
            members = list(members)
            while len(members) > 1:
                m = np.array(members)
                i_idx, j_idx = np.triu_indices(len(m), 1)
                a, b = ids[m[i_idx]], ids[m[j_idx]]
                lr = np.zeros((len(m), len(m)))
                lr[i_idx, j_idx] = np.log(
                    np.maximum(self._ratio(a, b, self.lex.classes(a, b).astype(np.int64)), 1e-300)
                )
                lr = lr + lr.T
                mean = lr.sum(1) / (len(m) - 1)
                worst = int(np.argmin(mean))
                if mean[worst] >= limit:
                    break
                out = members.pop(1 if len(members) == 2 else worst)
                group[out] = next_id
                next_id += 1
        return group

    def _link(self, end_words: Sequence[str], group: np.ndarray) -> np.ndarray:
        """Split weak group members, then link groups whose cross pairs (at most ``link_window`` lines apart)
        have mean log ρ above log ``link_threshold``, strongest first (one pass, union-find: linear in the
        number of lines for a fixed window)."""
        n = len(end_words)
        ids = self.lex.ids([str(w).lower() for w in end_words])
        group = group.copy()
        if self.split_threshold is not None:
            group = self._split(ids, group)
        window = n - 1 if self.link_window is None else min(self.link_window, n - 1)
        pos = np.arange(n)
        i_idx = np.concatenate([pos[: n - d] for d in range(1, window + 1)]) if window > 0 else pos[:0]
        j_idx = np.concatenate([pos[d:] for d in range(1, window + 1)]) if window > 0 else pos[:0]
        cross = group[i_idx] != group[j_idx]
        i_idx, j_idx = i_idx[cross], j_idx[cross]
        if not len(i_idx):
            return group
        a, b = ids[i_idx], ids[j_idx]
        logr = np.log(np.maximum(self._ratio(a, b, self.lex.classes(a, b).astype(np.int64)), 1e-300))
        gi, gj = group[i_idx], group[j_idx]
        lo, hi = np.minimum(gi, gj), np.maximum(gi, gj)
        m = int(group.max()) + 1
        uniq, inv = np.unique(lo * m + hi, return_inverse=True)
        mean = np.bincount(inv, weights=logr) / np.bincount(inv)
        parent = list(range(m))

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        threshold = math.log(self.link_threshold)
        for k in np.argsort(-mean, kind="stable"):
            if mean[k] <= threshold:
                break
            g_lo, g_hi = divmod(int(uniq[k]), m)
            r_lo, r_hi = root(g_lo), root(g_hi)
            if r_lo != r_hi:
                parent[max(r_lo, r_hi)] = min(r_lo, r_hi)
        return np.array([root(int(g)) for g in group], np.int64)

    # -- lines ----------------------------------------------------------------------------------------
    def detect(self, lines: Sequence[str]) -> list[Stanza]:
        """Segment a verse given as lines of text (see :func:`detect_schemes`)."""
        return self.viterbi([end_word(line) for line in lines])


def _with_merges(schemes: set[tuple[int, ...]], max_moves: int = 16) -> set[tuple[int, ...]]:
    """The schemes plus, for each, every variant that moves one line into another group or a group of its own
    (a rhyme the pair evidence was too weak to link, e.g. ABABCB → ABABAB, or one put in the wrong group,
    AABCCC → AABCCB); for schemes longer than ``max_moves`` lines only lines alone in their group move."""
    out = set(schemes)
    for scheme in schemes:
        sizes = Counter(scheme)
        fresh = max(scheme) + 1
        for line, g in enumerate(scheme):
            if sizes[g] != 1 and len(scheme) > max_moves:
                continue
            for h in [*sizes, fresh]:
                if h != g:
                    moved = list(scheme)
                    moved[line] = h
                    out.add(parse_scheme(moved))
    return out


# ------------------------------------------------------------------------------------------- front doors
def fit_corpus_detector(corpus: Corpus | Iterable[Sequence[str]], **params: Any) -> RhymeSchemeHMM:
    """A :class:`RhymeSchemeHMM` trained on a corpus's verses (a :class:`~creval.corpus.model.Corpus` or an
    iterable of verses given as lists of lines)."""
    verses = corpus.verses if hasattr(corpus, "verses") else corpus
    lines = [v.lines if hasattr(v, "lines") else v for v in verses]
    ends = [[end_word(line) for line in vl] for vl in lines if len(vl)]
    return RhymeSchemeHMM(**params).fit(ends)


def detect_schemes(lines: Sequence[str], model: RhymeSchemeHMM | None = None) -> list[Stanza]:
    """Stanzas with rhyme schemes and rhyming line pairs of a verse given as lines of text.

    With no ``model``, a :class:`RhymeSchemeHMM` is trained on the verse itself (unsupervised, a few EM
    iterations: fine for a long verse; for many short verses fit one model on all of them with
    :func:`fit_corpus_detector` and pass it). Lines without a word occupy a position and never rhyme.
    """
    lines = list(lines)
    if not lines:
        return []
    if model is None:
        ends = [end_word(line) for line in lines]
        model = RhymeSchemeHMM(n_iter=5).fit([ends])
    return model.detect(lines)


def verse_scheme(lines: Sequence[str], model: RhymeSchemeHMM | None = None) -> str:
    """The scheme of a verse as text, stanzas separated by spaces and letters running on across them:
    ``"ABAB CDCD EE"``."""
    stanzas = detect_schemes(lines, model)
    out = []
    names: dict[tuple[int, int], str] = {}
    for st in stanzas:
        local = parse_scheme(st.scheme)
        text = ""
        for g in local:
            key = (st.start, g)
            if key not in names:
                idx = len(names)
                names[key] = _LETTERS[idx] if idx < len(_LETTERS) else f"<{idx}>"
            text += names[key]
        out.append(text)
    return " ".join(out)


# ------------------------------------------------------------------------------------------ Chicago gold
@dataclass(frozen=True)
class GoldStanza:
    """A stanza of a Chicago ``.pgold`` file: poem id, end words, scheme (restricted growth tuple), the
    1-based line of its record."""

    poem: str
    words: tuple[str, ...]
    scheme: tuple[int, ...]
    line: int


def read_pgold(path: str | Path) -> tuple[list[GoldStanza], int]:
    """Read a Chicago Rhyming Poetry Corpus gold file: records of ``POEMn w1 … wn`` / stanza scheme / scheme in
    the poem / blank line. Returns (stanzas, number of records skipped because word and label counts differ).
    Raises :class:`~creval.errors.InputError` naming the file and line for a malformed record."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read gold file: {exc.strerror or exc}", path) from None
    lines = text.splitlines()
    stanzas: list[GoldStanza] = []
    skipped = 0
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        first = i
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i].split())
            i += 1
        if len(block) not in (2, 3):
            raise InputError(
                f"a record has {len(block)} line(s); expected 'POEMn words', the scheme and the scheme in the poem",
                path,
                first + 1,
            )
        for k, row in enumerate(block[1:], start=1):
            if not all(lab.lstrip("-").isdigit() for lab in row):
                raise InputError(
                    f"rhyme-scheme line must be integers, found {' '.join(row)[:40]!r}", path, first + 1 + k
                )
        head, labels = block[0], block[1]
        words = tuple(w.lower() for w in head[1:])
        if not head[0].upper().startswith("POEM") or len(labels) != len(words):
            skipped += 1  # broken record in the corpus (e.g. a header split over two records)
            continue
        stanzas.append(GoldStanza(head[0], words, parse_scheme([int(x) for x in labels]), first + 1))
    return stanzas, skipped


def baseline_table(stanzas: Iterable[GoldStanza]) -> dict[int, tuple[int, ...]]:
    """The most common gold scheme for each stanza length (ties: the scheme seen first)."""
    by_len: dict[int, Counter] = {}
    for st in stanzas:
        by_len.setdefault(len(st.scheme), Counter())[st.scheme] += 1
    return {n: c.most_common(1)[0][0] for n, c in by_len.items()}


def _pair_set(scheme: Sequence[int]) -> set[tuple[int, int]]:
    return set(scheme_pairs(scheme))


def score_schemes(gold: Sequence[Sequence[int]], predicted: Sequence[Sequence[int]]) -> dict[str, float]:
    """Scheme accuracy (exact match up to renaming) and micro-averaged precision/recall/F1 over the unordered
    line pairs inside each stanza that share a label."""
    if len(gold) != len(predicted):
        raise InputError(f"{len(gold)} gold schemes but {len(predicted)} predicted")
    correct = tp = n_pred = n_gold = 0
    for g, p in zip(gold, predicted):
        g, p = parse_scheme(g), parse_scheme(p)
        if len(g) != len(p):
            raise InputError(f"scheme lengths differ: {scheme_string(g)} vs {scheme_string(p)}")
        correct += g == p
        gs, ps = _pair_set(g), _pair_set(p)
        tp += len(gs & ps)
        n_pred += len(ps)
        n_gold += len(gs)
    precision = tp / n_pred if n_pred else float("nan")
    recall = tp / n_gold if n_gold else float("nan")
    f1 = 2 * precision * recall / (precision + recall) if n_pred and n_gold and precision + recall else 0.0
    return {
        "stanzas": float(len(gold)),
        "accuracy": correct / len(gold) if gold else float("nan"),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def evaluate_on_gold(
    pgold_path: str | Path,
    *,
    model: RhymeSchemeHMM | None = None,
    baseline: dict[int, tuple[int, ...]] | None = None,
    prior: bool = True,
    **params: Any,
) -> dict[str, Any]:
    """Evaluate on one Chicago gold file.

    Protocol: the gold stanza boundaries are given; the model (``model`` if passed, else a
    :class:`RhymeSchemeHMM` with ``params`` trained unsupervised on this file's end words, one verse per
    stanza, labels never seen) labels the stanzas: with ``prior`` (default) all at once by
    :meth:`RhymeSchemeHMM.label_units` (a prior over whole-stanza schemes per length, fitted by EM on this
    poet's stanzas, no labels), else one at a time by :meth:`RhymeSchemeHMM.label_groups`. The baseline gives every
    stanza the most common scheme for its length from ``baseline`` (a :func:`baseline_table`, e.g. built from
    the *other* poets' files; None: from this file itself, which is an oracle that peeks at the labels); a
    length missing from the table gets all lines unrhymed. Returns ``{"model": scores, "baseline": scores,
    "skipped": n}`` with the scores of :func:`score_schemes`.
    """
    stanzas, skipped = read_pgold(pgold_path)
    if not stanzas:
        raise InputError("no usable stanzas in the gold file", pgold_path)
    if model is None:
        model = RhymeSchemeHMM(**params).fit([st.words for st in stanzas])
    if prior and hasattr(model, "label_units"):
        predicted = model.label_units([st.words for st in stanzas])
    else:
        predicted = [model.label_groups(st.words) for st in stanzas]
    table = baseline if baseline is not None else baseline_table(stanzas)
    base = [table.get(len(st.scheme), tuple(range(len(st.scheme)))) for st in stanzas]
    gold = [st.scheme for st in stanzas]
    return {
        "model": score_schemes(gold, predicted),
        "baseline": score_schemes(gold, base),
        "skipped": skipped,
        "predicted": predicted,
    }
