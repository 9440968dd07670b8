"""The n-gram ghostwriter baseline of Potash, Romanov & Rumshisky (2016), section 5.

An order-``n`` Markov model trained on one artist's verses generates whole verses, line breaks and verse end
included: every training verse becomes the token stream

.. math::

    \\underbrace{\\langle s\\rangle \\dots \\langle s\\rangle}_{n-1}\\; w_{1,1} \\dots w_{1,L_1}\\;
    \\langle nl\\rangle\\; w_{2,1} \\dots \\langle nl\\rangle \\dots w_{m,L_m}\\; \\langle /v\\rangle

and the model is the maximum-likelihood estimate

.. math::

    P(w_t \\mid w_{t-n+1..t-1}) = \\frac{c(w_{t-n+1..t})}{c(w_{t-n+1..t-1})}

(no smoothing, as in the paper: generation only follows transitions seen in training, so every context it
reaches has at least one continuation). Generation starts from the start padding and samples tokens until
``</v>``. The paper varies ``n`` from 1 to 9 and treats ``n`` as the "training iteration" of the baseline in the
"unique yet similar" analysis (larger ``n`` copies more of the training data); :func:`generate_baselines` writes
``checkpoint = n``.

Decisions the paper leaves open (documented here, tested in ``tests/analysis/test_ngram.py``):

- Tokens: ``"whitespace"`` (default) keeps each line's words exactly as written (case, punctuation attached),
  so that generated text reads like the corpus and the downstream measures tokenize it their own way;
  ``"char"`` makes every non-space character a token (Chinese), joined without spaces; ``"auto"`` picks
  ``"char"`` when the artist's text is in an unspaced script.
- A verse must hold at least one word: ``</v>`` is not drawn before the first word (the distribution is
  renormalised over the other tokens), and a ``<nl>`` that would produce an empty line is dropped when the
  text is rendered (a blank line separates verses in every corpus format, so it cannot appear inside one).
- A verse that reaches ``max_tokens`` tokens (default: twice the longest training verse plus ten) is cut
  there and marked ``"truncated": true`` in :attr:`Output.extra`; only the unigram model gets near it.
- Seeds: :class:`NgramGhostwriter` draws from ``numpy.random.default_rng(seed)``; :func:`generate_baselines`
  derives one seed per (artist, n) from ``(seed, crc32(artist), n)``, so adding an artist does not change the
  others' verses, and the same arguments always give the same verses.

The model is saved as JSON (:meth:`NgramGhostwriter.save` / :meth:`NgramGhostwriter.load`): the vocabulary and
the counts table, never a pickle.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval.corpus.model import Corpus, Output, Verse
from creval.errors import InputError

START = "<s>"
NEWLINE = "<nl>"
END = "</v>"
SPECIAL = (START, NEWLINE, END)
FORMAT = "creval-ngram/1"
_TOKENIZERS = ("whitespace", "char", "auto")


def _split_line(line: str, mode: str) -> list[str]:
    if mode == "char":
        return [c for c in line if not c.isspace()]
    return line.split()


class NgramGhostwriter:
    """An order-``n`` verse generator (see the module docstring for the model and its decisions).

    >>> gw = NgramGhostwriter(3, seed=1).fit(["a b c\\nd e f", "a b d\\nc e f"])
    >>> texts = gw.generate(2)
    """

    def __init__(self, n: int, seed: int | None = 0, *, tokenizer: str = "whitespace",
                 max_tokens: int | None = None) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InputError(f"n-gram order must be a positive integer, got {n!r}")
        if tokenizer not in _TOKENIZERS:
            raise InputError(f"unknown n-gram tokenizer {tokenizer!r}; choose one of {', '.join(_TOKENIZERS)}")
        if max_tokens is not None and max_tokens < 1:
            raise InputError(f"max_tokens must be positive, got {max_tokens!r}")
        self.n = int(n)
        self.seed = seed
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.vocab: list[str] = list(SPECIAL)
        self._index: dict[str, int] = {tok: i for i, tok in enumerate(self.vocab)}
        self.counts: dict[tuple[int, ...], dict[int, int]] = {}
        self.artist: str | None = None
        self.n_verses = 0
        self.longest = 0
        self._table: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
        self._rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------------------------------------- fit
    @property
    def mode(self) -> str:
        return getattr(self, "_mode", "whitespace" if self.tokenizer == "auto" else self.tokenizer)

    def _id(self, token: str) -> int:
        idx = self._index.get(token)
        if idx is None:
            idx = len(self.vocab)
            self._index[token] = idx
            self.vocab.append(token)
        return idx

    def fit(self, verses: Iterable[Verse | str | Sequence[str]], artist: str | None = None) -> NgramGhostwriter:
        """Count the n-grams of ``verses`` (``Verse`` objects, texts with ``\\n`` between lines, or lists of
        lines). Returns ``self``. Raises :class:`InputError` when no verse has a word."""
        items = []
        for verse in verses:
            if isinstance(verse, Verse):
                lines = list(verse.lines)
                if artist is None:
                    artist = verse.artist
            elif isinstance(verse, str):
                lines = verse.split("\n")
            else:
                lines = [str(x) for x in verse]
            items.append(lines)
        if self.tokenizer == "auto":
            from creval.text.tokenize import has_unspaced_script

            sample = "\n".join("\n".join(lines) for lines in items[:200])
            self._mode = "char" if has_unspaced_script(sample) else "whitespace"
        mode = self.mode
        n = self.n
        counts: dict[tuple[int, ...], dict[int, int]] = {}
        pad = [0] * (n - 1)
        n_verses = 0
        longest = 0
        for lines in items:
            body: list[int] = []
            for line in lines:
                words = _split_line(line, mode)
                if not words:
                    continue
                if body:
                    body.append(1)
                body.extend(self._id(w) for w in words)
            if not body:
                continue
            n_verses += 1
            longest = max(longest, len(body) + 1)
            stream = pad + body + [2]
            for t in range(n - 1, len(stream)):
                ctx = tuple(stream[t - n + 1 : t])
                nxt = counts.setdefault(ctx, {})
                nxt[stream[t]] = nxt.get(stream[t], 0) + 1
        if n_verses == 0:
            raise InputError("no verse with any word to train the n-gram model on")
        self.counts = counts
        self.n_verses = n_verses
        self.longest = longest
        self.artist = artist
        self._build_table()
        return self

    def _build_table(self) -> None:
        self._table = {}  # filled lazily by _entry: generation visits few of the contexts

    def _entry(self, ctx: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        entry = self._table.get(ctx)
        if entry is None:
            nxt = self.counts[ctx]
            ids = np.fromiter(nxt.keys(), dtype=np.int64, count=len(nxt))
            cnt = np.fromiter(nxt.values(), dtype=np.float64, count=len(nxt))
            cum = np.cumsum(cnt)
            # the same distribution without </v>, used before the verse has any word
            keep = ids != 2
            cum_noend = np.cumsum(cnt[keep]) if keep.any() and not keep.all() else None
            entry = self._table[ctx] = (ids, cum, cum_noend)
        return entry

    # -------------------------------------------------------------------------------------------- generate
    def _check_fitted(self) -> None:
        if not self.counts:
            raise InputError("the n-gram model is not trained: call fit() first")

    def generate_one(self, rng: np.random.Generator | None = None) -> tuple[str, bool]:
        """One verse as text (lines joined by ``\\n``) and whether it was cut at ``max_tokens``."""
        self._check_fitted()
        rng = self._rng if rng is None else rng
        n = self.n
        limit = self.max_tokens or (2 * self.longest + 10)
        history = [0] * (n - 1)
        lines: list[list[str]] = [[]]
        words = 0
        truncated = True
        for _ in range(limit):
            ctx = tuple(history[len(history) - n + 1 :]) if n > 1 else ()
            ids, cum, cum_noend = self._entry(ctx)
            if words == 0 and cum_noend is not None:
                ids_use = ids[ids != 2]
                tok = int(ids_use[np.searchsorted(cum_noend, rng.random() * cum_noend[-1], side="right")])
            else:
                tok = int(ids[np.searchsorted(cum, rng.random() * cum[-1], side="right")])
            if tok == 2:
                if words:
                    truncated = False
                    break
                continue  # only </v> can follow: the model has nothing else to say here; try again
            history.append(tok)
            if tok == 1:
                if lines[-1]:
                    lines.append([])
            else:
                lines[-1].append(self.vocab[tok])
                words += 1
        joiner = "" if self.mode == "char" else " "
        text = "\n".join(joiner.join(line) for line in lines if line)
        return text, truncated

    def generate(self, count: int = 5) -> list[str]:
        """``count`` verses (texts with ``\\n`` between lines), drawn from this object's seeded generator."""
        if count < 0:
            raise InputError(f"count must be >= 0, got {count}")
        return [self.generate_one()[0] for _ in range(count)]

    # ------------------------------------------------------------------------------------------- save/load
    def to_dict(self) -> dict[str, Any]:
        self._check_fitted()
        return {
            "format": FORMAT,
            "n": self.n,
            "seed": self.seed,
            "tokenizer": self.tokenizer,
            "mode": self.mode,
            "max_tokens": self.max_tokens,
            "artist": self.artist,
            "verses": self.n_verses,
            "longest": self.longest,
            "vocab": self.vocab,
            "counts": [[list(ctx), list(nxt.keys()), list(nxt.values())] for ctx, nxt in self.counts.items()],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str | Path | None = None) -> NgramGhostwriter:
        try:
            if data.get("format") != FORMAT:
                raise InputError(f"not a creval n-gram model (format {data.get('format')!r}, expected {FORMAT!r})",
                                 source)
            model = cls(int(data["n"]), data.get("seed"), tokenizer=data["tokenizer"],
                        max_tokens=data.get("max_tokens"))
            model._mode = data["mode"]
            model.vocab = [str(t) for t in data["vocab"]]
            model._index = {t: i for i, t in enumerate(model.vocab)}
            model.artist = data.get("artist")
            model.n_verses = int(data["verses"])
            model.longest = int(data["longest"])
            counts: dict[tuple[int, ...], dict[int, int]] = {}
            size = len(model.vocab)
            for ctx, ids, cnts in data["counts"]:
                if len(ctx) != model.n - 1 or len(ids) != len(cnts) or not ids:
                    raise InputError("malformed counts row in the n-gram model", source)
                if any(not 0 <= int(i) < size for i in [*ctx, *ids]) or any(int(c) < 1 for c in cnts):
                    raise InputError("n-gram model counts refer to unknown tokens or are not positive", source)
                counts[tuple(int(i) for i in ctx)] = {int(i): int(c) for i, c in zip(ids, cnts)}
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InputError):
                raise
            raise InputError(f"malformed n-gram model ({type(exc).__name__}: {exc})", source) from None
        if not counts:
            raise InputError("the n-gram model has no counts", source)
        model.counts = counts
        model._build_table()
        return model

    def save(self, path: str | Path) -> Path:
        """Write the model as JSON (atomically)."""
        from creval.corpus.io import atomic_write

        path = Path(path)
        with atomic_write(path) as handle:
            json.dump(self.to_dict(), handle, ensure_ascii=False, separators=(",", ":"))
        return path

    @classmethod
    def load(cls, path: str | Path, seed: int | None = None) -> NgramGhostwriter:
        """Read a model written by :meth:`save`; ``seed`` (when given) replaces the stored seed."""
        from creval.corpus.io import read_text

        path = Path(path)
        text = read_text(path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path, exc.lineno) from None
        if not isinstance(data, dict):
            raise InputError("expected a JSON object (a creval n-gram model)", path, 1)
        model = cls.from_dict(data, path)
        if seed is not None:
            model.seed = seed
        model._rng = np.random.default_rng(model.seed)
        return model


# ----------------------------------------------------------------------------------------------- baselines
def baseline_seed(seed: int, artist: str, n: int) -> np.random.SeedSequence:
    """The seed of one (artist, n) model in :func:`generate_baselines`."""
    return np.random.SeedSequence([int(seed) & 0xFFFFFFFF, zlib.crc32(artist.encode("utf-8")), int(n)])


def _slug(text: str) -> str:
    return "-".join(text.lower().split())


def baseline_outputs(model: NgramGhostwriter, count: int, *, artist: str, system: str = "ngram",
                     rng: np.random.Generator | None = None) -> list[Output]:
    """``count`` outputs of one trained model, with ``checkpoint = n`` and ids ``SYSTEM-ARTIST-nN-I``."""
    outputs = []
    for i in range(count):
        text, truncated = model.generate_one(rng)
        extra = {"truncated": True} if truncated else {}
        outputs.append(Output(
            id=f"{system}-{_slug(artist)}-n{model.n}-{i}",
            system=system,
            text=text,
            artist=artist,
            input_id=f"{system}:{artist}:n{model.n}",
            sample=str(i),
            checkpoint=float(model.n),
            extra=extra,
        ))
    return outputs


def train_baselines(corpus: Corpus, artists: Sequence[str] | None = None, orders: Iterable[int] = range(1, 10),
                    *, tokenizer: str = "whitespace", max_tokens: int | None = None) -> list[NgramGhostwriter]:
    """One trained model per artist and order (artist-major order), for :func:`save_models`."""
    orders = [int(n) for n in orders]
    if not orders:
        raise InputError("no n-gram orders given")
    groups = corpus.by_artist()
    names = list(groups) if artists is None else list(artists)
    missing = [a for a in names if a not in groups]
    if missing:
        known = ", ".join(groups) or "(none)"
        raise InputError(f"artist(s) not in the corpus: {', '.join(missing)}; known: {known}")
    return [
        NgramGhostwriter(n, seed=None, tokenizer=tokenizer, max_tokens=max_tokens).fit(groups[artist], artist)
        for artist in names
        for n in orders
    ]


def generate_from_models(models: Sequence[NgramGhostwriter], per_order: int = 5, seed: int = 0, *,
                         system: str = "ngram") -> list[Output]:
    """``per_order`` outputs from each trained model, seeded per (artist, n) like :func:`generate_baselines`."""
    if per_order < 0:
        raise InputError(f"per_order must be >= 0, got {per_order}")
    outputs: list[Output] = []
    for model in models:
        artist = model.artist or "unknown"
        rng = np.random.default_rng(baseline_seed(seed, artist, model.n))
        outputs.extend(baseline_outputs(model, per_order, artist=artist, system=system, rng=rng))
    return outputs


BUNDLE_FORMAT = "creval-ngram-bundle/1"


def save_models(models: Sequence[NgramGhostwriter], path: str | Path) -> Path:
    """Write several trained models to one JSON file (atomically)."""
    from creval.corpus.io import atomic_write

    path = Path(path)
    data = {"format": BUNDLE_FORMAT, "models": [m.to_dict() for m in models]}
    with atomic_write(path) as handle:
        json.dump(data, handle, ensure_ascii=False, separators=(",", ":"))
    return path


def load_models(path: str | Path) -> list[NgramGhostwriter]:
    """Read a file written by :func:`save_models` (or a single model written by :meth:`NgramGhostwriter.save`)."""
    from creval.corpus.io import read_text

    path = Path(path)
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path, exc.lineno) from None
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return [NgramGhostwriter.from_dict(data, path)]
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT or not isinstance(data.get("models"), list):
        raise InputError(f"not a creval n-gram model file (expected format {BUNDLE_FORMAT!r})", path, 1)
    if not data["models"]:
        raise InputError("the model file holds no models", path, 1)
    models = []
    for i, item in enumerate(data["models"]):
        if not isinstance(item, dict):
            raise InputError(f"model #{i} is not a JSON object", path, 1)
        models.append(NgramGhostwriter.from_dict(item, f"{path} (model #{i})"))
    return models


def generate_baselines(corpus: Corpus, artists: Sequence[str] | None = None, orders: Iterable[int] = range(1, 10),
                       per_order: int = 5, seed: int = 0, *, system: str = "ngram",
                       tokenizer: str = "whitespace", max_tokens: int | None = None) -> list[Output]:
    """Train one model per artist and order and generate ``per_order`` verses from each.

    Every output has ``system`` (default ``"ngram"``), ``artist``, ``checkpoint = n``, ``sample = i`` and
    ``input_id = "SYSTEM:ARTIST:nN"`` (the five verses of one (artist, n) are samples for one input, so the
    nondeterministic-systems analysis and diversity across samples apply to them). Reproducible: the same
    arguments give the same verses (see :func:`baseline_seed`).
    """
    if per_order < 0:
        raise InputError(f"per_order must be >= 0, got {per_order}")
    models = train_baselines(corpus, artists, orders, tokenizer=tokenizer, max_tokens=max_tokens)
    return generate_from_models(models, per_order, seed, system=system)
